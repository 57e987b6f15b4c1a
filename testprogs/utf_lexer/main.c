/*
 * utf_lexer - php/php-src#3957: "Avoid UTF-8 validating same string multiple
 * times" (https://github.com/php/php-src/pull/3957, fix for
 * https://bugs.php.net/bug.php?id=72685; merged into PHP 7.4 as commit 2b9acd37).
 *
 * The real bug: "a huge performance problem when implementing lexers working on
 * UTF-8 strings in PHP. This kind of code tends to perform a large number of matches
 * at different offsets on a single string. This is generally fast. However, if /u
 * mode is used, the full string will be UTF-8 validated on each match. This results
 * in quadratic runtime." php_pcre_match_impl (ext/pcre/php_pcre.c) passes
 * PCRE2_NO_UTF_CHECK only when the pattern is not in UTF mode, so pcre2_match checks
 * the whole subject at each preg_match($re, $src, $m, 0, $offset) call. The fix
 * flags a string once it was found valid (IS_STR_VALID_UTF8) and passes
 * PCRE2_NO_UTF_CHECK for a flagged string: the caller-side API function stops
 * asking for a check of the whole subject at every call. PCRE2 itself is unchanged.
 *
 * Here (C, PHP's and PCRE2's functions reduced): a code-search service runs a
 * userland lexer (preg_match with /u at increasing offsets, one token per call,
 * as the report's lexers do) over the texts it indexes, keeps each token (type,
 * line, offset, length) and hashes them. The slow run is the same binary on
 * different input, the one the report describes: normal: 240,000 commit messages
 * and log lines of about 60-200 bytes, each its own subject; buggy: 20 source files
 * of about 24 KB, each lexed as one subject. The same lexer, the same pattern; each
 * preg_match call validates the whole subject, 60-200 bytes against 24 KB.
 *
 * Root cause: php_pcre_match_impl() (php_pcre.c), the options it passes (ROOT
 * CAUSE). Its cost is paid in its callee's callee, _pcre2_valid_utf
 * (pcre2_valid_utf.c), which walks the length it is given. Key variables: options,
 * start_offset (php_pcre_match_impl), subject_str->len. Pattern: missing constraint
 * (the same walk repeated over a subject that the walk already found valid and
 * nothing changed: the check that it was done is missing).
 *
 * Files, as in PHP and PCRE2: php_pcre.c (ext/pcre, the root cause), pcre2_match.c
 * and pcre2_valid_utf.c (PCRE2's src/), utf_lexer.h; main.c (this driver: the
 * indexing service and its userland lexer).
 */
#include "utf_lexer.h"

#define N_MESSAGES 240000
#define N_FILES 20
#define FILE_BYTES 24000

static uint64_t rng = 88172645463325252ull;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static const char *const words[] = {
	"function", "return", "$this", "array", "foreach", "Überprüfung", "naïve", "count",
	"strlen", "échec", "null", "static", "self", "résumé", "Straße", "if", "else",
	"données", "while", "new", "public", "private", "const", "Ärger", "true", "false",
};
#define N_WORDS (sizeof words / sizeof words[0])

/* Appends text of about n bytes: words, numbers, punctuation, strings, newlines. */
static size_t gen_text(unsigned char *out, size_t n)
{
	size_t o = 0;
	while (o + 40 < n) {
		unsigned r = rnd(16);
		const char *w;
		char num[16];
		if (r < 10)
			w = words[rnd(N_WORDS)];
		else if (r < 12) {
			snprintf(num, sizeof num, "%u", rnd(100000));
			w = num;
		} else if (r == 12)
			w = "\"déjà vu\"";
		else if (r == 13)
			w = "->";
		else if (r == 14)
			w = "(";
		else
			w = ");\n";
		size_t l = strlen(w);
		memcpy(out + o, w, l);
		o += l;
		out[o++] = ' ';
	}
	out[o++] = '\n';
	return o;
}

/* The userland lexer: one preg_match per token, at the token's offset. */
static size_t lex(pcre_cache_entry *pce, zend_string *src, token *toks, size_t max,
		  uint64_t *hash)
{
	size_t offset = 0, n = 0;
	uint32_t line = 1;
	zval_match m;
	while (offset < src->len && n < max) {
		int rc = php_pcre_match_impl(pce, src, offset, &m);
		if (rc <= 0)
			break;
		token *t = &toks[n++];
		t->type = m.kind;
		t->line = line;
		t->offset = m.start;
		t->len = m.end - m.start;
		for (size_t i = m.start; i < m.end; i++)
			line += src->val[i] == '\n';
		if (t->type != T_WHITESPACE)
			*hash = (*hash ^ (t->type * 131u + t->len)) * 1099511628211ull;
		offset = m.end;
	}
	return n;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  Lexes texts with preg_match /u at increasing offsets (php/php-src#3957).\n"
		"  normal: %d short messages, each its own subject; buggy: %d source files of\n"
		"  about %d bytes, each one subject.\n",
		argv0, N_MESSAGES, N_FILES, FILE_BYTES);
	return 2;
}

int main(int argc, char **argv)
{
	int buggy;
	if (argc != 2)
		return usage(argv[0]);
	if (strcmp(argv[1], "normal") == 0)
		buggy = 0;
	else if (strcmp(argv[1], "buggy") == 0)
		buggy = 1;
	else
		return usage(argv[0]);

	pcre2_code re;
	pcre2_compile_lexer(&re, PCRE2_UTF);
	pcre_cache_entry pce = {&re, re.compile_options, 1, 0};

	int n_texts = buggy ? N_FILES : N_MESSAGES;
	size_t cap = buggy ? FILE_BYTES + 64 : 256;
	zend_string src = {1, 0, 0, 0, malloc(cap)};
	size_t max_toks = cap;
	token *toks = malloc(max_toks * sizeof *toks);
	if (!src.val || !toks) {
		perror("malloc");
		return 1;
	}
	uint64_t hash = 1469598103934665603ull;
	size_t tokens = 0, bytes = 0;
	double t0 = now(), slowest = 0;
	for (int i = 0; i < n_texts; i++) {
		size_t want = buggy ? FILE_BYTES : 60 + rnd(140);
		src.len = gen_text(src.val, want);
		src.h = 0;
		double t = now();
		tokens += lex(&pce, &src, toks, max_toks, &hash);
		double took = now() - t;
		if (took > slowest)
			slowest = took;
		bytes += src.len;
	}
	double total = now() - t0;
	(void)total;
	printf("utf_lexer %s: texts=%d bytes=%zu tokens=%zu checksum=%016llx\n", argv[1], n_texts,
	       bytes, tokens, (unsigned long long)hash);
	free(src.val);
	free(toks);
	return 0;
}

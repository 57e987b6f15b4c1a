/*
 * utf_lexer - php/php-src#3957: PCRE2's pcre2_match (src/pcre2_match.c), reduced
 * to the anchored alternation a lexer compiles:
 *   \G(?:(\s+)|([\p{L}_][\p{L}\d_]*)|(\d+)|("(?:[^"\\]|\\.)*")|(.))   (/u)
 * In UTF mode it checks the whole subject first, whatever the start offset, unless
 * the caller passes PCRE2_NO_UTF_CHECK (PCRE2 10.21+ starts at the offset less the
 * longest lookbehind; a lexer's offsets still make every check long). See main.c.
 */
#include "utf_lexer.h"

void pcre2_compile_lexer(pcre2_code *re, uint32_t options)
{
	re->compile_options = options;
	re->pattern = "\\G(?:(\\s+)|([\\p{L}_][\\p{L}\\d_]*)|(\\d+)|(\"(?:[^\"\\\\]|\\\\.)*\")|(.))";
	for (int c = 0; c < 256; c++) {
		int k = T_CHAR;
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
			k = T_WHITESPACE;
		else if (c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0xc2)
			k = T_STRING;	/* a letter; multibyte letters start at 0xc2 */
		else if (c >= '0' && c <= '9')
			k = T_LNUMBER;
		else if (c == '"')
			k = T_CONSTANT_STRING;
		re->class_of[c] = (unsigned char)k;
	}
}

static size_t utf_len(unsigned char c)
{
	return c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
}

int pcre2_match(const pcre2_code *re, const unsigned char *subject, size_t length,
		size_t start_offset, uint32_t options, pcre2_match_data *md)
{
	if ((re->compile_options & PCRE2_UTF) && !(options & PCRE2_NO_UTF_CHECK)) {
		size_t erroroffset;
		int rc = _pcre2_valid_utf(subject, length, &erroroffset);
		if (rc != 0) {
			md->ovector[0] = md->ovector[1] = erroroffset;
			return rc;
		}
	}
	if (start_offset >= length)
		return PCRE2_ERROR_NOMATCH;
	const unsigned char *s = subject + start_offset, *end = subject + length;
	const unsigned char *p = s;
	int k = re->class_of[*p];
	switch (k) {
	case T_WHITESPACE:
		while (p < end && re->class_of[*p] == T_WHITESPACE)
			p++;
		break;
	case T_STRING:
		while (p < end && (re->class_of[*p] == T_STRING || re->class_of[*p] == T_LNUMBER))
			p += utf_len(*p);
		break;
	case T_LNUMBER:
		while (p < end && re->class_of[*p] == T_LNUMBER)
			p++;
		break;
	case T_CONSTANT_STRING:
		p++;
		while (p < end && *p != '"')
			p += *p == '\\' && p + 1 < end ? 2 : utf_len(*p);
		if (p < end)
			p++;
		else {
			p = s + 1;	/* unterminated: the quote alone */
			k = T_CHAR;
		}
		break;
	default:
		p += utf_len(*p);
		break;
	}
	if (p > end)
		p = end;
	md->ovector[0] = start_offset;
	md->ovector[1] = (size_t)(p - subject);
	md->token_class = k;
	md->matches++;
	return 1 + k;
}

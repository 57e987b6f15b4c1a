/*
 * utf_lexer - php/php-src#3957: ext/pcre/php_pcre.c, php_pcre_match_impl (the body
 * of preg_match), reduced. The root cause: the match options it gives pcre2_match.
 * See main.c.
 */
#include "utf_lexer.h"

static pcre2_match_data match_data;	/* PHP keeps one, mdata, reused by every call */

int php_pcre_match_impl(pcre_cache_entry *pce, zend_string *subject_str, size_t start_offset,
			zval_match *subpats)
{
	uint32_t options;
	int count;

	pce->refcount++;
	pce->calls++;
	if (start_offset > subject_str->len) {
		pce->refcount--;
		return 0;
	}
	/* In /u mode the subject is handed to PCRE2 to be checked at every call, so
	 * pcre2_match validates the whole string again for each offset a lexer asks
	 * about (php-src#3957: mark the string valid after one check, GC_FLAGS
	 * IS_STR_VALID_UTF8, and pass PCRE2_NO_UTF_CHECK when it is set). ROOT CAUSE: */
	options = (pce->compile_options & PCRE2_UTF) ? 0 : PCRE2_NO_UTF_CHECK;

	count = pcre2_match(pce->re, subject_str->val, subject_str->len, start_offset, options,
			    &match_data);
	pce->refcount--;
	if (count == PCRE2_ERROR_UTF8) {
		fprintf(stderr, "preg_match(): Malformed UTF-8 characters, possibly incorrectly encoded at offset %zu\n",
			match_data.ovector[0]);
		return -1;
	}
	if (count < 0)
		return 0;
	subpats->start = match_data.ovector[0];
	subpats->end = match_data.ovector[1];
	subpats->kind = match_data.token_class;
	return 1;
}

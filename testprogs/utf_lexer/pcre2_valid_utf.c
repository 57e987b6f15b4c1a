/*
 * utf_lexer - php/php-src#3957: PCRE2's UTF-8 validity check
 * (src/pcre2_valid_utf.c, PRIV(valid_utf)): walks the whole string it is given.
 * Unchanged by the fix; see main.c.
 */
#include "utf_lexer.h"

/* Returns 0 when string[0..length) is valid UTF-8, else PCRE2_ERROR_UTF8 with the
 * offset of the bad sequence. */
int _pcre2_valid_utf(const unsigned char *string, size_t length, size_t *erroroffset)
{
	const unsigned char *p = string, *end = string + length;
	while (p < end) {
		unsigned c = *p;
		if (c < 0x80) {
			p++;
			continue;
		}
		int ab;	/* additional bytes */
		if (c < 0xc2 || c > 0xf4)
			goto bad;
		ab = c < 0xe0 ? 1 : c < 0xf0 ? 2 : 3;
		if (end - p <= ab)
			goto bad;
		for (int i = 1; i <= ab; i++)
			if ((p[i] & 0xc0) != 0x80)
				goto bad;
		if (ab == 2 && c == 0xe0 && p[1] < 0xa0)	/* overlong */
			goto bad;
		if (ab == 2 && c == 0xed && p[1] >= 0xa0)	/* surrogate */
			goto bad;
		p += ab + 1;
	}
	return 0;
bad:
	*erroroffset = (size_t)(p - string);
	return PCRE2_ERROR_UTF8;
}

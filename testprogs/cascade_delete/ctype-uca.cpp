/*
 * cascade_delete (MDEV-13498): ctype-uca.cpp
 * The utf8mb4_unicode_ci collation (strings/ctype-uca.c, strings/ctype-utf8.c).
 */
#include "cascade_delete.h"

namespace innodb {

/* The collation of the secondary indexes: utf8mb4_unicode_ci, case- and
 * accent-insensitive, PAD SPACE. Characters are decoded from UTF-8 and compared
 * by their primary weights. */
static uint16_t uca_weight[0x10000];

void my_uca_init()
{
	for (uint32_t c = 0; c < 0x10000; c++) {
		uint32_t w = c;
		if (c >= 'a' && c <= 'z')
			w = c - 32;
		else if (c >= 0xe0 && c <= 0xfe && c != 0xf7)
			w = c - 32;
		uca_weight[c] = (uint16_t)(w * 7 + 0x100);
	}
}

/* Decodes one UTF-8 character; returns its length, 0 at the end. */
static inline int my_mb_wc_utf8mb4(uint32_t *wc, const unsigned char *s, const unsigned char *e)
{
	if (s >= e)
		return 0;
	unsigned char c = s[0];
	if (c < 0x80) { *wc = c; return 1; }
	if (c < 0xe0 && s + 1 < e) { *wc = (uint32_t)(c & 0x1f) << 6 | (s[1] & 0x3f); return 2; }
	if (c < 0xf0 && s + 2 < e) { *wc = (uint32_t)(c & 0x0f) << 12 | (uint32_t)(s[1] & 0x3f) << 6 | (s[2] & 0x3f); return 3; }
	*wc = 0xfffd;
	return 1;
}

/* my_strnncollsp_utf8mb4 (strings/ctype-uca.c). */
int ci_less::cmp(const std::string &a, const std::string &b)
{
	const unsigned char *s = (const unsigned char *)a.data(), *se = s + a.size();
	const unsigned char *t = (const unsigned char *)b.data(), *te = t + b.size();
	for (;;) {
		uint32_t sc, tc;
		int sl = my_mb_wc_utf8mb4(&sc, s, se), tl = my_mb_wc_utf8mb4(&tc, t, te);
		if (!sl || !tl) {
			/* PAD SPACE: the rest of the longer string compares with spaces */
			const unsigned char *r = sl ? s : t, *re = sl ? se : te;
			for (; r < re; r++)
				if (*r != ' ')
					return (sl ? 1 : -1) * (uca_weight[*r] > uca_weight[' '] ? 1 : -1);
			return 0;
		}
		int d = (int)uca_weight[sc & 0xffff] - (int)uca_weight[tc & 0xffff];
		if (d)
			return d;
		s += sl;
		t += tl;
	}
}

}  // namespace innodb

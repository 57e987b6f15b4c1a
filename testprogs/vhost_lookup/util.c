/*
 * vhost_lookup (HTTPD-64066): util.c
 * String and configuration-file utilities (server/util.c).
 */
#include "vhost_lookup.h"

static const unsigned char ucharmap[256] = {
#define R(i) ((i) >= 'A' && (i) <= 'Z' ? (i) + 32 : (i))
#define R8(i) R(i), R(i + 1), R(i + 2), R(i + 3), R(i + 4), R(i + 5), R(i + 6), R(i + 7)
#define R64(i) R8(i), R8(i + 8), R8(i + 16), R8(i + 24), R8(i + 32), R8(i + 40), R8(i + 48), R8(i + 56)
	R64(0), R64(64), R64(128), R64(192)
#undef R64
#undef R8
#undef R
};

/* APR's locale-independent case-insensitive comparison. */
EXTERN_FN int ap_cstr_casecmp(const char *s1, const char *s2)
{
	const unsigned char *u1 = (const unsigned char *)s1, *u2 = (const unsigned char *)s2;
	for (;;) {
		int c1 = ucharmap[*u1], c2 = ucharmap[*u2];
		if (c1 != c2 || !c1)
			return c1 - c2;
		u1++;
		u2++;
	}
}

/* Copies the next configuration word (quotes allowed) and advances *line. */
EXTERN_FN char *ap_getword_conf(char *dst, size_t dstsz, const char **line)
{
	const char *p = *line;
	while (*p == ' ' || *p == '\t')
		p++;
	size_t n = 0;
	if (*p == '"' || *p == '\'') {
		char q = *p++;
		while (*p && *p != q) {
			if (*p == '\\' && p[1])
				p++;
			if (n + 1 < dstsz)
				dst[n++] = *p;
			p++;
		}
		if (*p)
			p++;
	} else {
		while (*p && *p != ' ' && *p != '\t') {
			if (n + 1 < dstsz)
				dst[n++] = *p;
			p++;
		}
	}
	dst[n] = 0;
	while (*p == ' ' || *p == '\t')
		p++;
	*line = p;
	return dst;
}

/* Reads one logical line, strips leading and trailing white space. */
EXTERN_FN int ap_cfg_getline(char *buf, size_t bufsz, const char **cfg)
{
	const char *p = *cfg;
	if (!*p)
		return -1;
	while (*p == ' ' || *p == '\t')
		p++;
	size_t n = 0;
	while (*p && *p != '\n') {
		if (n + 1 < bufsz)
			buf[n++] = *p;
		p++;
	}
	if (*p == '\n')
		p++;
	while (n && (buf[n - 1] == ' ' || buf[n - 1] == '\t' || buf[n - 1] == '\r'))
		n--;
	buf[n] = 0;
	*cfg = p;
	return 0;
}

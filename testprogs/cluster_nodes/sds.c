/*
 * cluster_nodes (Redis-8145): sds.c
 * Dynamic strings (src/sds.c).
 */
#include "server.h"

static void sdsMakeRoomFor(sds *s, size_t add)
{
	if (s->len + add + 1 <= s->alloc)
		return;
	size_t n = (s->len + add + 1) * 2;
	char *b = realloc(s->buf, n);
	if (!b) { perror("realloc"); exit(1); }
	s->buf = b;
	s->alloc = n;
}

void sdscatlen(sds *s, const char *t, size_t len)
{
	sdsMakeRoomFor(s, len);
	memcpy(s->buf + s->len, t, len);
	s->len += len;
	s->buf[s->len] = 0;
}

EXTERN_FN void sdscatfmt(sds *s, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n > 0)
		sdscatlen(s, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

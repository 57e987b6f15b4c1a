/* io_buffer.c - a reader's internal buffer (moonbitlang/async#382: the io package's ReaderBuffer). */
#include "gzip.h"

void io_buffer_enlarge_to(io_buffer *b, size_t cap)
{
	if (cap <= b->cap)
		return;
	unsigned char *nb = realloc(b->buf, cap);
	if (!nb) {
		perror("realloc");
		exit(1);
	}
	b->buf = nb;
	b->cap = cap;
}

/* Drops the n bytes at the front: the rest moves down so that the unconsumed bytes
 * always start at buf[0], where the decoder and the next read expect them. */
void io_buffer_drop(io_buffer *b, size_t n)
{
	if (n >= b->len) {
		b->len = 0;
		return;
	}
	memmove(b->buf, b->buf + n, b->len - n);
	b->len -= n;
}

/* One read from the source, appended to the caller's buffer. */
size_t source_direct_read(source *s, unsigned char *dst, size_t max_len)
{
	size_t n = s->len - s->off;
	if (n > max_len)
		n = max_len;
	if (n > s->chunk)
		n = s->chunk;
	memcpy(dst, s->data + s->off, n);
	s->off += n;
	return n;
}

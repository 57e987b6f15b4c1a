/*
 * record_scan - libphenom-26 (facebookarchive/libphenom#26): corelib/buf.c,
 * the buffer queue. find_record() holds the ROOT CAUSE.
 */
#include "record_scan.h"

ph_bufq_t *ph_bufq_new(uint64_t max_size)
{
	ph_bufq_t *q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	q->size = 8192;
	q->buf = malloc(q->size);
	if (!q->buf) {
		free(q);
		return NULL;
	}
	q->max_size = max_size;
	return q;
}

void ph_bufq_free(ph_bufq_t *q)
{
	free(q->buf);
	free(q);
}

uint64_t ph_bufq_len(ph_bufq_t *q)
{
	return q->wpos - q->rpos;
}

/* Make room for len more bytes: slide the unconsumed bytes to the front,
 * then double the buffer while it is too small. */
static bool reserve(ph_bufq_t *q, uint64_t len)
{
	if (q->rpos > 0 && q->wpos + len > q->size) {
		memmove(q->buf, q->buf + q->rpos, q->wpos - q->rpos);
		q->wpos -= q->rpos;
		q->rpos = 0;
	}
	uint64_t size = q->size;
	while (q->wpos + len > size)
		size *= 2;
	if (size > q->max_size)
		return false;
	if (size != q->size) {
		uint8_t *nb = realloc(q->buf, size);
		if (!nb)
			return false;
		q->buf = nb;
		q->size = size;
	}
	return true;
}

bool ph_bufq_append(ph_bufq_t *q, const void *mem, uint64_t len)
{
	if (!reserve(q, len))
		return false;
	memcpy(q->buf + q->wpos, mem, len);
	q->wpos += len;
	return true;
}

bool ph_bufq_stm_read(ph_bufq_t *q, ph_stream_t *stm, uint64_t *nread)
{
	if (!reserve(q, stm->seg))
		return false;
	bool res = ph_stm_read(stm, q->buf + q->wpos, q->size - q->wpos, nread);
	if (res)
		q->wpos += *nread;
	return res;
}

// Locate the record: the length from the start of the queue to the end of
// the delimiter, 0 when the delimiter is not in the queue yet. Kept out of
// line (gcc would inline it into its caller): the issue profiles it as a
// function of its own.
__attribute__((noinline)) static uint64_t find_record(ph_bufq_t *q, const char *delim, uint32_t delim_len)
{
	uint8_t *bstart = q->buf + q->rpos;
	uint64_t len = q->wpos - q->rpos;
	uint8_t *found;

	/* Every call searches the whole queue from its start, though the bytes
	 * before the last read were searched already (the issue: "for long
	 * records, we make repeated calls and search across the same memory
	 * regions repeatedly. We can surely cache the last searched offset").
	 * ROOT CAUSE */
	found = memmem(bstart, len, delim, delim_len);
	if (!found)
		return 0;
	return (uint64_t)(found - bstart) + delim_len;
}

ph_buf_t *ph_bufq_consume_record(ph_bufq_t *q, const char *delim, uint32_t delim_len)
{
	uint64_t len = find_record(q, delim, delim_len);
	if (len == 0)
		return NULL;
	ph_buf_t *b = malloc(sizeof(*b));
	if (!b)
		return NULL;
	b->mem = malloc(len);
	if (!b->mem) {
		free(b);
		return NULL;
	}
	memcpy(b->mem, q->buf + q->rpos, len);
	b->len = len;
	q->rpos += len;
	if (q->rpos == q->wpos)
		q->rpos = q->wpos = 0;
	return b;
}

void ph_buf_delref(ph_buf_t *buf)
{
	free(buf->mem);
	free(buf);
}

/* gzip_internal.c - the gzip decoder state machine (moonbitlang/async#382: the gzip_internal package). */
#include "gzip.h"

void gz_decoder_init(gz_decoder *d)
{
	d->mode = GZ_MODE_HEADER;
	d->max_block = 0;
	d->crc = 0;
	d->isize = 0;
	d->blocks = 0;
	d->pending_len = 0;
}

int gz_is_finished(const gz_decoder *d)
{
	return d->mode == GZ_MODE_DONE;
}

/* The bytes the decoder asks for before a write call: enough for the next unit
 * whatever its size, so the writer's largest block while blocks come. It is an
 * over-approximation: most blocks may be far shorter. */
size_t gz_minimum_input_size(const gz_decoder *d)
{
	switch (d->mode) {
	case GZ_MODE_HEADER:
		return GZ_HEADER;
	case GZ_MODE_BLOCKS:
		return GZ_BLOCK_HEADER + d->max_block;
	case GZ_MODE_TRAILER:
		return GZ_TRAILER;
	default:
		return 0;
	}
}

static void corrupt(const char *what)
{
	fprintf(stderr, "gzip: corrupt stream: %s\n", what);
	exit(1);
}

/* Decodes the whole units at the start of p[0, n) into out: returns the bytes used.
 * It stops at a unit that p does not hold whole, or whose data out has no room for. */
static size_t decode_units(gz_decoder *d, const unsigned char *p, size_t n,
			   unsigned char *out, size_t out_len, size_t *produced)
{
	size_t used = 0;
	while (d->mode != GZ_MODE_DONE) {
		const unsigned char *u = p + used;
		size_t avail = n - used;
		if (d->mode == GZ_MODE_HEADER) {
			if (avail < GZ_HEADER)
				break;
			if (u[0] != 0x1f || u[1] != 0x8b || u[2] != 8)
				corrupt("bad magic");
			d->max_block = (unsigned)u[4] | (unsigned)u[5] << 8;
			used += GZ_HEADER;
			d->mode = GZ_MODE_BLOCKS;
		} else if (d->mode == GZ_MODE_BLOCKS) {
			if (avail < GZ_BLOCK_HEADER)
				break;
			unsigned len = (unsigned)u[1] | (unsigned)u[2] << 8;
			unsigned nlen = (unsigned)u[3] | (unsigned)u[4] << 8;
			if ((len ^ 0xffff) != nlen)
				corrupt("LEN does not match NLEN");
			if (avail < GZ_BLOCK_HEADER + len || out_len - *produced < len)
				break;
			memcpy(out + *produced, u + GZ_BLOCK_HEADER, len);
			d->crc = crc32_update(d->crc, u + GZ_BLOCK_HEADER, len);
			d->isize += len;
			d->blocks++;
			*produced += len;
			used += GZ_BLOCK_HEADER + len;
			if (u[0] & 1)
				d->mode = GZ_MODE_TRAILER;
		} else {
			if (avail < GZ_TRAILER)
				break;
			uint32_t crc = (uint32_t)u[0] | (uint32_t)u[1] << 8 | (uint32_t)u[2] << 16 | (uint32_t)u[3] << 24;
			uint32_t isize = (uint32_t)u[4] | (uint32_t)u[5] << 8 | (uint32_t)u[6] << 16 | (uint32_t)u[7] << 24;
			if (crc != d->crc || isize != d->isize)
				corrupt("CRC-32 or ISIZE mismatch");
			used += GZ_TRAILER;
			d->mode = GZ_MODE_DONE;
		}
	}
	return used;
}

/* Feeds in[0, in_len) to the decoder, writing decompressed bytes to out: returns the
 * input bytes consumed (the caller drops them) and sets *produced. */
size_t gz_decoder_write(gz_decoder *d, const unsigned char *in, size_t in_len,
			unsigned char *out, size_t out_len, size_t *produced)
{
	*produced = 0;
	if (d->pending_len > 0) {
		/* A unit the last input cut waits in pending: top pending up to the
		 * minimum input size and decode from there. */
		size_t want = gz_minimum_input_size(d);
		size_t take = want > d->pending_len ? want - d->pending_len : 0;
		if (take > in_len)
			take = in_len;
		memcpy(d->pending + d->pending_len, in, take);
		d->pending_len += take;
		size_t used = decode_units(d, d->pending, d->pending_len, out, out_len, produced);
		memmove(d->pending, d->pending + used, d->pending_len - used);
		d->pending_len -= used;
		/* Returns once pending is decoded, whatever is left in it: when the
		 * minimum input size over-approximates the units, pending ends with the
		 * start of the next one and stays dirty, and every call takes only
		 * minimum-input-size bytes however much input waits (the fix goes on
		 * to decode straight from in). ROOT CAUSE */
		return take;
	}
	size_t used = decode_units(d, in, in_len, out, out_len, produced);
	size_t rest = in_len - used;
	if (d->mode != GZ_MODE_DONE && rest > 0 && rest < gz_minimum_input_size(d)) {
		/* the input ends inside a unit: keep its start */
		memcpy(d->pending, in + used, rest);
		d->pending_len = rest;
		used = in_len;
	}
	return used;
}

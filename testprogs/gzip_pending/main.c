/*
 * gzip_pending - moonbitlang/async#382: "fix & improve gzip decoder": "The gzip
 * decoder previously has a bug that would cause repeated operation over a very small
 * partial data buffer" (https://github.com/moonbitlang/async/pull/382, commit
 * 540e94f3 "simplify gzip decoder & consume as much data as possible").
 *
 * The real bug: the gzip reader's read loop (src/gzip/decoder.mbt, _direct_read)
 * waits until its input buffer holds the core decoder's minimum_input_size(), calls
 * the core's write() and drops the bytes write() consumed. "The root cause is
 * minimum_input_size being only an over approximation. So the actual amount of data
 * required to make progress may be different ... a buffer of exactly
 * minimum_input_size may not be fully consumed within a single Decoder::write call.
 * In the previous implementation, this would result in the pending data buffer being
 * always dirty, resulting in performance degrade." The fix: "consume as much data as
 * possible from the input even if there is pending data".
 *
 * Here (C, the same design): an HTTP client reads gzip-encoded response bodies
 * through a gzip reader whose input buffer keeps its unconsumed bytes at the front
 * (dropping consumed bytes moves the rest down) and is refilled 4 MB at a time. The
 * streams hold stored (uncompressed) deflate blocks; the header's extra field
 * announces the writer's largest block, which the decoder's minimum input size
 * asks for. normal: file downloads written in full 16 KB blocks; buggy: an event
 * stream whose server flushes every 59-byte event as its own block while the
 * header announces 4 KB blocks. In the buggy streams the decoder's pending buffer
 * ends every write call with the next block's header, each call consumes about
 * 4 KB, and the reader moves the rest of its 4 MB buffer down after each: the
 * cost is paid in io_buffer_drop (memmove), called by the reader after the call
 * that decided how little to consume has returned. Same binary; only the input
 * differs. The checksum (the events' and files' CRC-32s, verified against the
 * streams' trailers) is the same in every run of a mode.
 *
 * Root cause: gz_decoder_write() (gzip_internal.c), its return after the pending
 * buffer (ROOT CAUSE). Key variables: take, want (gz_decoder_write), d->pending_len.
 * Pattern: wrong constraint.
 *
 * Files, as in moonbitlang/async: gzip_internal.c (src/internal/gzip_internal: the
 * decoder state machine, the root cause), crc32.c (its CRC-32), decoder.c
 * (src/gzip/decoder.mbt: the reader and its read loop), io_buffer.c (the io
 * package's reader buffer, and the byte source), gzip.h (shared declarations);
 * main.c (this driver: the HTTP client's bodies).
 */
#include "gzip.h"

#define N_NORMAL_BODIES 4
#define NORMAL_BODY (12u << 20)	/* 12 MB per download */
#define NORMAL_BLOCK 16384
#define N_BUGGY_BODIES 6
#define BUGGY_EVENTS 240000	/* per event stream */
#define EVENT_LEN 59
#define BUGGY_ANNOUNCED 4096

static size_t put_block(unsigned char *p, const unsigned char *data, unsigned len, int final)
{
	p[0] = final ? 1 : 0;
	p[1] = len & 0xff;
	p[2] = len >> 8;
	p[3] = (len ^ 0xffff) & 0xff;
	p[4] = (len ^ 0xffff) >> 8;
	memcpy(p + GZ_BLOCK_HEADER, data, len);
	return GZ_BLOCK_HEADER + len;
}

/* Writes one gzip stream of the body in blocks of at most block bytes, whose header
 * announces announced as the largest block. */
static size_t make_stream(unsigned char *out, const unsigned char *body, size_t n,
			  unsigned block, unsigned announced)
{
	static const unsigned char hdr[GZ_HEADER] = {0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 3};
	size_t o = 0;
	memcpy(out, hdr, GZ_HEADER);
	out[4] = announced & 0xff;
	out[5] = announced >> 8;
	o = GZ_HEADER;
	for (size_t i = 0; i < n; i += block) {
		unsigned len = n - i < block ? (unsigned)(n - i) : block;
		o += put_block(out + o, body + i, len, i + len == n);
	}
	uint32_t crc = crc32_update(0, body, n);
	uint32_t isize = (uint32_t)n;
	for (int k = 0; k < 4; k++)
		out[o + k] = (crc >> (8 * k)) & 0xff;
	for (int k = 0; k < 4; k++)
		out[o + 4 + k] = (isize >> (8 * k)) & 0xff;
	return o + GZ_TRAILER;
}

/* Reads one body through a gzip reader: returns the CRC-32 of what the application
 * received, and counts its lines. */
static uint32_t read_body(const unsigned char *stream, size_t len, unsigned char *buf,
			  size_t buf_len, unsigned long *lines)
{
	source src = {.data = stream, .len = len, .off = 0, .chunk = 4u << 20};
	gz_reader r;
	gz_reader_init(&r, &src);
	uint32_t crc = 0;
	size_t n;
	while ((n = gz_reader_read(&r, buf, buf_len)) > 0) {
		crc = crc32_update(crc, buf, n);
		for (size_t i = 0; i < n; i++)
			*lines += buf[i] == '\n';
	}
	free(src.in.buf);
	return crc;
}

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  Reads gzip-encoded HTTP bodies (moonbitlang/async#382).\n"
		"  normal: %d downloads of 12 MB in 16 KB blocks; buggy: %d event streams of %d\n"
		"  %d-byte events, one block each, the header announcing 4 KB blocks.\n",
		argv0, N_NORMAL_BODIES, N_BUGGY_BODIES, BUGGY_EVENTS, EVENT_LEN);
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

	size_t body_len = buggy ? (size_t)BUGGY_EVENTS * EVENT_LEN : NORMAL_BODY;
	unsigned char *body = malloc(body_len);
	unsigned char *stream = malloc(body_len + body_len / 8 + 64);
	size_t buf_len = 256 << 10;
	unsigned char *buf = malloc(buf_len);
	if (!body || !stream || !buf) {
		perror("malloc");
		return 1;
	}
	uint64_t sum = 0;
	unsigned long lines = 0;
	int bodies = buggy ? N_BUGGY_BODIES : N_NORMAL_BODIES;
	for (int b = 0; b < bodies; b++) {
		/* the body: text lines (an event per line in the event stream) */
		uint64_t s = 1469598103934665603ull ^ (uint64_t)b;
		for (size_t i = 0; i < body_len; i++) {
			s ^= s << 13; s ^= s >> 7; s ^= s << 17;
			body[i] = (i + 1) % EVENT_LEN == 0 ? '\n' : (unsigned char)('a' + s % 26);
		}
		size_t len = buggy ? make_stream(stream, body, body_len, EVENT_LEN, BUGGY_ANNOUNCED)
				   : make_stream(stream, body, body_len, NORMAL_BLOCK, NORMAL_BLOCK);
		uint32_t crc = read_body(stream, len, buf, buf_len, &lines);
		sum = sum * 1000003u + crc;
	}
	printf("gzip_pending %s: bodies=%d lines=%lu checksum=%016llx\n", argv[1], bodies, lines,
	       (unsigned long long)sum);
	free(body);
	free(stream);
	free(buf);
	return 0;
}

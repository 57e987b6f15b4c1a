/* Shared declarations of gzip_pending (moonbitlang/async#382; see main.c). */
#ifndef GZIP_PENDING_H
#define GZIP_PENDING_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* io_buffer.c: a reader's internal buffer (the bytes read, not yet consumed, kept at the
 * front of buf). */
typedef struct io_buffer {
	unsigned char *buf;
	size_t len;	/* bytes held */
	size_t cap;
} io_buffer;

void io_buffer_enlarge_to(io_buffer *b, size_t cap);
void io_buffer_drop(io_buffer *b, size_t n);

/* The byte source under the decoder (a socket or a file in the application; here the
 * driver's memory). */
typedef struct source {
	const unsigned char *data;
	size_t len, off;
	size_t chunk;	/* bytes one read returns at most */
	io_buffer in;
} source;

size_t source_direct_read(source *s, unsigned char *dst, size_t max_len);

/* gzip_internal.c: the decoder state machine. The stream: a 10-byte gzip header, then
 * blocks of 1 byte (BFINAL), 2 bytes LEN, 2 bytes NLEN and LEN bytes of data (deflate's
 * stored blocks), then 8 bytes: CRC-32 and ISIZE. The header's extra field (bytes 4-5
 * here) announces the largest block the writer emits. */
#define GZ_HEADER 10
#define GZ_BLOCK_HEADER 5
#define GZ_TRAILER 8
#define GZ_PENDING_MAX 65600

enum gz_mode { GZ_MODE_HEADER, GZ_MODE_BLOCKS, GZ_MODE_TRAILER, GZ_MODE_DONE };

typedef struct gz_decoder {
	enum gz_mode mode;
	unsigned max_block;	/* from the header: the largest LEN the writer emits */
	uint32_t crc;
	uint32_t isize;
	uint64_t blocks;
	/* bytes of an unfinished unit, carried between write calls */
	unsigned char pending[GZ_PENDING_MAX];
	size_t pending_len;
} gz_decoder;

void gz_decoder_init(gz_decoder *d);
size_t gz_minimum_input_size(const gz_decoder *d);
int gz_is_finished(const gz_decoder *d);
size_t gz_decoder_write(gz_decoder *d, const unsigned char *in, size_t in_len,
			unsigned char *out, size_t out_len, size_t *produced);

/* crc32.c */
uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n);

/* decoder.c: the reader the application reads decompressed bytes from. */
typedef struct gz_reader {
	source *inner;
	gz_decoder core;
	uint64_t reads;
} gz_reader;

void gz_reader_init(gz_reader *r, source *inner);
size_t gz_reader_read(gz_reader *r, unsigned char *dst, size_t max_len);

#endif

/*
 * record_scan - libphenom-26 (facebookarchive/libphenom#26): shared
 * declarations (phenom/buffer.h, phenom/stream.h, the job and nbio
 * headers of libphenom, in one file).
 */
#ifndef RECORD_SCAN_H
#define RECORD_SCAN_H

#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A connection's input queue (corelib/buf.c): the bytes received and not
 * yet consumed lie in buf[rpos, wpos); the buffer doubles when full. */
typedef struct ph_bufq {
	uint8_t *buf;
	uint64_t size;
	uint64_t rpos;
	uint64_t wpos;
	uint64_t max_size;
} ph_bufq_t;

/* A record taken out of a queue (a slice of its bytes, copied). */
typedef struct ph_buf {
	uint8_t *mem;
	uint64_t len;
} ph_buf_t;

ph_bufq_t *ph_bufq_new(uint64_t max_size);
void ph_bufq_free(ph_bufq_t *q);
bool ph_bufq_append(ph_bufq_t *q, const void *mem, uint64_t len);
uint64_t ph_bufq_len(ph_bufq_t *q);
ph_buf_t *ph_bufq_consume_record(ph_bufq_t *q, const char *delim, uint32_t delim_len);
void ph_buf_delref(ph_buf_t *buf);

/* A stream (corelib/streams): here the peer's bytes, scripted by the
 * driver, delivered at most seg bytes per read as a socket would. */
typedef struct ph_stream {
	const uint8_t *data;
	uint64_t len;
	uint64_t pos;
	uint32_t seg;
} ph_stream_t;

bool ph_stm_read(ph_stream_t *stm, void *buf, uint64_t count, uint64_t *nread);
bool ph_bufq_stm_read(ph_bufq_t *q, ph_stream_t *stm, uint64_t *nread);

/* A client session of the line protocol (the application). */
typedef struct ph_sock {
	int fd;
	ph_stream_t stream;
	ph_bufq_t *rbuf;
	uint64_t records;
	uint64_t bytes;
	uint64_t digest;
	bool closed;
} ph_sock_t;

/* nbio.c: the event loop. */
void ph_nbio_run(ph_sock_t *socks, int nsocks);
/* job.c: the session's read callback and the command dispatch. */
void ph_sock_on_readable(ph_sock_t *sock);
uint64_t ph_dispatch_record(ph_sock_t *sock, const uint8_t *rec, uint64_t len);
/* kvstore.c: the application's store. */
void kv_init(uint32_t nbuckets);
uint64_t kv_set(const uint8_t *key, uint32_t klen, const uint8_t *val, uint64_t vlen);
uint64_t kv_get(const uint8_t *key, uint32_t klen);
uint64_t kv_checksum(void);

#endif

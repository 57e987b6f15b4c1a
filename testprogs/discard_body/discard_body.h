/*
 * discard_body (HTTPD-52914): discard_body.h - the declarations the files of this program share
 * (httpd.h, util_filter.h, apr_buckets.h ... in httpd and APR). The program
 * is described in main.c.
 */
#ifndef DISCARD_BODY_H
#define DISCARD_BODY_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

/* A function that lives in another compilation unit of httpd or APR (no LTO). */
#define EXTERN_FN __attribute__((noinline))

typedef int apr_status_t;
typedef long apr_off_t;
#define APR_SUCCESS 0
#define APR_EOF 70014
#define APR_TIMEUP 70007
#define HUGE_STRING_LEN 8192

#define N_REQUESTS 3000
#define STALL_READS 30000
#define RESPONSE_SIZE 6144

typedef enum { AP_MODE_READBYTES, AP_MODE_GETLINE } ap_input_mode_t;

typedef struct apr_bucket {
	int is_eos;
	size_t len;
	const char *data;
} apr_bucket;

#define BRIGADE_MAX 8
typedef struct {
	apr_bucket b[BRIGADE_MAX];
	int n;
} apr_bucket_brigade;

/* apr_brigade.c; APR_BRIGADE_INSERT_TAIL of apr_buckets.h */
void apr_brigade_cleanup(apr_bucket_brigade *bb);

static inline void brigade_insert_tail(apr_bucket_brigade *bb, int eos, const char *data, size_t len)
{
	if (bb->n < BRIGADE_MAX)
		bb->b[bb->n++] = (apr_bucket){ eos, len, data };
}

/* The client's bytes as they arrive on the socket. A stalled client stops after
 * stall_at bytes; its remaining bytes arrive only after `stall` read attempts. */
typedef struct {
	const char *buf;
	size_t len, pos;
	size_t stall_at;
	long stall;            /* read attempts left before the rest arrives */
	long timeouts;
} conn_rec;

typedef struct ap_filter_t ap_filter_t;
typedef apr_status_t (*ap_in_filter_func)(ap_filter_t *f, apr_bucket_brigade *bb,
					  ap_input_mode_t mode, apr_off_t readbytes);
struct ap_filter_t {
	ap_in_filter_func func;
	ap_filter_t *next;
	void *ctx;
	conn_rec *c;
};

typedef struct {
	conn_rec *connection;
	ap_filter_t *input_filters;
	apr_off_t remaining;    /* body bytes still to read (Content-Length) */
	char uri[256];
	apr_off_t clength;
} request_rec;

/* main.c: the clients */
extern int client_stall_every;      /* 0: no client stalls */
char *client_stream(size_t *len, size_t **body_offsets);

/* log.c */
EXTERN_FN void ap_log_cerror(conn_rec *c, const char *fmt, ...);

/* core_filters.c, http_filters.c, util_filter.c, mod_dumpio.c */
apr_status_t core_input_filter(ap_filter_t *f, apr_bucket_brigade *bb,
			       ap_input_mode_t mode, apr_off_t readbytes);
apr_status_t ap_http_filter(ap_filter_t *f, apr_bucket_brigade *bb,
			    ap_input_mode_t mode, apr_off_t readbytes);
apr_status_t ap_get_brigade(ap_filter_t *next, apr_bucket_brigade *bb,
			    ap_input_mode_t mode, apr_off_t readbytes);
apr_status_t dumpio_input_filter(ap_filter_t *f, apr_bucket_brigade *bb,
				 ap_input_mode_t mode, apr_off_t readbytes);
extern unsigned long dumpio_log_lines;
int ap_discard_request_body(request_rec *r);

/* protocol.c, core.c, mod_deflate.c, http_core.c */
int ap_read_request(conn_rec *c, request_rec *r);
uint64_t handle_request(request_rec *r);
extern uint32_t crc_table[256];
uint64_t deflate_out_filter(const unsigned char *out, size_t n);
uint64_t child_serve(unsigned long *timeouts);

#endif

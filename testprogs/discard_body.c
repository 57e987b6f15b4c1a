//go:build ignore

/*
 * discard_body.c - HTTPD-52914: after a request-body timeout, httpd workers loop at
 * 100% CPU (Table 3.1 b10; Apache httpd with mod_dumpio).
 *
 * The real bug: ap_discard_request_body() reads and throws away a request body with
 *     do { rv = ap_get_brigade(r->input_filters, bb, ...);
 *          if (rv != APR_SUCCESS) return error;
 *          for each bucket: if EOS { seen_eos = 1; break; } ...
 *     } while (!seen_eos);
 * When a client sends a Content-Length but only part of the body, the core input
 * filter returns APR_TIMEUP. mod_dumpio's dumpio_input_filter() logs the failure but
 * returns APR_SUCCESS with an empty brigade, so the condition `rv != APR_SUCCESS` in
 * the discard loop reads a wrong value and the loop spins on empty brigades. gprof
 * ranked dumpio_input_filter 4th and ap_discard_request_body 8th; the reporter patched
 * the discard loop, which was not the problem.
 *
 * Here: the parent forks an httpd child that serves a connection of keep-alive POST
 * requests (parse the head, generate and compress a response, discard the body that
 * the handler does not read) through a filter chain dumpio -> http_in -> core; the
 * parent waits, relays the child's result line and exits with its status. normal:
 * every client sends its whole body; buggy: every 16th client stalls in the middle of
 * its body for STALL_READS socket reads (a lossy link that finally recovers; in the
 * report it never did). The responses, and so the checksum, are the same in both
 * modes.
 *
 * Root cause: dumpio_input_filter(), the `return APR_SUCCESS` after a failed read
 * (ROOT CAUSE). Key variables: ret and readbytes (dumpio_input_filter), rv and
 * seen_eos (ap_discard_request_body). Pattern: wrong constraint.
 */
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

/* ---------------------------------------------------------------- buckets and brigades */

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

static void apr_brigade_cleanup(apr_bucket_brigade *bb) { bb->n = 0; }

static void brigade_insert_tail(apr_bucket_brigade *bb, int eos, const char *data, size_t len)
{
	if (bb->n < BRIGADE_MAX)
		bb->b[bb->n++] = (apr_bucket){ eos, len, data };
}

/* ---------------------------------------------------------------- the connection */

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

/* Configuration of this "server": the mode decides how clients behave. */
int client_stall_every;      /* 0: no client stalls */
unsigned long dumpio_log_lines;

/* ---------------------------------------------------------------- logging (server core) */

static uint64_t error_log_hash = 0xcbf29ce484222325ull;

/* Formats and "writes" a log line (hashed instead of written to a file). */
EXTERN_FN void ap_log_cerror(conn_rec *c, const char *fmt, ...)
{
	char line[HUGE_STRING_LEN * 2 + 256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	(void)c;
	if (n < 0)
		return;
	if ((size_t)n >= sizeof line)
		n = sizeof line - 1;
	for (int i = 0; i < n; i++)
		error_log_hash = (error_log_hash ^ (unsigned char)line[i]) * 0x100000001b3ull;
}

/* ---------------------------------------------------------------- input filters */

/* The core input filter: reads from the socket. */
static apr_status_t core_input_filter(ap_filter_t *f, apr_bucket_brigade *bb,
				      ap_input_mode_t mode, apr_off_t readbytes)
{
	conn_rec *c = f->c;
	size_t avail_end = c->stall > 0 ? c->stall_at : c->len;
	if (c->pos >= avail_end) {
		if (c->pos >= c->len)
			return APR_EOF;
		/* Nothing arrived within the Timeout: the socket read times out (and keeps
		 * timing out at once, its deadline being past). */
		c->stall--;
		c->timeouts++;
		return APR_TIMEUP;
	}
	size_t n = avail_end - c->pos;
	if (mode == AP_MODE_GETLINE) {
		const char *nl = memchr(c->buf + c->pos, '\n', n);
		if (nl)
			n = (size_t)(nl - (c->buf + c->pos)) + 1;
	} else if ((apr_off_t)n > readbytes) {
		n = (size_t)readbytes;
	}
	brigade_insert_tail(bb, 0, c->buf + c->pos, n);
	c->pos += n;
	return APR_SUCCESS;
}

/* HTTP_IN: limits the body to Content-Length and adds EOS at its end. */
static apr_status_t ap_http_filter(ap_filter_t *f, apr_bucket_brigade *bb,
				   ap_input_mode_t mode, apr_off_t readbytes)
{
	request_rec *r = f->ctx;
	if (r->remaining <= 0) {
		brigade_insert_tail(bb, 1, NULL, 0);
		return APR_SUCCESS;
	}
	if (readbytes > r->remaining)
		readbytes = r->remaining;
	int before = bb->n;
	apr_status_t rv = f->next->func(f->next, bb, mode, readbytes);
	if (rv != APR_SUCCESS)
		return rv;
	for (int i = before; i < bb->n; i++)
		r->remaining -= (apr_off_t)bb->b[i].len;
	if (r->remaining <= 0)
		brigade_insert_tail(bb, 1, NULL, 0);
	return APR_SUCCESS;
}

static apr_status_t ap_get_brigade(ap_filter_t *next, apr_bucket_brigade *bb,
				   ap_input_mode_t mode, apr_off_t readbytes)
{
	return next->func(next, bb, mode, readbytes);
}

/* mod_dumpio: logs every bucket read through it as hex. */
static void dumpit(ap_filter_t *f, const apr_bucket *b)
{
	static const char hex[] = "0123456789abcdef";
	char obuf[HUGE_STRING_LEN * 2 + 1];
	size_t len = b->len > HUGE_STRING_LEN ? HUGE_STRING_LEN : b->len;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)b->data[i];
		obuf[2 * i] = hex[ch >> 4];
		obuf[2 * i + 1] = hex[ch & 15];
	}
	obuf[2 * len] = 0;
	ap_log_cerror(f->c, "mod_dumpio: dumpio_in (data-HEAP): %zu bytes: %s", b->len, obuf);
	dumpio_log_lines++;
}

__attribute__((noinline)) static apr_status_t dumpio_input_filter(ap_filter_t *f, apr_bucket_brigade *bb,
								   ap_input_mode_t mode, apr_off_t readbytes)
{
	apr_status_t ret;
	int before = bb->n;

	ap_log_cerror(f->c, "mod_dumpio: dumpio_in [%s-%s] %ld readbytes",
		      mode == AP_MODE_READBYTES ? "readbytes" : "getline", "blocking", (long)readbytes);
	ret = ap_get_brigade(f->next, bb, mode, readbytes);
	if (ret == APR_SUCCESS) {
		for (int i = before; i < bb->n; i++)
			if (!bb->b[i].is_eos)
				dumpit(f, &bb->b[i]);
	} else {
		ap_log_cerror(f->c, "mod_dumpio: dumpio_in - %d", ret);
	}
	return APR_SUCCESS;     /* ROOT CAUSE: a failed read is reported as success; must return ret */
}

/* Reads and throws away the request body the handler did not read. */
static int ap_discard_request_body(request_rec *r)
{
	apr_bucket_brigade bb;
	int seen_eos = 0;
	apr_status_t rv;
	unsigned long discarded = 0;

	do {
		apr_brigade_cleanup(&bb);
		rv = ap_get_brigade(r->input_filters, &bb, AP_MODE_READBYTES, HUGE_STRING_LEN);
		if (rv != APR_SUCCESS)
			return 400;     /* close the connection */
		for (int i = 0; i < bb.n; i++) {
			if (bb.b[i].is_eos) {
				seen_eos = 1;
				break;
			}
			discarded += bb.b[i].len;
		}
	} while (!seen_eos);
	return discarded ? 0 : 0;
}

/* ---------------------------------------------------------------- request processing */

static int ap_read_request(conn_rec *c, request_rec *r)
{
	char line[512];
	int first = 1;
	r->clength = 0;
	for (;;) {
		if (c->pos >= c->len)
			return -1;
		const char *nl = memchr(c->buf + c->pos, '\n', c->len - c->pos);
		if (!nl)
			return -1;
		size_t n = (size_t)(nl - (c->buf + c->pos)) + 1;
		if (n >= sizeof line)
			return -1;
		memcpy(line, c->buf + c->pos, n);
		line[n] = 0;
		c->pos += n;
		if (strcmp(line, "\r\n") == 0)
			break;
		if (first) {
			char method[16];
			if (sscanf(line, "%15s %255s HTTP/1.1", method, r->uri) != 2)
				return -1;
			first = 0;
		} else if (strncasecmp(line, "Content-Length:", 15) == 0) {
			r->clength = strtol(line + 15, NULL, 10);
		}
	}
	r->remaining = r->clength;
	return 0;
}

static uint32_t crc_table[256];

/* The output side: mod_deflate's CRC and a match finder over the response. */
static uint64_t deflate_out_filter(const unsigned char *out, size_t n)
{
	uint32_t crc = 0xffffffffu;
	static uint32_t head[4096];
	memset(head, 0, sizeof head);
	uint64_t matches = 0;
	for (size_t i = 0; i < n; i++) {
		crc = crc_table[(crc ^ out[i]) & 0xff] ^ (crc >> 8);
		if (i + 3 < n) {
			uint32_t h = ((uint32_t)out[i] << 16 ^ (uint32_t)out[i + 1] << 8 ^ out[i + 2]) * 2654435761u >> 20;
			uint32_t cand = head[h];
			if (cand && memcmp(out + cand - 1, out + i, 3) == 0)
				matches++;
			head[h] = (uint32_t)i + 1;
		}
	}
	return (uint64_t)~crc << 20 ^ matches;
}

static uint64_t handle_request(request_rec *r)
{
	unsigned char out[RESPONSE_SIZE];
	uint64_t s = 0x9e3779b97f4a7c15ull;
	for (const char *p = r->uri; *p; p++)
		s = (s ^ (unsigned char)*p) * 0x100000001b3ull;
	for (size_t i = 0; i < RESPONSE_SIZE; i++) {
		s ^= s << 13; s ^= s >> 7; s ^= s << 17;
		out[i] = "<html><body>item list</body></html>"[s % 35] ^ (unsigned char)((s >> 40) & 1);
	}
	return deflate_out_filter(out, RESPONSE_SIZE);
}

/* Builds the bytes the client sends: N_REQUESTS keep-alive POSTs with bodies. */
static char *client_stream(size_t *len, size_t **body_offsets)
{
	size_t cap = (size_t)N_REQUESTS * 12000, n = 0;
	char *buf = malloc(cap);
	*body_offsets = malloc(sizeof(size_t) * N_REQUESTS);
	if (!buf || !*body_offsets) { perror("malloc"); exit(1); }
	uint64_t s = 7;
	for (int i = 0; i < N_REQUESTS; i++) {
		int blen = 2000 + (int)(i * 7919 % 8000);
		n += (size_t)snprintf(buf + n, cap - n,
			"POST /form/submit/%d HTTP/1.1\r\nHost: www.example.com\r\nContent-Type: "
			"application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n", i, blen);
		(*body_offsets)[i] = n;
		for (int k = 0; k < blen; k++) {
			s ^= s << 13; s ^= s >> 7; s ^= s << 17;
			buf[n++] = "abcdefghij=&0123456789"[s % 22];
		}
	}
	*len = n;
	return buf;
}

/* The httpd child: serves the whole connection; returns the result checksum. */
static uint64_t child_serve(unsigned long *timeouts)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
	size_t len, *body_off;
	char *stream = client_stream(&len, &body_off);
	conn_rec c = { .buf = stream, .len = len };
	request_rec r;
	ap_filter_t core = { core_input_filter, NULL, NULL, &c };
	ap_filter_t http_in = { ap_http_filter, &core, &r, &c };
	ap_filter_t dumpio = { dumpio_input_filter, &http_in, NULL, &c };
	uint64_t sum = 0;

	for (int i = 0; i < N_REQUESTS; i++) {
		if (ap_read_request(&c, &r) != 0) {
			fprintf(stderr, "request %d: bad request head\n", i);
			exit(4);
		}
		r.connection = &c;
		r.input_filters = &dumpio;
		/* a stalled client: half of the body now, the rest STALL_READS reads later */
		if (client_stall_every && i % client_stall_every == client_stall_every - 1) {
			c.stall_at = body_off[i] + (size_t)r.clength / 2;
			c.stall = STALL_READS;
		} else {
			c.stall = 0;
		}
		sum = sum * 1000003 + handle_request(&r);
		if (ap_discard_request_body(&r) != 0) {
			fprintf(stderr, "request %d: body lost\n", i);
			exit(5);
		}
		c.stall = 0;
	}
	*timeouts = (unsigned long)c.timeouts;
	free(stream);
	free(body_off);
	return sum;
}

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  A forked httpd child serves %d POSTs through mod_dumpio (HTTPD-52914).\n"
		"  buggy: every 16th client stalls in the middle of its request body.\n",
		argv0, N_REQUESTS);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return usage(argv[0]);
	if (strcmp(argv[1], "normal") == 0)
		client_stall_every = 0;
	else if (strcmp(argv[1], "buggy") == 0)
		client_stall_every = 16;
	else
		return usage(argv[0]);

	int out[2];
	if (pipe(out) != 0) {
		perror("pipe");
		return 1;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		close(out[0]);
		unsigned long timeouts;
		uint64_t sum = child_serve(&timeouts);
		char line[128];
		int n = snprintf(line, sizeof line, "discard_body %s: requests=%d checksum=%016llx\n",
				 argv[1], N_REQUESTS, (unsigned long long)sum);
		_exit(write(out[1], line, (size_t)n) == n ? 0 : 1);
	}
	close(out[1]);
	char line[128];
	ssize_t n = 0, got;
	while ((got = read(out[0], line + n, sizeof line - 1 - (size_t)n)) > 0)
		n += got;
	int status;
	if (waitpid(pid, &status, 0) < 0) {
		perror("waitpid");
		return 1;
	}
	if (!WIFEXITED(status)) {
		fprintf(stderr, "httpd child killed by signal %d\n", WTERMSIG(status));
		return 1;
	}
	line[n] = 0;
	fputs(line, stdout);
	return WEXITSTATUS(status);
}

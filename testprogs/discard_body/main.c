/*
 * discard_body - HTTPD-52914: after a request-body timeout, httpd workers loop at
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
 *
 * Files, as in Apache httpd 2.4 and APR: mod_dumpio.c (modules/debugging: the root
 * cause), http_filters.c (HTTP_IN and ap_discard_request_body; modules/http),
 * http_core.c (the connection's request loop; modules/http), core_filters.c (the
 * core input filter), util_filter.c, protocol.c, core.c (the handler), log.c
 * (server/), mod_deflate.c (modules/filters), apr_brigade.c (APR-util's
 * buckets), discard_body.h (shared declarations); main.c (this driver: the
 * client's bytes and the forked child).
 */
#include "discard_body.h"

/* The mode decides how clients behave. */
int client_stall_every;      /* 0: no client stalls */

/* Builds the bytes the client sends: N_REQUESTS keep-alive POSTs with bodies. */
char *client_stream(size_t *len, size_t **body_offsets)
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

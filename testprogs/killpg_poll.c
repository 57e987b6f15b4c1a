//go:build ignore

/*
 * killpg_poll.c - HTTPD-54852: a graceful restart of Apache httpd with the worker/
 * prefork MPM takes minutes (Table 3.1 b7, Figure 3.4 of the vProf chapter).
 *
 * The real bug: on a graceful restart the parent calls ap_mpm_pod_killpg(pod, num),
 * which for every one of the num scoreboard slots signals the pipe of death and
 * calls dummy_connection() to wake a child blocked in accept(). It does so without
 * checking whether the slot still holds a live, ready child. When the children have
 * already exited (e.g. they reached MaxConnectionsPerChild), nobody accepts the
 * dummy connection and each call waits for its timeout; the loop variable i stays
 * the same for the whole wait. The fix added
 *     if (ap_scoreboard_image->servers[i].status != SERVER_READY || pid == 0) continue;
 * Plain profilers miss it: the parent is blocked, not running (gprof ranked the
 * function 182nd).
 *
 * Here the parent forks HTTPD_CHILDREN children that do the real work (parse
 * requests, build and checksum responses) and send their results back through a
 * pipe; the parent then does a graceful restart through a pipe of death and an
 * "accept queue" pipe. normal: MaxConnectionsPerChild is 0 (unlimited), so the
 * children are idle in accept() at restart time and every dummy connection is
 * answered at once; buggy: MaxConnectionsPerChild equals the work each child does,
 * so every child has exited before the restart and every dummy connection waits for
 * DUMMY_TIMEOUT_MS. The parent waits for all children and exits non-zero if any
 * child failed. The buggy cost is wall-clock (blocked) time: record with a wall clock.
 *
 * Root cause: ap_mpm_pod_killpg(), the call of dummy_connection() that lacks the
 * slot check (ROOT CAUSE). Key variables: i and num (ap_mpm_pod_killpg),
 * ap_max_requests_per_child (#global). Pattern: missing constraint.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#define HTTPD_CHILDREN 16
#define REQUESTS_PER_CHILD 600
#define DUMMY_TIMEOUT_MS 100
#define BODY_SIZE 16384

typedef int apr_status_t;
#define APR_SUCCESS 0
#define APR_EGENERAL 20014

enum server_status { SERVER_DEAD = 0, SERVER_STARTING, SERVER_READY, SERVER_BUSY_WRITE };

typedef struct {
	pid_t pid;
	enum server_status status;
} worker_score;

typedef struct {
	int pod_in, pod_out;        /* pipe of death: parent writes, children read */
} ap_pod_t;

/* Configuration: 0 means unlimited. */
int ap_max_requests_per_child;
int ap_daemons_limit = HTTPD_CHILDREN;

static worker_score ap_scoreboard_image[HTTPD_CHILDREN];
static int accept_q[2];         /* the listening socket's accept queue */
static int accept_ack[2];       /* a child reports that it accepted a connection */
static int results[2];          /* children send their checksums */

struct child_result {
	int slot;
	uint64_t checksum;
	int served;
};

/* ---------------------------------------------------------------- the child's work */

static uint64_t rnd(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13; x ^= x >> 7; x ^= x << 17;
	return *s = x;
}

/* Parses a request head: request line and headers, case-insensitive names. */
static int ap_read_request(const char *req, char *uri, size_t urisz, long *content_length)
{
	const char *sp = strchr(req, ' ');
	if (!sp)
		return -1;
	const char *sp2 = strchr(sp + 1, ' ');
	if (!sp2 || (size_t)(sp2 - sp - 1) >= urisz)
		return -1;
	memcpy(uri, sp + 1, sp2 - sp - 1);
	uri[sp2 - sp - 1] = 0;
	*content_length = 0;
	for (const char *line = strstr(sp2, "\r\n"); line && line[2] != '\r'; line = strstr(line + 2, "\r\n")) {
		const char *h = line + 2;
		if (strncasecmp(h, "Content-Length:", 15) == 0)
			*content_length = strtol(h + 15, NULL, 10);
	}
	return 0;
}

/* Builds a response body for the URI and returns its checksum (Adler-32 plus a
 * 64-bit mix, as mod_deflate and an ETag computation would touch every byte). */
static uint64_t ap_handle_request(const char *uri, long content_length)
{
	static unsigned char body[BODY_SIZE];
	uint64_t s = 0x9e3779b97f4a7c15ull;
	for (const char *p = uri; *p; p++)
		s = (s ^ (unsigned char)*p) * 0x100000001b3ull;
	s ^= (uint64_t)content_length;
	for (size_t i = 0; i < BODY_SIZE; i += 8) {
		uint64_t v = rnd(&s);
		memcpy(body + i, &v, 8);
	}
	uint32_t a = 1, b = 0;
	uint64_t etag = 0;
	for (size_t i = 0; i < BODY_SIZE; i++) {
		a = (a + body[i]) % 65521;
		b = (b + a) % 65521;
		etag = (etag << 5 | etag >> 59) ^ body[i];
	}
	return ((uint64_t)b << 16 | a) ^ etag;
}

static void child_main(int slot, ap_pod_t *pod)
{
	char req[512], uri[256];
	uint64_t sum = 0;
	int served = 0;
	for (int r = 0; r < REQUESTS_PER_CHILD; r++) {
		int n = snprintf(req, sizeof req,
			"POST /app/item/%d/%d HTTP/1.1\r\nHost: www.example.com\r\nUser-Agent: bench\r\n"
			"Content-Type: text/plain\r\nContent-Length: %d\r\n\r\n", slot, r, (slot * 131 + r) % 4096);
		if (n <= 0)
			_exit(4);
		long clen;
		if (ap_read_request(req, uri, sizeof uri, &clen) != 0)
			_exit(4);
		sum = sum * 1000003 + ap_handle_request(uri, clen);
		served++;
	}
	struct child_result res;
	memset(&res, 0, sizeof res);    /* no uninitialised padding through the pipe */
	res.slot = slot;
	res.checksum = sum;
	res.served = served;
	if (write(results[1], &res, sizeof res) != (ssize_t)sizeof res)
		_exit(5);
	if (ap_max_requests_per_child && served >= ap_max_requests_per_child)
		_exit(0);                       /* MaxConnectionsPerChild reached */

	/* idle: wait in accept(); a connection after a pod signal means "exit" */
	for (;;) {
		char c;
		ssize_t got = read(accept_q[0], &c, 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got != 1)
			_exit(6);
		char dead;
		if (read(pod->pod_out, &dead, 1) == 1) {
			c = 'A';
			if (write(accept_ack[1], &c, 1) != 1)
				_exit(7);
			_exit(0);
		}
	}
}

/* ---------------------------------------------------------------- the parent */

static apr_status_t pod_signal_internal(ap_pod_t *pod)
{
	char c = '!';
	return write(pod->pod_in, &c, 1) == 1 ? APR_SUCCESS : APR_EGENERAL;
}

/* Connects to the listener so that a child blocked in accept() wakes up and sees
 * the pod. If no child accepts, the connection attempt waits for its timeout. */
static apr_status_t dummy_connection(ap_pod_t *pod)
{
	(void)pod;
	char c = 'C';
	if (write(accept_q[1], &c, 1) != 1)
		return APR_EGENERAL;
	struct pollfd pfd = { .fd = accept_ack[0], .events = POLLIN };
	int rv;
	do
		rv = poll(&pfd, 1, DUMMY_TIMEOUT_MS);
	while (rv < 0 && errno == EINTR);
	if (rv == 1 && read(accept_ack[0], &c, 1) == 1)
		return APR_SUCCESS;
	/* timed out: nobody accepted; the parent carries on with the next child */
	return APR_SUCCESS;
}

/* Tells num children to exit gracefully. */
__attribute__((noinline)) static apr_status_t ap_mpm_pod_killpg(ap_pod_t *pod, int num)
{
	apr_status_t rv = APR_SUCCESS;
	int i;
	for (i = 0; i < num && rv == APR_SUCCESS; i++) {
		rv = pod_signal_internal(pod);
		if (rv == APR_SUCCESS)
			rv = dummy_connection(pod);     /* ROOT CAUSE: no check of servers[i] */
	}
	return rv;
}

static int fcntl_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  Forks %d httpd children, then restarts them gracefully (HTTPD-54852).\n"
		"  buggy: MaxConnectionsPerChild makes them exit before the restart.\n",
		argv0, HTTPD_CHILDREN);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return usage(argv[0]);
	if (strcmp(argv[1], "normal") == 0)
		ap_max_requests_per_child = 0;
	else if (strcmp(argv[1], "buggy") == 0)
		ap_max_requests_per_child = REQUESTS_PER_CHILD;
	else
		return usage(argv[0]);

	ap_pod_t pod;
	int podfd[2];
	if (pipe(podfd) || pipe(accept_q) || pipe(accept_ack) || pipe(results)) {
		perror("pipe");
		return 1;
	}
	pod.pod_out = podfd[0];
	pod.pod_in = podfd[1];
	/* children check the pod without blocking */
	if (fcntl_nonblock(pod.pod_out) != 0) {
		perror("fcntl");
		return 1;
	}
	fflush(stdout);
	for (int i = 0; i < ap_daemons_limit; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0)
			child_main(i, &pod);
		ap_scoreboard_image[i].pid = pid;
		ap_scoreboard_image[i].status = SERVER_STARTING;
	}

	uint64_t sums[HTTPD_CHILDREN] = { 0 };
	int served = 0;
	for (int i = 0; i < ap_daemons_limit; i++) {
		struct child_result res;
		ssize_t got;
		do
			got = read(results[0], &res, sizeof res);
		while (got < 0 && errno == EINTR);
		if (got != (ssize_t)sizeof res || res.slot < 0 || res.slot >= HTTPD_CHILDREN) {
			fprintf(stderr, "bad result from a child\n");
			return 1;
		}
		sums[res.slot] = res.checksum;
		served += res.served;
		ap_scoreboard_image[res.slot].status = SERVER_READY;
	}

	/* graceful restart */
	if (ap_mpm_pod_killpg(&pod, ap_daemons_limit) != APR_SUCCESS) {
		fprintf(stderr, "pod signal failed\n");
		return 1;
	}
	int failed = 0;
	for (int i = 0; i < ap_daemons_limit; i++) {
		int status;
		if (waitpid(ap_scoreboard_image[i].pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			fprintf(stderr, "child %d failed (status %#x)\n", i, status);
			failed++;
		}
		ap_scoreboard_image[i].status = SERVER_DEAD;
		ap_scoreboard_image[i].pid = 0;
	}
	uint64_t sum = 0;
	for (int i = 0; i < HTTPD_CHILDREN; i++)
		sum = sum * 1000003 + sums[i];
	printf("killpg_poll %s: children=%d served=%d checksum=%016llx\n", argv[1],
	       ap_daemons_limit, served, (unsigned long long)sum);
	return failed ? 1 : 0;
}

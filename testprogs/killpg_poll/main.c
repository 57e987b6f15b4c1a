/*
 * killpg_poll - HTTPD-54852: a graceful restart of Apache httpd with the worker/
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
 *
 * Files, as in Apache httpd 2.4's server/: mpm_unix.c (the pipe of death and the
 * dummy connections: the root cause), mpm_common.c (ap_max_requests_per_child),
 * prefork.c (server/mpm/prefork: the child's main loop), scoreboard.c, listen.c
 * (the accept queue), protocol.c (request parsing), http_request.c (the request's
 * handling; modules/http), killpg_poll.h (shared declarations); main.c (this
 * driver: forks the children, collects their results, restarts them).
 */
#include "killpg_poll.h"

int results[2];                 /* children send their checksums */

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

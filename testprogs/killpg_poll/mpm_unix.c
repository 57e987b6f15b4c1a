/*
 * killpg_poll (HTTPD-54852): mpm_unix.c
 * The pipe of death (server/mpm_unix.c), with the root cause ap_mpm_pod_killpg().
 */
#include "killpg_poll.h"

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
__attribute__((noinline)) apr_status_t ap_mpm_pod_killpg(ap_pod_t *pod, int num)
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

int fcntl_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

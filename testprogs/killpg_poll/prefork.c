/*
 * killpg_poll (HTTPD-54852): prefork.c
 * The prefork MPM's children (server/mpm/prefork/prefork.c).
 */
#include "killpg_poll.h"

int ap_daemons_limit = HTTPD_CHILDREN;

void child_main(int slot, ap_pod_t *pod)
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

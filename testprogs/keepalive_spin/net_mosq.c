/*
 * keepalive_spin (Mosquitto-115): net_mosq.c
 * Socket reads and writes (non-blocking), and the socket pair that interrupts the
 * network thread's select() when the application queues a packet.
 */
#include <fcntl.h>
#include <sys/socket.h>
#include "mosquitto_internal.h"

ssize_t net__read(struct mosquitto *mosq, void *buf, size_t count)
{
	errno = 0;
	return read(mosq->sock, buf, count);
}

ssize_t net__write(struct mosquitto *mosq, const void *buf, size_t count)
{
	errno = 0;
	return send(mosq->sock, buf, count, MSG_NOSIGNAL);
}

static int net__socket_nonblock(int sock)
{
	int opt = fcntl(sock, F_GETFL, 0);
	if (opt == -1 || fcntl(sock, F_SETFL, opt | O_NONBLOCK) == -1) {
		close(sock);
		return 1;
	}
	return 0;
}

int net__socketpair(int *pairR, int *pairW)
{
	int sv[2];
	*pairR = -1;
	*pairW = -1;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1)
		return MOSQ_ERR_ERRNO;
	if (net__socket_nonblock(sv[0]) || net__socket_nonblock(sv[1]))
		return MOSQ_ERR_ERRNO;
	*pairR = sv[0];
	*pairW = sv[1];
	return MOSQ_ERR_SUCCESS;
}

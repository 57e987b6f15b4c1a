/*
 * keepalive_spin (Mosquitto-115): loop.c
 * The network loop: mosquitto_loop() waits in pselect() for the socket (or the
 * wake-up pair) up to `timeout` milliseconds, reads and writes what it can, then
 * runs the periodic checks (keepalive PINGREQ, QoS retries); mosquitto_loop_forever()
 * calls it until the client disconnects.
 */
#include <sys/select.h>
#include "mosquitto_internal.h"

static int mosquitto_loop_read(struct mosquitto *mosq, int max_packets)
{
	int rc = MOSQ_ERR_SUCCESS;
	/* read up to max_packets + the acks owed to us, as the library does */
	pthread_mutex_lock(&mosq->msgs_out_mutex);
	max_packets = mosq->msgs_out.queue_len + max_packets;
	pthread_mutex_unlock(&mosq->msgs_out_mutex);
	for (int i = 0; i < max_packets; i++) {
		rc = packet__read(mosq);
		if (rc || errno == EAGAIN || errno == EWOULDBLOCK)
			return rc;
	}
	return rc;
}

static int mosquitto_loop_write(struct mosquitto *mosq)
{
	return packet__write(mosq);
}

int mosquitto_loop_misc(struct mosquitto *mosq)
{
	time_t now = mosquitto_time();

	if (mosq->sock < 0)
		return MOSQ_ERR_NO_CONN;
	if (mosq->keepalive && now - mosq->last_msg_out >= mosq->keepalive) {
		if (mosq->state == mosq_cs_connected && mosq->ping_t == 0) {
			send__pingreq(mosq);
			mosq->last_msg_in = now;
			mosq->last_msg_out = now;
		}
	}
	message__retry_check(mosq);
	return MOSQ_ERR_SUCCESS;
}

int mosquitto_loop(struct mosquitto *mosq, int timeout, int max_packets)
{
	struct timespec local_timeout;
	fd_set readfds, writefds;
	int fdcount;
	int rc;
	char pairbuf[64];
	int maxfd = 0;
	time_t now;

	if (!mosq || max_packets < 1)
		return MOSQ_ERR_INVAL;
	if (mosq->sock < 0)
		return MOSQ_ERR_NO_CONN;
	mosq->loops++;

	FD_ZERO(&readfds);
	FD_ZERO(&writefds);
	FD_SET(mosq->sock, &readfds);
	maxfd = mosq->sock;
	pthread_mutex_lock(&mosq->current_out_packet_mutex);
	pthread_mutex_lock(&mosq->out_packet_mutex);
	if (mosq->out_packet || mosq->current_out_packet)
		FD_SET(mosq->sock, &writefds);
	pthread_mutex_unlock(&mosq->out_packet_mutex);
	pthread_mutex_unlock(&mosq->current_out_packet_mutex);
	if (mosq->sockpairR != -1) {
		FD_SET(mosq->sockpairR, &readfds);
		if (mosq->sockpairR > maxfd)
			maxfd = mosq->sockpairR;
	}

	if (timeout < 0)
		timeout = 1000;
	now = mosquitto_time();
	if (mosq->next_msg_out && now + timeout / 1000 > mosq->next_msg_out)
		timeout = (int)(mosq->next_msg_out - now) * 1000;
	if (timeout < 0)
		timeout = 0;
	local_timeout.tv_sec = timeout / 1000;
	local_timeout.tv_nsec = (long)(timeout - local_timeout.tv_sec * 1000) * 1000000;

	fdcount = pselect(maxfd + 1, &readfds, &writefds, NULL, &local_timeout, NULL);
	if (fdcount == -1) {
		if (errno == EINTR)
			return MOSQ_ERR_SUCCESS;
		return MOSQ_ERR_ERRNO;
	}
	if (FD_ISSET(mosq->sock, &readfds)) {
		rc = mosquitto_loop_read(mosq, max_packets);
		if (rc)
			return rc;
	}
	if (mosq->sockpairR != -1 && FD_ISSET(mosq->sockpairR, &readfds)) {
		/* woken by the application: drain, and try to write even if not asked */
		if (read(mosq->sockpairR, pairbuf, sizeof pairbuf) < 0 && errno != EAGAIN)
			return MOSQ_ERR_ERRNO;
		FD_SET(mosq->sock, &writefds);
	}
	if (FD_ISSET(mosq->sock, &writefds)) {
		rc = mosquitto_loop_write(mosq);
		if (rc)
			return rc;
	}
	return mosquitto_loop_misc(mosq);
}

int mosquitto_loop_forever(struct mosquitto *mosq, int timeout, int max_packets)
{
	int run = 1;
	int rc = MOSQ_ERR_SUCCESS;
	unsigned int reconnects = 0;

	while (run) {
		do {
			rc = mosquitto_loop(mosq, timeout, max_packets);
			if (reconnects != 0 && rc == MOSQ_ERR_SUCCESS)
				reconnects = 0;
		} while (run && rc == MOSQ_ERR_SUCCESS && mosq->state != mosq_cs_disconnecting);
		/* the DISCONNECT is flushed before the loop ends */
		pthread_mutex_lock(&mosq->out_packet_mutex);
		bool flushed = mosq->out_packet == NULL && mosq->current_out_packet == NULL;
		pthread_mutex_unlock(&mosq->out_packet_mutex);
		if (mosq->state == mosq_cs_disconnecting && flushed)
			run = 0;
		else if (rc != MOSQ_ERR_SUCCESS)
			run = 0;
		else if (mosq->state == mosq_cs_disconnecting)
			rc = mosquitto_loop(mosq, timeout, max_packets);
	}
	return rc;
}

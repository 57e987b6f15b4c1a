/*
 * keepalive_spin (Mosquitto-115): mosquitto.c
 * The client object and the application's API: new/destroy, connect (on a socket
 * the application opened), publish, disconnect, message ids.
 */
#include <fcntl.h>
#include "mosquitto_internal.h"

struct mosquitto *mosquitto_new(const char *id, void *userdata)
{
	struct mosquitto *mosq = calloc(1, sizeof(struct mosquitto));
	if (!mosq)
		return NULL;
	mosq->sock = -1;
	mosq->sockpairR = mosq->sockpairW = -1;
	mosq->id = strdup(id);
	mosq->userdata = userdata;
	mosq->keepalive = 60;
	mosq->message_retry = 20;
	mosq->in_packet.remaining_mult = 1;
	mosq->msgs_out.inflight_maximum = 0;    /* no limit */
	pthread_mutex_init(&mosq->out_packet_mutex, NULL);
	pthread_mutex_init(&mosq->current_out_packet_mutex, NULL);
	pthread_mutex_init(&mosq->msgs_out_mutex, NULL);
	pthread_mutex_init(&mosq->state_mutex, NULL);
	pthread_mutex_init(&mosq->mid_mutex, NULL);
	if (net__socketpair(&mosq->sockpairR, &mosq->sockpairW)) {
		free(mosq->id);
		free(mosq);
		return NULL;
	}
	return mosq;
}

void mosquitto_destroy(struct mosquitto *mosq)
{
	message__cleanup_all(mosq);
	while (mosq->out_packet) {
		struct mosquitto__packet *p = mosq->out_packet;
		mosq->out_packet = p->next;
		packet__cleanup(p);
		free(p);
	}
	packet__cleanup(&mosq->in_packet);
	close(mosq->sockpairR);
	close(mosq->sockpairW);
	if (mosq->sock >= 0)
		close(mosq->sock);
	free(mosq->id);
	free(mosq);
}

void mosquitto_publish_callback_set(struct mosquitto *mosq, void (*on_publish)(struct mosquitto *, void *, int))
{
	mosq->on_publish = on_publish;
}

int mosquitto_connect_fd(struct mosquitto *mosq, int fd, int keepalive)
{
	int opt = fcntl(fd, F_GETFL, 0);
	if (opt == -1 || fcntl(fd, F_SETFL, opt | O_NONBLOCK) == -1)
		return MOSQ_ERR_ERRNO;
	mosq->sock = fd;
	mosq->keepalive = (uint16_t)keepalive;
	mosq->last_msg_in = mosq->last_msg_out = mosquitto_time();
	mosq->connect_start = mosquitto_time_us();
	return send__connect(mosq, (uint16_t)keepalive);
}

uint16_t mosquitto__mid_generate(struct mosquitto *mosq)
{
	uint16_t mid;
	pthread_mutex_lock(&mosq->mid_mutex);
	mosq->last_mid++;
	if (mosq->last_mid == 0)
		mosq->last_mid++;
	mid = mosq->last_mid;
	pthread_mutex_unlock(&mosq->mid_mutex);
	return mid;
}

int mosquitto_publish(struct mosquitto *mosq, int *mid, const char *topic, int payloadlen, const void *payload, int qos)
{
	struct mosquitto_message_all *message;
	uint16_t local_mid;

	if (!mosq || !topic || qos < 0 || qos > 1 || payloadlen < 0)
		return MOSQ_ERR_INVAL;
	local_mid = mosquitto__mid_generate(mosq);
	if (mid)
		*mid = local_mid;
	if (qos == 0)
		return send__publish(mosq, local_mid, topic, (uint32_t)payloadlen, payload, 0, false, false);

	message = calloc(1, sizeof(struct mosquitto_message_all));
	if (!message)
		return MOSQ_ERR_NOMEM;
	message->timestamp = mosquitto_time();
	message->msg.mid = local_mid;
	message->msg.topic = strdup(topic);
	message->msg.payloadlen = payloadlen;
	message->msg.payload = malloc(payloadlen);
	if (!message->msg.topic || !message->msg.payload) {
		free(message->msg.topic);
		free(message->msg.payload);
		free(message);
		return MOSQ_ERR_NOMEM;
	}
	memcpy(message->msg.payload, payload, payloadlen);
	message->msg.qos = qos;
	message->state = mosq_ms_wait_for_puback;
	message__queue(mosq, message);
	return send__publish(mosq, local_mid, topic, (uint32_t)payloadlen, payload, qos, false, false);
}

int mosquitto_disconnect(struct mosquitto *mosq)
{
	/* queue the DISCONNECT before the state says so: the network thread stops
	 * once it sees the state with nothing left to send */
	int rc = send__simple_command(mosq, CMD_DISCONNECT);
	pthread_mutex_lock(&mosq->state_mutex);
	mosq->state = mosq_cs_disconnecting;
	pthread_mutex_unlock(&mosq->state_mutex);
	return rc;
}

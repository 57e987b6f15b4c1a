/*
 * keepalive_spin (Mosquitto-115): handle_mosq.c
 * Incoming packets: CONNACK, PUBACK (the message leaves the in-flight list and the
 * application's on_publish is called), PINGRESP.
 */
#include "mosquitto_internal.h"

static int handle__puback(struct mosquitto *mosq)
{
	uint16_t mid;
	int rc = packet__read_uint16(&mosq->in_packet, &mid);
	if (rc)
		return rc;
	if (message__delete(mosq, mid) == MOSQ_ERR_SUCCESS) {
		mosq->acked++;
		if (mosq->on_publish)
			mosq->on_publish(mosq, mosq->userdata, mid);
	}
	return MOSQ_ERR_SUCCESS;
}

int handle__packet(struct mosquitto *mosq)
{
	switch ((mosq->in_packet.command) & 0xF0) {
	case CMD_PINGRESP:
		mosq->ping_t = 0;
		return MOSQ_ERR_SUCCESS;
	case CMD_PUBACK:
		return handle__puback(mosq);
	case CMD_CONNACK:
		pthread_mutex_lock(&mosq->state_mutex);
		mosq->state = mosq_cs_connected;
		pthread_mutex_unlock(&mosq->state_mutex);
		return MOSQ_ERR_SUCCESS;
	default:
		return MOSQ_ERR_PROTOCOL;
	}
}

/*
 * keepalive_spin (Mosquitto-115): messages_mosq.c
 * The in-flight list of QoS 1 messages awaiting PUBACK, and the retry check that
 * re-sends those unacknowledged for longer than message_retry seconds.
 */
#include "mosquitto_internal.h"

int message__queue(struct mosquitto *mosq, struct mosquitto_message_all *message)
{
	pthread_mutex_lock(&mosq->msgs_out_mutex);
	message->next = NULL;
	message->prev = NULL;
	if (mosq->msgs_out.inflight) {
		struct mosquitto_message_all *tail = mosq->msgs_out.inflight->prev;
		tail->next = message;
		message->prev = tail;
		mosq->msgs_out.inflight->prev = message;
	} else {
		mosq->msgs_out.inflight = message;
		message->prev = message;
	}
	mosq->msgs_out.queue_len++;
	mosq->msgs_out.inflight_count++;
	pthread_mutex_unlock(&mosq->msgs_out_mutex);
	return MOSQ_ERR_SUCCESS;
}

static void message__free(struct mosquitto_message_all *message)
{
	free(message->msg.topic);
	free(message->msg.payload);
	free(message);
}

int message__delete(struct mosquitto *mosq, uint16_t mid)
{
	struct mosquitto_message_all *m;
	int rc = MOSQ_ERR_NO_CONN;

	pthread_mutex_lock(&mosq->msgs_out_mutex);
	for (m = mosq->msgs_out.inflight; m; m = m->next) {
		if (m->msg.mid != mid)
			continue;
		if (m == mosq->msgs_out.inflight) {
			mosq->msgs_out.inflight = m->next;
			if (m->next)
				m->next->prev = m->prev;
		} else {
			m->prev->next = m->next;
			if (m->next)
				m->next->prev = m->prev;
			else
				mosq->msgs_out.inflight->prev = m->prev;
		}
		mosq->msgs_out.queue_len--;
		mosq->msgs_out.inflight_count--;
		message__free(m);
		rc = MOSQ_ERR_SUCCESS;
		break;
	}
	pthread_mutex_unlock(&mosq->msgs_out_mutex);
	return rc;
}

void message__retry_check(struct mosquitto *mosq)
{
	struct mosquitto_message_all *msg;
	time_t now = mosquitto_time();

	pthread_mutex_lock(&mosq->msgs_out_mutex);
	for (msg = mosq->msgs_out.inflight; msg; msg = msg->next) {
		if (msg->state == mosq_ms_wait_for_puback && msg->timestamp + mosq->message_retry < now) {
			msg->timestamp = now;
			msg->dup = true;
			send__publish(mosq, (uint16_t)msg->msg.mid, msg->msg.topic, (uint32_t)msg->msg.payloadlen,
				      msg->msg.payload, msg->msg.qos, msg->msg.retain, msg->dup);
		}
	}
	pthread_mutex_unlock(&mosq->msgs_out_mutex);
}

void message__cleanup_all(struct mosquitto *mosq)
{
	struct mosquitto_message_all *m = mosq->msgs_out.inflight, *next;
	while (m) {
		next = m->next;
		message__free(m);
		m = next;
	}
	mosq->msgs_out.inflight = NULL;
}

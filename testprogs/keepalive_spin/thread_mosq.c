/*
 * keepalive_spin (Mosquitto-115): thread_mosq.c
 * mosquitto_loop_start(): the network thread the library runs for the application,
 * which calls mosquitto_loop_forever() with a timeout derived from the keepalive.
 */
#include "mosquitto_internal.h"

static void *mosquitto__thread_main(void *obj)
{
	struct mosquitto *mosq = obj;

	if (!mosq)
		return NULL;
	pthread_mutex_lock(&mosq->state_mutex);
	if (mosq->state == mosq_cs_disconnecting) {
		pthread_mutex_unlock(&mosq->state_mutex);
		return NULL;
	}
	pthread_mutex_unlock(&mosq->state_mutex);

	if (!mosq->keepalive) {
		/* Sleep for a day if keepalive disabled. */
		/* ROOT CAUSE: keepalive is 0 here, so the "day" is 0 ms: select() never waits */
		mosquitto_loop_forever(mosq, mosq->keepalive * 1000 * 86400, 1);
	} else {
		/* Sleep for our keepalive value. publish() etc. will wake us up. */
		mosquitto_loop_forever(mosq, mosq->keepalive * 1000, 1);
	}
	return obj;
}

int mosquitto_loop_start(struct mosquitto *mosq)
{
	if (!mosq)
		return MOSQ_ERR_INVAL;
	if (pthread_create(&mosq->thread_id, NULL, mosquitto__thread_main, mosq) != 0)
		return MOSQ_ERR_ERRNO;
	return MOSQ_ERR_SUCCESS;
}

int mosquitto_loop_stop(struct mosquitto *mosq, bool force)
{
	char sockpair_data = 0;
	if (!mosq)
		return MOSQ_ERR_INVAL;
	/* wake the thread so it sees the disconnect */
	if (mosq->sockpairW != -1 && write(mosq->sockpairW, &sockpair_data, 1) < 0 && errno != EAGAIN)
		return MOSQ_ERR_ERRNO;
	if (force)
		pthread_cancel(mosq->thread_id);
	pthread_join(mosq->thread_id, NULL);
	return MOSQ_ERR_SUCCESS;
}

/*
 * keepalive_spin (Mosquitto-115): send_mosq.c
 * Building and queueing outgoing packets: CONNECT, PUBLISH, PINGREQ, DISCONNECT.
 */
#include "mosquitto_internal.h"

int send__simple_command(struct mosquitto *mosq, uint8_t command)
{
	struct mosquitto__packet *packet = calloc(1, sizeof(struct mosquitto__packet));
	if (!packet)
		return MOSQ_ERR_NOMEM;
	packet->command = command;
	packet->remaining_length = 0;
	if (packet__alloc(packet)) {
		free(packet);
		return MOSQ_ERR_NOMEM;
	}
	return packet__queue(mosq, packet);
}

int send__pingreq(struct mosquitto *mosq)
{
	int rc = send__simple_command(mosq, CMD_PINGREQ);
	if (rc == MOSQ_ERR_SUCCESS)
		mosq->ping_t = mosquitto_time();
	return rc;
}

int send__connect(struct mosquitto *mosq, uint16_t keepalive)
{
	struct mosquitto__packet *packet = calloc(1, sizeof(struct mosquitto__packet));
	uint16_t idlen = (uint16_t)strlen(mosq->id);
	if (!packet)
		return MOSQ_ERR_NOMEM;
	packet->command = CMD_CONNECT;
	packet->remaining_length = 10 + 2 + idlen;
	if (packet__alloc(packet)) {
		free(packet);
		return MOSQ_ERR_NOMEM;
	}
	packet__write_string(packet, "MQTT", 4);
	packet__write_byte(packet, 4);          /* protocol level 3.1.1 */
	packet__write_byte(packet, 0x02);       /* clean session */
	packet__write_uint16(packet, keepalive);
	packet__write_string(packet, mosq->id, idlen);
	return packet__queue(mosq, packet);
}

int send__publish(struct mosquitto *mosq, uint16_t mid, const char *topic, uint32_t payloadlen,
		  const void *payload, int qos, bool retain, bool dup)
{
	struct mosquitto__packet *packet;
	uint16_t topiclen = (uint16_t)strlen(topic);
	int rc;

	packet = calloc(1, sizeof(struct mosquitto__packet));
	if (!packet)
		return MOSQ_ERR_NOMEM;
	packet->mid = mid;
	packet->command = (uint8_t)(CMD_PUBLISH | ((dup & 0x1) << 3) | (qos << 1) | retain);
	packet->remaining_length = 2 + topiclen + payloadlen + (qos > 0 ? 2 : 0);
	rc = packet__alloc(packet);
	if (rc) {
		free(packet);
		return rc;
	}
	packet__write_string(packet, topic, topiclen);
	if (qos > 0)
		packet__write_uint16(packet, mid);
	if (payloadlen)
		packet__write_bytes(packet, payload, payloadlen);
	return packet__queue(mosq, packet);
}

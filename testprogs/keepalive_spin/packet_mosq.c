/*
 * keepalive_spin (Mosquitto-115): packet_mosq.c
 * MQTT packets: building (variable-length remaining length, strings, bytes), the
 * outgoing queue, and the non-blocking write and read state machines.
 */
#include "mosquitto_internal.h"

int packet__alloc(struct mosquitto__packet *packet)
{
	uint8_t remaining_bytes[5], byte;
	uint32_t remaining_length = packet->remaining_length;
	int i;

	packet->payload = NULL;
	packet->remaining_count = 0;
	do {
		byte = remaining_length % 128;
		remaining_length = remaining_length / 128;
		if (remaining_length > 0)
			byte = byte | 0x80;
		remaining_bytes[packet->remaining_count] = byte;
		packet->remaining_count++;
	} while (remaining_length > 0 && packet->remaining_count < 5);
	if (packet->remaining_count == 5)
		return MOSQ_ERR_PROTOCOL;
	packet->packet_length = packet->remaining_length + 1 + (uint8_t)packet->remaining_count;
	packet->payload = malloc(sizeof(uint8_t) * packet->packet_length);
	if (!packet->payload)
		return MOSQ_ERR_NOMEM;
	packet->payload[0] = packet->command;
	for (i = 0; i < packet->remaining_count; i++)
		packet->payload[i + 1] = remaining_bytes[i];
	packet->pos = 1 + (uint8_t)packet->remaining_count;
	return MOSQ_ERR_SUCCESS;
}

void packet__cleanup(struct mosquitto__packet *packet)
{
	if (!packet)
		return;
	packet->command = 0;
	packet->remaining_count = 0;
	packet->remaining_mult = 1;
	packet->remaining_length = 0;
	free(packet->payload);
	packet->payload = NULL;
	packet->to_process = 0;
	packet->pos = 0;
}

int packet__queue(struct mosquitto *mosq, struct mosquitto__packet *packet)
{
	char sockpair_data = 0;

	packet->pos = 0;
	packet->to_process = packet->packet_length;
	packet->next = NULL;
	pthread_mutex_lock(&mosq->out_packet_mutex);
	if (mosq->out_packet)
		mosq->out_packet_last->next = packet;
	else
		mosq->out_packet = packet;
	mosq->out_packet_last = packet;
	mosq->out_packet_count++;
	pthread_mutex_unlock(&mosq->out_packet_mutex);

	/* wake the network thread from select() */
	if (mosq->sockpairW != -1) {
		if (write(mosq->sockpairW, &sockpair_data, 1) < 0 && errno != EAGAIN)
			return MOSQ_ERR_ERRNO;
	}
	return MOSQ_ERR_SUCCESS;
}

void packet__write_byte(struct mosquitto__packet *packet, uint8_t byte)
{
	packet->payload[packet->pos] = byte;
	packet->pos++;
}

void packet__write_uint16(struct mosquitto__packet *packet, uint16_t word)
{
	packet__write_byte(packet, (uint8_t)((word & 0xFF00) >> 8));
	packet__write_byte(packet, (uint8_t)(word & 0x00FF));
}

void packet__write_bytes(struct mosquitto__packet *packet, const void *bytes, uint32_t count)
{
	memcpy(&(packet->payload[packet->pos]), bytes, count);
	packet->pos += count;
}

void packet__write_string(struct mosquitto__packet *packet, const char *str, uint16_t length)
{
	packet__write_uint16(packet, length);
	packet__write_bytes(packet, str, length);
}

int packet__read_uint16(struct mosquitto__packet *packet, uint16_t *word)
{
	if (packet->pos + 2 > packet->remaining_length)
		return MOSQ_ERR_PROTOCOL;
	*word = (uint16_t)((packet->payload[packet->pos] << 8) | packet->payload[packet->pos + 1]);
	packet->pos += 2;
	return MOSQ_ERR_SUCCESS;
}

int packet__write(struct mosquitto *mosq)
{
	ssize_t write_length;
	struct mosquitto__packet *packet;

	pthread_mutex_lock(&mosq->current_out_packet_mutex);
	pthread_mutex_lock(&mosq->out_packet_mutex);
	if (mosq->out_packet && !mosq->current_out_packet) {
		mosq->current_out_packet = mosq->out_packet;
		mosq->out_packet = mosq->out_packet->next;
		if (!mosq->out_packet)
			mosq->out_packet_last = NULL;
		mosq->out_packet_count--;
	}
	pthread_mutex_unlock(&mosq->out_packet_mutex);

	while (mosq->current_out_packet) {
		packet = mosq->current_out_packet;
		while (packet->to_process > 0) {
			write_length = net__write(mosq, &(packet->payload[packet->pos]), packet->to_process);
			if (write_length > 0) {
				packet->to_process -= (uint32_t)write_length;
				packet->pos += (uint32_t)write_length;
			} else {
				pthread_mutex_unlock(&mosq->current_out_packet_mutex);
				if (errno == EAGAIN || errno == EWOULDBLOCK)
					return MOSQ_ERR_SUCCESS;
				return MOSQ_ERR_CONN_LOST;
			}
		}
		mosq->last_msg_out = mosquitto_time();

		pthread_mutex_lock(&mosq->out_packet_mutex);
		mosq->current_out_packet = mosq->out_packet;
		if (mosq->out_packet) {
			mosq->out_packet = mosq->out_packet->next;
			if (!mosq->out_packet)
				mosq->out_packet_last = NULL;
			mosq->out_packet_count--;
		}
		pthread_mutex_unlock(&mosq->out_packet_mutex);
		packet__cleanup(packet);
		free(packet);
	}
	pthread_mutex_unlock(&mosq->current_out_packet_mutex);
	return MOSQ_ERR_SUCCESS;
}

/* Reads what is available of the current packet; handles it once complete. */
int packet__read(struct mosquitto *mosq)
{
	uint8_t byte;
	ssize_t read_length;
	int rc;

	if (!mosq->in_packet.command) {
		read_length = net__read(mosq, &byte, 1);
		if (read_length == 1) {
			mosq->in_packet.command = byte;
		} else {
			if (read_length == 0)
				return MOSQ_ERR_CONN_LOST;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return MOSQ_ERR_SUCCESS;
			return MOSQ_ERR_ERRNO;
		}
	}
	if (mosq->in_packet.remaining_count <= 0) {
		do {
			read_length = net__read(mosq, &byte, 1);
			if (read_length == 1) {
				mosq->in_packet.remaining_count--;
				if (mosq->in_packet.remaining_count < -4)
					return MOSQ_ERR_PROTOCOL;
				mosq->in_packet.remaining_length += (byte & 127) * mosq->in_packet.remaining_mult;
				mosq->in_packet.remaining_mult *= 128;
			} else {
				if (read_length == 0)
					return MOSQ_ERR_CONN_LOST;
				if (errno == EAGAIN || errno == EWOULDBLOCK)
					return MOSQ_ERR_SUCCESS;
				return MOSQ_ERR_ERRNO;
			}
		} while ((byte & 128) != 0);
		mosq->in_packet.remaining_count = (int8_t)(mosq->in_packet.remaining_count * -1);
		if (mosq->in_packet.remaining_length > 0) {
			mosq->in_packet.payload = malloc(mosq->in_packet.remaining_length);
			if (!mosq->in_packet.payload)
				return MOSQ_ERR_NOMEM;
			mosq->in_packet.to_process = mosq->in_packet.remaining_length;
		}
	}
	while (mosq->in_packet.to_process > 0) {
		read_length = net__read(mosq, &(mosq->in_packet.payload[mosq->in_packet.pos]), mosq->in_packet.to_process);
		if (read_length > 0) {
			mosq->in_packet.to_process -= (uint32_t)read_length;
			mosq->in_packet.pos += (uint32_t)read_length;
		} else {
			if (read_length == 0)
				return MOSQ_ERR_CONN_LOST;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return MOSQ_ERR_SUCCESS;
			return MOSQ_ERR_ERRNO;
		}
	}
	mosq->in_packet.pos = 0;
	rc = handle__packet(mosq);
	packet__cleanup(&mosq->in_packet);
	mosq->last_msg_in = mosquitto_time();
	return rc;
}

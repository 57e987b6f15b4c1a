/*
 * keepalive_spin (Mosquitto-115): mosquitto_internal.h - the declarations the files
 * of this program share (mosquitto_internal.h, mosquitto.h, packet_mosq.h, ... of
 * libmosquitto). The program is described in main.c.
 */
#ifndef MOSQUITTO_INTERNAL_H
#define MOSQUITTO_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum mosq_err_t {
	MOSQ_ERR_SUCCESS = 0,
	MOSQ_ERR_NOMEM = 1,
	MOSQ_ERR_INVAL = 3,
	MOSQ_ERR_NO_CONN = 4,
	MOSQ_ERR_CONN_LOST = 7,
	MOSQ_ERR_PROTOCOL = 2,
	MOSQ_ERR_ERRNO = 14,
};

enum mosquitto_client_state {
	mosq_cs_new = 0,
	mosq_cs_connected = 1,
	mosq_cs_disconnecting = 2,
};

enum mosquitto_msg_state {
	mosq_ms_invalid = 0,
	mosq_ms_publish_qos1 = 1,
	mosq_ms_wait_for_puback = 2,
};

#define CMD_CONNECT 0x10
#define CMD_CONNACK 0x20
#define CMD_PUBLISH 0x30
#define CMD_PUBACK 0x40
#define CMD_PINGREQ 0xC0
#define CMD_PINGRESP 0xD0
#define CMD_DISCONNECT 0xE0

/* A microsecond clock, as the broker's and the tests' (mosquitto_time_us). */
typedef long long mosq_ustime_t;

struct mosquitto_message {
	int mid;
	char *topic;
	void *payload;
	int payloadlen;
	int qos;
	bool retain;
};

struct mosquitto_message_all {
	struct mosquitto_message_all *next;
	struct mosquitto_message_all *prev;
	time_t timestamp;               /* when it was last sent, for retries */
	enum mosquitto_msg_state state;
	bool dup;
	struct mosquitto_message msg;
};

struct mosquitto__packet {
	uint8_t *payload;
	struct mosquitto__packet *next;
	uint32_t remaining_mult;
	uint32_t remaining_length;
	uint32_t packet_length;
	uint32_t to_process;
	uint32_t pos;
	uint16_t mid;
	uint8_t command;
	int8_t remaining_count;
};

struct mosquitto_msg_data {
	struct mosquitto_message_all *inflight;
	int queue_len;
	int inflight_count;
	uint16_t inflight_maximum;
};

struct mosquitto {
	int sock;
	int sockpairR, sockpairW;       /* wakes the network thread when a packet is queued */
	char *id;
	uint16_t keepalive;             /* seconds; 0: disabled */
	time_t last_msg_in;
	time_t last_msg_out;
	time_t ping_t;
	time_t next_msg_out;
	mosq_ustime_t connect_start;    /* when the session began (microseconds) */
	unsigned int message_retry;     /* seconds before an unacknowledged message is re-sent */
	struct mosquitto__packet in_packet;
	struct mosquitto__packet *current_out_packet;
	struct mosquitto__packet *out_packet;
	struct mosquitto__packet *out_packet_last;
	int out_packet_count;
	pthread_mutex_t out_packet_mutex;
	pthread_mutex_t current_out_packet_mutex;
	pthread_mutex_t msgs_out_mutex;
	pthread_mutex_t state_mutex;
	pthread_mutex_t mid_mutex;
	pthread_t thread_id;
	enum mosquitto_client_state state;
	struct mosquitto_msg_data msgs_out;
	uint16_t last_mid;
	uint64_t loops;                 /* network loop iterations (diagnostics) */
	uint64_t acked;
	void *userdata;
	void (*on_publish)(struct mosquitto *, void *, int);
};

/* mosquitto.c */
struct mosquitto *mosquitto_new(const char *id, void *userdata);
void mosquitto_destroy(struct mosquitto *mosq);
int mosquitto_connect_fd(struct mosquitto *mosq, int fd, int keepalive);
int mosquitto_publish(struct mosquitto *mosq, int *mid, const char *topic, int payloadlen, const void *payload, int qos);
int mosquitto_disconnect(struct mosquitto *mosq);
void mosquitto_publish_callback_set(struct mosquitto *mosq, void (*on_publish)(struct mosquitto *, void *, int));
uint16_t mosquitto__mid_generate(struct mosquitto *mosq);
/* loop.c */
int mosquitto_loop(struct mosquitto *mosq, int timeout, int max_packets);
int mosquitto_loop_forever(struct mosquitto *mosq, int timeout, int max_packets);
int mosquitto_loop_misc(struct mosquitto *mosq);
/* thread_mosq.c */
int mosquitto_loop_start(struct mosquitto *mosq);
int mosquitto_loop_stop(struct mosquitto *mosq, bool force);
/* time_mosq.c */
time_t mosquitto_time(void);
mosq_ustime_t mosquitto_time_us(void);
/* packet_mosq.c */
int packet__alloc(struct mosquitto__packet *packet);
void packet__cleanup(struct mosquitto__packet *packet);
int packet__queue(struct mosquitto *mosq, struct mosquitto__packet *packet);
int packet__write(struct mosquitto *mosq);
int packet__read(struct mosquitto *mosq);
void packet__write_byte(struct mosquitto__packet *packet, uint8_t byte);
void packet__write_uint16(struct mosquitto__packet *packet, uint16_t word);
void packet__write_string(struct mosquitto__packet *packet, const char *str, uint16_t length);
void packet__write_bytes(struct mosquitto__packet *packet, const void *bytes, uint32_t count);
int packet__read_uint16(struct mosquitto__packet *packet, uint16_t *word);
/* send_mosq.c */
int send__publish(struct mosquitto *mosq, uint16_t mid, const char *topic, uint32_t payloadlen, const void *payload, int qos, bool retain, bool dup);
int send__pingreq(struct mosquitto *mosq);
int send__simple_command(struct mosquitto *mosq, uint8_t command);
int send__connect(struct mosquitto *mosq, uint16_t keepalive);
/* messages_mosq.c */
int message__queue(struct mosquitto *mosq, struct mosquitto_message_all *message);
int message__delete(struct mosquitto *mosq, uint16_t mid);
void message__retry_check(struct mosquitto *mosq);
void message__cleanup_all(struct mosquitto *mosq);
/* handle_mosq.c */
int handle__packet(struct mosquitto *mosq);
/* net_mosq.c */
ssize_t net__read(struct mosquitto *mosq, void *buf, size_t count);
ssize_t net__write(struct mosquitto *mosq, const void *buf, size_t count);
int net__socketpair(int *pairR, int *pairW);

#endif

/*
 * keepalive_spin - Mosquitto-115: "incorrect select keepalive": with keepalive set to
 * 0, libmosquitto's network thread spins at 100% CPU (Eclipse Bugzilla 471334,
 * migrated as https://github.com/eclipse/mosquitto/issues/115; Mosquitto 1.4).
 *
 * The real bug: mosquitto_loop_start()'s thread (lib/thread_mosq.c) calls
 *     if (!mosq->keepalive)
 *         mosquitto_loop_forever(mosq, mosq->keepalive*1000*86400, 1);  // "a day"
 * but keepalive is 0 in that branch, so the timeout is 0 ms: every select() in
 * mosquitto_loop() returns at once and the thread never sleeps, running the loop's
 * periodic checks (keepalive, QoS retry scan of the in-flight list) and a select()
 * without end. The report: "when keepalive is set to 0 ... this leads to a high cpu
 * usage in the select timeout." The fix passes a real day (86400*1000 ms).
 *
 * Here: a sensor gateway publishes readings (JSON, QoS 1) in bursts every 12 ms to a
 * broker over a local socket, through a libmosquitto-shaped client library whose
 * network thread sends the queued PUBLISH packets and reads the PUBACKs; the broker
 * (a thread of this program: the test peer) checks each payload's CRC and acks it.
 * normal: the gateway's configuration sets keepalive = 60 s; buggy: keepalive = 0
 * (disabled: "the broker runs on the same host"), the configuration the report had.
 * The same messages are sent; between bursts the buggy network thread spins. Each
 * run's client id carries its pid and its timings differ; the checksum (the
 * broker's CRC over every message, in order) does not.
 *
 * Root cause: mosquitto__thread_main() (thread_mosq.c), the timeout it passes
 * (ROOT CAUSE); the cost is in its callees (mosquitto_loop: pselect, the misc
 * checks). Key variables: keepalive (mosq->keepalive), timeout (mosquitto_loop),
 * local_timeout (mosquitto_loop). Pattern: wrong constraint.
 *
 * Files, as in libmosquitto (lib/): mosquitto.c (client object, publish API),
 * loop.c (the network loop), thread_mosq.c (the network thread: the root cause),
 * packet_mosq.c (packets, read/write state machines), send_mosq.c (outgoing
 * packets), handle_mosq.c (incoming packets), messages_mosq.c (in-flight
 * messages, retries), net_mosq.c (sockets), time_mosq.c (clocks),
 * mosquitto_internal.h (shared declarations); main.c (this driver: the gateway
 * application and the broker peer).
 */
#include <math.h>
#include <sys/socket.h>
#include "mosquitto_internal.h"

typedef long long ustime_t;     /* the application's microsecond clock */

#define N_SENSORS 50
#define READINGS_PER_BURST 200
#define BURSTS 150
#define BURST_US 12000

struct broker {
	int fd;
	uint32_t crc_table[256];
	uint64_t checksum;
	unsigned long published;
	bool connected;
};

static ustime_t ustime(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (ustime_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void crc_init(uint32_t *table)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		table[i] = c;
	}
}

static uint32_t crc32_buf(const uint32_t *table, const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	while (n--)
		c = table[(c ^ *p++) & 0xff] ^ (c >> 8);
	return c ^ 0xffffffffu;
}

static int read_full(int fd, void *buf, size_t n)
{
	uint8_t *p = buf;
	while (n > 0) {
		ssize_t r = read(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static int write_full(int fd, const void *buf, size_t n)
{
	const uint8_t *p = buf;
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The broker peer: CONNECT -> CONNACK, PUBLISH (QoS 1) -> PUBACK, until DISCONNECT. */
static void *broker_main(void *arg)
{
	struct broker *b = arg;
	uint8_t *buf = malloc(1 << 16);
	if (!buf)
		return NULL;
	for (;;) {
		uint8_t hdr, byte;
		uint32_t len = 0, mult = 1;
		if (read_full(b->fd, &hdr, 1))
			break;
		do {
			if (read_full(b->fd, &byte, 1))
				goto out;
			len += (byte & 127) * mult;
			mult *= 128;
		} while (byte & 128);
		if (len > (1 << 16) || read_full(b->fd, buf, len))
			break;
		switch (hdr & 0xF0) {
		case CMD_CONNECT: {
			uint8_t connack[4] = { CMD_CONNACK, 2, 0, 0 };
			b->connected = true;
			if (write_full(b->fd, connack, sizeof connack))
				goto out;
			break;
		}
		case CMD_PUBLISH: {
			uint16_t tlen = (uint16_t)(buf[0] << 8 | buf[1]);
			uint16_t mid = (uint16_t)(buf[2 + tlen] << 8 | buf[3 + tlen]);
			uint32_t crc = crc32_buf(b->crc_table, buf, len);
			if (!(hdr & 0x08))      /* a retry (dup) is acked, not counted twice */
				b->checksum = b->checksum * 1000003 + crc, b->published++;
			uint8_t puback[4] = { CMD_PUBACK, 2, (uint8_t)(mid >> 8), (uint8_t)mid };
			if (write_full(b->fd, puback, sizeof puback))
				goto out;
			break;
		}
		case CMD_PINGREQ: {
			uint8_t pingresp[2] = { CMD_PINGRESP, 0 };
			if (write_full(b->fd, pingresp, sizeof pingresp))
				goto out;
			break;
		}
		case CMD_DISCONNECT:
			goto out;
		}
	}
out:
	free(buf);
	return NULL;
}

/* A sensor's reading at step t: a slow wave and some deterministic noise. */
static int format_reading(char *out, size_t cap, int sensor, long t)
{
	double temp = 21.0 + 4.0 * sin((double)t / 400.0 + sensor) + 0.01 * ((t * 7919 + sensor * 104729) % 100);
	double hum = 45.0 + 10.0 * cos((double)t / 900.0 + sensor * 0.5);
	return snprintf(out, cap,
		"{\"sensor\":\"s%03d\",\"seq\":%ld,\"temp\":%.3f,\"humidity\":%.2f,\"unit\":\"C\",\"ok\":true}",
		sensor, t, temp, hum);
}

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  A sensor gateway publishing through a libmosquitto-shaped client (Mosquitto-115).\n"
		"  normal: keepalive 60 s; buggy: keepalive 0 (disabled), the network thread spins.\n",
		argv0);
	return 2;
}

int main(int argc, char **argv)
{
	int keepalive;
	if (argc != 2)
		return usage(argv[0]);
	if (strcmp(argv[1], "normal") == 0)
		keepalive = 60;
	else if (strcmp(argv[1], "buggy") == 0)
		keepalive = 0;
	else
		return usage(argv[0]);

	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
		perror("socketpair");
		return 1;
	}
	struct broker broker = { .fd = sv[1] };
	crc_init(broker.crc_table);
	pthread_t broker_thread;
	if (pthread_create(&broker_thread, NULL, broker_main, &broker) != 0) {
		perror("pthread_create");
		return 1;
	}

	char client_id[64];
	snprintf(client_id, sizeof client_id, "sensor-gw-%d", (int)getpid());
	struct mosquitto *mosq = mosquitto_new(client_id, NULL);
	if (!mosq || mosquitto_connect_fd(mosq, sv[0], keepalive) != MOSQ_ERR_SUCCESS ||
	    mosquitto_loop_start(mosq) != MOSQ_ERR_SUCCESS) {
		fprintf(stderr, "cannot connect\n");
		return 1;
	}

	char topic[64], payload[256];
	ustime_t start = ustime();
	long published = 0;
	long long last_ms = 0, late_ms = 0;
	for (int burst = 0; burst < BURSTS; burst++) {
		ustime_t deadline = start + (ustime_t)(burst + 1) * BURST_US;
		for (int r = 0; r < READINGS_PER_BURST; r++) {
			int sensor = r % N_SENSORS;
			long t = (long)burst * (READINGS_PER_BURST / N_SENSORS) + r / N_SENSORS;
			int n = format_reading(payload, sizeof payload, sensor, t);
			snprintf(topic, sizeof topic, "site/7/sensors/s%03d/env", sensor);
			if (mosquitto_publish(mosq, NULL, topic, n, payload, 1) != MOSQ_ERR_SUCCESS) {
				fprintf(stderr, "publish failed\n");
				return 1;
			}
			published++;
		}
		ustime_t now = ustime();
		last_ms = (now - start) / 1000;
		if (now < deadline) {
			struct timespec ts = { 0, (long)(deadline - now) * 1000 };
			nanosleep(&ts, NULL);
		} else {
			late_ms += (now - deadline) / 1000;
		}
	}
	/* wait for the broker's acks */
	while ((long)__atomic_load_n(&mosq->acked, __ATOMIC_RELAXED) < published) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	mosquitto_disconnect(mosq);
	mosquitto_loop_stop(mosq, false);
	pthread_join(broker_thread, NULL);
	if (getenv("KEEPALIVE_DEBUG"))
		fprintf(stderr, "loops=%llu last_ms=%lld late_ms=%lld\n",
			(unsigned long long)mosq->loops, last_ms, late_ms);
	unsigned long acked = mosq->acked;
	mosquitto_destroy(mosq);
	close(sv[1]);

	printf("keepalive_spin %s: published=%ld acked=%lu broker=%lu checksum=%016llx\n", argv[1],
	       published, acked, broker.published, (unsigned long long)broker.checksum);
	return acked == (unsigned long)published && broker.published == (unsigned long)published ? 0 : 1;
}

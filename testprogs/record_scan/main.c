/*
 * record_scan - libphenom-26: "profile and optimize find_record"
 * https://github.com/facebookarchive/libphenom/issues/26 (libphenom, the
 * event and buffer library of Facebook's C services, 2013).
 *
 * The real bug: ph_bufq_consume_record() finds the next record of a line
 * protocol by calling find_record(), which runs memmem() over the bytes
 * queued and not yet consumed, from their start. A session's read callback
 * calls it after every read. A record that arrives in many reads (a long
 * value sent through a socket that hands out a segment at a time) is
 * searched again from its first byte at every read: the last point,
 * "for long records, we make repeated calls and search across the same
 * memory regions repeatedly. We can surely cache the last searched offset".
 * The search is the C library's: find_record() itself only computes where
 * the queued bytes are; the cost grows with the square of the record's
 * length, all of it inside memmem.
 *
 * Here: four client sessions of a line protocol ("SET key value\r\n",
 * "GET key\r\n") served by one event loop (nbio.c) over a key-value store.
 * Each session's bytes come in reads of at most 1460 bytes (one TCP
 * segment). The queue keeps its unconsumed bytes in one buffer that doubles
 * when full (libphenom chains 8 KB buffers and runs memmem over each; one
 * buffer gives the same search over the same bytes). normal: 600,000
 * commands with values of 20-160 bytes; buggy: the same commands, plus, on
 * one session, 6 SETs of 640 KB values (a blob upload): each of those is
 * searched about 450 times from its start. Same binary, same commands, the
 * input decides.
 *
 * Root cause: find_record() (buf.c), the memmem() call over the whole queue
 * (ROOT CAUSE; the fix keeps the offset already searched). Pattern:
 * scalability (a search over data that grows, run again at each read; the
 * search's loop is memmem's). Key variables: len (find_record: the bytes
 * searched), q->wpos.
 *
 * Files, as in libphenom's corelib: buf.c (the buffer queue: the root
 * cause), stream.c (a stream's read), nbio.c (the event loop), job.c (the
 * session's read callback and the commands), kvstore.c (the application's
 * store), record_scan.h (shared declarations); main.c (this driver: the
 * clients' traffic).
 */
#include "record_scan.h"

#define NSOCKS 4
#define SEGMENT 1460

struct traffic {
	int commands;     /* per session */
	int blobs;        /* large SETs, on session 0 */
	uint64_t blob_len;
};

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The bytes one client sends: commands, and the blobs spread among them. */
static uint8_t *script(int sock, const struct traffic *t, uint64_t *len)
{
	uint64_t cap = (uint64_t)t->commands * 200 + (sock == 0 ? (uint64_t)t->blobs * (t->blob_len + 64) : 0) + 64;
	uint8_t *p = malloc(cap);
	if (!p) {
		perror("malloc");
		exit(1);
	}
	uint64_t n = 0, seed = 0x9e3779b97f4a7c15ull * (uint64_t)(sock + 1);
	int every = t->blobs > 0 ? t->commands / (t->blobs + 1) : 0;
	for (int i = 0; i < t->commands; i++) {
		uint64_t r = rnd(&seed);
		if (r % 4 == 0) {
			n += (uint64_t)sprintf((char *)p + n, "GET k%d.%u\r\n", sock, (unsigned)(r >> 8) % 5000);
		} else {
			n += (uint64_t)sprintf((char *)p + n, "SET k%d.%u ", sock, (unsigned)(r >> 8) % 5000);
			int vlen = 20 + (int)((r >> 32) % 141);
			for (int j = 0; j < vlen; j++)
				p[n++] = (uint8_t)('a' + (r >> (j % 40)) % 26);
			p[n++] = '\r';
			p[n++] = '\n';
		}
		if (sock == 0 && every > 0 && i % every == every - 1 && i / every < t->blobs) {
			n += (uint64_t)sprintf((char *)p + n, "SET blob%d ", i / every);
			for (uint64_t j = 0; j < t->blob_len; j++)
				p[n++] = (uint8_t)('A' + (j * 7 + (uint64_t)i) % 26);
			p[n++] = '\r';
			p[n++] = '\n';
		}
	}
	*len = n;
	return p;
}

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  A line-protocol server's event loop over 4 sessions (libphenom#26).\n"
		"  normal: 600,000 short commands; buggy: the same, plus 6 SETs of 640 KB\n"
		"  values that arrive a segment at a time.\n", argv0);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return usage(argv[0]);
	struct traffic t = { .commands = 150000 };
	if (strcmp(argv[1], "buggy") == 0) {
		t.blobs = 6;
		t.blob_len = 640 * 1024;
	} else if (strcmp(argv[1], "normal") != 0) {
		return usage(argv[0]);
	}
	kv_init(1 << 14);
	ph_sock_t socks[NSOCKS];
	memset(socks, 0, sizeof(socks));
	for (int i = 0; i < NSOCKS; i++) {
		socks[i].fd = 10 + i;
		socks[i].stream.data = script(i, &t, &socks[i].stream.len);
		socks[i].stream.seg = SEGMENT;
		socks[i].rbuf = ph_bufq_new(64ull << 20);
		if (!socks[i].rbuf) {
			perror("ph_bufq_new");
			return 1;
		}
	}
	ph_nbio_run(socks, NSOCKS);
	uint64_t records = 0, bytes = 0, digest = kv_checksum();
	for (int i = 0; i < NSOCKS; i++) {
		records += socks[i].records;
		bytes += socks[i].bytes;
		digest = digest * 131 + socks[i].digest;
		ph_bufq_free(socks[i].rbuf);
		free((void *)socks[i].stream.data);
	}
	printf("record_scan %s: records=%llu bytes=%llu checksum=%016llx\n", argv[1],
	       (unsigned long long)records, (unsigned long long)bytes, (unsigned long long)digest);
	return 0;
}

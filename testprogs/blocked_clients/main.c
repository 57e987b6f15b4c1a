/*
 * blocked_clients - Redis-8668: BRPOP becomes slow when a large number of clients
 * exist (Table 3.1 b12, Figure 3.6b of the vProf chapter; redis/redis#8668, fixed by
 * #8689).
 *
 * The real bug (Redis 6.0/6.2): after a command makes a key ready (LPUSH on a list
 * that clients wait on with BRPOP), handleClientsBlockedOnKeys() serves the list
 * clients and then calls serveClientsBlockedOnKeyByModule(), which walks the whole
 * list of clients blocked on the key,
 *     while (numclients--) { ...; if (receiver->btype != BLOCKED_MODULE) {
 *         listRotateHeadToTail(clients); continue; } ... }
 * rotating every one of them even though no client is blocked by a module. With
 * thousands of sidekiq workers blocked on the same queue, every push costs a walk
 * over all of them. The fix (#8689) added the missing check
 *     if (server.blocked_clients_by_type[BLOCKED_MODULE]) ...
 * gprof ranked zmalloc and dictEncObjKeyCompare above the root cause (5th).
 *
 * Here: a single-threaded Redis-like server executes a deterministic command stream
 * (RESP parsing, SET/GET on a siphash dict, LPUSH to job queues) from producer
 * clients, while worker clients BRPOP the queues and re-block after each job.
 * normal: 50 blocked workers; buggy: 2000 (the report surveyed 4000 in production).
 * The checksum covers every reply byte the clients receive, and is the same in
 * both modes.
 *
 * Root cause: serveClientsBlockedOnKeyByModule() (the vProf chapter calls the
 * function by its older name serveClientsBlockedOnKey), its while loop (ROOT CAUSE).
 * Key variables: numclients (serveClientsBlockedOnKeyByModule), n_workers (#global).
 * Pattern: missing constraint.
 *
 * Files, as in Redis 6's src/: blocked.c (blocking operations: the root cause),
 * networking.c (the query buffer, replies, CLIENT LIST), server.c (the server
 * state and command dispatch), t_list.c, t_string.c (the commands), dict.c,
 * siphash.c, adlist.c, object.c, zmalloc.c (data structures and memory), rdb.c
 * and crc64.c (the snapshot), server.h (shared declarations); main.c (this
 * driver: the benchmark clients; Redis has its main() in server.c).
 */
#include "server.h"

/* Configuration: how many worker clients block on the queues. */
int n_workers;

/* The connections' kernel send buffer, in memory: the clients read from it. */
char sockbuf[4 << 20];
size_t sockbuf_len;

static uint64_t replies_hash = 0xcbf29ce484222325ull;

/* The clients read every reply sent to them into the reply hash. */
static void drain_replies(void)
{
	for (size_t i = 0; i < sockbuf_len; i++)
		replies_hash = (replies_hash ^ (unsigned char)sockbuf[i]) * 0x100000001b3ull;
	sockbuf_len = 0;
}

/* A client sends one command (RESP) and the server handles it. */
static void feed(client *c, const char *a, const char *b, const char *d)
{
	const char *args[3] = { a, b, d };
	int argc = d ? 3 : 2;
	char q[1024];
	size_t n = (size_t)snprintf(q, sizeof q, "*%d\r\n", argc);
	for (int j = 0; j < argc; j++)
		n += (size_t)snprintf(q + n, sizeof q - n, "$%zu\r\n%s\r\n", strlen(args[j]), args[j]);
	readQueryFromClient(c, q, n);
	drain_replies();
}

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  A Redis-like server with workers blocked in BRPOP (Redis-8668).\n"
		"  normal: 50 blocked workers; buggy: 2000.\n", argv0);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return usage(argv[0]);
	if (strcmp(argv[1], "normal") == 0)
		n_workers = 50;
	else if (strcmp(argv[1], "buggy") == 0)
		n_workers = 2000;
	else
		return usage(argv[0]);

	crc64_init();
	server.keys = dictCreate();
	server.blocking_keys = dictCreate();
	server.ready_keys = listCreate();
	server.unblocked_clients = listCreate();
	server.clients_pending_write = listCreate();
	server.clients = listCreate();

	enum { N_PRODUCERS = 32 };
	client *producers = calloc(N_PRODUCERS, sizeof(client));
	client *workers = calloc((size_t)n_workers, sizeof(client));
	client monitor = { .id = 999 };
	if (!producers || !workers) { perror("calloc"); return 1; }
	for (int p = 0; p < N_PRODUCERS; p++) {
		producers[p].id = p;
		listAddNodeTail(server.clients, &producers[p]);
	}
	listAddNodeTail(server.clients, &monitor);
	for (int w = 0; w < n_workers; w++) {
		workers[w].id = 1000 + w;
		listAddNodeTail(server.clients, &workers[w]);
	}
	char qname[16], key[32], val[600];
	for (int w = 0; w < n_workers; w++) {
		snprintf(qname, sizeof qname, "queue:%d", w % N_QUEUES);
		feed(&workers[w], "BRPOP", qname, "0");
	}
	uint64_t s = 1;
	for (long i = 0; i < N_COMMANDS; i++) {
		client *c = &producers[i % N_PRODUCERS];
		if (i % CLIENT_LIST_EVERY == 0)
			feed(&monitor, "CLIENT", "LIST", NULL);   /* the dashboard polls the clients */
		s ^= s << 13; s ^= s >> 7; s ^= s << 17;
		snprintf(key, sizeof key, "user:%llu:profile", (unsigned long long)(s >> 20) % N_KEYS);
		unsigned kind = (unsigned)(s % 100);
		if (kind < 50) {
			feed(c, "GET", key, NULL);
		} else if (kind < 90) {
			int n = snprintf(val, sizeof val, "{\"name\":\"u%llu\",\"visits\":%ld,\"history\":\"",
					 (unsigned long long)(s >> 20) % N_KEYS, i);
			for (int k = 0; k < 400; k++)
				val[n++] = "0123456789abcdef"[(s >> (k % 60)) & 15];
			val[n++] = '"';
			val[n++] = '}';
			val[n] = 0;
			feed(c, "SET", key, val);
		} else {
			snprintf(qname, sizeof qname, "queue:%llu", (unsigned long long)(s >> 33) % N_QUEUES);
			snprintf(val, sizeof val, "job-%ld", i);
			feed(c, "LPUSH", qname, val);
		}
		if ((i + 1) % 32768 == 0)
			rdbSave();
		/* workers that got a job come back for the next one */
		while (server.unblocked_clients->len) {
			client *w = server.unblocked_clients->head->value;
			listDelNode(server.unblocked_clients, server.unblocked_clients->head);
			snprintf(qname, sizeof qname, "queue:%d", (w->id - 1000) % N_QUEUES);
			feed(w, "BRPOP", qname, "0");
		}
	}
	uint64_t sum = replies_hash;
	printf("blocked_clients %s: jobs=%lu saves=%lu checksum=%016llx\n", argv[1], jobs_served, rdb_saves,
	       (unsigned long long)(sum ^ rdb_checksum));
	return 0;
}

/* benchserver: the overhead benchmark's server-shaped workload (the
 * default of `make bench`). argv[1] worker threads (default 4) each serve
 * a fixed number of requests (argv[2] rounds of 64, default 40) against
 * shared structures: a hash table of sessions (read by every thread,
 * its counters updated with atomics, an entry replaced under its shard's
 * lock now and then), a struct global of tunables and a struct global of
 * statistics. A request is parsed, looked up, its payload checksummed
 * and its session updated through a call chain with loop variables,
 * conditions, arguments, and struct fields behind pointers: what the
 * schema picks in a real server. Fixed work, not fixed time: the wall
 * time measures the profiler's cost. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NSHARDS 64
#define NBUCKETS 4096
#define PAYLOAD 256

struct tunables {
	long rounds;
	int batch;
	int max_chain;
	unsigned hash_seed;
	int evict_every;
	double load_factor;
};
struct tunables g_tune = { 40, 64, 8, 0x9747b28cu, 97, 0.75 };

struct server_stats {
	long requests;
	long hits;
	long misses;
	long replaced;
	int workers;
	int shutting_down;
};
struct server_stats g_stats;

struct session {
	uint64_t key;
	long hits;
	long bytes;
	int state;
	int shard;
	struct session *next;
	unsigned char data[PAYLOAD];
};

struct shard {
	pthread_mutex_t lock;
	long generation;
};

struct request {
	uint64_t key;
	int op;
	int len;
	long seq;
	unsigned flags;
	int worker;
};

static struct session *g_table[NBUCKETS];
static struct shard g_shards[NSHARDS];
static volatile unsigned long g_sink;

static uint64_t hash64(uint64_t x, unsigned seed) {
	x ^= seed;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

__attribute__((noinline)) struct session *lookup(const struct request *req) {
	uint64_t h = hash64(req->key, g_tune.hash_seed);
	struct session *s = __atomic_load_n(&g_table[h % NBUCKETS], __ATOMIC_ACQUIRE);
	for (int depth = 0; s != NULL && depth < g_tune.max_chain; depth++) {
		if (s->key == req->key)
			return s;
		s = s->next;
	}
	return NULL;
}

__attribute__((noinline)) unsigned long checksum(const struct session *s, const struct request *req, unsigned long h) {
	for (int pass = 0; pass < 24; pass++) {
		for (int i = 0; i < req->len; i++) {
			h ^= s->data[i] + (unsigned long)pass;
			h = (h << 7) | (h >> 57);
			if (h % 5 == 0)
				h += (unsigned long)req->seq;
		}
	}
	return h;
}

__attribute__((noinline)) void replace(struct session *s, const struct request *req) {
	struct shard *sh = &g_shards[s->shard];
	pthread_mutex_lock(&sh->lock);
	sh->generation++;
	for (int i = 0; i < PAYLOAD; i++)
		s->data[i] = (unsigned char)(s->data[i] * 31 + req->seq + i);
	s->state = (s->state + 1) & 3;
	pthread_mutex_unlock(&sh->lock);
	__atomic_fetch_add(&g_stats.replaced, 1, __ATOMIC_RELAXED);
}

__attribute__((noinline)) unsigned long handle(struct request *req, unsigned long h) {
	struct session *s = lookup(req);
	if (s == NULL) {
		__atomic_fetch_add(&g_stats.misses, 1, __ATOMIC_RELAXED);
		return h ^ req->key;
	}
	__atomic_fetch_add(&g_stats.hits, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&s->hits, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&s->bytes, req->len, __ATOMIC_RELAXED);
	h = checksum(s, req, h);
	if (req->op == 1 && req->seq % g_tune.evict_every == 0)
		replace(s, req);
	return h;
}

__attribute__((noinline)) unsigned long serve_batch(int worker, long round, unsigned long h) {
	struct request req;
	for (int i = 0; i < g_tune.batch; i++) {
		req.seq = round * g_tune.batch + i;
		req.key = hash64((uint64_t)(req.seq * 2654435761u + worker), 7) % (NBUCKETS * 2);
		req.op = (int)(req.key & 3) == 0;
		req.len = 64 + (int)(req.key % (PAYLOAD - 64));
		req.flags = (unsigned)(req.key >> 8) & 0xf;
		req.worker = worker;
		h = handle(&req, h);
	}
	__atomic_fetch_add(&g_stats.requests, g_tune.batch, __ATOMIC_RELAXED);
	return h;
}

/* With BENCHSERVER_TIMES set, each worker's start and end (CLOCK_MONOTONIC)
 * and CPU time go to standard error: where a profiler's cost goes (late
 * starts, time off the CPU, CPU time) rather than how much it is. */
static int g_times;

static double clock_s(clockid_t c) {
	struct timespec ts;
	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *worker(void *arg) {
	int id = (int)(long)arg;
	double t0 = g_times ? clock_s(CLOCK_MONOTONIC) : 0;
	unsigned long h = 1469598103934665603UL + (unsigned long)id;
	for (long r = 0; r < g_tune.rounds; r++)
		h = serve_batch(id, r, h);
	__atomic_fetch_add(&g_sink, h, __ATOMIC_RELAXED);
	if (g_times)
		fprintf(stderr, "worker %d start %.6f end %.6f cpu %.6f\n", id, t0, clock_s(CLOCK_MONOTONIC), clock_s(CLOCK_THREAD_CPUTIME_ID));
	return NULL;
}

static void populate(void) {
	for (int i = 0; i < NSHARDS; i++)
		pthread_mutex_init(&g_shards[i].lock, NULL);
	/* Every even key has a session: half the lookups hit. */
	for (uint64_t k = 0; k < NBUCKETS * 2; k += 2) {
		struct session *s = calloc(1, sizeof *s);
		if (s == NULL) {
			perror("calloc");
			exit(1);
		}
		s->key = k;
		s->shard = (int)(k % NSHARDS);
		for (int i = 0; i < PAYLOAD; i++)
			s->data[i] = (unsigned char)(k * 131 + i);
		uint64_t b = hash64(k, g_tune.hash_seed) % NBUCKETS;
		s->next = g_table[b];
		g_table[b] = s;
	}
}

int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 4;
	if (argc > 2)
		g_tune.rounds = atol(argv[2]);
	if (n < 1 || n > 256 || g_tune.rounds < 1) {
		fprintf(stderr, "usage: benchserver [THREADS (1-256)] [ROUNDS]\n");
		return 2;
	}
	g_times = getenv("BENCHSERVER_TIMES") != NULL;
	if (g_times)
		fprintf(stderr, "main %.6f\n", clock_s(CLOCK_MONOTONIC));
	populate();
	g_stats.workers = n;
	pthread_t t[256];
	for (long i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i) != 0) {
			perror("pthread_create");
			return 1;
		}
	for (long i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	g_stats.shutting_down = 1;
	if (g_times)
		fprintf(stderr, "joined %.6f\n", clock_s(CLOCK_MONOTONIC));
	printf("%lu %ld %ld %ld\n", (unsigned long)g_sink, g_stats.hits, g_stats.misses, g_stats.replaced);
	return 0;
}

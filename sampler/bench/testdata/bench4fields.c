/* bench4fields: bench4 with its state in structs, for measuring what
 * sampling struct fields costs (`make bench BENCH_FLAGS='-src
 * sampler/bench/testdata/bench4fields.c -fields'`). The tuning globals are
 * fields of a struct global (g_tune, six fields, and g_stats, four), and
 * step and mix take their work through a pointer to a per-thread struct
 * (job, eight fields): the same fixed work as bench4, the same call chain
 * and loops, with the values that steer it in fields. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct tuning { long rounds; int scale; double alpha; unsigned mask; int chunk; int width; };
struct tuning g_tune = { 0, 3, 0.5, 0xff, 20000, 10 };
struct stats { long steps; long mixes; int threads; int done; };
struct stats g_stats;
static volatile unsigned long g_sink;

struct job { long id; long round; long chunk; unsigned long seed; int k; int width; double weight; int flags; };

__attribute__((noinline)) unsigned long mix(struct job *j, unsigned long h) {
	for (long i = 0; i < j->chunk; i++) {
		h ^= (unsigned long)i * 0x9e3779b97f4a7c15UL;
		h = (h << 7) | (h >> 57);
		if (h % 5 == 0)
			h += g_tune.scale;
	}
	return h;
}

__attribute__((noinline)) unsigned long step(struct job *j, unsigned long h) {
	j->chunk = g_tune.chunk + (j->round % 7) * 1000;
	for (j->k = 0; j->k < j->width; j->k++)
		h = mix(j, h + j->k);
	return h;
}

static void *worker(void *arg) {
	struct job j = { (long)arg, 0, 0, 1469598103934665603UL + (long)arg, 0, g_tune.width, 1.0, 0 };
	unsigned long h = j.seed;
	for (j.round = 0; j.round < g_tune.rounds; j.round++)
		h = step(&j, h);
	g_sink += h;
	return NULL;
}

int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 4;
	g_tune.rounds = argc > 2 ? atol(argv[2]) : 40;
	g_stats.threads = n;
	pthread_t t[64];
	for (long i = 0; i < n && i < 64; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (long i = 0; i < n && i < 64; i++)
		pthread_join(t[i], NULL);
	g_stats.done = 1;
	printf("%lu\n", (unsigned long)g_sink);
	return 0;
}

/* bench4: the overhead benchmark's workload. argv[1] threads (default 4)
 * each do a fixed amount of CPU-bound work (argv[2] rounds, default 40)
 * through a small call chain with loop variables, conditions and globals,
 * so a value profiler has variables to read at every depth. Fixed work,
 * not fixed time: the wall time measures the profiler's cost. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

long g_rounds;
int g_scale = 3;
double g_alpha = 0.5;
static volatile unsigned long g_sink;

__attribute__((noinline)) unsigned long mix(unsigned long h, long n) {
	for (long i = 0; i < n; i++) {
		h ^= (unsigned long)i * 0x9e3779b97f4a7c15UL;
		h = (h << 7) | (h >> 57);
		if (h % 5 == 0)
			h += g_scale;
	}
	return h;
}

__attribute__((noinline)) unsigned long step(unsigned long h, int round) {
	long chunk = 20000 + (round % 7) * 1000;
	for (int k = 0; k < 10; k++)
		h = mix(h + k, chunk);
	return h;
}

static void *worker(void *arg) {
	long id = (long)arg;
	unsigned long h = 1469598103934665603UL + id;
	for (long r = 0; r < g_rounds; r++)
		h = step(h, (int)r);
	g_sink += h;
	return NULL;
}

int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 4;
	g_rounds = argc > 2 ? atol(argv[2]) : 40;
	pthread_t t[64];
	for (long i = 0; i < n && i < 64; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (long i = 0; i < n && i < 64; i++)
		pthread_join(t[i], NULL);
	printf("%lu\n", (unsigned long)g_sink);
	return 0;
}

/* lifecycle: the fixed costs of a profiler, apart from sampling (`go run
 * ./sampler/bench -lifecycle`). argv[1] is what the program does between
 * main and its exit:
 *   exit        nothing (a /bin/true: start-up and exit only);
 *   spin N      N rounds of CPU work in one thread (fixed work);
 *   threads N   create N threads one after the other, each joined before
 *               the next starts, each returning at once (thread creation
 *               and exit under the profiler).
 * At main and just before returning it writes CLOCK_MONOTONIC to standard
 * error ("main T", "end T"): the harness takes the time from its exec to
 * main, main to end (the program's own), and end to the profiler's exit. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

volatile unsigned long g_sink;
long g_rounds;

static unsigned long spin(long rounds) {
	unsigned long h = 1469598103934665603UL;
	for (long r = 0; r < rounds; r++)
		for (int i = 0; i < 4096; i++) {
			h ^= (unsigned long)(r * 4096 + i);
			h *= 1099511628211UL;
			if ((h & 0xff) == 0)
				h += r;
		}
	return h;
}

static void *nothing(void *arg) {
	g_sink += (unsigned long)arg;
	return NULL;
}

int main(int argc, char **argv) {
	fprintf(stderr, "main %.9f\n", now());
	const char *mode = argc > 1 ? argv[1] : "exit";
	long n = argc > 2 ? atol(argv[2]) : 0;
	g_rounds = n;
	if (strcmp(mode, "spin") == 0) {
		g_sink = spin(n);
	} else if (strcmp(mode, "threads") == 0) {
		for (long i = 0; i < n; i++) {
			pthread_t t;
			if (pthread_create(&t, NULL, nothing, (void *)i) != 0) {
				perror("pthread_create");
				return 1;
			}
			pthread_join(t, NULL);
		}
	} else if (strcmp(mode, "exit") != 0) {
		fprintf(stderr, "usage: lifecycle [exit | spin ROUNDS | threads N]\n");
		return 2;
	}
	fprintf(stderr, "end %.9f\n", now());
	return 0;
}

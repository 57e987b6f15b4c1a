/* blockbench: THREADS threads that spend their time blocked, for MS
 * milliseconds, the workload of BenchmarkBlockedWall.
 *
 *   blockbench long THREADS MS   each thread waits on its own condition
 *                                variable, woken every 100 ms: long waits,
 *                                few stops, most samples reuse their wait's
 *   blockbench short THREADS MS  each thread sleeps 2 ms at a time in a
 *                                loop: a new wait at nearly every tick
 *
 * Each thread's loop keeps counters in callee-saved registers across the
 * blocking call, as -O2 code does. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct slot {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	long seq;
};

static int long_waits;
static long total_ms;
static struct slot *slots;
static volatile long sink;

static long now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

__attribute__((noinline)) static void wait_turn(struct slot *s, long seen) {
	pthread_mutex_lock(&s->mu);
	while (s->seq == seen)
		pthread_cond_wait(&s->cv, &s->mu);
	pthread_mutex_unlock(&s->mu);
}

__attribute__((noinline)) static void nap(void) {
	struct timespec ts = {0, 2000000};
	nanosleep(&ts, NULL);
}

__attribute__((noinline)) static long worker_loop(struct slot *s, long end) {
	long rounds = 0, acc = 1;
	while (now_ms() < end) {
		if (long_waits)
			wait_turn(s, rounds);
		else
			nap();
		rounds++;
		acc = acc * 3 + rounds;
	}
	sink = acc;
	return rounds;
}

static void *worker(void *a) {
	worker_loop(a, now_ms() + total_ms);
	return NULL;
}

int main(int argc, char **argv) {
	if (argc != 4 || (strcmp(argv[1], "long") != 0 && strcmp(argv[1], "short") != 0)) {
		fprintf(stderr, "usage: blockbench long|short THREADS MS\n");
		return 1;
	}
	long_waits = strcmp(argv[1], "long") == 0;
	int n = atoi(argv[2]);
	total_ms = atol(argv[3]);
	slots = calloc(n, sizeof *slots);
	pthread_t *th = calloc(n, sizeof *th);
	for (int i = 0; i < n; i++) {
		pthread_mutex_init(&slots[i].mu, NULL);
		pthread_cond_init(&slots[i].cv, NULL);
		pthread_create(&th[i], NULL, worker, &slots[i]);
	}
	/* wake every thread every 100 ms (long waits), until they are done */
	long end = now_ms() + total_ms + 200;
	while (long_waits && now_ms() < end) {
		struct timespec ts = {0, 100000000};
		nanosleep(&ts, NULL);
		for (int i = 0; i < n; i++) {
			pthread_mutex_lock(&slots[i].mu);
			slots[i].seq++;
			pthread_cond_signal(&slots[i].cv);
			pthread_mutex_unlock(&slots[i].mu);
		}
	}
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return 0;
}

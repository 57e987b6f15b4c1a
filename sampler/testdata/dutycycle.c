/* dutycycle: a worker thread alternates CPU bursts (burn: BURST_MS of its
 * own CPU time) and sleeps (rest: SLEEP_MS in nanosleep), CYCLES times,
 * while the main thread waits for it in pthread_join. It prints what it
 * measured itself, in ns, on one line:
 *
 *   burst_wall sleep_wall sleep_delay worker_wall worker_cpu main_wall
 *
 * burst_wall and sleep_wall are the wall time spent in the bursts and in
 * the sleeps (a burst on a loaded machine lasts longer than its CPU time);
 * sleep_delay is the part of the sleeps the worker spent runnable, waiting
 * for a CPU once woken (its schedstat's run_delay), which a profiler's
 * wall clock may count as running.
 *
 * Usage: dutycycle BURST_MS SLEEP_MS CYCLES */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long burst_ms, sleep_ms, cycles;
static long burst_wall, sleep_wall, sleep_delay, worker_wall, worker_cpu;
static volatile unsigned long sink;

static long now_ns(clockid_t c) {
	struct timespec ts;
	clock_gettime(c, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* run_delay: this thread's time runnable but not running (ns), or 0. */
static long run_delay(void) {
	char b[128];
	int fd = open("/proc/thread-self/schedstat", O_RDONLY);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, b, sizeof b - 1);
	close(fd);
	if (n <= 0)
		return 0;
	b[n] = 0;
	long cpu = 0, delay = 0;
	sscanf(b, "%ld %ld", &cpu, &delay);
	return delay;
}

__attribute__((noinline)) static void burn(long ms) {
	long end = now_ns(CLOCK_THREAD_CPUTIME_ID) + ms * 1000000L;
	unsigned long x = sink;
	while (now_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int k = 0; k < 1000; k++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink = x;
}

__attribute__((noinline)) static void rest(long ms) {
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0)
		;
}

static void *worker(void *a) {
	(void)a;
	long t0 = now_ns(CLOCK_MONOTONIC);
	for (long i = 0; i < cycles; i++) {
		long t = now_ns(CLOCK_MONOTONIC);
		burn(burst_ms);
		long d = run_delay();
		long u = now_ns(CLOCK_MONOTONIC);
		rest(sleep_ms);
		long v = now_ns(CLOCK_MONOTONIC);
		/* the wake-up's wait for a CPU shows once the thread runs */
		sleep_delay += run_delay() - d;
		burst_wall += u - t;
		sleep_wall += v - u;
	}
	worker_wall = now_ns(CLOCK_MONOTONIC) - t0;
	worker_cpu = now_ns(CLOCK_THREAD_CPUTIME_ID);
	return NULL;
}

int main(int argc, char **argv) {
	if (argc != 4) {
		fprintf(stderr, "usage: dutycycle BURST_MS SLEEP_MS CYCLES\n");
		return 2;
	}
	burst_ms = atol(argv[1]);
	sleep_ms = atol(argv[2]);
	cycles = atol(argv[3]);
	long t0 = now_ns(CLOCK_MONOTONIC);
	pthread_t t;
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 1;
	pthread_join(t, NULL);
	printf("%ld %ld %ld %ld %ld %ld\n", burst_wall, sleep_wall, sleep_delay, worker_wall, worker_cpu, now_ns(CLOCK_MONOTONIC) - t0);
	return 0;
}

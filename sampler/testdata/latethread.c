/* latethread: prints its pid, spins argv[1] ms (default 150) in the main
 * thread, then starts a thread that spins argv[2] ms (default 200) in
 * late_spin and joins it: a thread created after a profiler attached. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile long g_sink;

static long now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

__attribute__((noinline)) long early_spin(long until) {
	long s = 0;
	while (now_ms() < until)
		for (int i = 0; i < 1000; i++)
			s += i ^ s;
	return s;
}

__attribute__((noinline)) long late_spin(long until) {
	long s = 0;
	while (now_ms() < until)
		for (int i = 0; i < 1000; i++)
			s += i * s + 1;
	return s;
}

static long late_ms;

static void *late(void *arg) {
	(void)arg;
	g_sink = late_spin(now_ms() + late_ms);
	return NULL;
}

int main(int argc, char **argv) {
	long early_ms = argc > 1 ? atol(argv[1]) : 150;
	late_ms = argc > 2 ? atol(argv[2]) : 200;
	printf("%d\n", (int)getpid());
	fflush(stdout);
	g_sink = early_spin(now_ms() + early_ms);
	pthread_t t;
	pthread_create(&t, NULL, late, NULL);
	pthread_join(t, NULL);
	return 0;
}

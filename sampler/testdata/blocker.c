/* blocker: one thread sleeps in nanosleep (in wait_here) while the main
 * thread spins, for argv[1] ms (default 300). */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static long ms;
static volatile long g_sink;

__attribute__((noinline)) void wait_here(long total_ms) {
	struct timespec ts = {total_ms / 1000, (total_ms % 1000) * 1000000};
	nanosleep(&ts, NULL);
}

static void *sleeper(void *a) {
	(void)a;
	wait_here(ms);
	return NULL;
}

static long now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv) {
	ms = argc > 1 ? atol(argv[1]) : 300;
	pthread_t t;
	pthread_create(&t, NULL, sleeper, NULL);
	long end = now_ms() + ms;
	long s = 0;
	while (now_ms() < end)
		s++;
	g_sink = s;
	pthread_join(t, NULL);
	return 0;
}

/* workers: argv[1] threads (default 4) spin for argv[2] ms each
 * (default 300) and argv[3] child processes (default 0) do the same; the
 * parent waits for all. Exit status: argv[4] (default 0). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long ms;
static volatile long g_sink;

static long now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

__attribute__((noinline)) long burn(long until) {
	long s = 0;
	while (now_ms() < until) /* often: samples land in the vDSO */
		for (int i = 0; i < 200; i++)
			s += i ^ s;
	return s;
}

static void *worker(void *arg) {
	(void)arg;
	g_sink = burn(now_ms() + ms);
	return NULL;
}

int main(int argc, char **argv) {
	int nthreads = argc > 1 ? atoi(argv[1]) : 4;
	ms = argc > 2 ? atol(argv[2]) : 300;
	int nchildren = argc > 3 ? atoi(argv[3]) : 0;
	int status = argc > 4 ? atoi(argv[4]) : 0;
	for (int c = 0; c < nchildren; c++) {
		pid_t p = fork();
		if (p == 0) {
			g_sink = burn(now_ms() + ms);
			_exit(0);
		}
	}
	pthread_t t[64];
	for (int i = 1; i < nthreads && i < 64; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	worker(NULL);
	for (int i = 1; i < nthreads && i < 64; i++)
		pthread_join(t[i], NULL);
	while (wait(NULL) > 0)
		;
	return status;
}

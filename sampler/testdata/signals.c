/* signals: handles SIGUSR1 (counted) and SIGINT (exit 3); prints its pid,
 * sends itself argv[1] SIGUSR1s while spinning, then spins until SIGINT
 * (or argv[2] ms, then exits 4). Prints "usr1=N" at the end. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t usr1, intr;

static void on_usr1(int s) { (void)s; usr1++; }
static void on_int(int s) { (void)s; intr = 1; }

static long now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 10;
	long limit = argc > 2 ? atol(argv[2]) : 5000;
	signal(SIGUSR1, on_usr1);
	signal(SIGINT, on_int);
	printf("%d\n", (int)getpid());
	fflush(stdout);
	long start = now_ms();
	volatile long s = 0;
	for (int i = 0; i < n; i++) {
		for (int k = 0; k < 1000000; k++)
			s += k;
		kill(getpid(), SIGUSR1);
	}
	while (!intr && now_ms() - start < limit)
		s++;
	printf("usr1=%d\n", (int)usr1);
	return intr ? 3 : 4;
}

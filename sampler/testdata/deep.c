/* deep: recurses argv[1] levels (default 48) through frames of about 512
 * bytes (a stack of some 24 KiB, deeper than an 8 KiB window) and spins
 * argv[2] ms (default 400) of CPU time at the bottom in bottom(), so
 * unwinding to main needs a large stack window. CPU time, not wall time: as
 * many samples on a loaded machine. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile long g_sink;

static long now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

__attribute__((noinline)) long bottom(long until) {
	long s = 0;
	while (now_ms() < until)
		for (int i = 0; i < 100000; i++)
			s += i ^ s;
	return s;
}

__attribute__((noinline)) long descend(int level, long until) {
	volatile char pad[480];
	pad[level % 480] = (char)level;
	long r = level == 0 ? bottom(until) : descend(level - 1, until);
	return r + pad[level % 480];
}

int main(int argc, char **argv) {
	int levels = argc > 1 ? atoi(argv[1]) : 48;
	long ms = argc > 2 ? atol(argv[2]) : 400;
	g_sink = descend(levels, now_ms() + ms);
	printf("%ld\n", (long)g_sink);
	return 0;
}

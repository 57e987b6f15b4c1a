/* hole: reader() keeps a 32 KiB local buffer whose upper pages are never
 * touched, and rewrites the 64 bytes right below the first of them at each
 * iteration, spinning in spin() between: the perf sampler's stack copy
 * stops at that untouched page (the kernel cannot fault a page in at the
 * tick), and by the time the sample is read the copy's end has changed, as
 * in a config reader whose line buffer starts just below a page boundary.
 * Spins argv[1] ms of CPU time (default 400). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile long g_sink;

static long now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

__attribute__((noinline)) long spin(long x) {
	long s = x;
	for (int i = 0; i < 20000; i++)
		s += i ^ s;
	return s;
}

__attribute__((noinline)) long reader(long until) {
	char buf[32768];
	/* A page boundary 8 to 12 KiB into buf: the 20 KiB above it are
	 * never touched; the pages below it are. */
	uintptr_t b = (uintptr_t)buf, p = (b + 12288) & ~(uintptr_t)4095;
	memset(buf, 1, p - b);
	volatile char *tail = (volatile char *)(p - 64);
	__asm__ volatile("" : : "r"(buf) : "memory");
	long s = 0;
	for (long it = 0; now_ms() < until; it++) {
		for (int k = 0; k < 64; k++)
			tail[k] = (char)(it + k);
		s += spin(it);
	}
	__asm__ volatile("" : : "r"(buf) : "memory");
	return s + tail[0];
}

int main(int argc, char **argv) {
	long ms = argc > 1 ? atol(argv[1]) : 400;
	g_sink = reader(now_ms() + ms);
	printf("%ld\n", (long)g_sink);
	return 0;
}

/* stacks: known call chains for the unwinding tests.
 *   main -> sort_them -> qsort (libc) -> ... -> by_weight (comparator)
 *   main -> lib_spin (libwork.so, called through the PLT)
 * by_weight is slow on purpose so samples land in it. */
#include <stdio.h>
#include <stdlib.h>

long lib_spin(long n); /* libwork.so */

static volatile long g_sink;

static int by_weight(const void *a, const void *b) {
	long x = *(const long *)a, y = *(const long *)b;
	long wx = 0, wy = 0;
	for (int k = 0; k < 200; k++) {
		wx += (x >> (k & 7)) ^ k;
		wy += (y >> (k & 7)) ^ k;
	}
	return (wx > wy) - (wx < wy);
}

__attribute__((noinline)) long sort_them(int rounds, int count) {
	long *v = malloc(count * sizeof *v);
	long s = 0;
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < count; i++)
			v[i] = (i * 7919L + r) % count;
		qsort(v, count, sizeof *v, by_weight);
		s += v[count / 2];
	}
	free(v);
	return s;
}

int main(int argc, char **argv) {
	int rounds = argc > 1 ? atoi(argv[1]) : 20;
	long s = sort_them(rounds, 4000);
	s += lib_spin(argc > 2 ? atol(argv[2]) : 50000000);
	g_sink = s;
	printf("%ld\n", s);
	return 0;
}

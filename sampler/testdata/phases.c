/* phases: known values in known phases, for the sampler's value tests.
 *
 *   phase 1 (first half of the run)  g_phase = 42
 *   phase 2 (second half)            g_phase = 7
 *   always: g_ratio = 0.75, g_mode = MODE_FAST (2), g_ptr -> g_target (1234),
 *           g_neg = -5 (short), g_big = 1<<40 (unsigned long)
 *   spin(): loop index i over 0..n-1 (n = argv[1], default 2000000), in a
 *           register; `mark` on the stack (volatile, read by a condition),
 *           always 99
 *   inner(): inlined into spin, its loop index j over 0..15
 *
 * argv[1]: loop count per call; argv[2]: number of calls (default 40).
 * Prints a checksum so the loops are not optimised away. */
#include <stdio.h>
#include <stdlib.h>

enum mode { MODE_SLOW = 1, MODE_FAST = 2 };

int g_phase = 42;
double g_ratio = 0.75;
enum mode g_mode = MODE_FAST;
int g_target = 1234;
int *g_ptr = &g_target;
short g_neg = -5;
unsigned long g_big = 1UL << 40;
volatile long g_sink;

static inline __attribute__((always_inline)) long inner(long x) {
	long acc = 0;
	for (int j = 0; j < 16; j++)
		if ((x ^ j) & 1)
			acc += j * x + g_phase; /* g_phase is read here too */
	return acc;
}

__attribute__((noinline)) long spin(long n, int call) {
	volatile int mark = 99;
	/* The constant globals are read here, so they are sampled in spin:
	 * vprof samples a global in the functions whose code reads it. */
	long s = (long)(g_ratio * 4) + g_mode + g_neg + (long)(g_big >> 40) + *g_ptr;
	for (long i = 0; i < n; i++) {
		/* Read every global: the schema samples a global in the
		 * functions that read it. */
		if (mark != 99 || g_mode != MODE_FAST || g_neg != -5 || g_big != 1UL << 40 ||
		    *g_ptr != 1234 || g_ratio != 0.75)
			break;
		if (i % 3 == 0)
			s += inner(i + call);
		else
			s ^= i * g_phase;
	}
	return s + mark;
}

int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 2000000;
	int calls = argc > 2 ? atoi(argv[2]) : 40;
	static int other = 1;
	if (argc > 3) /* never in the tests: keeps gcc from folding *g_ptr */
		g_ptr = &other;
	long total = 0;
	for (int c = 0; c < calls; c++) {
		if (c == calls / 2)
			g_phase = 7;
		total += spin(n, c);
	}
	g_sink = total;
	printf("%ld\n", total);
	return 0;
}

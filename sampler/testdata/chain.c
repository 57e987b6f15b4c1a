/* chain: main -> level1 -> level2 -> hold, each frame with known values;
 * hold spins until g_stop is set (never, unless argv[2] says how many
 * iterations), so a debugger attached at any time sees the same values in
 * the callers. argv[1] seeds the values so they are not constants.
 * Prints its pid first. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

volatile int g_stop;
long g_iters;

__attribute__((noinline)) long hold(long depth3, long limit) {
	long spins = 0;
	while (!g_stop) {
		spins++;
		if (limit > 0 && spins >= limit)
			break;
	}
	g_iters = spins;
	return spins + depth3;
}

__attribute__((noinline)) long level2(long b, long limit) {
	long b2 = b * 5 + 1;
	long r = 0;
	for (int k = 0; k < 2 && b2 > 0; k++)
		r += hold(b2 + k, limit);
	return r + b2;
}

__attribute__((noinline)) long level1(long a, long limit) {
	long a2 = a * 3;
	long r = 0;
	for (int m = 0; m < 1 && a2 != 17; m++)
		r += level2(a2 + 2, limit);
	return r + a2;
}

int main(int argc, char **argv) {
	long seed = argc > 1 ? atol(argv[1]) : 11;
	long limit = argc > 2 ? atol(argv[2]) : 0;
	printf("%d\n", (int)getpid());
	fflush(stdout);
	long r = 0;
	for (int z = 0; z < 1 && seed != 3; z++)
		r += level1(seed, limit);
	printf("%ld\n", r);
	return 0;
}

/* dlopener: maps a library mid-run (dlopen) and spends its time in it.
 *   dlopener LIB: spins in main for 0.2 s of CPU, then dlopen()s LIB and
 *   calls its lib_spin for 0.8 s of CPU, one round of ~10 ms at a time;
 *   g_round (a global, read live, main reads it) and round (main's local,
 *   from the registers and stack copied at the tick) hold the round
 *   number. */
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

static volatile long g_sink;
volatile long g_round;

static double cpu(void) {
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
	if (argc < 2)
		return 2;
	double t0 = cpu();
	long s = 0;
	while (cpu() - t0 < 0.2)
		for (int i = 0; i < 100000; i++)
			s += i ^ (s >> 3);
	void *h = dlopen(argv[1], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	long (*spin)(long) = (long (*)(long))dlsym(h, "lib_spin");
	if (!spin)
		return 1;
	t0 = cpu();
	for (long round = 1; cpu() - t0 < 0.8; round++) {
		g_round = round;
		s += spin(4000000) ^ g_round;
	}
	g_sink = s;
	printf("%ld\n", s);
	return 0;
}

/* checksum: a deterministic computation of argv[1] rounds (default 300)
 * with short sleeps between rounds (so it runs a while and blocks in
 * nanosleep too), printing the checksum: the same with or without a
 * profiler attached and detached. Prints its pid first. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
	int rounds = argc > 1 ? atoi(argv[1]) : 300;
	printf("%d\n", (int)getpid());
	fflush(stdout);
	unsigned long h = 1469598103934665603UL;
	for (int r = 0; r < rounds; r++) {
		for (unsigned long i = 0; i < 200000; i++)
			h = (h ^ (i + r)) * 1099511628211UL;
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	printf("%lx\n", h);
	return 0;
}

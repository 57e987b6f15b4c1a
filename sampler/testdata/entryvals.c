/* entryvals: parameters that gcc -O2 describes with DW_OP_entry_value once
 * their argument register is reused, so that reading them needs the
 * caller's call-site values (DW_TAG_call_site_parameter), two levels deep:
 * inner's key is outer's entry value of base times two, and outer's base
 * is what main passed. argv[1] seeds the values, argv[2] is the number of
 * iterations of inner's loop. */
#include <stdio.h>
#include <stdlib.h>

#define NOIPA __attribute__((noipa))

volatile long g_sink;

NOIPA void work(long x) { g_sink += x; }

NOIPA long inner(long key, long n) {
	work(key); /* key is a call argument: monitored (args) */
	for (long i = 0; i < n; i++)
		work(i); /* rdi reused: key is its entry value from here on */
	return n;
}

NOIPA long outer(long base, long n) {
	return inner(base * 2, n) + 1; /* base dead after the call */
}

int main(int argc, char **argv) {
	long seed = argc > 1 ? atol(argv[1]) : 21;
	long n = argc > 2 ? atol(argv[2]) : 100000000;
	long r = outer(seed, n);
	printf("%ld\n", r + seed); /* seed lives across the call */
	return 0;
}

/* tailcall: decide() ends in a call to work(), which gcc -O2 compiles into
 * a jump: decide's frame is gone while work runs, and run's frame comes
 * right above work's. decide's parameter t points to a table whose n_rows
 * the recorder reads behind it in the restored frame, as the entry value
 * of t from run's call-site record. argv[1] is n_rows, argv[2] the number
 * of iterations of work's loop. */
#include <stdio.h>
#include <stdlib.h>

#define NOIPA __attribute__((noipa))

struct table {
	long n_rows;
	long counter;
};

volatile long g_sink;

NOIPA void work(struct table *t, long n) {
	for (long i = 0; i < n; i++)
		g_sink += i ^ t->counter;
}

NOIPA void decide(struct table *t, long n) {
	t->counter++;
	if (t->counter > t->n_rows / 16)
		work(t, n);
}

NOIPA long run(struct table *t, long n) {
	decide(t, n);
	return g_sink + t->n_rows; /* not a tail call */
}

int main(int argc, char **argv) {
	struct table t = {argc > 1 ? atol(argv[1]) : 800, 1000};
	long n = argc > 2 ? atol(argv[2]) : 100000000;
	printf("%ld\n", run(&t, n));
	return 0;
}

/* tailarg: decide() ends in a call to flush() with an argument other than
 * its own (c->tab, not c), which gcc -O2 compiles into a jump: while
 * flush's callee runs, the frame above flush's is run's, whose call-site
 * record names decide and gives decide's argument c for %rdi. flush's t is
 * DW_OP_entry_value(%rdi) after its call, so taken from that record it
 * would be c, a struct conn read as a struct table: t->n_rows would read
 * c->id. argv[1] is n_rows, argv[2] the number of iterations of work. */
#include <stdio.h>
#include <stdlib.h>

#define NOIPA __attribute__((noipa))

struct table {
	long n_rows;
	long counter;
};

struct conn {
	long id;
	struct table *tab;
};

volatile long g_sink;

NOIPA void work(long n) {
	for (long i = 0; i < n; i++)
		g_sink += i;
}

NOIPA void flush(struct table *t, long n) {
	if (t->n_rows > 100)
		work(n); /* t dead after the call: its entry value from here on */
	g_sink += n;
}

NOIPA void decide(struct conn *c, long n) {
	c->id++;
	if (c->id > 0)
		flush(c->tab, n);
}

NOIPA long run(struct conn *c, long n) {
	decide(c, n);
	return g_sink + c->id; /* not a tail call */
}

int main(int argc, char **argv) {
	struct table t = {argc > 1 ? atol(argv[1]) : 800, 0};
	struct conn c = {12345, &t};
	long n = argc > 2 ? atol(argv[2]) : 100000000;
	printf("%ld\n", run(&c, n));
	return 0;
}

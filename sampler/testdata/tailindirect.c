/* tailindirect: run() calls a handler through a function pointer (a table
 * of handlers, as a SAX parser calls its callbacks), and the handler ends
 * in a call that gcc -O2 compiles into a jump: the handler's frame is gone
 * while the callee runs, and run's call-site record names no callee. The
 * recorder restores the handler's frame from the functions whose address
 * is taken (method.md §3, D85) when exactly one of them leads to the
 * callee. argv[1] is n_rows, argv[2] the iterations of the work loop,
 * argv[3] the handler:
 *   0 decide: the only function whose address is taken that jumps to
 *     work (whose address is not taken): decide's frame is restored;
 *   1 decide2a, 2 decide2b: both jump to work2: nothing is restored;
 *   3 work3 itself, whose address is taken and to which decide3 (also
 *     in the table) jumps: the call may have reached work3 directly, as
 *     it did: nothing is restored. */
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

NOIPA void work2(struct table *t, long n) {
	for (long i = 0; i < n; i++)
		g_sink += i ^ (t->counter + 1);
}

NOIPA void decide2a(struct table *t, long n) {
	t->counter += 2;
	if (t->counter > t->n_rows / 16)
		work2(t, n);
}

NOIPA void decide2b(struct table *t, long n) {
	t->counter += 3;
	if (t->counter > t->n_rows / 16)
		work2(t, n);
}

NOIPA void work3(struct table *t, long n) {
	for (long i = 0; i < n; i++)
		g_sink += i ^ (t->counter + 2);
}

NOIPA void decide3(struct table *t, long n) {
	t->counter += 4;
	if (t->counter > t->n_rows / 16)
		work3(t, n);
}

struct handler {
	void (*on_rows)(struct table *, long);
};

struct handler handlers[] = {{decide}, {decide2a}, {decide2b}, {work3}, {decide3}};

NOIPA long run(struct handler *h, struct table *t, long n) {
	h->on_rows(t, n);
	return g_sink + t->n_rows; /* not a tail call */
}

int main(int argc, char **argv) {
	struct table t = {argc > 1 ? atol(argv[1]) : 800, 1000};
	long n = argc > 2 ? atol(argv[2]) : 100000000;
	int which = argc > 3 ? atoi(argv[3]) : 0;
	if (which < 0 || which > 4)
		which = 0;
	printf("%ld\n", run(&handlers[which], &t, n));
	return 0;
}

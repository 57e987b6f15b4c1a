/* entrychain: a parameter whose value only a chain of call-site records
 * gives (method.md §3, D116). leaf runs the loop; d and c reached their
 * callees by tail calls (jumps), so while leaf runs the stack shows leaf,
 * b, a, main, and d and c are restored frames. d's p is
 * DW_OP_entry_value(rdi) at its jump; c's tail-call record gives d's rdi
 * as c's entry rdi, b's call record gives c's as b's entry rdi, a's gives
 * b's as a's, and main's gives a's as the address of table: four records.
 * n reaches a in rsi from strtol's result, which main's record does not
 * give: d's n stays unknown. argv[1] is table.n, argv[2] the number of
 * iterations of leaf's loop. gdb (set print entry-values both) prints the
 * same: d's p@entry = &table, its n <optimized out>. */
#include <stdio.h>
#include <stdlib.h>

#define NOIPA __attribute__((noipa))

struct tab {
	long n;
	long hits;
};

struct tab table;
volatile long g_sink;

NOIPA void leaf(struct tab *t, long n) {
	for (long i = 0; i < n; i++)
		g_sink += i;
	g_sink += t->n;
}

NOIPA void d(struct tab *p, long n) {
	p->hits++;
	if (p->n > 0)
		leaf(p, n); /* tail call */
}

NOIPA void c(struct tab *p, long n) {
	d(p, n + 1); /* tail call */
}

NOIPA void b(struct tab *p, long n) {
	c(p, n);
	g_sink++; /* not a tail call; p dead after the call */
}

NOIPA void a(struct tab *p, long n) {
	b(p, n);
	g_sink++;
}

int main(int argc, char **argv) {
	table.n = argc > 1 ? atol(argv[1]) : 4242;
	long n = argc > 2 ? strtol(argv[2], NULL, 10) : 100000000;
	a(&table, n);
	printf("%ld\n", table.hits);
	return 0;
}

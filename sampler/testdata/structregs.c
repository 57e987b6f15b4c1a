/* structregs.c: a struct local held in registers (method.md §2, D325):
 * gcc splits walk's q into pieces (at -O2: DW_OP_entry_value(rdi) piece 8,
 * r12 piece 8 across the loop), and q.hi, which bounds the loop, stays in
 * r12 across the calls of step; q.hi is argv[1] + (k & 7). */
#include <stdio.h>
#include <stdlib.h>
struct span { long lo; long hi; };
long tab[256];
__attribute__((noipa)) long step(long i) { return tab[i & 255] + (i >> 3); }
__attribute__((noipa)) long walk(long lo, long hi) {
	struct span q = { lo, hi };
	long s = 0;
	for (long i = q.lo; i < q.hi; i++)
		s += step(i);
	return s;
}
int main(int argc, char **argv) {
	long hi = argc > 1 ? atol(argv[1]) : 300;
	long n = argc > 2 ? atol(argv[2]) : 100000;
	long s = 0;
	for (long k = 0; k < n; k++) {
		s += walk(k & 3, hi + (k & 7));
		tab[k & 255] = k;
	}
	printf("%ld\n", s);
	return 0;
}

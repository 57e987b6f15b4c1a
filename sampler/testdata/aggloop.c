/* A loop whose induction variable is a small struct (as C++ iterators are):
 * gcc keeps it in a register and describes it with DW_OP_piece. */
#include <stdio.h>
#include <stdlib.h>

struct cursor {
	const long *p;
};

__attribute__((noinline)) long walk(const long *a, long n, int rounds)
{
	long t = 0;
	for (int r = 0; r < rounds; r++)
		for (struct cursor c = {a}; c.p != a + n; c.p++)
			t += *c.p ^ r;
	return t;
}

int main(int argc, char **argv)
{
	long n = 4096;
	int rounds = argc > 1 ? atoi(argv[1]) : 100000;
	long *a = malloc(n * sizeof *a);
	for (long i = 0; i < n; i++)
		a[i] = i * 7;
	printf("aggloop: a=%p n=%ld t=%ld\n", (void *)a, n, walk(a, n, rounds));
	return 0;
}

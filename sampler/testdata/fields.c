/* fields: struct fields sampled as variables (method.md §2). take() spins
 * for q->pending thousand iterations in an asm loop (no variable of its
 * own): the work of a call is set by a field behind a struct pointer,
 * argv[1] (2 by default). Its spare is always NULL: nothing is read behind
 * it. The struct global pool is updated by every call: n_free cycles from
 * 3 to 0, stat.n_conn counts the calls (stat.n_err every thousandth, as
 * q->id, compared, counts them). argv[2] is the number of calls. */
#include <stdio.h>
#include <stdlib.h>

#define NOIPA __attribute__((noipa))

struct stat { long n_conn; int n_err; };
struct pool { int n_free; unsigned cap; struct stat stat; };
struct pool pool = { 3, 3, { 0, 0 } };

struct queue { long pending; int id; int flags; };

volatile long g_sink;

NOIPA long take(struct queue *q, struct queue *spare) {
	asm volatile("imul $1000, %0, %%rcx\n1: dec %%rcx\njnz 1b" : : "r"(q->pending) : "rcx", "cc");
	if (++q->id % 1000 == 0)
		pool.stat.n_err++;
	if (pool.n_free > 0)
		pool.n_free--;
	else
		pool.n_free = pool.cap;
	pool.stat.n_conn++;
	if (spare != NULL && spare->flags > 0)
		return spare->id;
	return q->id;
}

int main(int argc, char **argv) {
	struct queue q = { argc > 1 ? atol(argv[1]) : 2, 0, 7 };
	long n = argc > 2 ? atol(argv[2]) : 200000;
	struct queue *spare = argc > 3 ? &q : NULL;
	long t = 0;
	for (long k = 0; k < n; k++)
		t += take(&q, spare);
	g_sink = t;
	printf("%ld %d %ld\n", t, pool.n_free, pool.stat.n_conn);
	return 0;
}

/* Call counts of functions gcc does not leave whole (sampler/callcount,
 * method.md D256, D257): find, split by partial inlining (its NULL test
 * inlined into its callers, the walk in find.part.0); scale, cloned for
 * its constant argument (scale.constprop.0, no symbol scale); step,
 * inlined at every call, its rare branch split off and inlined back. The
 * calls, for an argument N: check N, find 3N, scale N/2, step 3N. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
	struct node *next;
	const char *key;
};

static char keys[64][8];

struct table {
	long size;
	struct node **b;
};

long sink;

long hashcode(const struct table *t, const char *key)
{
	unsigned long h = 0;
	for (; *key; key++)
		h = 5 * h + (unsigned char)*key;
	return (long)(h % (unsigned long)t->size);
}

struct node *find(struct table *t, const char *key)
{
	if (__builtin_expect(t == NULL, 1)) /* gcc splits off an unlikely rest */
		return NULL;
	struct node *n = t->b[hashcode(t, key)];
	while (n) {
		if (!strcmp(key, n->key))
			return n;
		n = n->next;
	}
	return NULL;
}

struct table *tables[3];

/* Three lookups per check, in three tables: gcc inlines find's test at
 * each and calls find.part for the rest. */
static __attribute__((noinline)) long check(long i)
{
	long found = 0;
	if (find(tables[0], keys[i % 64]))
		found++;
	if (find(tables[1], keys[(i + 1) % 64]))
		found++;
	if (find(tables[2], keys[(i + 2) % 64]))
		found++;
	return found;
}

static __attribute__((noinline)) long scale(const long *v, int n, int f)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += v[i] * f;
	return s;
}

static inline long step(long x)
{
	long r = x * x + (x >> 3);
	if (r % 7 == 0)
		sink++;
	return r;
}

static __attribute__((noinline)) long steps(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += step(i);
	return s;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	static struct node nodes[64];
	static struct node *buckets[17];
	struct table tbl = {17, buckets};
	for (int i = 0; i < 64; i++) {
		snprintf(keys[i], sizeof keys[i], "k%d", i);
		nodes[i].key = keys[i];
		long h = hashcode(&tbl, keys[i]);
		nodes[i].next = buckets[h];
		buckets[h] = &nodes[i];
	}
	for (int i = 0; i < 3; i++)
		tables[i] = &tbl;
	long v[16], s = 0, found = 0;
	for (int i = 0; i < 16; i++)
		v[i] = i;
	for (long i = 0; i < n; i++) {
		found += check(i);
		if (i % 2 == 0)
			s += scale(v, 16, 3);
		s += step(i);
	}
	s += steps(2 * n);
	printf("%ld %ld %ld\n", found, s, sink);
	return 0;
}

/*
 * var_range (Postgres-17330): tuplesort.c
 * Sorting tuples (utils/sort/tuplesort.c).
 */
#include "postgres.h"

SortSupportComparator sort_comparator = btint8fastcmp;

/* The tuplesort comparator called back by qsort. */
int comparetup_heap(const void *a, const void *b)
{
	const SortTuple *ta = a, *tb = b;
	int c = sort_comparator(ta->amount, tb->amount);
	return c ? c : sort_comparator(ta->created, tb->created);
}

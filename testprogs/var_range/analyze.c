/*
 * var_range (Postgres-17330): analyze.c
 * ANALYZE (commands/analyze.c).
 */
#include "postgres.h"

typedef struct ScalarItem { Datum value; int tupno; } ScalarItem;

static int compare_scalars(const void *a, const void *b)
{
	const ScalarItem *x = a, *y = b;
	int c = sort_comparator(x->value, y->value);
	return c ? c : x->tupno - y->tupno;
}

/* compute_scalar_stats(): sorts a sample of the live rows; returns the number of
 * distinct values. */
long analyze_rel(TransactionId snapshot_xmax, uint64_t *seed)
{
	static ScalarItem values[SAMPLE_ROWS];
	int n = 0;
	for (int i = 0; i < SAMPLE_ROWS; i++) {
		*seed ^= *seed << 13; *seed ^= *seed >> 7; *seed ^= *seed << 17;
		uint32_t tid = (uint32_t)(*seed % N_TUPLES);
		const HeapTupleHeader *tup = heap_hot_search(tid, snapshot_xmax);
		if (!tup)
			continue;
		values[n].value = tup->amount;
		values[n].tupno = n;
		n++;
	}
	qsort(values, (size_t)n, sizeof(ScalarItem), compare_scalars);
	long ndistinct = n ? 1 : 0;
	for (int i = 1; i < n; i++)
		ndistinct += values[i].value != values[i - 1].value;
	return ndistinct;
}

/*
 * var_range (Postgres-17330): selfuncs.c
 * Selectivity estimation (utils/adt/selfuncs.c), with the root cause
 * get_actual_variable_range().
 */
#include "postgres.h"

/* The actual maximum of the indexed column: scans the index backwards and returns
 * the key of the first entry whose heap tuple is visible. */
__attribute__((noinline)) static int get_actual_variable_range(TransactionId snapshot_xmax, int64_t *max)
{
	BTScanPos pos;
	for (int page = n_pages - 1; page >= 0; page--) {
		int n = _bt_readpage(&pos, page, INT64_MIN, INT64_MAX);
		/* ROOT CAUSE: each dead tuple at the end of the index is fetched and
		 * rejected, by every planning of every query */
		for (int i = n - 1; i >= 0; i--) {
			uint32_t tid = pos.items[i].tid;
			if (heap_hot_search(tid, snapshot_xmax)) {
				*max = pos.items[i].key;
				return 1;
			}
		}
	}
	return 0;
}

/* A selectivity estimate for created BETWEEN lo AND hi (the histogram, with the
 * actual maximum for the open end). */
double scalarineqsel(int64_t lo, int64_t hi, TransactionId snapshot_xmax)
{
	int64_t max;
	if (!get_actual_variable_range(snapshot_xmax, &max))
		return 0.0;
	if (hi > max)
		hi = max;
	return hi > lo ? (double)(hi - lo) / (double)(max + 1) : 0.0;
}

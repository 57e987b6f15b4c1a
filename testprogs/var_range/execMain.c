/*
 * var_range (Postgres-17330): execMain.c
 * The executor (executor/execMain.c): an index range scan and a sort.
 */
#include "postgres.h"

/* SELECT * FROM orders WHERE created BETWEEN lo AND hi ORDER BY amount */
uint64_t exec_query(int64_t lo, int64_t hi, TransactionId snapshot_xmax, SortTuple *sortbuf)
{
	/* binary search for the first leaf page (btree descent) */
	int page = 0, top = n_pages - 1;
	while (page < top) {
		int mid = (page + top) / 2;
		if (btree[mid].items[btree[mid].nitems - 1].key < lo)
			page = mid + 1;
		else
			top = mid;
	}
	BTScanPos pos;
	int ntup = 0;
	for (; page < n_pages; page++) {
		int n = _bt_readpage(&pos, page, lo, hi);
		for (int i = 0; i < n; i++) {
			const HeapTupleHeader *tup = heap_hot_search(pos.items[i].tid, snapshot_xmax);
			if (!tup)
				continue;
			sortbuf[ntup].amount = tup->amount;
			sortbuf[ntup].created = tup->created;
			memcpy(&sortbuf[ntup].tuple, tup, sizeof *tup);
			ntup++;
		}
		if (btree[page].items[btree[page].nitems - 1].key > hi)
			break;
	}
	qsort(sortbuf, (size_t)ntup, sizeof(SortTuple), comparetup_heap);
	uint64_t h = (uint64_t)ntup;
	for (int i = 0; i < ntup; i++)
		h = h * 1000003 + (uint64_t)sortbuf[i].tuple.customer;
	return h;
}

/*
 * var_range (Postgres-17330): heapam.c
 * The heap (access/heap/heapam.c).
 */
#include "postgres.h"

unsigned long n_heap_fetches;

HeapTupleHeader *heap;

/* Fetches a heap tuple and checks its visibility to an MVCC snapshot. */
EXTERN_FN const HeapTupleHeader *heap_hot_search(uint32_t tid, TransactionId snapshot_xmax)
{
	const HeapTupleHeader *tup = &heap[tid];
	n_heap_fetches++;
	if (tup->t_xmin >= snapshot_xmax)
		return NULL;
	if (tup->t_xmax && tup->t_xmax < snapshot_xmax)
		return NULL;            /* deleted: dead to this snapshot */
	return tup;
}

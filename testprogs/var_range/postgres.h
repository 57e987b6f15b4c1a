/*
 * var_range (Postgres-17330): postgres.h - the declarations the files of this program share
 * (postgres.h, htup_details.h, nbtree.h, sortsupport.h ... in PostgreSQL). The
 * program is described in main.c.
 */
#ifndef VAR_RANGE_POSTGRES_H
#define VAR_RANGE_POSTGRES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A function that lives in another compilation unit of PostgreSQL (no LTO). */
#define EXTERN_FN __attribute__((noinline))

#define N_TUPLES 250000
#define N_QUERIES 500
#define ITEMS_PER_PAGE 256
#define QUERY_RANGE 4000
#define ANALYZE_EVERY 50
#define SAMPLE_ROWS 30000

typedef uint32_t TransactionId;
typedef int64_t Datum;

typedef struct HeapTupleHeader {
	TransactionId t_xmin, t_xmax;   /* xmax != 0: deleted (committed) */
	int64_t created;                /* indexed column */
	int64_t amount;
	int64_t customer;
	char note[40];
} HeapTupleHeader;

typedef struct IndexTuple {
	int64_t key;
	uint32_t tid;                   /* heap tuple number */
} IndexTuple;

typedef struct BTPage {
	int nitems;
	IndexTuple items[ITEMS_PER_PAGE];
} BTPage;

/* main.c: the workload */
extern long n_dead_tail;

/* heapam.c */
extern unsigned long n_heap_fetches;
extern HeapTupleHeader *heap;
EXTERN_FN const HeapTupleHeader *heap_hot_search(uint32_t tid, TransactionId snapshot_xmax);

/* nbtsearch.c */
extern BTPage *btree;           /* leaf pages in key order */
extern int n_pages;

typedef struct BTScanPos {
	int page;
	int item;
	int nitems;
	IndexTuple items[ITEMS_PER_PAGE];   /* the current page's matching items */
} BTScanPos;

EXTERN_FN int _bt_readpage(BTScanPos *pos, int page, int64_t lo, int64_t hi);

/* selfuncs.c */
double scalarineqsel(int64_t lo, int64_t hi, TransactionId snapshot_xmax);

/* tuplesort.c, nbtcompare.c */
typedef struct SortTuple {
	int64_t amount;
	int64_t created;
	HeapTupleHeader tuple;          /* copied, as tuplesort_puttupleslot does */
} SortTuple;

typedef int (*SortSupportComparator)(Datum a, Datum b);

extern SortSupportComparator sort_comparator;
int btint8fastcmp(Datum a, Datum b);
int comparetup_heap(const void *a, const void *b);

/* execMain.c, analyze.c */
uint64_t exec_query(int64_t lo, int64_t hi, TransactionId snapshot_xmax, SortTuple *sortbuf);
long analyze_rel(TransactionId snapshot_xmax, uint64_t *seed);

#endif

//go:build ignore

/*
 * var_range.c - Postgres-17330: planning (EXPLAIN) hangs for some queries
 * (Table 3.1 b14; PostgreSQL bug #17330).
 *
 * The real bug: to estimate selectivities, the planner's get_actual_variable_range()
 * reads the actual minimum or maximum of an indexed column from the index: it scans
 * from the end of the index and fetches heap tuples until it finds a visible one.
 * With the snapshot it used, every dead tuple at the end of the index (rows deleted
 * but not yet vacuumed) has to be fetched and rejected one by one, by every planning
 * of every query. gprof ranked inherently costly functions (_bt_checkkeys,
 * pglz_decompress, SearchCatCache) at the top and missed the function; vProf ranked
 * it 4th as a scalability bug, with _bt_readpage (the pages it reads) above it.
 *
 * Here: a table of 250000 orders with a btree index on the creation timestamp;
 * every query is planned (get_actual_variable_range on the index) and executed: an
 * index range scan whose tuples are copied (memcpy) into a tuplesort and sorted
 * with libc qsort() and a comparator; ANALYZE runs every 50 queries (qsort of a
 * sample). normal: 300 dead tuples at the end of the index; buggy: 120000 (a large
 * DELETE of the newest rows that autovacuum has not processed yet). Query results
 * (the checksum) are the same in both modes: dead tuples are never returned.
 *
 * Root cause: get_actual_variable_range(), its loop over index entries that skips
 * dead heap tuples (ROOT CAUSE). Key variables: page, i and tid (get_actual_variable_range),
 * n_dead_tail (#global). Pattern: scalability.
 */
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

/* Configuration: dead tuples at the high end of the index. */
long n_dead_tail = 300;
unsigned long n_heap_fetches;

static HeapTupleHeader *heap;
static BTPage *btree;           /* leaf pages in key order */
static int n_pages;

/* ---------------------------------------------------------------- index access */

typedef struct BTScanPos {
	int page;
	int item;
	int nitems;
	IndexTuple items[ITEMS_PER_PAGE];   /* the current page's matching items */
} BTScanPos;

/* Reads one leaf page into the scan position (copying its items), keeping the
 * items within [lo, hi]. */
EXTERN_FN int _bt_readpage(BTScanPos *pos, int page, int64_t lo, int64_t hi)
{
	const BTPage *p = &btree[page];
	int n = 0;
	for (int i = 0; i < p->nitems; i++) {
		/* _bt_checkkeys */
		if (p->items[i].key < lo || p->items[i].key > hi)
			continue;
		memcpy(&pos->items[n++], &p->items[i], sizeof(IndexTuple));
	}
	pos->page = page;
	pos->nitems = n;
	return n;
}

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

/* ---------------------------------------------------------------- planner */

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
static double scalarineqsel(int64_t lo, int64_t hi, TransactionId snapshot_xmax)
{
	int64_t max;
	if (!get_actual_variable_range(snapshot_xmax, &max))
		return 0.0;
	if (hi > max)
		hi = max;
	return hi > lo ? (double)(hi - lo) / (double)(max + 1) : 0.0;
}

/* ---------------------------------------------------------------- executor */

typedef struct SortTuple {
	int64_t amount;
	int64_t created;
	HeapTupleHeader tuple;          /* copied, as tuplesort_puttupleslot does */
} SortTuple;

typedef int (*SortSupportComparator)(Datum a, Datum b);

static int btint8fastcmp(Datum a, Datum b)
{
	return a < b ? -1 : a > b;
}

static SortSupportComparator sort_comparator = btint8fastcmp;

/* The tuplesort comparator called back by qsort. */
static int comparetup_heap(const void *a, const void *b)
{
	const SortTuple *ta = a, *tb = b;
	int c = sort_comparator(ta->amount, tb->amount);
	return c ? c : sort_comparator(ta->created, tb->created);
}

/* SELECT * FROM orders WHERE created BETWEEN lo AND hi ORDER BY amount */
static uint64_t exec_query(int64_t lo, int64_t hi, TransactionId snapshot_xmax, SortTuple *sortbuf)
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

/* ---------------------------------------------------------------- ANALYZE */

typedef struct ScalarItem { Datum value; int tupno; } ScalarItem;

static int compare_scalars(const void *a, const void *b)
{
	const ScalarItem *x = a, *y = b;
	int c = sort_comparator(x->value, y->value);
	return c ? c : x->tupno - y->tupno;
}

/* compute_scalar_stats(): sorts a sample of the live rows; returns the number of
 * distinct values. */
static long analyze_rel(TransactionId snapshot_xmax, uint64_t *seed)
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

/* ---------------------------------------------------------------- set-up */

static void load_orders(void)
{
	heap = calloc(N_TUPLES, sizeof *heap);
	n_pages = (N_TUPLES + ITEMS_PER_PAGE - 1) / ITEMS_PER_PAGE;
	btree = calloc((size_t)n_pages, sizeof *btree);
	if (!heap || !btree) { perror("calloc"); exit(1); }
	uint64_t s = 2024;
	/* heap order differs from index order: tuples were updated and moved */
	for (uint32_t k = 0; k < N_TUPLES; k++) {
		uint32_t tid = (uint32_t)(((uint64_t)k * 7919) % N_TUPLES);
		s ^= s << 13; s ^= s >> 7; s ^= s << 17;
		HeapTupleHeader *t = &heap[tid];
		t->t_xmin = 100 + k / 1000;
		t->created = 1600000000 + (int64_t)k * 10;
		t->amount = (int64_t)(s % 100000);
		t->customer = (int64_t)(s >> 40);
		snprintf(t->note, sizeof t->note, "order %u", k);
		/* the newest rows were deleted by a transaction that committed */
		if (k >= N_TUPLES - n_dead_tail)
			t->t_xmax = 500;
		BTPage *p = &btree[k / ITEMS_PER_PAGE];
		p->items[p->nitems].key = t->created;
		p->items[p->nitems].tid = tid;
		p->nitems++;
	}
}

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  Plans and runs %d range queries over a table of orders (Postgres-17330).\n"
		"  normal: 300 dead tuples at the end of the index; buggy: 120000.\n", argv0, N_QUERIES);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return usage(argv[0]);
	if (strcmp(argv[1], "normal") == 0)
		n_dead_tail = 300;
	else if (strcmp(argv[1], "buggy") == 0)
		n_dead_tail = 120000;
	else
		return usage(argv[0]);

	load_orders();
	SortTuple *sortbuf = malloc(sizeof(SortTuple) * (QUERY_RANGE + ITEMS_PER_PAGE));
	if (!sortbuf) { perror("malloc"); return 1; }
	const TransactionId snapshot_xmax = 1000;
	uint64_t sum = 0, seed = 77;
	double sel = 0;
	long ndistinct = 0;
	for (int q = 0; q < N_QUERIES; q++) {
		/* ranges over the live part of the table (dead rows never qualify) */
		int64_t lo = 1600000000 + (int64_t)((q * 104729L) % (N_TUPLES - 120000 - QUERY_RANGE)) * 10;
		int64_t hi = lo + QUERY_RANGE * 10 - 1;
		sel += scalarineqsel(lo, hi, snapshot_xmax);
		sum = sum * 31 + exec_query(lo, hi, snapshot_xmax, sortbuf);
		if (q % ANALYZE_EVERY == 0)
			ndistinct = analyze_rel(snapshot_xmax, &seed);
	}
	printf("var_range %s: queries=%d checksum=%016llx\n", argv[1], N_QUERIES, (unsigned long long)sum);
	(void)sel;
	(void)ndistinct;
	free(sortbuf);
	return 0;
}

/*
 * var_range - Postgres-17330: planning (EXPLAIN) hangs for some queries
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
 *
 * Files, as in PostgreSQL's src/backend: selfuncs.c (utils/adt: selectivity
 * estimation, the root cause), nbtsearch.c, nbtcompare.c (access/nbtree),
 * heapam.c (access/heap), tuplesort.c (utils/sort), execMain.c (executor: the
 * query's scan and sort), analyze.c (commands), postgres.h (shared
 * declarations); main.c (this driver: loads the table, deletes its newest rows,
 * runs the queries).
 */
#include "postgres.h"

/* Configuration: dead tuples at the high end of the index. */
long n_dead_tail = 300;

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

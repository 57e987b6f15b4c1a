/*
 * lru_scan - MDEV-23399: throughput drops when threads compete for buffer-pool
 * space (MariaDB 10.5, Table 3.1 b2, Figure 3.5 of the vProf chapter).
 *
 * The real bug: a thread that needs a free block calls buf_LRU_get_free_block(),
 * which, holding the buffer-pool mutex, walks the LRU list from its tail in
 * buf_LRU_free_from_common_LRU_list() looking for a page it can evict. When the
 * tail is full of dirty (modified, not yet flushed) pages, every such walk skips
 * hundreds of pages: the local `scanned` grows large, all other threads wait for
 * the mutex, and the page cleaner cannot keep up. Profilers blame page access
 * and checksum functions; developers spent their time looking at `scanned`.
 *
 * Here: 4 worker threads run a read-write workload (page look-ups, row search on
 * each page, some updates) against a 1024-frame buffer pool; every FLUSH_EVERY page
 * reads a batch of the oldest modified pages is flushed (the IO capacity). normal: the data set (800 pages) fits in
 * the pool, so the LRU is never scanned after warm-up; buggy: the data set is
 * 6000 pages (the IO-bound case of the report), and every miss scans the dirty LRU
 * tail under the mutex. The checksum is independent of thread timing.
 *
 * Root cause: buf_LRU_free_from_common_LRU_list(), the scan loop (ROOT CAUSE).
 * Key variables: scanned (buf_LRU_free_from_common_LRU_list), srv_data_pages
 * (#global). Pattern: scalability (a loop variable with abnormal values).
 *
 * Files, as in MariaDB's storage/innobase: buf0lru.c (LRU list and eviction: the
 * root cause), buf0buf.c (the buffer pool and page access), buf0flu.c (flushing),
 * buf0rea.c (page reads), buf0checksum.c, ut0crc32.c (checksums), fil0fil.c (the
 * data file), row0sel.c (row search on a page), srv0srv.c (configuration and
 * counters: srv_data_pages), lru_scan.h (shared declarations and inline helpers,
 * the .h/.ic files of MariaDB); main.c (this driver: the worker threads).
 */
#include "lru_scan.h"

struct worker { int no; uint64_t result; };

static void *worker_thread(void *arg)
{
	struct worker *w = arg;
	uint64_t seed = 0x9e3779b97f4a7c15ull * (w->no + 1);
	uint64_t acc = 0;
	for (int op = 0; op < OPS_PER_WORKER; op++) {
		uint64_t r = rnd_next(&seed);
		/* 80% of accesses go to the hottest 20% of the pages */
		ulint hot = srv_data_pages / 5;
		ulint id = (r & 0xff) < 205 ? (r >> 8) % hot : hot + (r >> 8) % (srv_data_pages - hot);
		bool write = (r >> 56) % 100 < WRITE_PCT;
		buf_page_t *b = buf_page_get_gen(id);
		acc += row_search_on_page(b->frame, r) % 1000003;
		if (write)
			__atomic_fetch_add(page_mod_count(b->frame), 1, __ATOMIC_RELAXED);
		buf_page_release(b, write);
	}
	w->result = acc;
	return NULL;
}

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  Read-write workload on a 1024-page buffer pool (MDEV-23399). normal: 800\n"
		"  data pages (fits); buggy: 6000 data pages (IO-bound, long LRU scans).\n", argv0);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return usage(argv[0]);
	if (strcmp(argv[1], "normal") == 0)
		srv_data_pages = 800;
	else if (strcmp(argv[1], "buggy") == 0)
		srv_data_pages = 6000;
	else
		return usage(argv[0]);

	crc32_init();
	fil_space_create();
	buf_pool_init();

	pthread_t th[N_WORKERS];
	struct worker w[N_WORKERS];
	for (int i = 0; i < N_WORKERS; i++) {
		w[i].no = i;
		if (pthread_create(&th[i], NULL, worker_thread, &w[i]) != 0) { perror("pthread_create"); return 1; }
	}
	uint64_t sum = 0;
	for (int i = 0; i < N_WORKERS; i++) {
		pthread_join(th[i], NULL);
		sum = sum * 1000003 + w[i].result;
	}

	/* shut down: flush everything, then add up the persistent update counters */
	uint64_t updates = 0;
	while (buf_pool.flush_head)
		buf_flush_write_page(buf_pool.flush_head);
	for (ulint p = 0; p < srv_data_pages; p++)
		updates += *page_mod_count(fil_space + p * PAGE_SIZE);
	printf("lru_scan %s: updates=%llu checksum=%016llx\n", argv[1],
	       (unsigned long long)updates, (unsigned long long)sum);
	return 0;
}

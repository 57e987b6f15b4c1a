//go:build ignore

/*
 * lru_scan.c - MDEV-23399: throughput drops when threads compete for buffer-pool
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
 */
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A function that lives in another compilation unit of the server (no LTO), so it
 * is never inlined into its callers there either. */
#define EXTERN_FN __attribute__((noinline))

typedef unsigned long ulint;
typedef unsigned char byte;
typedef uint64_t lsn_t;

#define PAGE_SIZE 4096
#define POOL_FRAMES 1024
#define PAGE_HASH_CELLS 2048
#define N_WORKERS 4
#define OPS_PER_WORKER 60000
#define WRITE_PCT 90
#define REC_SIZE 64
#define PAGE_HDR 64
#define MAX_DATA_PAGES 6000
#define FLUSH_BATCH 2        /* pages per flush batch: the IO capacity */
#define FLUSH_EVERY 64       /* a flush batch per this many page reads */

typedef struct buf_page_t {
	pthread_mutex_t mutex;              /* block mutex: fix_count, io_pending */
	ulint id;
	lsn_t oldest_modification;          /* 0: clean */
	unsigned fix_count;                 /* buffer-fixed by readers */
	bool io_pending;                    /* being read from the data file */
	struct buf_page_t *lru_prev, *lru_next;
	struct buf_page_t *flush_prev, *flush_next;  /* flush list, by oldest_modification */
	struct buf_page_t *hash_next;
	byte *frame;
} buf_page_t;

/* Configuration: how many pages the workload touches. */
ulint srv_data_pages = 800;
int srv_LRU_flush_size = 1;         /* pages flushed when no block can be freed (10.5.5: 1) */
ulint srv_LRU_scanned_total;        /* monitor counter, like MONITOR_LRU_BATCH_SCANNED */
ulint srv_n_pages_read;
ulint srv_n_pages_flushed;

static struct {
	pthread_mutex_t mutex;
	buf_page_t pages[POOL_FRAMES];
	buf_page_t *free_list;              /* linked through lru_next */
	buf_page_t *lru_head, *lru_tail;
	buf_page_t *hash[PAGE_HASH_CELLS];
	buf_page_t *flush_head, *flush_tail;  /* oldest modification first */
	lsn_t lsn;
} buf_pool = { .mutex = PTHREAD_MUTEX_INITIALIZER };

static byte *fil_space;                 /* the data file */
static uint32_t crc_table[256];
static bool ut_crc32_hw_ok;

/* ---------------------------------------------------------------- checksums */

static void crc32_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0x82f63b78u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
	__builtin_cpu_init();
	ut_crc32_hw_ok = __builtin_cpu_supports("sse4.2");
}

__attribute__((target("sse4.2"))) static uint32_t ut_crc32_hw(const byte *p, size_t n)
{
	uint64_t c = 0xffffffffu;
	for (; n && ((uintptr_t)p & 7); n--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	for (; n >= 8; n -= 8, p += 8) {
		uint64_t v;
		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
	}
	for (; n; n--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	return ~(uint32_t)c;
}

static uint32_t ut_crc32_sw(const byte *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	while (n--)
		c = crc_table[(c ^ *p++) & 0xff] ^ (c >> 8);
	return ~c;
}

EXTERN_FN uint32_t buf_calc_page_crc32(const byte *page)
{
	return ut_crc32_hw_ok ? ut_crc32_hw(page + 4, PAGE_SIZE - 4) : ut_crc32_sw(page + 4, PAGE_SIZE - 4);
}

static inline uint32_t page_get_checksum(const byte *page)
{
	uint32_t v;
	memcpy(&v, page, 4);
	return v;
}

static inline void page_set_checksum(byte *page)
{
	uint32_t v = buf_calc_page_crc32(page);
	memcpy(page, &v, 4);
}

/* The update counter in the page header; updates are atomic adds so that the
 * final state does not depend on thread interleaving. */
static inline uint64_t *page_mod_count(byte *frame)
{
	return (uint64_t *)(frame + 8);
}

/* ---------------------------------------------------------------- LRU list and page hash */

static void lru_remove(buf_page_t *b)
{
	if (b->lru_prev) b->lru_prev->lru_next = b->lru_next; else buf_pool.lru_head = b->lru_next;
	if (b->lru_next) b->lru_next->lru_prev = b->lru_prev; else buf_pool.lru_tail = b->lru_prev;
	b->lru_prev = b->lru_next = NULL;
}

static void lru_add_head(buf_page_t *b)
{
	b->lru_prev = NULL;
	b->lru_next = buf_pool.lru_head;
	if (buf_pool.lru_head) buf_pool.lru_head->lru_prev = b; else buf_pool.lru_tail = b;
	buf_pool.lru_head = b;
}

static inline ulint page_hash_cell(ulint id)
{
	return (id * 0x9e3779b1u) % PAGE_HASH_CELLS;
}

static buf_page_t *page_hash_get(ulint id)
{
	for (buf_page_t *b = buf_pool.hash[page_hash_cell(id)]; b; b = b->hash_next)
		if (b->id == id)
			return b;
	return NULL;
}

static void page_hash_remove(buf_page_t *b)
{
	buf_page_t **pp = &buf_pool.hash[page_hash_cell(b->id)];
	while (*pp != b)
		pp = &(*pp)->hash_next;
	*pp = b->hash_next;
	b->hash_next = NULL;
}

/* ---------------------------------------------------------------- flushing */

/* Writes a dirty page to the data file and removes it from the flush list.
 * Caller holds the mutex; the page is not fixed. */
static void buf_flush_write_page(buf_page_t *b)
{
	page_set_checksum(b->frame);
	memcpy(fil_space + b->id * PAGE_SIZE, b->frame, PAGE_SIZE);
	b->oldest_modification = 0;
	if (b->flush_prev) b->flush_prev->flush_next = b->flush_next; else buf_pool.flush_head = b->flush_next;
	if (b->flush_next) b->flush_next->flush_prev = b->flush_prev; else buf_pool.flush_tail = b->flush_prev;
	b->flush_prev = b->flush_next = NULL;
	srv_n_pages_flushed++;
}

static void buf_flush_note_modification(buf_page_t *b)
{
	b->oldest_modification = ++buf_pool.lsn;
	b->flush_next = NULL;
	b->flush_prev = buf_pool.flush_tail;
	if (buf_pool.flush_tail) buf_pool.flush_tail->flush_next = b; else buf_pool.flush_head = b;
	buf_pool.flush_tail = b;
}

/* Flushes up to n of the oldest modified pages (the flush list order), as the page
 * cleaner does to advance the checkpoint. Caller holds the mutex. */
static int buf_flush_list_batch(int n)
{
	int flushed = 0;
	buf_page_t *next;
	for (buf_page_t *b = buf_pool.flush_head; b && flushed < n; b = next) {
		next = b->flush_next;
		pthread_mutex_lock(&b->mutex);
		if (b->fix_count == 0) {
			buf_flush_write_page(b);
			flushed++;
		}
		pthread_mutex_unlock(&b->mutex);
	}
	return flushed;
}

/* ---------------------------------------------------------------- LRU eviction */

/* Walks the LRU list from the tail for a page that can be evicted (clean and not
 * fixed) and moves its frame to the free list. Caller holds the mutex. */
__attribute__((noinline)) static bool buf_LRU_free_from_common_LRU_list(bool scan_all)
{
	ulint scanned = 0;
	bool freed = false;
	buf_page_t *bpage, *prev;

	/* ROOT CAUSE: under buffer-pool pressure the tail is all dirty pages and this
	 * walk, done with the mutex held, skips hundreds of them per free block. */
	for (bpage = buf_pool.lru_tail; bpage && !freed && (scan_all || scanned < 100); ++scanned, bpage = prev) {
		prev = bpage->lru_prev;
		pthread_mutex_lock(&bpage->mutex);
		bool can_relocate = bpage->fix_count == 0 && !bpage->io_pending;
		pthread_mutex_unlock(&bpage->mutex);
		if (can_relocate && bpage->oldest_modification == 0) {
			lru_remove(bpage);
			page_hash_remove(bpage);
			bpage->id = ~(ulint)0;
			bpage->lru_next = buf_pool.free_list;
			buf_pool.free_list = bpage;
			freed = true;
		}
	}
	srv_LRU_scanned_total += scanned;
	return freed;
}

/* Returns a free frame. Caller holds the mutex; it may be released while waiting. */
static buf_page_t *buf_LRU_get_free_block(void)
{
	for (ulint n_iterations = 0;; n_iterations++) {
		buf_page_t *b = buf_pool.free_list;
		if (b) {
			buf_pool.free_list = b->lru_next;
			b->lru_next = NULL;
			return b;
		}
		if (buf_LRU_free_from_common_LRU_list(n_iterations > 0))
			continue;
		if (!buf_flush_list_batch(srv_LRU_flush_size)) {
			/* everything is fixed: let the other threads finish */
			pthread_mutex_unlock(&buf_pool.mutex);
			sched_yield();
			pthread_mutex_lock(&buf_pool.mutex);
		}
	}
}

/* ---------------------------------------------------------------- page access */

static void buf_read_page_low(buf_page_t *b)
{
	memcpy(b->frame, fil_space + b->id * PAGE_SIZE, PAGE_SIZE);
	if (page_get_checksum(b->frame) != buf_calc_page_crc32(b->frame)) {
		fprintf(stderr, "page %lu: checksum mismatch\n", b->id);
		exit(3);
	}
}

/* Returns page id buffer-fixed, reading it in if needed. */
static buf_page_t *buf_page_get_gen(ulint id)
{
	pthread_mutex_lock(&buf_pool.mutex);
	buf_page_t *b = page_hash_get(id);
	if (b) {
		pthread_mutex_lock(&b->mutex);
		b->fix_count++;
		pthread_mutex_unlock(&b->mutex);
		if (b != buf_pool.lru_head) {
			lru_remove(b);
			lru_add_head(b);
		}
		pthread_mutex_unlock(&buf_pool.mutex);
		for (;;) {
			pthread_mutex_lock(&b->mutex);
			bool pending = b->io_pending;
			pthread_mutex_unlock(&b->mutex);
			if (!pending)
				return b;
			sched_yield();
		}
	}
	b = buf_LRU_get_free_block();
	b->id = id;
	pthread_mutex_lock(&b->mutex);
	b->fix_count = 1;
	b->io_pending = true;
	pthread_mutex_unlock(&b->mutex);
	b->oldest_modification = 0;
	b->hash_next = buf_pool.hash[page_hash_cell(id)];
	buf_pool.hash[page_hash_cell(id)] = b;
	lru_add_head(b);
	if (++srv_n_pages_read % FLUSH_EVERY == 0)
		buf_flush_list_batch(FLUSH_BATCH);
	pthread_mutex_unlock(&buf_pool.mutex);

	buf_read_page_low(b);
	pthread_mutex_lock(&b->mutex);
	b->io_pending = false;
	pthread_mutex_unlock(&b->mutex);
	return b;
}

static void buf_page_release(buf_page_t *b, bool modified)
{
	pthread_mutex_lock(&buf_pool.mutex);
	if (modified && !b->oldest_modification)
		buf_flush_note_modification(b);
	pthread_mutex_lock(&b->mutex);
	b->fix_count--;
	pthread_mutex_unlock(&b->mutex);
	pthread_mutex_unlock(&buf_pool.mutex);
}

/* ---------------------------------------------------------------- the workload */

/* Searches the page's records for the key: hashes every record (the row format's
 * field offsets are computed for each, as rec_get_offsets() does). */
EXTERN_FN uint64_t row_search_on_page(const byte *frame, uint64_t key)
{
	uint64_t best = 0;
	for (int r = 0; r < (PAGE_SIZE - PAGE_HDR) / REC_SIZE; r++) {
		const byte *rec = frame + PAGE_HDR + r * REC_SIZE;
		uint64_t h = 0xcbf29ce484222325ull;
		for (int i = 0; i < REC_SIZE; i++)
			h = (h ^ rec[i]) * 0x100000001b3ull;
		if ((h ^ key) > best)
			best = h ^ key;
	}
	return best;
}

static uint64_t rnd_next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13; x ^= x >> 7; x ^= x << 17;
	return *s = x;
}

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

static void fil_space_create(void)
{
	fil_space = malloc((size_t)MAX_DATA_PAGES * PAGE_SIZE);
	if (!fil_space) { perror("malloc"); exit(1); }
	uint64_t s = 42;
	for (ulint p = 0; p < srv_data_pages; p++) {
		byte *page = fil_space + p * PAGE_SIZE;
		memset(page, 0, PAGE_HDR);
		for (int i = PAGE_HDR; i < PAGE_SIZE; i += 8) {
			uint64_t v = rnd_next(&s);
			memcpy(page + i, &v, 8);
		}
		page_set_checksum(page);
	}
}

static void buf_pool_init(void)
{
	byte *frames = aligned_alloc(PAGE_SIZE, (size_t)POOL_FRAMES * PAGE_SIZE);
	if (!frames) { perror("aligned_alloc"); exit(1); }
	for (int i = POOL_FRAMES - 1; i >= 0; i--) {
		buf_page_t *b = &buf_pool.pages[i];
		b->frame = frames + (size_t)i * PAGE_SIZE;
		pthread_mutex_init(&b->mutex, NULL);
		b->id = ~(ulint)0;
		b->lru_next = buf_pool.free_list;
		buf_pool.free_list = b;
	}
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

//go:build ignore

/*
 * recovery_budget.c - MDEV-21826: MariaDB crash recovery "loops on the same LSN".
 *
 * The real bug (mariadb-server 10.3, Table 3.1 b1, Figure 3.1 of the vProf chapter):
 * recv_sys_init() sets the global recv_n_pool_free_frames to a third of the buffer
 * pool; recv_group_scan_log_recs() then computes
 *     available_mem = page_size * (pool_pages - recv_n_pool_free_frames * instances)
 * which is zero with three buffer-pool instances. recv_scan_log_recs() stops storing
 * parsed redo records as soon as the record heap reaches available_mem, so every pass
 * of the do/while loop in recv_group_scan_log_recs() stores a single log block, has
 * recv_apply_hashed_log_recs() apply that tiny batch (the function every profiler
 * blames), and re-reads the next scan segment starting from (almost) the same LSN.
 *
 * Here the same code runs in both modes; only a configuration value differs, as in
 * the report: normal = 1 buffer-pool instance, buggy = 3 instances, which makes the
 * budget available_mem exactly zero. The recovered pages (and the checksum) are the
 * same in both modes; the buggy mode re-reads log segments and re-checksums pages
 * many more times.
 *
 * Root cause: recv_group_scan_log_recs(), the line computing available_mem
 * (marked ROOT CAUSE). Key variables: available_mem (recv_group_scan_log_recs),
 * recv_n_pool_free_frames and srv_buf_pool_instances (globals). Pattern: wrong
 * constraint (the loop condition recv_scan_log_recs(available_mem, ...) is evaluated
 * with a wrong budget).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned long ulint;
typedef uint64_t lsn_t;
typedef unsigned char byte;

#define UNIV_PAGE_SIZE 16384
#define POOL_PAGES 3072             /* divisible by 3: with 3 instances the budget is 0 */
#define LOG_BLOCK_SIZE 512
#define LOG_BLOCK_HDR 12
#define LOG_BLOCK_TRL 4
#define LOG_BLOCK_DATA (LOG_BLOCK_SIZE - LOG_BLOCK_HDR - LOG_BLOCK_TRL)
#define RECV_SCAN_SIZE (8 * LOG_BLOCK_SIZE)
#define RECV_HASH_CELLS 4096
#define N_MTR 40000                 /* mini-transactions written before the "crash" */

/* Configuration and recovery globals, as in MariaDB. */
ulint srv_buf_pool_instances = 1;
ulint recv_n_pool_free_frames;
ulint recv_n_batches;

static byte *fil_space;             /* the data file: POOL_PAGES pages */
static byte *buf_pool;              /* POOL_PAGES page frames */
static bool *buf_page_resident;     /* frame p holds page p */
static byte *log_sys_buf;           /* the redo log as written before the crash */
static lsn_t log_sys_lsn;           /* end of the written log */
static uint32_t crc_table[256];

/* ---------------------------------------------------------------- checksums */

static void ut_crc32_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0x82f63b78u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

/* Byte-at-a-time CRC-32C: the inherently costly part of recovery in both modes.
 * As in MariaDB, callers go through the ut_crc32 pointer, set once the CPU's
 * capabilities are known. */
static uint32_t ut_crc32_sw(const byte *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	while (n--)
		c = crc_table[(c ^ *p++) & 0xff] ^ (c >> 8);
	return ~c;
}

static uint32_t (*ut_crc32)(const byte *p, size_t n) = ut_crc32_sw;

static uint32_t log_block_calc_checksum(const byte *block)
{
	return ut_crc32(block, LOG_BLOCK_SIZE - LOG_BLOCK_TRL);
}

static uint32_t buf_calc_page_crc32(const byte *page)
{
	/* The checksum field itself (first 4 bytes) is excluded. */
	return ut_crc32(page + 4, UNIV_PAGE_SIZE - 4);
}

static inline void mach_write_4(byte *b, uint32_t v)
{
	b[0] = (byte)(v >> 24); b[1] = (byte)(v >> 16); b[2] = (byte)(v >> 8); b[3] = (byte)v;
}

static inline uint32_t mach_read_4(const byte *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static inline uint32_t mach_read_2(const byte *b)
{
	return (uint32_t)b[0] << 8 | b[1];
}

/* ---------------------------------------------------------------- the log before the crash */

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t ut_rnd_gen(void)
{
	uint64_t x = rng_state;
	x ^= x << 13; x ^= x >> 7; x ^= x << 17;
	return rng_state = x;
}

/*
 * Record format: type(1) page_no(2) offset(2) len(1) payload(len). Records never
 * span log blocks. Block header: block number(4), data length(2), first record
 * offset(2), checkpoint number(4); trailer: CRC-32C of the rest.
 */
static void log_write_mtrs(void)
{
	size_t cap = (size_t)N_MTR / 8 * LOG_BLOCK_SIZE;
	log_sys_buf = calloc(1, cap);
	if (!log_sys_buf) { perror("calloc"); exit(1); }
	ulint block_no = 0;
	size_t used = LOG_BLOCK_HDR;
	byte *block = log_sys_buf;
	for (ulint i = 0; i < N_MTR; i++) {
		uint64_t r = ut_rnd_gen();
		ulint len = 8 + (r >> 40) % 41;
		if (used + 6 + len > LOG_BLOCK_HDR + LOG_BLOCK_DATA) {
			block[4] = (byte)(used >> 8); block[5] = (byte)used;
			mach_write_4(block + LOG_BLOCK_SIZE - LOG_BLOCK_TRL, log_block_calc_checksum(block));
			block_no++;
			block = log_sys_buf + block_no * LOG_BLOCK_SIZE;
			if ((block_no + 1) * LOG_BLOCK_SIZE > cap) { fprintf(stderr, "log full\n"); exit(1); }
			used = LOG_BLOCK_HDR;
		}
		if (used == LOG_BLOCK_HDR)
			mach_write_4(block, (uint32_t)block_no);
		byte *rec = block + used;
		ulint page_no = (r & 0xffff) % POOL_PAGES;
		ulint offset = 8 + ((r >> 16) & 0xffff) % (UNIV_PAGE_SIZE - 64);
		rec[0] = 1;
		rec[1] = (byte)(page_no >> 8); rec[2] = (byte)page_no;
		rec[3] = (byte)(offset >> 8); rec[4] = (byte)offset;
		rec[5] = (byte)len;
		for (ulint k = 0; k < len; k++)
			rec[6 + k] = (byte)(ut_rnd_gen() >> 24);
		used += 6 + len;
	}
	block[4] = (byte)(used >> 8); block[5] = (byte)used;
	mach_write_4(block + LOG_BLOCK_SIZE - LOG_BLOCK_TRL, log_block_calc_checksum(block));
	log_sys_lsn = (block_no + 1) * LOG_BLOCK_SIZE;
}

/* ---------------------------------------------------------------- recovery system */

typedef struct recv_t {
	struct recv_t *next;
	lsn_t lsn;
	uint16_t offset;
	uint16_t len;
	byte data[];
} recv_t;

typedef struct recv_addr_t {
	struct recv_addr_t *next;   /* hash chain */
	ulint page_no;
	recv_t *recs, *last;
} recv_addr_t;

static struct {
	recv_addr_t *hash[RECV_HASH_CELLS];
	byte *heap;
	ulint heap_used;
	ulint heap_size;
	ulint n_addrs;
	bool apply_log_recs;        /* the heap reached the budget: apply before scanning on */
	lsn_t scanned_lsn;
	lsn_t recovered_lsn;
} recv_sys;

static byte log_scan_buf[RECV_SCAN_SIZE];

static void recv_sys_init(void)
{
	/* MDEV-21826: a third of the buffer pool, per instance, is kept free for
	 * reading pages during recovery. */
	recv_n_pool_free_frames = POOL_PAGES / 3;
	recv_sys.heap_size = (ulint)POOL_PAGES * UNIV_PAGE_SIZE;
	recv_sys.heap = malloc(recv_sys.heap_size + 64 * 1024);
	if (!recv_sys.heap) { perror("malloc"); exit(1); }
}

static void *recv_heap_alloc(ulint n)
{
	n = (n + 15) & ~(ulint)15;
	void *p = recv_sys.heap + recv_sys.heap_used;
	recv_sys.heap_used += n;
	return p;
}

static recv_addr_t *recv_get_fil_addr_struct(ulint page_no)
{
	ulint cell = (page_no * 2654435761u) % RECV_HASH_CELLS;
	for (recv_addr_t *a = recv_sys.hash[cell]; a; a = a->next)
		if (a->page_no == page_no)
			return a;
	recv_addr_t *a = recv_heap_alloc(sizeof *a);
	a->page_no = page_no;
	a->recs = a->last = NULL;
	a->next = recv_sys.hash[cell];
	recv_sys.hash[cell] = a;
	recv_sys.n_addrs++;
	return a;
}

static void recv_add_to_hash_table(ulint page_no, ulint offset, const byte *body, ulint len, lsn_t lsn)
{
	recv_addr_t *a = recv_get_fil_addr_struct(page_no);
	recv_t *r = recv_heap_alloc(sizeof *r + len);
	r->next = NULL;
	r->lsn = lsn;
	r->offset = (uint16_t)offset;
	r->len = (uint16_t)len;
	memcpy(r->data, body, len);
	if (a->last) a->last->next = r; else a->recs = r;
	a->last = r;
}

/* Writes the page LSN and the checksum before the page may be flushed. */
static void buf_flush_init_for_writing(byte *page, lsn_t lsn)
{
	mach_write_4(page + 4, (uint32_t)(lsn >> 32));
	mach_write_4(page + 8, (uint32_t)lsn);
	mach_write_4(page, buf_calc_page_crc32(page));
}

/* Returns the frame of page_no, reading it from the data file (and verifying its
 * checksum) on first use. */
static byte *buf_page_get(ulint page_no)
{
	byte *frame = buf_pool + page_no * UNIV_PAGE_SIZE;
	if (!buf_page_resident[page_no]) {
		memcpy(frame, fil_space + page_no * UNIV_PAGE_SIZE, UNIV_PAGE_SIZE);
		if (mach_read_4(frame) != buf_calc_page_crc32(frame)) {
			fprintf(stderr, "page %lu corrupted\n", page_no);
			exit(3);
		}
		buf_page_resident[page_no] = true;
	}
	return frame;
}

/* Applies every stored record to its page, in log order per page, then empties the
 * hash table. This is the costliest function of recovery in both modes. */
static void recv_apply_hashed_log_recs(bool last_batch)
{
	for (ulint i = 0; i < RECV_HASH_CELLS; i++) {
		for (recv_addr_t *a = recv_sys.hash[i]; a; a = a->next) {
			byte *page = buf_page_get(a->page_no);
			lsn_t page_lsn = 0;
			for (recv_t *r = a->recs; r; r = r->next) {
				memcpy(page + r->offset, r->data, r->len);
				page_lsn = r->lsn;
			}
			buf_flush_init_for_writing(page, page_lsn);
		}
		recv_sys.hash[i] = NULL;
	}
	recv_sys.heap_used = 0;
	recv_sys.n_addrs = 0;
	recv_sys.apply_log_recs = false;
	recv_n_batches++;
	(void)last_batch;
}

/* Reads the log blocks [start_lsn, end_lsn) into log_scan_buf, verifying each block's
 * checksum; returns the LSN up to which blocks were read. */
static lsn_t log_read_log_seg(lsn_t start_lsn, lsn_t end_lsn)
{
	if (end_lsn > log_sys_lsn)
		end_lsn = log_sys_lsn;
	lsn_t lsn = start_lsn;
	for (; lsn < end_lsn; lsn += LOG_BLOCK_SIZE) {
		byte *dst = log_scan_buf + (lsn - start_lsn);
		memcpy(dst, log_sys_buf + lsn, LOG_BLOCK_SIZE);
		if (mach_read_4(dst + LOG_BLOCK_SIZE - LOG_BLOCK_TRL) != log_block_calc_checksum(dst)) {
			fprintf(stderr, "log block at lsn %llu corrupted\n", (unsigned long long)lsn);
			exit(3);
		}
	}
	return lsn;
}

/* Parses the blocks read into log_scan_buf and stores their records in the hash
 * table while the record heap stays within available_mem. Returns true when the end
 * of the log was reached; false when the caller has to apply the stored records and
 * scan on from recv_sys.scanned_lsn. */
static bool recv_scan_log_recs(ulint available_mem, lsn_t start_lsn, lsn_t end_lsn)
{
	for (lsn_t lsn = start_lsn; lsn < end_lsn; lsn += LOG_BLOCK_SIZE) {
		const byte *block = log_scan_buf + (lsn - start_lsn);
		ulint data_len = mach_read_2(block + 4);
		for (ulint pos = LOG_BLOCK_HDR; pos < data_len;) {
			const byte *rec = block + pos;
			ulint page_no = mach_read_2(rec + 1);
			ulint offset = mach_read_2(rec + 3);
			ulint len = rec[5];
			recv_add_to_hash_table(page_no, offset, rec + 6, len, lsn + pos);
			pos += 6 + len;
		}
		recv_sys.scanned_lsn = lsn + LOG_BLOCK_SIZE;
		recv_sys.recovered_lsn = lsn + data_len;
		if (recv_sys.heap_used >= available_mem) {
			recv_sys.apply_log_recs = true;
			return recv_sys.scanned_lsn >= log_sys_lsn;
		}
	}
	return end_lsn >= log_sys_lsn;
}

/* Scans the whole redo log from the checkpoint, storing and applying records in
 * batches bounded by the memory that may be used for parsed records. */
__attribute__((noinline)) static bool recv_group_scan_log_recs(lsn_t checkpoint_lsn)
{
	/* ROOT CAUSE: with 3 buffer-pool instances this is zero. */
	ulint available_mem = UNIV_PAGE_SIZE * (POOL_PAGES - recv_n_pool_free_frames * srv_buf_pool_instances);
	lsn_t start_lsn;
	lsn_t end_lsn = checkpoint_lsn;

	recv_sys.scanned_lsn = checkpoint_lsn;
	do {
		if (recv_sys.apply_log_recs)
			recv_apply_hashed_log_recs(false);
		start_lsn = recv_sys.scanned_lsn;
		end_lsn = log_read_log_seg(start_lsn, start_lsn + RECV_SCAN_SIZE);
	} while (end_lsn != start_lsn && !recv_scan_log_recs(available_mem, start_lsn, end_lsn));

	if (recv_sys.n_addrs)
		recv_apply_hashed_log_recs(true);
	return recv_sys.scanned_lsn >= log_sys_lsn;
}

/* ---------------------------------------------------------------- start-up */

/* The tablespace as it was on disk at the crash: every page carries its checksum. */
static void fil_space_create(void)
{
	fil_space = malloc((size_t)POOL_PAGES * UNIV_PAGE_SIZE);
	buf_pool = malloc((size_t)POOL_PAGES * UNIV_PAGE_SIZE);
	buf_page_resident = calloc(POOL_PAGES, sizeof *buf_page_resident);
	if (!fil_space || !buf_pool || !buf_page_resident) { perror("malloc"); exit(1); }
	for (ulint p = 0; p < POOL_PAGES; p++) {
		byte *page = fil_space + p * UNIV_PAGE_SIZE;
		for (ulint k = 0; k < UNIV_PAGE_SIZE; k += 8) {
			uint64_t v = p * 0x9e3779b97f4a7c15ull + k;
			memcpy(page + k, &v, 8);
		}
		buf_flush_init_for_writing(page, 0);
	}
}

/* Writes every resident page back through the doublewrite buffer, checking each
 * page image before it goes to the data file. */
static void buf_flush_all(void)
{
	static byte dblwr[UNIV_PAGE_SIZE];
	for (ulint p = 0; p < POOL_PAGES; p++) {
		if (!buf_page_resident[p])
			continue;
		memcpy(dblwr, buf_pool + p * UNIV_PAGE_SIZE, UNIV_PAGE_SIZE);
		if (mach_read_4(dblwr) != buf_calc_page_crc32(dblwr)) {
			fprintf(stderr, "doublewrite: page %lu corrupted\n", p);
			exit(3);
		}
		memcpy(fil_space + p * UNIV_PAGE_SIZE, dblwr, UNIV_PAGE_SIZE);
	}
}

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  Replays a crash recovery (MDEV-21826). buggy: 3 buffer-pool instances,\n"
		"  which makes the recovery batch budget zero.\n", argv0);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return usage(argv[0]);
	if (strcmp(argv[1], "normal") == 0)
		srv_buf_pool_instances = 1;
	else if (strcmp(argv[1], "buggy") == 0)
		srv_buf_pool_instances = 3;
	else
		return usage(argv[0]);

	ut_crc32_init();
	fil_space_create();
	log_write_mtrs();
	recv_sys_init();
	if (!recv_group_scan_log_recs(0)) {
		fprintf(stderr, "recovery did not reach the end of the log\n");
		return 1;
	}
	buf_flush_all();
	uint32_t sum = 0;
	for (ulint p = 0; p < POOL_PAGES; p++)
		sum = sum * 31 + mach_read_4(fil_space + p * UNIV_PAGE_SIZE);
	printf("recovery_budget %s: recovered_lsn=%llu checksum=%08x\n", argv[1],
	       (unsigned long long)recv_sys.recovered_lsn, sum);
	return 0;
}

/*
 * recovery_budget (MDEV-21826): log0recv.c
 * Crash recovery (storage/innobase/log/log0recv.cc), with the root cause
 * recv_group_scan_log_recs().
 */
#include "recovery_budget.h"

ulint recv_n_pool_free_frames;
ulint recv_n_batches;

struct recv_sys_t recv_sys;

static byte log_scan_buf[RECV_SCAN_SIZE];

void recv_sys_init(void)
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
__attribute__((noinline)) bool recv_group_scan_log_recs(lsn_t checkpoint_lsn)
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

/*
 * recovery_budget (MDEV-21826): log0log.c
 * The redo log as written before the crash (storage/innobase/log/log0log.cc).
 */
#include "recovery_budget.h"

byte *log_sys_buf;           /* the redo log as written before the crash */
lsn_t log_sys_lsn;           /* end of the written log */

/*
 * Record format: type(1) page_no(2) offset(2) len(1) payload(len). Records never
 * span log blocks. Block header: block number(4), data length(2), first record
 * offset(2), checkpoint number(4); trailer: CRC-32C of the rest.
 */
void log_write_mtrs(void)
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

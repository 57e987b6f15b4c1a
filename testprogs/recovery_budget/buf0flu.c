/*
 * recovery_budget (MDEV-21826): buf0flu.c
 * Page flushing (storage/innobase/buf/buf0flu.cc).
 */
#include "recovery_budget.h"

/* Writes the page LSN and the checksum before the page may be flushed. */
void buf_flush_init_for_writing(byte *page, lsn_t lsn)
{
	mach_write_4(page + 4, (uint32_t)(lsn >> 32));
	mach_write_4(page + 8, (uint32_t)lsn);
	mach_write_4(page, buf_calc_page_crc32(page));
}

/* Writes every resident page back through the doublewrite buffer, checking each
 * page image before it goes to the data file. */
void buf_flush_all(void)
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

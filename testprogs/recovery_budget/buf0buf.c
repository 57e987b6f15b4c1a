/*
 * recovery_budget (MDEV-21826): buf0buf.c
 * The buffer pool (storage/innobase/buf/buf0buf.cc).
 */
#include "recovery_budget.h"

byte *buf_pool;              /* POOL_PAGES page frames */
bool *buf_page_resident;     /* frame p holds page p */

/* Returns the frame of page_no, reading it from the data file (and verifying its
 * checksum) on first use. */
byte *buf_page_get(ulint page_no)
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

/*
 * recovery_budget (MDEV-21826): fil0fil.c
 * The tablespace (storage/innobase/fil/fil0fil.cc).
 */
#include "recovery_budget.h"

byte *fil_space;             /* the data file: POOL_PAGES pages */

/* The tablespace as it was on disk at the crash: every page carries its checksum. */
void fil_space_create(void)
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

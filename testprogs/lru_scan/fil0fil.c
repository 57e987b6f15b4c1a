/*
 * lru_scan (MDEV-23399): fil0fil.c
 * The data file (storage/innobase/fil/fil0fil.cc).
 */
#include "lru_scan.h"

byte *fil_space;                 /* the data file */

void fil_space_create(void)
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

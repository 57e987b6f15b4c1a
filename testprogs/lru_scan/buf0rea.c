/*
 * lru_scan (MDEV-23399): buf0rea.c
 * Page reads (storage/innobase/buf/buf0rea.cc).
 */
#include "lru_scan.h"

void buf_read_page_low(buf_page_t *b)
{
	memcpy(b->frame, fil_space + b->id * PAGE_SIZE, PAGE_SIZE);
	if (page_get_checksum(b->frame) != buf_calc_page_crc32(b->frame)) {
		fprintf(stderr, "page %lu: checksum mismatch\n", b->id);
		exit(3);
	}
}

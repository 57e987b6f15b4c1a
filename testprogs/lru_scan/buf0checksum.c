/*
 * lru_scan (MDEV-23399): buf0checksum.c
 * Page checksums (storage/innobase/buf/buf0checksum.cc).
 */
#include "lru_scan.h"

EXTERN_FN uint32_t buf_calc_page_crc32(const byte *page)
{
	return ut_crc32_hw_ok ? ut_crc32_hw(page + 4, PAGE_SIZE - 4) : ut_crc32_sw(page + 4, PAGE_SIZE - 4);
}

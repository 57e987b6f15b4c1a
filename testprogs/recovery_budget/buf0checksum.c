/*
 * recovery_budget (MDEV-21826): buf0checksum.c
 * Page checksums (storage/innobase/buf/buf0checksum.cc).
 */
#include "recovery_budget.h"

uint32_t buf_calc_page_crc32(const byte *page)
{
	/* The checksum field itself (first 4 bytes) is excluded. */
	return ut_crc32(page + 4, UNIV_PAGE_SIZE - 4);
}

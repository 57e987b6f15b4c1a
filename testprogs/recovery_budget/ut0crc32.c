/*
 * recovery_budget (MDEV-21826): ut0crc32.c
 * CRC-32C (storage/innobase/ut/ut0crc32.cc).
 */
#include "recovery_budget.h"

static uint32_t crc_table[256];

void ut_crc32_init(void)
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

uint32_t (*ut_crc32)(const byte *p, size_t n) = ut_crc32_sw;

/*
 * stats_recalc (MySQL-98546): ut0crc32.cpp
 * CRC-32C, the table-driven version (storage/innobase/ut/ut0crc32.cc).
 */
#include "stats_recalc.h"

static uint32_t ut_crc32_slice8_table[8][256];
uint64_t ut_rnd_ulint_counter = 65654363;

void ut_crc32_init()
{
	for (uint32_t n = 0; n < 256; n++) {
		uint32_t c = n;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0x82f63b78u ^ (c >> 1) : c >> 1;
		ut_crc32_slice8_table[0][n] = c;
	}
	for (uint32_t n = 0; n < 256; n++) {
		uint32_t c = ut_crc32_slice8_table[0][n];
		for (int k = 1; k < 8; k++) {
			c = ut_crc32_slice8_table[0][c & 0xff] ^ (c >> 8);
			ut_crc32_slice8_table[k][n] = c;
		}
	}
}

uint32_t ut_crc32(const byte *buf, ulint len)
{
	uint32_t crc = 0xffffffffu;
	while (len >= 8) {
		uint64_t v;
		memcpy(&v, buf, 8);
		v ^= crc;
		crc = ut_crc32_slice8_table[7][v & 0xff] ^
		      ut_crc32_slice8_table[6][(v >> 8) & 0xff] ^
		      ut_crc32_slice8_table[5][(v >> 16) & 0xff] ^
		      ut_crc32_slice8_table[4][(v >> 24) & 0xff] ^
		      ut_crc32_slice8_table[3][(v >> 32) & 0xff] ^
		      ut_crc32_slice8_table[2][(v >> 40) & 0xff] ^
		      ut_crc32_slice8_table[1][(v >> 48) & 0xff] ^
		      ut_crc32_slice8_table[0][v >> 56];
		buf += 8;
		len -= 8;
	}
	while (len--)
		crc = ut_crc32_slice8_table[0][(crc ^ *buf++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

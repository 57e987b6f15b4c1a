/*
 * pgarch_dirscan (Postgres-beb4e9ba16): pg_crc32c.c
 * CRC-32C, the software version (src/port/pg_crc32c_sb8.c, one table here).
 */
#include "postgres.h"

static uint32_t pg_crc32c_table[256];

void pg_crc32c_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0x82F63B78u ^ (c >> 1) : c >> 1;
		pg_crc32c_table[i] = c;
	}
}

pg_crc32c pg_comp_crc32c(pg_crc32c crc, const void *data, size_t len)
{
	const unsigned char *p = data;
	while (len--)
		crc = pg_crc32c_table[(crc ^ *p++) & 0xFF] ^ (crc >> 8);
	return crc;
}

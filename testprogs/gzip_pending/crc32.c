/* crc32.c - CRC-32 (gzip's, reflected 0xEDB88320), table-driven (moonbitlang/async#382). */
#include "gzip.h"

static uint32_t table[256];
static int table_ready;

static void make_table(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		table[i] = c;
	}
	table_ready = 1;
}

uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n)
{
	if (!table_ready)
		make_table();
	crc = ~crc;
	for (size_t i = 0; i < n; i++)
		crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	return ~crc;
}

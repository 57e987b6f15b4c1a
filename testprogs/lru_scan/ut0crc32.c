/*
 * lru_scan (MDEV-23399): ut0crc32.c
 * CRC-32C, in hardware where the CPU has SSE4.2 (storage/innobase/ut/ut0crc32.cc).
 */
#include "lru_scan.h"

static uint32_t crc_table[256];
bool ut_crc32_hw_ok;

void crc32_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0x82f63b78u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
	__builtin_cpu_init();
	ut_crc32_hw_ok = __builtin_cpu_supports("sse4.2");
}

__attribute__((target("sse4.2"))) uint32_t ut_crc32_hw(const byte *p, size_t n)
{
	uint64_t c = 0xffffffffu;
	for (; n && ((uintptr_t)p & 7); n--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	for (; n >= 8; n -= 8, p += 8) {
		uint64_t v;
		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
	}
	for (; n; n--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	return ~(uint32_t)c;
}

uint32_t ut_crc32_sw(const byte *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	while (n--)
		c = crc_table[(c ^ *p++) & 0xff] ^ (c >> 8);
	return ~c;
}

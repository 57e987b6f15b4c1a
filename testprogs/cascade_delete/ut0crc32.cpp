/*
 * cascade_delete (MDEV-13498): ut0crc32.cpp
 * CRC-32C (storage/innobase/ut/ut0crc32.cc).
 */
#include "cascade_delete.h"

namespace innodb {

static uint32_t crc32_table[256];

void ut_crc32_init()
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0x82f63b78u ^ (c >> 1) : c >> 1;
		crc32_table[i] = c;
	}
}

/* Not inlined into the engine's callers. */
__attribute__((noinline)) uint32_t ut_crc32(const unsigned char *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	while (n--)
		c = crc32_table[(c ^ *p++) & 0xff] ^ (c >> 8);
	return ~c;
}

}  // namespace innodb

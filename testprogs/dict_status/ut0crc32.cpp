/*
 * dict_status (MDEV-17933): ut0crc32.cpp
 * CRC-32C (storage/innobase/ut/ut0crc32.cc).
 */
#include "dict_status.h"

namespace innodb {

uint32_t crc_table[256];

void ut_crc32_init()
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0x82f63b78u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

}  // namespace innodb

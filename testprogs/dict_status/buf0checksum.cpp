/*
 * dict_status (MDEV-17933): buf0checksum.cpp
 * Page checksums (storage/innobase/buf/buf0checksum.cc).
 */
#include "dict_status.h"

namespace innodb {

__attribute__((noinline)) uint32_t buf_calc_page_new_checksum(const unsigned char *page, ulint size)
{
	uint32_t c = 0xffffffffu;
	for (ulint i = 38; i < size - 8; i++)
		c = crc_table[(c ^ page[i]) & 0xff] ^ (c >> 8);
	return ~c;
}

}  // namespace innodb

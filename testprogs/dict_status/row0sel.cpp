/*
 * dict_status (MDEV-17933): row0sel.cpp
 * Row search (storage/innobase/row/row0sel.cc).
 */
#include "dict_status.h"

namespace innodb {

/* Reads (generates) a page of a table's index and verifies its checksum. */
uint64_t row_search_page(const dict_table_t *t, ulint page_no, unsigned char *page, ulint size)
{
	uint64_t s = t->id * 0x9e3779b97f4a7c15ull + page_no;
	for (ulint i = 0; i < size; i += 8) {
		s ^= s << 13; s ^= s >> 7; s ^= s << 17;
		memcpy(page + i, &s, 8);
	}
	return buf_calc_page_new_checksum(page, size);
}

}  // namespace innodb

/*
 * dict_status (MDEV-17933): dict0load.cpp
 * Loading tables into the cache (storage/innobase/dict/dict0load.cc).
 */
#include "dict_status.h"

namespace innodb {

void dict_load_tables(ulint n)
{
	for (ulint i = 0; i < n; i++) {
		std::unique_ptr<dict_table_t> t(new dict_table_t);
		t->name = "app/t" + std::to_string(i);
		t->id = i + 16;
		t->heap.add_block(1024 + i % 512);
		if (i % 3 == 0)
			t->heap.add_block(8192);
		ulint nidx = 2 + i % 3;
		for (ulint k = 0; k < nidx; k++) {
			dict_index_t idx;
			idx.name = k ? "idx_" + std::to_string(k) : "PRIMARY";
			idx.n_fields = 2 + k;
			idx.page = 3 + k;
			idx.heap.add_block(512 + 64 * k);
			t->indexes.push_back(std::move(idx));
		}
		dict_sys.add(std::move(t));
	}
}

}  // namespace innodb

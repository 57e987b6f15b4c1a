/*
 * cascade_delete (MDEV-13498): btr0cur.cpp
 * B-tree search (storage/innobase/btr/btr0cur.cc).
 */
#include "cascade_delete.h"

namespace innodb {

/* Finds a clustered index record (btr0cur.cc in InnoDB). */
__attribute__((noinline)) rec_t *btr_clust_search(dict_table_t *table, row_id_t pk)
{
	auto it = table->clust.find(pk);
	return it == table->clust.end() ? nullptr : &it->second;
}

}  // namespace innodb

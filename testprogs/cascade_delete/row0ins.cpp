/*
 * cascade_delete (MDEV-13498): row0ins.cpp
 * Foreign key checks and cascades (storage/innobase/row/row0ins.cc).
 */
#include "cascade_delete.h"

namespace innodb {

/* Cascades a delete of a parent row to the child rows referencing it. */
dberr_t row_ins_foreign_check_on_constraint(upd_node_t *node, dict_foreign_t *foreign, trx_t *trx)
{
	upd_node_t *stmt = node->parent ? node->parent : node;
	dict_table_t *child = foreign->foreign_table;
	auto range = child->by_parent.equal_range(node->pk);
	for (auto it = range.first; it != range.second; ++it) {
		std::unique_ptr<upd_node_t> cascade(new upd_node_t);
		cascade->parent = stmt;
		cascade->table = child;
		cascade->pk = it->second;
		cascade->foreign = foreign;
		upd_node_t *c = cascade.get();
		stmt->cascade_heap.push_back(std::move(cascade));
		stmt->cascade_upd_nodes->push_back(c);
		dberr_t err = row_upd_del_mark_clust_rec(c, trx);
		if (err != DB_SUCCESS)
			return err;
	}
	return DB_SUCCESS;
}

}  // namespace innodb

/*
 * cascade_delete (MDEV-13498): row0mysql.cpp
 * The DELETE statement (storage/innobase/row/row0mysql.cc).
 */
#include "cascade_delete.h"

namespace innodb {

/* DELETE FROM parent WHERE id BETWEEN first AND last. */
dberr_t row_del_statement(dict_table_t *table, row_id_t first, row_id_t last, trx_t *trx)
{
	upd_node_t stmt;
	std::vector<upd_node_t *> cascade_nodes;
	stmt.table = table;
	stmt.cascade_upd_nodes = &cascade_nodes;
	for (row_id_t pk = first; pk <= last; pk++) {
		stmt.pk = pk;
		dberr_t err = row_upd_del_mark_clust_rec(&stmt, trx);
		if (err != DB_SUCCESS)
			return err;
	}
	return DB_SUCCESS;
}

}  // namespace innodb

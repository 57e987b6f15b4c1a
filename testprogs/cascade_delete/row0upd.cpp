/*
 * cascade_delete (MDEV-13498): row0upd.cpp
 * Updates and delete-marking (storage/innobase/row/row0upd.cc), with the root
 * cause row_upd_del_mark_clust_rec().
 */
#include "cascade_delete.h"

namespace innodb {

/* Delete-marks the secondary index entries of a row. */
__attribute__((noinline)) static dberr_t row_upd_sec_index_entry(dict_table_t *table, const rec_t &rec)
{
	const std::string *keys[4] = { &rec.name, &rec.email, &rec.city, &rec.phone };
	for (size_t i = 0; i < table->indexes.size(); i++) {
		dberr_t err = table->indexes[i]->delete_mark(*keys[i], rec.id);
		if (err != DB_SUCCESS)
			return err;
	}
	return DB_SUCCESS;
}

/* Stands for the Galera certification of a cascaded row (never reached here). */
static dberr_t wsrep_row_upd_check_foreign_constraints(upd_node_t *node, trx_t *trx)
{
	(void)node;
	(void)trx;
	return DB_SUCCESS;
}

/* Delete-marks a clustered index record, its secondary index entries, and
 * cascades to the rows that reference it. */
__attribute__((noinline)) dberr_t row_upd_del_mark_clust_rec(upd_node_t *node, trx_t *trx)
{
	dict_table_t *table = node->table;
	rec_t *recp = btr_clust_search(table, node->pk);
	if (!recp)
		return DB_RECORD_NOT_FOUND;
	rec_t &rec = *recp;
	if (rec.delete_marked)
		return DB_SUCCESS;
	trx->undo.report_row_operation(rec, trx->id);
	rec.delete_marked = true;
	rec.trx_id = trx->id;
	srv_n_rows_deleted++;

	dberr_t err = row_upd_sec_index_entry(table, rec);
	bool referenced = !table->referenced_set.empty();
	dict_foreign_t *foreign = node->foreign;
	upd_node_t *parent = node->parent;

	if (err == DB_SUCCESS && referenced) {
		for (dict_foreign_t *fk : table->referenced_set) {
			if (fk->on_delete_cascade) {
				err = row_ins_foreign_check_on_constraint(node, fk, trx);
				if (err != DB_SUCCESS)
					return err;
			}
		}
	}
	/* ROOT CAUSE: the std::find runs for every cascaded row although it only
	 * matters with Galera; `wsrep_on &&` is missing at the front. */
	if (err == DB_SUCCESS && !referenced && foreign
	    && !(parent && parent->type == QUE_NODE_UPDATE
		 && std::find(parent->cascade_upd_nodes->begin(), parent->cascade_upd_nodes->end(), node)
			    == parent->cascade_upd_nodes->end())) {
		err = wsrep_row_upd_check_foreign_constraints(node, trx);
	}
	return err;
}

}  // namespace innodb

/*
 * stats_recalc (MySQL-98546): row0mysql.cpp
 * The row interface for the handler (storage/innobase/row/row0mysql.cc,
 * row0upd.cc): update a row in every index that contains the changed
 * column, write the redo log, and count the modification for the statistics
 * (row_update_statistics_if_needed).
 */
#include "stats_recalc.h"

/* row_update_statistics_if_needed(): called after every row insert,
delete or update of an ordering field. Persistent statistics are queued
for the background thread after 10% of the rows changed; transient
statistics are recomputed in the foreground, by the thread that made the
change, after 1/16 of the table. */
void dict_table_t::update_statistics_if_needed()
{
	uint64_t counter = ++stat_modified_counter;
	uint64_t n_rows = stat_n_rows;

	if (stats_persistent) {
		if (counter > n_rows / 10 /* 10% */ && stats_auto_recalc) {
			stat_modified_counter = 0;
			dict_stats_recalc_pool_add(this);
		}
		return;
	}

	/* Calculate new statistics if 1 / 16 of table has been modified
	since the last time a statistics batch was run. We calculate
	statistics at most every 16th round, since we may have a counter
	table which is very small and updated very often. */
	if (counter > 16 + n_rows / 16 /* 6.25% */) {	/* ROOT CAUSE */
		/* this will reset stat_modified_counter to 0 */
		dict_stats_update(this, DICT_STATS_RECALC_TRANSIENT);
	}
}

/* trx_undo_report_row_operation() + mlog: the redo/undo record of a row */
static lsn_t row_log_op(byte type, const byte *row)
{
	byte log_rec[ROW_LEN + 8];
	log_rec[0] = type;
	memcpy(log_rec + 1, row, ROW_LEN);
	return log_write_low(log_rec, ROW_LEN + 1);
}

/* row_update_for_mysql(): UPDATE t SET k=k+delta WHERE id=n. The
clustered index record is updated in place; every secondary index that
contains k gets its old entry deleted and the new one inserted
(row_upd_sec_index_entry). */
int row_update_for_mysql(dict_table_t *table, uint64_t id, int32_t delta)
{
	dict_index_t *clust = table->indexes[0];
	const byte *clust_rec = btr_search_pk(clust, id);
	if (!clust_rec)
		return 2;	/* DB_RECORD_NOT_FOUND */
	byte old_row[ROW_LEN], new_row[ROW_LEN], rec[ROW_LEN];
	memcpy(old_row, clust_rec, ROW_LEN);
	memcpy(new_row, old_row, ROW_LEN);
	mach_write_to_4(new_row + ROW_K, mach_read_from_4(old_row + ROW_K) + (uint32_t)delta);
	lsn_t lsn = row_log_op(3 /* MLOG_REC_UPDATE_IN_PLACE */, new_row);

	bool ord_changed = false;
	for (size_t i = 1; i < table->indexes.size(); i++) {
		dict_index_t *index = table->indexes[i];
		bool has_k = false;
		for (const dict_field_t &f : index->fields)
			has_k |= f.offset == ROW_K;
		if (!has_k)
			continue;	/* UPD_NODE_NO_ORD_CHANGE for this index */
		rec_from_row(index, old_row, rec);
		btr_delete(index, rec, lsn);
		rec_from_row(index, new_row, rec);
		btr_insert(index, rec, lsn);
		ord_changed = true;
	}
	btr_update_in_place(clust, id, new_row, lsn);

	if (ord_changed)
		table->update_statistics_if_needed();
	return 0;
}

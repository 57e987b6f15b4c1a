/*
 * stats_recalc (MySQL-98546): ha_innodb.cpp
 * The storage engine handler (storage/innobase/handler/ha_innodb.cc).
 */
#include "stats_recalc.h"

int ha_innobase::update_row(uint64_t id, int32_t delta)
{
	int err = row_update_for_mysql(table, id, delta);
	if (!err)
		rows_changed++;
	return err;
}

int ha_innobase::index_read(uint64_t id, byte *row_out)
{
	const byte *rec = btr_search_pk(table->indexes[0], id);
	if (!rec)
		return 2;	/* HA_ERR_KEY_NOT_FOUND */
	memcpy(row_out, rec, ROW_LEN);
	return 0;
}

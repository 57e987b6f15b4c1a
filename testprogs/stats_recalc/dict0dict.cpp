/*
 * stats_recalc (MySQL-98546): dict0dict.cpp
 * The data dictionary cache (storage/innobase/dict/dict0dict.cc): tables by
 * name, each with the schema of the application's job table: PRIMARY KEY
 * (id), KEY k_1 (k), KEY c_1 (c), KEY kp_1 (k, pad), KEY cp_1 (c, pad),
 * KEY pad_1 (pad).
 */
#include "stats_recalc.h"

dict_sys_t dict_sys;

static dict_index_t *dict_mem_index_create(const char *name, std::vector<dict_field_t> fields, bool clustered)
{
	dict_index_t *index = new dict_index_t;
	index->name = name;
	if (!clustered)
		fields.push_back({ "id", DATA_INT, ROW_ID, 8 });	/* the PRIMARY KEY columns */
	index->fields = fields;
	index->n_uniq = fields.size();
	ulint len = 0;
	for (const dict_field_t &f : fields)
		len += f.len;
	index->rec_size = clustered ? ROW_LEN : len;
	index->stat_n_diff_key_vals.assign(index->n_uniq, 0);
	index->stat_n_sample_sizes.assign(index->n_uniq, 0);
	return index;
}

dict_table_t *dict_sys_t::create_table(const char *name)
{
	dict_table_t *table = new dict_table_t;
	table->name = name;
	table->row_len = ROW_LEN;
	table->stats_persistent = srv_stats_persistent;
	table->indexes.push_back(dict_mem_index_create("PRIMARY", { { "id", DATA_INT, ROW_ID, 8 } }, true));
	table->indexes.push_back(dict_mem_index_create("k_1", { { "k", DATA_INT, ROW_K, 4 } }, false));
	table->indexes.push_back(dict_mem_index_create("c_1", { { "c", DATA_CHAR, ROW_C, C_LEN } }, false));
	table->indexes.push_back(dict_mem_index_create("kp_1", { { "k", DATA_INT, ROW_K, 4 }, { "pad", DATA_CHAR, ROW_PAD, PAD_LEN } }, false));
	table->indexes.push_back(dict_mem_index_create("cp_1", { { "c", DATA_CHAR, ROW_C, C_LEN }, { "pad", DATA_CHAR, ROW_PAD, PAD_LEN } }, false));
	table->indexes.push_back(dict_mem_index_create("pad_1", { { "pad", DATA_CHAR, ROW_PAD, PAD_LEN } }, false));
	table_hash[table->name] = table;
	return table;
}

/*
 * stats_recalc (MySQL-98546): dict0stats.cpp
 * Index statistics (storage/innobase/dict/dict0stats.cc, btr0cur.cc's
 * btr_estimate_number_of_different_key_vals, dict0stats_bg.cc's recalc
 * pool). Transient statistics sample innodb_stats_transient_sample_pages
 * random leaf pages of every index and count the distinct key prefixes.
 */
#include "stats_recalc.h"

static std::deque<dict_table_t *> recalc_pool;
static uint64_t stats_checksum;

/* btr_estimate_number_of_different_key_vals() */
static void btr_estimate_number_of_different_key_vals(dict_index_t *index)
{
	ulint n_cols = index->n_uniq;
	std::vector<uint64_t> n_diff(n_cols, 0);
	std::vector<uint64_t> n_not_null(n_cols, 0);
	ulint n_leaf = index->leaves.size();
	ulint n_sample_pages;
	/* It makes no sense to test more pages than are contained in the
	index, thus we lower the number if it is too high */
	if (srv_stats_transient_sample_pages > index->stat_index_size)
		n_sample_pages = index->stat_index_size ? index->stat_index_size : 1;
	else
		n_sample_pages = srv_stats_transient_sample_pages;

	for (ulint i = 0; i < n_sample_pages; i++) {
		/* btr_cur_open_at_rnd_pos(): a random leaf page */
		ulint pos = ut_rnd_gen_ulint() % n_leaf;
		const byte *page = buf_pool.page_get(index->leaves[pos]);
		ulint n_recs = mach_read_from_4(page + PAGE_N_RECS);
		const byte *rec = page + PAGE_DATA;
		ulint offsets_[16], offsets_next[16];
		rec_get_offsets(index, rec, offsets_);
		for (ulint r = 0; r + 1 < n_recs; r++) {
			const byte *next_rec = rec + index->rec_size;
			ulint matched_fields;
			rec_get_offsets(index, next_rec, offsets_next);
			cmp_rec_rec(index, rec, next_rec, &matched_fields);
			for (ulint j = matched_fields; j < n_cols; j++)
				n_diff[j]++;
			/* dict_stats_method: count the non-NULL values of each prefix */
			if (srv_innodb_stats_method != 0)
				for (ulint j = 0; j < n_cols; j++)
					n_not_null[j] += offsets_next[j] != (j ? offsets_next[j - 1] : 0);
			memcpy(offsets_, offsets_next, sizeof offsets_);
			rec = next_rec;
		}
		/* the last record of the page against the first of the next one */
		if (n_recs && pos + 1 < n_leaf) {
			const byte *next_page = buf_pool.page_get(index->leaves[pos + 1]);
			if (mach_read_from_4(next_page + PAGE_N_RECS)) {
				ulint matched_fields;
				cmp_rec_rec(index, rec, next_page + PAGE_DATA, &matched_fields);
				for (ulint j = matched_fields; j < n_cols; j++)
					n_diff[j]++;
			}
		}
	}

	for (ulint j = 0; j < n_cols; j++) {
		uint64_t est = n_sample_pages ? (n_diff[j] + 1) * n_leaf / n_sample_pages : 0;
		index->stat_n_diff_key_vals[j] = est;
		index->stat_n_sample_sizes[j] = n_sample_pages;
		stats_checksum = stats_checksum * 131 + est;
	}
}

/* dict_stats_update_transient_for_index() */
static void dict_stats_update_transient_for_index(dict_index_t *index)
{
	index->stat_index_size = btr_get_size(index);
	index->stat_n_leaf_pages = index->leaves.size();
	btr_estimate_number_of_different_key_vals(index);
}

/* dict_stats_update_transient() */
static void dict_stats_update_transient(dict_table_t *table)
{
	ulint sum_of_index_sizes = 0;
	for (dict_index_t *index : table->indexes) {
		dict_stats_update_transient_for_index(index);
		sum_of_index_sizes += index->stat_index_size;
	}
	dict_index_t *clust = table->indexes[0];
	table->stat_n_rows = clust->stat_n_diff_key_vals[clust->n_uniq - 1];
	table->stat_clustered_index_size = clust->stat_index_size;
	table->stat_sum_of_other_index_sizes = sum_of_index_sizes - clust->stat_index_size;
	table->stat_modified_counter = 0;
	table->stat_initialized = true;
}

void dict_stats_update(dict_table_t *table, dict_stats_upd_option_t option)
{
	/* dict_table_stats_lock(table, RW_X_LATCH) */
	(void)option;	/* the persistent variant would also save to mysql.innodb_index_stats */
	dict_stats_update_transient(table);
	table->n_stats_updates++;
	table->stats_last_recalc_us = ut_time_us();
}

/* dict_stats_recalc_pool_add(): persistent statistics are recomputed by
the background thread (dict_stats_thread) */
void dict_stats_recalc_pool_add(dict_table_t *table)
{
	for (dict_table_t *t : recalc_pool)
		if (t == table)
			return;
	recalc_pool.push_back(table);
}

ulint dict_stats_process_recalc_pool()
{
	ulint n = 0;
	while (!recalc_pool.empty()) {
		dict_table_t *table = recalc_pool.front();
		recalc_pool.pop_front();
		dict_stats_update(table, DICT_STATS_RECALC_PERSISTENT);
		n++;
	}
	return n + (ulint)(stats_checksum & 0);
}

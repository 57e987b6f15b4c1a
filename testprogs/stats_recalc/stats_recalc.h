/*
 * stats_recalc (MySQL-98546): stats_recalc.h
 * Shared declarations: the page format of fil0fil.h/page0page.h, the buffer
 * pool of buf0buf.h, the dictionary objects of dict0mem.h (dict_index_t,
 * dict_table_t), the handler of ha_innodb.h and the server configuration of
 * srv0srv.h.
 */
#ifndef STATS_RECALC_H
#define STATS_RECALC_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>
#include <algorithm>

typedef unsigned char byte;
typedef unsigned long ulint;
typedef uint32_t page_no_t;
typedef uint64_t lsn_t;

/* fil0fil.h / page0page.h: a 16 KiB page, a 38-byte header, an 8-byte trailer */
static const ulint UNIV_PAGE_SIZE = 16384;
static const ulint FIL_PAGE_SPACE_OR_CHKSUM = 0;
static const ulint FIL_PAGE_OFFSET = 4;
static const ulint FIL_PAGE_LSN = 16;
static const ulint PAGE_N_RECS = 24;
static const ulint PAGE_DATA = 38;
static const ulint FIL_PAGE_DATA_END = 8;

static inline void mach_write_to_4(byte *b, uint32_t n)
{
	b[0] = (byte)(n >> 24); b[1] = (byte)(n >> 16); b[2] = (byte)(n >> 8); b[3] = (byte)n;
}
static inline uint32_t mach_read_from_4(const byte *b)
{
	return ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) | b[3];
}
static inline void mach_write_to_8(byte *b, uint64_t n)
{
	mach_write_to_4(b, (uint32_t)(n >> 32));
	mach_write_to_4(b + 4, (uint32_t)n);
}
static inline uint64_t mach_read_from_8(const byte *b)
{
	return ((uint64_t)mach_read_from_4(b) << 32) | mach_read_from_4(b + 4);
}

/* ut0crc32.cpp */
void ut_crc32_init();
uint32_t ut_crc32(const byte *buf, ulint len);

/* ut0rnd.h */
extern uint64_t ut_rnd_ulint_counter;
static inline ulint ut_rnd_gen_ulint()
{
	uint64_t x = ut_rnd_ulint_counter;
	x ^= x << 13; x ^= x >> 7; x ^= x << 17;
	ut_rnd_ulint_counter = x;
	return (ulint)x;
}

/* buf0buf.h: the buffer pool; a block's frame is one page */
struct buf_block_t {
	page_no_t page_no;
	bool dirty;
	lsn_t oldest_modification;
	std::vector<byte> frame;
	buf_block_t(page_no_t no) : page_no(no), dirty(false), oldest_modification(0), frame(UNIV_PAGE_SIZE) {}
};

class buf_pool_t {
public:
	std::vector<std::unique_ptr<buf_block_t>> blocks;
	std::vector<page_no_t> free_list;
	std::deque<buf_block_t *> flush_list;
	ulint n_flushed = 0;
	ulint n_pages_written = 0;
	uint64_t flush_checksum = 0;

	buf_block_t *alloc_page();
	void free_page(page_no_t no);
	byte *page_get(page_no_t no) { return blocks[no]->frame.data(); }
	void modify(page_no_t no, lsn_t lsn);
	ulint flush_list_batch(ulint max_n);
};
extern buf_pool_t buf_pool;

/* dict0mem.h */
enum field_type_t { DATA_INT, DATA_CHAR };
struct dict_field_t {
	const char *name;
	field_type_t type;
	ulint offset;	/* in the row image */
	ulint len;
};

struct dict_index_t {
	std::string name;
	std::vector<dict_field_t> fields;	/* key fields, then the primary key */
	ulint n_uniq;
	ulint rec_size;
	std::vector<page_no_t> leaves;	/* leaf pages in key order */
	/* statistics */
	std::vector<uint64_t> stat_n_diff_key_vals;
	std::vector<uint64_t> stat_n_sample_sizes;
	ulint stat_index_size = 0;
	ulint stat_n_leaf_pages = 0;

	ulint recs_per_page() const { return (UNIV_PAGE_SIZE - PAGE_DATA - FIL_PAGE_DATA_END) / rec_size; }
};

struct dict_table_t {
	std::string name;
	std::vector<dict_index_t *> indexes;	/* indexes[0] is the clustered index */
	ulint row_len;
	/* statistics (dict0mem.h): the counter the update path increments */
	uint64_t stat_n_rows = 0;
	uint64_t stat_modified_counter = 0;
	ulint stat_clustered_index_size = 0;
	ulint stat_sum_of_other_index_sizes = 0;
	bool stat_initialized = false;
	bool stats_persistent = false;	/* STATS_PERSISTENT=0: transient statistics */
	bool stats_auto_recalc = true;
	ulint n_stats_updates = 0;
	int64_t stats_last_recalc_us = 0;

	void update_statistics_if_needed();
};

/* dict0dict.cpp */
class dict_sys_t {
public:
	std::unordered_map<std::string, dict_table_t *> table_hash;
	dict_table_t *create_table(const char *name);
	dict_table_t *find(const std::string &name) const
	{
		auto it = table_hash.find(name);
		return it == table_hash.end() ? nullptr : it->second;
	}
};
extern dict_sys_t dict_sys;

/* rem0cmp.cpp */
int cmp_rec_rec(const dict_index_t *index, const byte *a, const byte *b, ulint *matched_fields);
void rec_from_row(const dict_index_t *index, const byte *row, byte *rec);
ulint rec_get_offsets(const dict_index_t *index, const byte *rec, ulint *offsets);

/* btr0cur.cpp */
void btr_bulk_load(dict_index_t *index, std::vector<std::vector<byte>> &recs);
bool btr_insert(dict_index_t *index, const byte *rec, lsn_t lsn);
bool btr_delete(dict_index_t *index, const byte *rec, lsn_t lsn);
const byte *btr_search_pk(dict_index_t *index, uint64_t id);
bool btr_update_in_place(dict_index_t *index, uint64_t id, const byte *row, lsn_t lsn);
ulint btr_get_size(const dict_index_t *index);

/* dict0stats.cpp */
enum dict_stats_upd_option_t { DICT_STATS_RECALC_PERSISTENT, DICT_STATS_RECALC_TRANSIENT };
void dict_stats_update(dict_table_t *table, dict_stats_upd_option_t option);
void dict_stats_recalc_pool_add(dict_table_t *table);
ulint dict_stats_process_recalc_pool();

/* log0log.cpp */
lsn_t log_write_low(const byte *rec, ulint len);
extern uint64_t log_block_checksums;

/* row0mysql.cpp */
int row_update_for_mysql(dict_table_t *table, uint64_t id, int32_t delta);

/* ha_innodb.cpp */
class ha_innobase {
public:
	explicit ha_innobase(dict_table_t *t) : table(t) {}
	int update_row(uint64_t id, int32_t delta);
	int index_read(uint64_t id, byte *row_out);
	dict_table_t *table;
	ulint rows_changed = 0;
};

/* sql_parse.cpp */
struct THD {
	ulint query_id;
	int64_t start_us;
	uint64_t result_checksum;
	ulint rows_affected;
};
int dispatch_command(THD *thd, const char *query, ulint len);

/* srv0srv.cpp: configuration */
extern ulint srv_stats_transient_sample_pages;
extern bool srv_stats_persistent;
extern ulint srv_flush_batch;
extern ulint srv_innodb_stats_method;
int64_t ut_time_us();

/* the row image: id BIGINT, k INT, c CHAR(60), pad CHAR(40) */
static const ulint ROW_ID = 0, ROW_K = 8, ROW_C = 12, ROW_PAD = 72, ROW_LEN = 112;
static const ulint C_LEN = 60, PAD_LEN = 40;

#endif

/*
 * stats_recalc - MySQL-98546 (MySQL Bug #98546): "Transient indexes statistics are updated
 * in foreground causing performance issue"
 * https://bugs.mysql.com/bug.php?id=98546 (MySQL 5.7 and 8.0, InnoDB).
 *
 * The real bug: every row insert, delete or update of an ordering column
 * calls row_update_statistics_if_needed(table), which increments
 * table->stat_modified_counter. For a table with persistent statistics it
 * queues the table for the background statistics thread once 10% of the rows
 * changed; for a table with transient statistics (STATS_PERSISTENT=0) it calls
 * dict_stats_update(DICT_STATS_RECALC_TRANSIENT) in the foreground, in the
 * thread that made the change, as soon as the counter exceeds 16 + n_rows/16.
 * On a small table that is modified all the time (a queue, a counter table)
 * that is every few hundred statements, and each recalculation samples
 * innodb_stats_transient_sample_pages leaf pages of every index. The report
 * shows the throughput drop with sysbench; the suggested fix is to compute
 * transient statistics in the background too (or not on every 1/16th of a
 * small table).
 *
 * Here: a client sends the statements of sysbench oltp_update_index with
 * point selects (UPDATE t SET k=k+1 WHERE id=?; SELECT c FROM t WHERE id=?)
 * to one table with transient statistics; dispatch_command() parses and
 * executes them through ha_innobase and row0mysql into six B-tree indexes
 * (the UTF-8 collation of the CHAR columns, redo log blocks, page checksums
 * on flush). The rows are job records whose c column is a resource path.
 * normal: the table holds 12,000 rows (a recalculation every 766 updates);
 * buggy: the table holds 800 rows (one every 66 updates). The same
 * statements run, and the normal run still recalculates statistics.
 *
 * Root cause: dict_table_t::update_statistics_if_needed() (row0mysql.cpp,
 * row_update_statistics_if_needed in the report), its 16 + n_rows / 16
 * condition that runs dict_stats_update() in the foreground (ROOT CAUSE).
 * Key variables: this->stat_modified_counter and this->stat_n_rows
 * (counter, n_rows). Pattern: wrong constraint.
 *
 * Files, as in MySQL's storage/innobase and sql/: row0mysql.cpp (the root
 * cause), dict0stats.cpp (the statistics), btr0cur.cpp (the index trees),
 * rem0cmp.cpp (record comparison and the utf8mb4_0900_ai_ci collation), buf0buf.cpp (buffer pool,
 * flush with page checksums), log0log.cpp (redo log blocks), dict0dict.cpp
 * (the dictionary cache), ha_innodb.cpp (the handler), sql_parse.cpp (the SQL
 * layer), srv0srv.cpp (configuration), ut0crc32.cpp (CRC-32C),
 * stats_recalc.h; main.cpp (this driver: the client and the master thread's
 * periodic work).
 */
#include "stats_recalc.h"
#include <unistd.h>

static const ulint N_TRANSACTIONS = 120000;

struct workload_t {
	const char *table_name;
	ulint table_rows;
};
static workload_t workload;

static uint64_t rnd_state;
static uint64_t rnd()
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* sysbench's random strings: groups of 11 digits joined by '-' */
static void rand_str(char *buf, ulint len)
{
	for (ulint i = 0; i < len; i++)
		buf[i] = (i % 12 == 11) ? '-' : (char)('0' + rnd() % 10);
	buf[len] = 0;
}

/* the c column holds the resource path the application looks rows up
by: tenant, queue and a sequence number, then random digits */
static void job_key(char *c, uint64_t seq)
{
	int n = snprintf(c, C_LEN + 1, "/api/v2/tenants/%04u/queues/%02u/jobs/%08llu/", (unsigned)(seq % 7),
			 (unsigned)(seq % 3), (unsigned long long)(seq / 21));
	rand_str(c + n, C_LEN - 1 - n);
}

static void make_row(byte *row, uint64_t id, uint32_t k)
{
	char c[C_LEN + 1], pad[PAD_LEN + 1];
	job_key(c, id);
	rand_str(pad, PAD_LEN - 1);
	memset(row, ' ', ROW_LEN);
	mach_write_to_8(row + ROW_ID, id);
	mach_write_to_4(row + ROW_K, k);
	memcpy(row + ROW_C, c, C_LEN - 1);
	memcpy(row + ROW_PAD, pad, PAD_LEN - 1);
}

/* the table as sysbench prepare leaves it: rows 1..n, then the secondary
indexes built by sorting (row_merge_build_indexes) */
static dict_table_t *prepare_table(const char *name, ulint n)
{
	dict_table_t *table = dict_sys.create_table(name);
	std::vector<std::vector<byte>> rows(n, std::vector<byte>(ROW_LEN));
	for (ulint i = 0; i < n; i++)
		make_row(rows[i].data(), i + 1, (uint32_t)(1 + rnd() % n));
	for (dict_index_t *index : table->indexes) {
		std::vector<std::vector<byte>> recs(n, std::vector<byte>(index->rec_size));
		for (ulint i = 0; i < n; i++)
			rec_from_row(index, rows[i].data(), recs[i].data());
		std::sort(recs.begin(), recs.end(), [index](const std::vector<byte> &a, const std::vector<byte> &b) {
			return cmp_rec_rec(index, a.data(), b.data(), nullptr) < 0;
		});
		btr_bulk_load(index, recs);
	}
	table->stat_n_rows = n;
	dict_stats_update(table, DICT_STATS_RECALC_TRANSIENT);	/* ha_innobase::open() */
	return table;
}

/* srv_master_thread(): the once-a-second work, here every 64 statements */
static void srv_master_do_active_tasks()
{
	buf_pool.flush_list_batch(srv_flush_batch);
	dict_stats_process_recalc_pool();
}

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  An update/select workload on a table with transient statistics (MySQL-98546).\n"
		"  normal: 20000 rows; buggy: 1500 rows (a small, busy table).\n", argv0);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return usage(argv[0]);
	if (strcmp(argv[1], "normal") == 0)
		workload = { "sbtest1", 12000 };
	else if (strcmp(argv[1], "buggy") == 0)
		workload = { "queue1", 800 };
	else
		return usage(argv[0]);

	/* the client's data and statement stream are fixed (sysbench --rand-seed);
	the server's own random sampling is seeded at startup (ut_rnd), so runs
	differ in the pages the statistics sample and in their timing */
	rnd_state = 0x9e3779b97f4a7c15ull;
	ut_rnd_ulint_counter ^= ((uint64_t)getpid() << 20) ^ (uint64_t)time(nullptr);
	ut_crc32_init();
	dict_table_t *table = prepare_table(workload.table_name, workload.table_rows);

	THD thd = { 0, 0, 0, 0 };
	char query[512];
	int errors = 0;
	for (ulint trx = 0; trx < N_TRANSACTIONS; trx++) {
		uint64_t id = 1 + rnd() % workload.table_rows;
		int len = snprintf(query, sizeof query, "UPDATE %s SET k=k+1 WHERE id=%llu", workload.table_name,
				   (unsigned long long)id);
		errors += dispatch_command(&thd, query, len) != 0;
		len = snprintf(query, sizeof query, "SELECT c FROM %s WHERE id=%llu", workload.table_name,
			       (unsigned long long)(1 + rnd() % workload.table_rows));
		errors += dispatch_command(&thd, query, len) != 0;
		if (trx % 64 == 63)
			srv_master_do_active_tasks();
	}
	srv_master_do_active_tasks();
	if (errors) {
		fprintf(stderr, "stats_recalc: %d statements failed\n", errors);
		return 1;
	}
	printf("stats_recalc %s: table=%s rows=%lu updated=%lu pages=%lu flushed=%lu "
	       "checksum=%016llx\n", argv[1], table->name.c_str(), workload.table_rows,
	       thd.rows_affected, (ulint)buf_pool.blocks.size(), buf_pool.n_flushed,
	       (unsigned long long)(thd.result_checksum ^ buf_pool.flush_checksum ^ log_block_checksums));
	return 0;
}

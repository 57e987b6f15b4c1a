/*
 * recovery_budget - MDEV-21826: MariaDB crash recovery "loops on the same LSN".
 *
 * The real bug (mariadb-server 10.3, Table 3.1 b1, Figure 3.1 of the vProf chapter):
 * recv_sys_init() sets the global recv_n_pool_free_frames to a third of the buffer
 * pool; recv_group_scan_log_recs() then computes
 *     available_mem = page_size * (pool_pages - recv_n_pool_free_frames * instances)
 * which is zero with three buffer-pool instances. recv_scan_log_recs() stops storing
 * parsed redo records as soon as the record heap reaches available_mem, so every pass
 * of the do/while loop in recv_group_scan_log_recs() stores a single log block, has
 * recv_apply_hashed_log_recs() apply that tiny batch (the function every profiler
 * blames), and re-reads the next scan segment starting from (almost) the same LSN.
 *
 * Here the same code runs in both modes; only a configuration value differs, as in
 * the report: normal = 1 buffer-pool instance, buggy = 3 instances, which makes the
 * budget available_mem exactly zero. The recovered pages (and the checksum) are the
 * same in both modes; the buggy mode re-reads log segments and re-checksums pages
 * many more times.
 *
 * Root cause: recv_group_scan_log_recs(), the line computing available_mem
 * (marked ROOT CAUSE). Key variables: available_mem (recv_group_scan_log_recs),
 * recv_n_pool_free_frames and srv_buf_pool_instances (globals). Pattern: wrong
 * constraint (the loop condition recv_scan_log_recs(available_mem, ...) is evaluated
 * with a wrong budget).
 *
 * Files, as in MariaDB's storage/innobase: log0recv.c (recovery: the root cause),
 * log0log.c (the log written before the crash), buf0buf.c, buf0flu.c,
 * buf0checksum.c (the buffer pool, flushing, page checksums), fil0fil.c (the
 * tablespace), srv0srv.c (configuration: srv_buf_pool_instances), ut0crc32.c,
 * ut0rnd.c, recovery_budget.h (shared declarations and inline helpers, the
 * .h/.ic files of MariaDB); main.c (this driver: start-up and the mode).
 */
#include "recovery_budget.h"

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  Replays a crash recovery (MDEV-21826). buggy: 3 buffer-pool instances,\n"
		"  which makes the recovery batch budget zero.\n", argv0);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return usage(argv[0]);
	if (strcmp(argv[1], "normal") == 0)
		srv_buf_pool_instances = 1;
	else if (strcmp(argv[1], "buggy") == 0)
		srv_buf_pool_instances = 3;
	else
		return usage(argv[0]);

	ut_crc32_init();
	fil_space_create();
	log_write_mtrs();
	recv_sys_init();
	if (!recv_group_scan_log_recs(0)) {
		fprintf(stderr, "recovery did not reach the end of the log\n");
		return 1;
	}
	buf_flush_all();
	uint32_t sum = 0;
	for (ulint p = 0; p < POOL_PAGES; p++)
		sum = sum * 31 + mach_read_4(fil_space + p * UNIV_PAGE_SIZE);
	printf("recovery_budget %s: recovered_lsn=%llu checksum=%08x\n", argv[1],
	       (unsigned long long)recv_sys.recovered_lsn, sum);
	return 0;
}

/*
 * dict_status - MDEV-17933: SHOW ENGINE INNODB STATUS takes more than 10 seconds
 * with 3 million tables (Table 3.1 b5).
 *
 * The real bug: the InnoDB monitor output includes the size of the data dictionary
 * cache, computed by dict_sys_get_size(), which walks every cached table and every
 * index heap while holding dict_sys->mutex. With millions of tables each status
 * request holds the mutex for seconds; the query threads that need the dictionary
 * (to open a table) spin in ut_delay() and then wait. gprof ranked the root cause
 * 13th, below ut_delay and buf_calc_page_new_checksum; the false positives vProf
 * reported (ut_delay, sync_array_print_long_waits) are symptoms of the held mutex.
 *
 * Here (C++: namespace innodb, classes, a template mutex policy, std containers):
 * three query threads open tables through the dictionary cache (std::unordered_map
 * under an InnoDB-style spinning mutex) and checksum the pages they read; a monitor
 * thread serves SHOW ENGINE INNODB STATUS requests, each formatting the monitor
 * output and computing dict_sys_get_size(). normal: 3000 tables in the cache;
 * buggy: 80000 tables. The checksum does not depend on thread timing.
 *
 * Root cause: innodb::dict_sys_t::get_size() (dict_sys_get_size in the report), its
 * loop over the table list (ROOT CAUSE). Key variables: size and table
 * (dict_sys_t::get_size), srv_n_tables (#global). Pattern: scalability.
 *
 * Files, as in MariaDB's storage/innobase: dict0dict.cpp (the dictionary cache:
 * the root cause), dict0load.cpp (loading the tables), srv0srv.cpp
 * (configuration and the monitor output), ut0ut.cpp (ut_delay), ut0crc32.cpp,
 * buf0checksum.cpp, row0sel.cpp, dict_status.h (shared declarations, the mutex
 * template of ib0mutex.h, the heap of mem0mem.h); main.cpp (this driver: the
 * query threads and the client asking for SHOW ENGINE INNODB STATUS).
 */
#include "dict_status.h"

namespace innodb {

static const int N_QUERY_THREADS = 3;
static const int QUERIES_PER_THREAD = 1500;
static const int STATUS_REQUESTS = 60;

struct query_thread_arg {
	int no;
	uint64_t result;
};

static void *query_thread(void *argp)
{
	auto *arg = static_cast<query_thread_arg *>(argp);
	std::vector<unsigned char> page(16384);
	uint64_t s = 0x1234567ull * (arg->no + 1), acc = 0;
	char name[64];
	for (int q = 0; q < QUERIES_PER_THREAD; q++) {
		s ^= s << 13; s ^= s >> 7; s ^= s << 17;
		/* the application works on its first 1000 tables */
		snprintf(name, sizeof name, "app/t%lu", (ulint)(s % 1000));
		dict_table_t *t = dict_sys.open_on_name(name);
		if (!t) {
			fprintf(stderr, "table %s not found\n", name);
			exit(3);
		}
		for (ulint p = 0; p < 4; p++)
			acc = acc * 31 + row_search_page(t, (s >> 20) % 64 + p, page.data(), page.size());
		dict_sys.close(t);
	}
	arg->result = acc;
	return nullptr;
}

struct monitor_arg {
	ulint dict_size;
	ulint bytes;
};

static void *monitor_thread(void *argp)
{
	auto *arg = static_cast<monitor_arg *>(argp);
	std::vector<char> buf(1 << 16);
	for (int r = 0; r < STATUS_REQUESTS; r++) {
		ulint size = dict_sys.get_size();
		arg->bytes += srv_printf_innodb_monitor(buf.data(), buf.size(), size);
		arg->dict_size = size;
	}
	return nullptr;
}

}  // namespace innodb

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  Query threads and SHOW ENGINE INNODB STATUS (MDEV-17933).\n"
		"  normal: 3000 tables in the dictionary cache; buggy: 80000.\n", argv0);
	return 2;
}

int main(int argc, char **argv)
{
	using namespace innodb;
	if (argc != 2)
		return usage(argv[0]);
	if (strcmp(argv[1], "normal") == 0)
		srv_n_tables = 3000;
	else if (strcmp(argv[1], "buggy") == 0)
		srv_n_tables = 80000;
	else
		return usage(argv[0]);

	ut_crc32_init();
	dict_load_tables(srv_n_tables);

	pthread_t qt[N_QUERY_THREADS], mt;
	query_thread_arg qa[N_QUERY_THREADS];
	monitor_arg ma = { 0, 0 };
	for (int i = 0; i < N_QUERY_THREADS; i++) {
		qa[i] = { i, 0 };
		if (pthread_create(&qt[i], nullptr, query_thread, &qa[i]) != 0) {
			perror("pthread_create");
			return 1;
		}
	}
	if (pthread_create(&mt, nullptr, monitor_thread, &ma) != 0) {
		perror("pthread_create");
		return 1;
	}
	uint64_t sum = 0;
	for (int i = 0; i < N_QUERY_THREADS; i++) {
		pthread_join(qt[i], nullptr);
		sum = sum * 1000003 + qa[i].result;
	}
	pthread_join(mt, nullptr);
	printf("dict_status %s: tables=%lu dict_size=%lu monitor_bytes=%lu checksum=%016llx\n", argv[1],
	       srv_n_tables, ma.dict_size, ma.bytes, (unsigned long long)sum);
	return 0;
}

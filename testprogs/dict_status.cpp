//go:build ignore

/*
 * dict_status.cpp - MDEV-17933: SHOW ENGINE INNODB STATUS takes more than 10 seconds
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
 */
#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace innodb {

typedef unsigned long ulint;

/* Configuration: how many tables the dictionary cache holds. */
ulint srv_n_tables = 3000;
ulint srv_n_spin_wait_rounds = 30;
ulint srv_spin_wait_delay = 6;
std::atomic<ulint> srv_n_spin_waits;

/* Spin-wait delay, with PAUSE (ut0ut.cc; never inlined into callers there). */
__attribute__((noinline)) ulint ut_delay(ulint delay)
{
	ulint j = 0;
	for (ulint i = 0; i < delay * 50; i++) {
		__builtin_ia32_pause();
		j += i;
	}
	return j;
}

/* An InnoDB-style mutex: a test-and-test-and-set lock that spins with ut_delay()
 * before it sleeps. The policy template parameter counts spin waits. */
struct default_policy {
	void on_spin() { srv_n_spin_waits.fetch_add(1, std::memory_order_relaxed); }
};

template <typename Policy>
class TTASEventMutex {
public:
	TTASEventMutex()
	{
		pthread_mutex_init(&wait_mutex_, nullptr);
		pthread_cond_init(&cond_, nullptr);
	}
	void enter()
	{
		for (;;) {
			for (ulint i = 0; i < srv_n_spin_wait_rounds; i++) {
				if (!lock_word_.load(std::memory_order_relaxed)
				    && !lock_word_.exchange(true, std::memory_order_acquire))
					return;
				policy_.on_spin();
				ut_delay(srv_spin_wait_delay);
			}
			/* sync_array_reserve_cell() and wait */
			pthread_mutex_lock(&wait_mutex_);
			waiters_++;
			while (lock_word_.load(std::memory_order_relaxed))
				pthread_cond_wait(&cond_, &wait_mutex_);
			waiters_--;
			pthread_mutex_unlock(&wait_mutex_);
		}
	}
	void exit()
	{
		lock_word_.store(false, std::memory_order_release);
		pthread_mutex_lock(&wait_mutex_);
		if (waiters_)
			pthread_cond_broadcast(&cond_);
		pthread_mutex_unlock(&wait_mutex_);
	}

private:
	std::atomic<bool> lock_word_{false};
	pthread_mutex_t wait_mutex_;
	pthread_cond_t cond_;
	int waiters_ = 0;
	Policy policy_;
};

typedef TTASEventMutex<default_policy> ib_mutex_t;

/* A memory heap: a list of blocks, as mem_heap_t. */
struct mem_block_t {
	ulint len;
	std::unique_ptr<mem_block_t> next;
};

struct mem_heap_t {
	std::unique_ptr<mem_block_t> base;
	void add_block(ulint len)
	{
		std::unique_ptr<mem_block_t> b(new mem_block_t{len, std::move(base)});
		base = std::move(b);
	}
};

static ulint mem_heap_get_size(const mem_heap_t *heap)
{
	ulint size = 0;
	for (const mem_block_t *b = heap->base.get(); b; b = b->next.get())
		size += b->len;
	return size;
}

struct dict_index_t {
	std::string name;
	ulint n_fields;
	ulint page;
	mem_heap_t heap;
};

struct dict_table_t {
	std::string name;
	ulint id;
	std::vector<dict_index_t> indexes;
	mem_heap_t heap;
	std::atomic<ulint> n_ref_count{0};
	dict_table_t *table_LRU_next = nullptr;
};

/* The data dictionary cache. */
class dict_sys_t {
public:
	void add(std::unique_ptr<dict_table_t> t)
	{
		t->table_LRU_next = lru_;
		lru_ = t.get();
		std::string name = t->name;
		by_name_.emplace(std::move(name), std::move(t));
	}

	dict_table_t *open_on_name(const std::string &name)
	{
		mutex.enter();
		auto it = by_name_.find(name);
		dict_table_t *t = it == by_name_.end() ? nullptr : it->second.get();
		if (t)
			t->n_ref_count++;
		mutex.exit();
		return t;
	}

	void close(dict_table_t *t)
	{
		mutex.enter();
		t->n_ref_count--;
		mutex.exit();
	}

	/* The memory used by the cache, for the monitor output. */
	__attribute__((noinline)) ulint get_size()
	{
		ulint size = 0;
		mutex.enter();
		/* ROOT CAUSE: every table and index heap, with dict_sys->mutex held */
		for (dict_table_t *table = lru_; table; table = table->table_LRU_next) {
			size += mem_heap_get_size(&table->heap) + sizeof(*table) + table->name.size();
			for (const dict_index_t &index : table->indexes)
				size += mem_heap_get_size(&index.heap) + sizeof(index) + index.name.size();
		}
		mutex.exit();
		return size;
	}

	ib_mutex_t mutex;

private:
	std::unordered_map<std::string, std::unique_ptr<dict_table_t>> by_name_;
	dict_table_t *lru_ = nullptr;
};

static dict_sys_t dict_sys;

/* ---------------------------------------------------------------- pages */

static uint32_t crc_table[256];

static void ut_crc32_init()
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0x82f63b78u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

/* buf0checksum.cc */
__attribute__((noinline)) uint32_t buf_calc_page_new_checksum(const unsigned char *page, ulint size)
{
	uint32_t c = 0xffffffffu;
	for (ulint i = 38; i < size - 8; i++)
		c = crc_table[(c ^ page[i]) & 0xff] ^ (c >> 8);
	return ~c;
}

/* Reads (generates) a page of a table's index and verifies its checksum. */
static uint64_t row_search_page(const dict_table_t *t, ulint page_no, unsigned char *page, ulint size)
{
	uint64_t s = t->id * 0x9e3779b97f4a7c15ull + page_no;
	for (ulint i = 0; i < size; i += 8) {
		s ^= s << 13; s ^= s >> 7; s ^= s << 17;
		memcpy(page + i, &s, 8);
	}
	return buf_calc_page_new_checksum(page, size);
}

/* ---------------------------------------------------------------- threads */

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

/* SHOW ENGINE INNODB STATUS, as srv_printf_innodb_monitor() formats it. */
static ulint srv_printf_innodb_monitor(char *buf, size_t cap, ulint dict_size)
{
	size_t n = 0;
	n += (size_t)snprintf(buf + n, cap - n, "\n=====================================\nINNODB MONITOR OUTPUT\n"
			      "=====================================\n");
	for (int i = 0; i < 200 && n < cap; i++)
		n += (size_t)snprintf(buf + n, cap - n, "---TRANSACTION %d, ACTIVE %d sec\nmysql tables in use 1, "
				      "locked 1\n%d lock struct(s), heap size %d, %d row lock(s)\n",
				      42000 + i, i % 7, i % 5 + 1, 1136 + i, i % 11);
	if (n < cap)
		n += (size_t)snprintf(buf + n, cap - n, "Dictionary memory allocated %lu\n", dict_size);
	return n;
}

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

static void dict_load_tables(ulint n)
{
	for (ulint i = 0; i < n; i++) {
		std::unique_ptr<dict_table_t> t(new dict_table_t);
		t->name = "app/t" + std::to_string(i);
		t->id = i + 16;
		t->heap.add_block(1024 + i % 512);
		if (i % 3 == 0)
			t->heap.add_block(8192);
		ulint nidx = 2 + i % 3;
		for (ulint k = 0; k < nidx; k++) {
			dict_index_t idx;
			idx.name = k ? "idx_" + std::to_string(k) : "PRIMARY";
			idx.n_fields = 2 + k;
			idx.page = 3 + k;
			idx.heap.add_block(512 + 64 * k);
			t->indexes.push_back(std::move(idx));
		}
		dict_sys.add(std::move(t));
	}
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

/*
 * dict_status (MDEV-17933): dict_status.h - the declarations the files of this program share
 * (dict0dict.h, dict0mem.h, ib0mutex.h, mem0mem.h ... in MariaDB). The program
 * is described in main.cpp.
 */
#ifndef DICT_STATUS_H
#define DICT_STATUS_H

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

/* srv0srv.cpp */
extern ulint srv_n_tables;
extern ulint srv_n_spin_wait_rounds;
extern ulint srv_spin_wait_delay;
extern std::atomic<ulint> srv_n_spin_waits;
ulint srv_printf_innodb_monitor(char *buf, size_t cap, ulint dict_size);

/* ut0ut.cpp */
__attribute__((noinline)) ulint ut_delay(ulint delay);

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

static inline ulint mem_heap_get_size(const mem_heap_t *heap)
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

/* The data dictionary cache (dict0dict.cpp). */
class dict_sys_t {
public:
	void add(std::unique_ptr<dict_table_t> t);
	dict_table_t *open_on_name(const std::string &name);
	void close(dict_table_t *t);
	/* The memory used by the cache, for the monitor output. */
	__attribute__((noinline)) ulint get_size();

	ib_mutex_t mutex;

private:
	std::unordered_map<std::string, std::unique_ptr<dict_table_t>> by_name_;
	dict_table_t *lru_ = nullptr;
};

extern dict_sys_t dict_sys;

/* dict0load.cpp, ut0crc32.cpp, buf0checksum.cpp, row0sel.cpp */
void dict_load_tables(ulint n);
extern uint32_t crc_table[256];
void ut_crc32_init();
__attribute__((noinline)) uint32_t buf_calc_page_new_checksum(const unsigned char *page, ulint size);
uint64_t row_search_page(const dict_table_t *t, ulint page_no, unsigned char *page, ulint size);

}  // namespace innodb

#endif

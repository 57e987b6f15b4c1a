/*
 * dict_status (MDEV-17933): dict0dict.cpp
 * The data dictionary cache (storage/innobase/dict/dict0dict.cc), with the
 * root cause dict_sys_t::get_size() (dict_sys_get_size() in the report).
 */
#include "dict_status.h"

namespace innodb {

dict_sys_t dict_sys;

void dict_sys_t::add(std::unique_ptr<dict_table_t> t)
{
	t->table_LRU_next = lru_;
	lru_ = t.get();
	std::string name = t->name;
	by_name_.emplace(std::move(name), std::move(t));
}

dict_table_t *dict_sys_t::open_on_name(const std::string &name)
{
	mutex.enter();
	auto it = by_name_.find(name);
	dict_table_t *t = it == by_name_.end() ? nullptr : it->second.get();
	if (t)
		t->n_ref_count++;
	mutex.exit();
	return t;
}

void dict_sys_t::close(dict_table_t *t)
{
	mutex.enter();
	t->n_ref_count--;
	mutex.exit();
}

/* The memory used by the cache, for the monitor output. */
__attribute__((noinline)) ulint dict_sys_t::get_size()
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

}  // namespace innodb

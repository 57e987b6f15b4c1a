/*
 * cascade_delete (MDEV-13498): cascade_delete.h - the declarations the files of this program share
 * (dict0mem.h, row0upd.h, trx0undo.h, m_ctype.h ... in MariaDB). The program is
 * described in main.cpp.
 */
#ifndef CASCADE_DELETE_H
#define CASCADE_DELETE_H

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace innodb {

typedef uint64_t row_id_t;
typedef uint64_t trx_id_t;

enum dberr_t { DB_SUCCESS = 10, DB_ERROR, DB_RECORD_NOT_FOUND };
enum que_node_type { QUE_NODE_UPDATE = 1, QUE_NODE_SELECT };

/* srv0srv.cpp */
extern bool wsrep_on;
extern unsigned long srv_n_rows_deleted;

/* ut0crc32.cpp */
void ut_crc32_init();
__attribute__((noinline)) uint32_t ut_crc32(const unsigned char *p, size_t n);

/* A row: clustered key, the parent's key (for child rows), and columns. */
struct rec_t {
	row_id_t id;
	row_id_t parent_id;
	std::string name;
	std::string email;
	std::string city;
	std::string phone;
	bool delete_marked = false;
	trx_id_t trx_id = 0;
};

/* ctype-uca.cpp */
void my_uca_init();

struct ci_less {
	/* my_strnncollsp_utf8mb4 (strings/ctype-uca.c). */
	__attribute__((noinline)) static int cmp(const std::string &a, const std::string &b);
	bool operator()(const std::pair<std::string, row_id_t> &a, const std::pair<std::string, row_id_t> &b) const
	{
		int c = cmp(a.first, b.first);
		return c ? c < 0 : a.second < b.second;
	}
};

/* A secondary index: (key, primary key) -> delete mark. */
template <typename Key, typename Compare>
class sec_index_t {
public:
	explicit sec_index_t(std::string name) : name_(std::move(name)) {}
	void insert(const Key &k, row_id_t pk) { tree_[std::make_pair(k, pk)] = false; }
	/* The B-tree search and page update (btr0cur.cc in InnoDB). */
	__attribute__((noinline)) dberr_t delete_mark(const Key &k, row_id_t pk)
	{
		auto it = tree_.find(std::make_pair(k, pk));
		if (it == tree_.end())
			return DB_RECORD_NOT_FOUND;
		it->second = true;
		return DB_SUCCESS;
	}
	size_t n_marked() const
	{
		size_t n = 0;
		for (const auto &e : tree_)
			n += e.second;
		return n;
	}
	const std::string &name() const { return name_; }

private:
	std::string name_;
	std::map<std::pair<Key, row_id_t>, bool, Compare> tree_;
};

typedef sec_index_t<std::string, ci_less> str_index_t;

struct dict_foreign_t;

struct dict_table_t {
	std::string name;
	std::map<row_id_t, rec_t> clust;                   /* clustered index */
	std::vector<std::unique_ptr<str_index_t>> indexes;  /* secondary indexes */
	std::multimap<row_id_t, row_id_t> by_parent;       /* the FK index: parent -> child pk */
	std::vector<dict_foreign_t *> referenced_set;      /* FKs that reference this table */
	std::vector<dict_foreign_t *> foreign_set;         /* FKs of this table */
};

struct dict_foreign_t {
	dict_table_t *foreign_table;        /* the child */
	dict_table_t *referenced_table;     /* the parent */
	bool on_delete_cascade;
};

/* An update (delete) node of a query graph. */
struct upd_node_t {
	que_node_type type = QUE_NODE_UPDATE;
	upd_node_t *parent = nullptr;                    /* the statement's node for a cascade */
	dict_table_t *table = nullptr;
	row_id_t pk = 0;
	dict_foreign_t *foreign = nullptr;               /* the FK that caused this cascade */
	std::vector<upd_node_t *> *cascade_upd_nodes = nullptr;
	std::vector<std::unique_ptr<upd_node_t>> cascade_heap;  /* owned by the statement node */
};

/* The undo log of the transaction. */
class trx_undo_t {
public:
	/* trx0rec.cc in InnoDB. */
	__attribute__((noinline)) void report_row_operation(const rec_t &rec, trx_id_t trx);
	uint32_t checksum() const { return checksum_; }
	unsigned long n_recs() const { return n_recs_; }

private:
	unsigned char page_[16384] = {};
	size_t page_used_ = 0;
	uint32_t checksum_ = 0;
	unsigned long n_recs_ = 0;
};

struct trx_t {
	trx_id_t id;
	trx_undo_t undo;
};

/* btr0cur.cpp, row0upd.cpp, row0ins.cpp, row0mysql.cpp */
rec_t *btr_clust_search(dict_table_t *table, row_id_t pk);
dberr_t row_upd_del_mark_clust_rec(upd_node_t *node, trx_t *trx);
dberr_t row_ins_foreign_check_on_constraint(upd_node_t *node, dict_foreign_t *foreign, trx_t *trx);
dberr_t row_del_statement(dict_table_t *table, row_id_t first, row_id_t last, trx_t *trx);

}  // namespace innodb

#endif

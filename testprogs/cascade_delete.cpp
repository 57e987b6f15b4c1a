//go:build ignore

/*
 * cascade_delete.cpp - MDEV-13498: DELETE with ON DELETE CASCADE constraints is very
 * slow in MariaDB 10.2 (Table 3.1 b3).
 *
 * The real bug: for every row that a cascading delete removes,
 * row_upd_del_mark_clust_rec() evaluates a Galera (wsrep) foreign-key condition
 *     if (err == DB_SUCCESS && !referenced && foreign
 *         && !(parent && que_node_get_type(parent) == QUE_NODE_UPDATE
 *              && std::find(parent->cascade_upd_nodes->begin(),
 *                           parent->cascade_upd_nodes->end(), node)
 *                 == parent->cascade_upd_nodes->end()))
 *         err = wsrep_row_upd_check_foreign_constraints(...);
 * The std::find walks the list of cascade nodes of the statement, which grows by one
 * per cascaded row, so a statement cascading to n rows costs O(n^2), and all of it
 * is useless when the server is not in a Galera cluster: the fix put
 * wsrep_on(trx->mysql_thd) first in the condition. gprof ranked the culprits 2nd;
 * vProf found the anomaly in the processing time of `parent`.
 *
 * Here: an InnoDB-like engine (namespace innodb: tables with a clustered index and
 * templated secondary indexes over std::map, an undo log with CRC-32, and cascade
 * nodes in a std::vector) loads the report's database: two parent tables whose
 * rows each have 30 child rows ON DELETE CASCADE. Each mode empties one table with
 * one DELETE statement: normal the smaller one (450 parents, 13500 cascaded rows:
 * the report's second table, 2 minutes), buggy the larger one (1100 parents, 33000
 * cascaded rows: the first table, 20 minutes), so the cascade list grows 2.4 times
 * longer and the quadratic search costs 6 times more. Galera is off in both modes.
 *
 * Root cause: innodb::row_upd_del_mark_clust_rec(), the condition with std::find
 * (ROOT CAUSE). Key variables: parent and node (row_upd_del_mark_clust_rec),
 * wsrep_on (#global). Pattern: missing constraint.
 */
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

/* Galera replication (wsrep) is off: this server is not in a cluster. */
bool wsrep_on = false;
unsigned long srv_n_rows_deleted;

static uint32_t crc32_table[256];

static void ut_crc32_init()
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0x82f63b78u ^ (c >> 1) : c >> 1;
		crc32_table[i] = c;
	}
}

/* Lives in ut0crc32.cc: not inlined into the engine's callers. */
__attribute__((noinline)) uint32_t ut_crc32(const unsigned char *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	while (n--)
		c = crc32_table[(c ^ *p++) & 0xff] ^ (c >> 8);
	return ~c;
}

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

/* The collation of the secondary indexes: utf8mb4_unicode_ci, case- and
 * accent-insensitive, PAD SPACE. Characters are decoded from UTF-8 and compared
 * by their primary weights. */
static uint16_t uca_weight[0x10000];

static void my_uca_init()
{
	for (uint32_t c = 0; c < 0x10000; c++) {
		uint32_t w = c;
		if (c >= 'a' && c <= 'z')
			w = c - 32;
		else if (c >= 0xe0 && c <= 0xfe && c != 0xf7)
			w = c - 32;
		uca_weight[c] = (uint16_t)(w * 7 + 0x100);
	}
}

/* Decodes one UTF-8 character; returns its length, 0 at the end. */
static inline int my_mb_wc_utf8mb4(uint32_t *wc, const unsigned char *s, const unsigned char *e)
{
	if (s >= e)
		return 0;
	unsigned char c = s[0];
	if (c < 0x80) { *wc = c; return 1; }
	if (c < 0xe0 && s + 1 < e) { *wc = (uint32_t)(c & 0x1f) << 6 | (s[1] & 0x3f); return 2; }
	if (c < 0xf0 && s + 2 < e) { *wc = (uint32_t)(c & 0x0f) << 12 | (uint32_t)(s[1] & 0x3f) << 6 | (s[2] & 0x3f); return 3; }
	*wc = 0xfffd;
	return 1;
}

struct ci_less {
	/* my_strnncollsp_utf8mb4 (strings/ctype-uca.c). */
	__attribute__((noinline)) static int cmp(const std::string &a, const std::string &b)
	{
		const unsigned char *s = (const unsigned char *)a.data(), *se = s + a.size();
		const unsigned char *t = (const unsigned char *)b.data(), *te = t + b.size();
		for (;;) {
			uint32_t sc, tc;
			int sl = my_mb_wc_utf8mb4(&sc, s, se), tl = my_mb_wc_utf8mb4(&tc, t, te);
			if (!sl || !tl) {
				/* PAD SPACE: the rest of the longer string compares with spaces */
				const unsigned char *r = sl ? s : t, *re = sl ? se : te;
				for (; r < re; r++)
					if (*r != ' ')
						return (sl ? 1 : -1) * (uca_weight[*r] > uca_weight[' '] ? 1 : -1);
				return 0;
			}
			int d = (int)uca_weight[sc & 0xffff] - (int)uca_weight[tc & 0xffff];
			if (d)
				return d;
			s += sl;
			t += tl;
		}
	}
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
	__attribute__((noinline)) void report_row_operation(const rec_t &rec, trx_id_t trx)
	{
		unsigned char buf[512];
		size_t n = 0;
		auto put = [&](const void *p, size_t len) {
			if (n + len > sizeof buf)
				len = sizeof buf - n;
			memcpy(buf + n, p, len);
			n += len;
		};
		put(&rec.id, sizeof rec.id);
		put(&rec.parent_id, sizeof rec.parent_id);
		put(&trx, sizeof trx);
		put(rec.name.data(), rec.name.size());
		put(rec.email.data(), rec.email.size());
		put(rec.city.data(), rec.city.size());
		put(rec.phone.data(), rec.phone.size());
		/* the undo page is logged in the redo log: the record and the page image */
		checksum_ ^= ut_crc32(buf, n);
		memcpy(page_ + page_used_, buf, n);
		page_used_ += n;
		if (page_used_ > sizeof page_ - 512) {
			checksum_ ^= ut_crc32(page_, page_used_);
			page_used_ = 0;
		}
		n_recs_++;
	}
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

static dberr_t row_upd_del_mark_clust_rec(upd_node_t *node, trx_t *trx);

/* Finds a clustered index record (btr0cur.cc in InnoDB). */
__attribute__((noinline)) static rec_t *btr_clust_search(dict_table_t *table, row_id_t pk)
{
	auto it = table->clust.find(pk);
	return it == table->clust.end() ? nullptr : &it->second;
}

/* Delete-marks the secondary index entries of a row. */
__attribute__((noinline)) static dberr_t row_upd_sec_index_entry(dict_table_t *table, const rec_t &rec)
{
	const std::string *keys[4] = { &rec.name, &rec.email, &rec.city, &rec.phone };
	for (size_t i = 0; i < table->indexes.size(); i++) {
		dberr_t err = table->indexes[i]->delete_mark(*keys[i], rec.id);
		if (err != DB_SUCCESS)
			return err;
	}
	return DB_SUCCESS;
}

/* Cascades a delete of a parent row to the child rows referencing it. */
static dberr_t row_ins_foreign_check_on_constraint(upd_node_t *node, dict_foreign_t *foreign, trx_t *trx)
{
	upd_node_t *stmt = node->parent ? node->parent : node;
	dict_table_t *child = foreign->foreign_table;
	auto range = child->by_parent.equal_range(node->pk);
	for (auto it = range.first; it != range.second; ++it) {
		std::unique_ptr<upd_node_t> cascade(new upd_node_t);
		cascade->parent = stmt;
		cascade->table = child;
		cascade->pk = it->second;
		cascade->foreign = foreign;
		upd_node_t *c = cascade.get();
		stmt->cascade_heap.push_back(std::move(cascade));
		stmt->cascade_upd_nodes->push_back(c);
		dberr_t err = row_upd_del_mark_clust_rec(c, trx);
		if (err != DB_SUCCESS)
			return err;
	}
	return DB_SUCCESS;
}

/* Stands for the Galera certification of a cascaded row (never reached here). */
static dberr_t wsrep_row_upd_check_foreign_constraints(upd_node_t *node, trx_t *trx)
{
	(void)node;
	(void)trx;
	return DB_SUCCESS;
}

/* Delete-marks a clustered index record, its secondary index entries, and
 * cascades to the rows that reference it. */
__attribute__((noinline)) static dberr_t row_upd_del_mark_clust_rec(upd_node_t *node, trx_t *trx)
{
	dict_table_t *table = node->table;
	rec_t *recp = btr_clust_search(table, node->pk);
	if (!recp)
		return DB_RECORD_NOT_FOUND;
	rec_t &rec = *recp;
	if (rec.delete_marked)
		return DB_SUCCESS;
	trx->undo.report_row_operation(rec, trx->id);
	rec.delete_marked = true;
	rec.trx_id = trx->id;
	srv_n_rows_deleted++;

	dberr_t err = row_upd_sec_index_entry(table, rec);
	bool referenced = !table->referenced_set.empty();
	dict_foreign_t *foreign = node->foreign;
	upd_node_t *parent = node->parent;

	if (err == DB_SUCCESS && referenced) {
		for (dict_foreign_t *fk : table->referenced_set) {
			if (fk->on_delete_cascade) {
				err = row_ins_foreign_check_on_constraint(node, fk, trx);
				if (err != DB_SUCCESS)
					return err;
			}
		}
	}
	/* ROOT CAUSE: the std::find runs for every cascaded row although it only
	 * matters with Galera; `wsrep_on &&` is missing at the front. */
	if (err == DB_SUCCESS && !referenced && foreign
	    && !(parent && parent->type == QUE_NODE_UPDATE
		 && std::find(parent->cascade_upd_nodes->begin(), parent->cascade_upd_nodes->end(), node)
			    == parent->cascade_upd_nodes->end())) {
		err = wsrep_row_upd_check_foreign_constraints(node, trx);
	}
	return err;
}

/* DELETE FROM parent WHERE id BETWEEN first AND last. */
static dberr_t row_del_statement(dict_table_t *table, row_id_t first, row_id_t last, trx_t *trx)
{
	upd_node_t stmt;
	std::vector<upd_node_t *> cascade_nodes;
	stmt.table = table;
	stmt.cascade_upd_nodes = &cascade_nodes;
	for (row_id_t pk = first; pk <= last; pk++) {
		stmt.pk = pk;
		dberr_t err = row_upd_del_mark_clust_rec(&stmt, trx);
		if (err != DB_SUCCESS)
			return err;
	}
	return DB_SUCCESS;
}

/* ---------------------------------------------------------------- schema and data */

static std::string make_word(uint64_t &s, size_t len)
{
	std::string w(len, 'a');
	for (size_t i = 0; i < len; i++) {
		s ^= s << 13; s ^= s >> 7; s ^= s << 17;
		w[i] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"[s % 52];
	}
	return w;
}

static void load_table(dict_table_t &t, row_id_t nrows, row_id_t rows_per_parent, uint64_t seed)
{
	static const char *idx_names[4] = { "idx_name", "idx_email", "idx_city", "idx_phone" };
	for (int i = 0; i < 4; i++)
		t.indexes.emplace_back(new str_index_t(idx_names[i]));
	uint64_t s = seed;
	for (row_id_t id = 1; id <= nrows; id++) {
		rec_t r;
		r.id = id;
		r.parent_id = rows_per_parent ? (id - 1) / rows_per_parent + 1 : 0;
		r.name = make_word(s, 12);
		r.email = make_word(s, 10) + "@example.com";
		r.city = make_word(s, 8);
		r.phone = "+1-555-" + make_word(s, 7);
		t.indexes[0]->insert(r.name, id);
		t.indexes[1]->insert(r.email, id);
		t.indexes[2]->insert(r.city, id);
		t.indexes[3]->insert(r.phone, id);
		if (rows_per_parent)
			t.by_parent.emplace(r.parent_id, id);
		t.clust.emplace(id, std::move(r));
	}
}

}  // namespace innodb

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  Deletes parent rows with ON DELETE CASCADE children (MDEV-13498).\n"
		"  normal: DELETE FROM the smaller table (450 parents);\n"
		"  buggy: DELETE FROM the larger table (1100 parents).\n", argv0);
	return 2;
}

int main(int argc, char **argv)
{
	using namespace innodb;
	if (argc != 2)
		return usage(argv[0]);
	bool buggy;
	if (strcmp(argv[1], "normal") == 0)
		buggy = false;
	else if (strcmp(argv[1], "buggy") == 0)
		buggy = true;
	else
		return usage(argv[0]);

	/* The database of the report's script: two parent tables with cascading
	 * children. normal deletes from the smaller one, buggy from the larger one. */
	ut_crc32_init();
	my_uca_init();
	struct schema_t {
		dict_table_t parent, child;
		dict_foreign_t fk;
		row_id_t n_parents;
		row_id_t parents_per_stmt;
	} db[2];
	const row_id_t children_per_parent = 30;
	db[0].n_parents = 1100;
	db[0].parents_per_stmt = 1100;
	db[1].n_parents = 450;
	db[1].parents_per_stmt = 450;
	for (int t = 0; t < 2; t++) {
		schema_t &d = db[t];
		d.parent.name = t ? "shop/supplier" : "shop/customer";
		d.child.name = t ? "shop/supplies" : "shop/orders";
		load_table(d.parent, d.n_parents, 0, 1 + 2 * (uint64_t)t);
		load_table(d.child, d.n_parents * children_per_parent, children_per_parent, 2 + 2 * (uint64_t)t);
		d.fk = { &d.child, &d.parent, true };
		d.parent.referenced_set.push_back(&d.fk);
		d.child.foreign_set.push_back(&d.fk);
	}

	schema_t &d = db[buggy ? 0 : 1];
	trx_t trx;
	trx.id = 1000;
	for (row_id_t first = 1; first <= d.n_parents; first += d.parents_per_stmt) {
		row_id_t last = std::min(d.n_parents, first + d.parents_per_stmt - 1);
		if (row_del_statement(&d.parent, first, last, &trx) != DB_SUCCESS) {
			fprintf(stderr, "DELETE failed at row %llu\n", (unsigned long long)first);
			return 1;
		}
	}
	unsigned long marked = 0;
	for (auto *t : { &d.parent, &d.child })
		for (auto &idx : t->indexes)
			marked += idx->n_marked();
	printf("cascade_delete %s: table=%s rows_deleted=%lu index_entries=%lu undo_checksum=%08x\n", argv[1],
	       d.parent.name.c_str(), srv_n_rows_deleted, marked, trx.undo.checksum());
	return 0;
}

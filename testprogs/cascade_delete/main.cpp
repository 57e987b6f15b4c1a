/*
 * cascade_delete - MDEV-13498: DELETE with ON DELETE CASCADE constraints is very
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
 *
 * Files, as in MariaDB's storage/innobase (and strings/): row0upd.cpp (updates and
 * delete-marking: the root cause), row0ins.cpp (foreign keys: the cascade),
 * row0mysql.cpp (the DELETE statement), btr0cur.cpp (B-tree search),
 * trx0rec.cpp (the undo log), ut0crc32.cpp, ctype-uca.cpp (the collation of
 * strings/ctype-uca.c), srv0srv.cpp (configuration: wsrep_on, whose real home is
 * the server's wsrep code), cascade_delete.h (shared declarations, the secondary
 * index template); main.cpp (this driver: the schema, the data and the DELETE).
 */
#include "cascade_delete.h"

namespace innodb {

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

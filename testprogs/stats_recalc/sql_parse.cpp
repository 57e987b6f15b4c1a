/*
 * stats_recalc (MySQL-98546): sql_parse.cpp
 * The SQL layer (sql/sql_parse.cc, sql_update.cc, sql_select.cc), reduced
 * to the statements of the workload (sysbench oltp_update_index with point
 * selects):
 *   UPDATE t SET k=k+n WHERE id=n
 *   SELECT c FROM t WHERE id=n
 */
#include "stats_recalc.h"

struct Lex {
	enum { SQLCOM_UPDATE, SQLCOM_SELECT, SQLCOM_ERROR } sql_command;
	std::string table_name;
	std::string column;
	uint64_t id;
	int32_t delta;
};

static std::unordered_map<std::string, std::unique_ptr<ha_innobase>> open_tables;

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	return p;
}

static const char *parse_word(const char *p, std::string *out)
{
	p = skip_ws(p);
	out->clear();
	while (*p && *p != ' ' && *p != '(' && *p != ',' && *p != ')' && *p != '=')
		out->push_back(*p++);
	return p;
}

static const char *parse_number(const char *p, uint64_t *out)
{
	p = skip_ws(p);
	uint64_t v = 0;
	while (*p >= '0' && *p <= '9')
		v = v * 10 + (uint64_t)(*p++ - '0');
	*out = v;
	return p;
}

static const char *expect(const char *p, char c)
{
	p = skip_ws(p);
	return *p == c ? p + 1 : p;
}

/* MYSQLparse() */
static void parse_sql(const char *q, Lex *lex)
{
	std::string word;
	const char *p = parse_word(q, &word);
	lex->sql_command = Lex::SQLCOM_ERROR;
	if (word == "UPDATE") {
		p = parse_word(p, &lex->table_name);
		p = parse_word(p, &word);	/* SET */
		p = parse_word(p, &lex->column);
		p = expect(p, '=');
		p = parse_word(p, &word);	/* k+n */
		size_t plus = word.find_first_of("+-");
		lex->delta = plus == std::string::npos ? 0 : atoi(word.c_str() + plus);
		p = parse_word(p, &word);	/* WHERE */
		p = parse_word(p, &word);	/* id */
		p = expect(p, '=');
		p = parse_number(p, &lex->id);
		lex->sql_command = lex->column == "k" ? Lex::SQLCOM_UPDATE : Lex::SQLCOM_ERROR;
	} else if (word == "SELECT") {
		p = parse_word(p, &lex->column);
		p = parse_word(p, &word);	/* FROM */
		p = parse_word(p, &lex->table_name);
		p = parse_word(p, &word);	/* WHERE */
		p = parse_word(p, &word);	/* id */
		p = expect(p, '=');
		p = parse_number(p, &lex->id);
		lex->sql_command = Lex::SQLCOM_SELECT;
	}
}

static ha_innobase *open_table(const std::string &name)
{
	auto it = open_tables.find(name);
	if (it != open_tables.end())
		return it->second.get();
	dict_table_t *table = dict_sys.find(name);
	if (!table)
		return nullptr;
	ha_innobase *h = new ha_innobase(table);
	open_tables[name].reset(h);
	return h;
}

/* mysql_execute_command() */
static int mysql_execute_command(THD *thd, Lex *lex)
{
	ha_innobase *h = open_table(lex->table_name);
	if (!h)
		return 1146;	/* ER_NO_SUCH_TABLE */
	byte row[ROW_LEN];
	switch (lex->sql_command) {
	case Lex::SQLCOM_UPDATE:
		if (h->update_row(lex->id, lex->delta))
			return 1032;	/* ER_KEY_NOT_FOUND */
		thd->rows_affected++;
		return 0;
	case Lex::SQLCOM_SELECT:
		if (!h->index_read(lex->id, row))
			thd->result_checksum = thd->result_checksum * 31 + ut_crc32(row + ROW_C, C_LEN);
		return 0;
	default:
		return 1064;	/* ER_PARSE_ERROR */
	}
}

/* dispatch_command(COM_QUERY) */
int dispatch_command(THD *thd, const char *query, ulint len)
{
	(void)len;
	thd->query_id++;
	thd->start_us = ut_time_us();
	Lex lex;
	parse_sql(query, &lex);
	return mysql_execute_command(thd, &lex);
}

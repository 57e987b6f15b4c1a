/*
 * query_cache_full (ClickHouse-118473): ParserSelectQuery.cpp
 * The lexer and parser (src/Parsers), reduced to the one query shape of
 * the workload:
 *   SELECT URLHash, count() FROM hits WHERE CounterID = c AND EventDate >= d
 *   [AND HoverID = h] GROUP BY URLHash ORDER BY count() DESC LIMIT n
 *   SETTINGS use_query_cache = 0|1, query_cache_ttl = s
 * and the tree hash of the AST (IAST::getTreeHash), which ignores the
 * SETTINGS clause, as the query cache key does.
 */
#include "query_cache_full.h"
#include <cctype>

namespace DB {

struct Token {
	enum Type { Word, Number, Punct, End } type;
	std::string text;
};

static void tokenize(const std::string &text, std::vector<Token> *tokens)
{
	size_t i = 0, n = text.size();
	while (i < n) {
		unsigned char c = (unsigned char)text[i];
		if (isspace(c)) {
			i++;
		} else if (isalpha(c) || c == '_') {
			size_t j = i;
			while (j < n && (isalnum((unsigned char)text[j]) || text[j] == '_'))
				j++;
			tokens->push_back({ Token::Word, text.substr(i, j - i) });
			i = j;
		} else if (isdigit(c)) {
			size_t j = i;
			while (j < n && isdigit((unsigned char)text[j]))
				j++;
			tokens->push_back({ Token::Number, text.substr(i, j - i) });
			i = j;
		} else if (c == '>' && i + 1 < n && text[i + 1] == '=') {
			tokens->push_back({ Token::Punct, ">=" });
			i += 2;
		} else {
			tokens->push_back({ Token::Punct, std::string(1, (char)c) });
			i++;
		}
	}
	tokens->push_back({ Token::End, "" });
}

static bool iequals(const std::string &a, const char *b)
{
	size_t n = strlen(b);
	if (a.size() != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i]))
			return false;
	return true;
}

bool parseQuery(const std::string &text, ASTSelectQuery *ast)
{
	std::vector<Token> tokens;
	tokenize(text, &tokens);
	size_t pos = 0;
	auto number_after = [&](const char *name, uint64_t *out) {
		for (size_t i = 0; i + 2 < tokens.size(); i++)
			if (iequals(tokens[i].text, name) && tokens[i + 2].type == Token::Number) {
				*out = strtoull(tokens[i + 2].text.c_str(), nullptr, 10);
				return true;
			}
		return false;
	};
	if (!iequals(tokens[pos].text, "SELECT"))
		return false;
	uint64_t v;
	if (!number_after("CounterID", &v))
		return false;
	ast->counter_id = (uint32_t)v;
	if (number_after("EventDate", &v))
		ast->min_date = (uint16_t)v;
	if (number_after("HoverID", &v))
		ast->comment = std::to_string(v);
	for (size_t i = 0; i + 1 < tokens.size(); i++)
		if (iequals(tokens[i].text, "LIMIT") && tokens[i + 1].type == Token::Number)
			ast->limit = (unsigned)strtoul(tokens[i + 1].text.c_str(), nullptr, 10);
	if (number_after("use_query_cache", &v))
		ast->settings.use_query_cache = v != 0;
	if (number_after("query_cache_ttl", &v))
		ast->settings.query_cache_ttl = v;
	return true;
}

uint64_t ASTSelectQuery::getTreeHash() const
{
	SipHash hash;
	hash.update(std::string("SelectQuery"));
	hash.update(std::string("hits"));
	hash.update((uint64_t)counter_id);
	hash.update((uint64_t)min_date);
	hash.update((uint64_t)limit);
	hash.update(comment);
	return hash.get64();
}

}  // namespace DB

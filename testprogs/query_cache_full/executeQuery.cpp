/*
 * query_cache_full (ClickHouse-118473): executeQuery.cpp
 * src/Interpreters/executeQuery.cpp: parse the query; with
 * use_query_cache = 1 look the result up in the query cache and, on a
 * miss, run the query and write its result with the key's expiry time
 * now + query_cache_ttl.
 */
#include "query_cache_full.h"

namespace DB {

int64_t nowMicroseconds()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

ChunkPtr executeQuery(const std::string &text, QueryContext *ctx)
{
	ASTSelectQuery ast;
	if (!parseQuery(text, &ast)) {
		fprintf(stderr, "Syntax error: %s\n", text.c_str());
		exit(62);
	}
	ctx->deadline_us = ctx->start_us + (int64_t)ast.settings.max_execution_time * 1000000;

	std::optional<QueryCacheKey> key;
	if (ast.settings.use_query_cache) {
		key = QueryCacheKey{ ast.getTreeHash(), ctx->user,
				     std::chrono::system_clock::now() + std::chrono::seconds(ast.settings.query_cache_ttl), text };
		if (auto cached = getQueryCache().read(*key))
			return *cached;
	}

	ChunkPtr result = executeAggregation(ast);
	if (nowMicroseconds() > ctx->deadline_us) {
		fprintf(stderr, "TIMEOUT_EXCEEDED: query %llu\n", (unsigned long long)ctx->query_id);
		exit(159);
	}
	if (key)
		getQueryCache().write(*key, result);	/* QueryCache::Writer::finalizeWrite */
	return result;
}

}  // namespace DB

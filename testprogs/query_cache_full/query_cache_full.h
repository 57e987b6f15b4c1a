/*
 * query_cache_full (ClickHouse-118473): query_cache_full.h
 * Shared declarations, after ClickHouse's src/Common/ICachePolicy.h and
 * TTLCachePolicy.h, src/Interpreters/Cache/QueryCache.h, src/Common/
 * SipHash.h, src/Core/Settings.h, src/Server/TCPHandler.h and the MergeTree
 * table the queries read.
 */
#ifndef QUERY_CACHE_FULL_H
#define QUERY_CACHE_FULL_H

#include <pthread.h>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace DB {

/* SipHash.cpp: SipHash-2-4, the hash of ASTs and cache keys */
class SipHash {
public:
	SipHash(uint64_t k0 = 0, uint64_t k1 = 0);
	void update(const char *data, size_t size);
	void update(uint64_t x) { update(reinterpret_cast<const char *>(&x), sizeof x); }
	void update(const std::string &s) { update(s.data(), s.size()); update((uint64_t)s.size()); }
	uint64_t get64();
private:
	void round();
	uint64_t v0, v1, v2, v3;
	uint64_t cnt;
	union { uint64_t current_word; char current_bytes[8]; };
};

/* the result of a query: a block of columns, serialized */
struct Chunk {
	std::vector<uint64_t> keys;
	std::vector<uint64_t> counts;
	size_t bytes() const { return (keys.size() + counts.size()) * 8 + 64; }
};
using ChunkPtr = std::shared_ptr<const Chunk>;

/* Settings.h: the query's settings */
struct Settings {
	bool use_query_cache = false;
	uint64_t query_cache_ttl = 60;	/* seconds */
	uint64_t max_execution_time = 10;	/* seconds */
	uint64_t query_cache_min_query_runs = 0;
};

/* QueryCache.h: the key of a cached result */
struct QueryCacheKey {
	uint64_t ast_hash;
	std::string user_name;
	std::chrono::time_point<std::chrono::system_clock> expires_at;
	std::string query_string;	/* for system.query_cache */
	bool operator==(const QueryCacheKey &other) const { return ast_hash == other.ast_hash && user_name == other.user_name; }
};
struct QueryCacheKeyHasher {
	size_t operator()(const QueryCacheKey &key) const;
};
struct QueryCacheEntryWeight {
	size_t operator()(const Chunk &c) const { return c.bytes(); }
};
struct IsStale {
	bool operator()(const QueryCacheKey &key) const;
};

/* the server's <query_cache> configuration */
struct QueryCacheLimits {
	size_t max_size_in_bytes;
	size_t max_entries;
	size_t max_entry_size_in_bytes;
	size_t max_entry_size_in_rows;
};

/* TTLCachePolicy.h: entries are removed when stale, never evicted while live */
class TTLCachePolicy {
public:
	using Cache = std::unordered_map<QueryCacheKey, ChunkPtr, QueryCacheKeyHasher>;
	ChunkPtr get(const QueryCacheKey &key);
	bool set(const QueryCacheKey &key, const ChunkPtr &mapped, const QueryCacheLimits *limits);
	size_t count() const { return cache.size(); }
	size_t sizeInBytes() const { return size_in_bytes; }
	uint64_t rejected = 0;
private:
	Cache cache;
	size_t size_in_bytes = 0;
	std::unordered_map<std::string, size_t> user_bytes;	/* per-user quotas */
};

/* QueryCache.cpp */
class QueryCache {
public:
	explicit QueryCache(const QueryCacheLimits &limits) : limits(limits) {}
	std::optional<ChunkPtr> read(const QueryCacheKey &key);
	void write(const QueryCacheKey &key, const ChunkPtr &chunk);
	size_t count();
	uint64_t hits() const { return nhits; }
	uint64_t misses() const { return nmisses; }
private:
	std::mutex mutex;
	TTLCachePolicy policy;
	QueryCacheLimits limits;
	std::atomic<uint64_t> nhits{ 0 }, nmisses{ 0 };
};
QueryCache &getQueryCache();
void createQueryCache(const QueryCacheLimits &limits);

/* the hits table (MergeTree: sorted by CounterID, granules of 8192 rows) */
struct HitsTable {
	std::vector<uint32_t> counter_id;
	std::vector<uint64_t> url_hash;
	std::vector<uint16_t> event_date;
	std::vector<uint32_t> duration;
	std::vector<uint32_t> marks;	/* CounterID of the first row of each granule */
	static const size_t index_granularity = 8192;
};
extern HitsTable hits;
void loadHitsTable(size_t rows, uint32_t counters);

/* the parsed query: SELECT URLHash, count() FROM hits WHERE CounterID = c
AND EventDate >= d GROUP BY URLHash ORDER BY count() DESC LIMIT n */
struct ASTSelectQuery {
	uint32_t counter_id = 0;
	uint16_t min_date = 0;
	unsigned limit = 10;
	std::string comment;
	Settings settings;
	uint64_t getTreeHash() const;
};
bool parseQuery(const std::string &text, ASTSelectQuery *ast);
ChunkPtr executeAggregation(const ASTSelectQuery &ast);	/* Aggregator.cpp */

/* executeQuery.cpp */
struct QueryContext {
	std::string user;
	int64_t start_us;
	int64_t deadline_us;
	uint64_t query_id;
};
ChunkPtr executeQuery(const std::string &text, QueryContext *ctx);

/* TCPHandler.cpp: a connection's handler thread */
struct ClientPacket {
	std::string query;
	bool end = false;
};
class TCPHandler {
public:
	TCPHandler(const std::string &user, std::deque<ClientPacket> packets) : user(user), packets(std::move(packets)) {}
	void run();
	uint64_t resultChecksum() const { return checksum; }
	uint64_t queries() const { return nqueries; }
private:
	std::string user;
	std::deque<ClientPacket> packets;
	uint64_t checksum = 0;
	uint64_t nqueries = 0;
	int64_t last_ms = 0;
};

int64_t nowMicroseconds();

}  // namespace DB

#endif

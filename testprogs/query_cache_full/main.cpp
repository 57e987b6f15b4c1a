/*
 * query_cache_full - ClickHouse-118473: "Query result cache: evict LRU entries
 * when the cache is full and nothing has expired"
 * https://github.com/ClickHouse/ClickHouse/issues/118473
 *
 * The real bug: the query result cache's TTLCachePolicy::set() checks the
 * new entry against max_size_in_bytes, max_entries and the user's quota;
 * if it does not fit, it scans the whole cache erasing only expired entries
 * (IsStale compares each key's expires_at with system_clock::now()), checks
 * again and otherwise silently drops the new result. Live entries are never
 * evicted. With a long query_cache_ttl (the report: a read-only web app, a
 * user with query_cache_ttl = 31536000) a handful of one-off queries
 * (per-hover lookups with unique parameters) fill the cache, and from then
 * on every cache miss pays a scan of all entries and caches nothing; the
 * workaround is to pass use_query_cache = 0 on every one-off call site. The
 * report asks for LRU eviction of live entries (and a scan only when
 * something can be stale).
 *
 * Here (C++: std::thread, std::mutex, std::chrono, std::unordered_map,
 * std::shared_ptr, std::optional): two TCPHandler threads (connections of
 * the web app's user) run thumbnail queries (300 distinct, repeated) and
 * hover lookups (each unique), all with query_cache_ttl = 31536000, against
 * a MergeTree-like hits table; the cache has ClickHouse's default limits
 * (1 GiB, 1024 entries). normal: the app passes use_query_cache = 0 on the
 * hover lookups (the workaround); buggy: the hover lookups use the cache
 * too, as in the report. The same queries run and give the same results.
 *
 * Root cause: DB::TTLCachePolicy::set() (TTLCachePolicy.cpp), its scan for
 * stale entries on every insert that does not fit (ROOT CAUSE); the limits
 * come in a struct pointer (limits->max_entries), the expiry times are
 * std::chrono time points. Pattern: missing constraint.
 *
 * Files, as in ClickHouse's src/: TTLCachePolicy.cpp (the root cause),
 * QueryCache.cpp, executeQuery.cpp, TCPHandler.cpp, ParserSelectQuery.cpp,
 * Aggregator.cpp, MergeTree.cpp, SipHash.cpp, query_cache_full.h; main.cpp
 * (this driver: the server's configuration and the web app's connections).
 */
#include "query_cache_full.h"

using namespace DB;

static const unsigned N_CONNECTIONS = 2;
static const unsigned QUERIES_PER_CONNECTION = 30000;
static const unsigned N_THUMBNAILS = 300;
static const uint32_t N_COUNTERS = 3000;

struct workload_t {
	bool hover_uses_cache;
};
static workload_t workload;

static std::deque<ClientPacket> makeQueries(unsigned conn)
{
	std::deque<ClientPacket> packets;
	uint64_t s = 0x2545f4914f6cdd1dull * (conn + 1);
	auto rnd = [&s]() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; };
	char q[512];
	for (unsigned i = 0; i < QUERIES_PER_CONNECTION; i++) {
		if (rnd() % 10 < 6) {
			/* a thumbnail: one of the app's repeated queries */
			unsigned t = (unsigned)(rnd() % N_THUMBNAILS);
			snprintf(q, sizeof q,
				 "SELECT URLHash, count() FROM hits WHERE CounterID = %u AND EventDate >= %u "
				 "GROUP BY URLHash ORDER BY count() DESC LIMIT 10 "
				 "SETTINGS use_query_cache = 1, query_cache_ttl = 31536000",
				 t * 7 % N_COUNTERS, 20000 + t % 20);
		} else {
			/* a hover lookup: unique parameters */
			uint64_t hover = (uint64_t)conn * 1000000 + i;
			snprintf(q, sizeof q,
				 "SELECT URLHash, count() FROM hits WHERE CounterID = %u AND EventDate >= %u "
				 "AND HoverID = %llu GROUP BY URLHash ORDER BY count() DESC LIMIT 5 "
				 "SETTINGS use_query_cache = %d, query_cache_ttl = 31536000",
				 (unsigned)(rnd() % N_COUNTERS), 20000 + (unsigned)(rnd() % 20), (unsigned long long)hover,
				 workload.hover_uses_cache ? 1 : 0);
		}
		packets.push_back({ q, false });
	}
	packets.push_back({ "", true });
	return packets;
}

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  Thumbnail and hover queries against a full query result cache (ClickHouse issue 118473).\n"
		"  normal: hover lookups pass use_query_cache = 0; buggy: they use the cache.\n", argv0);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return usage(argv[0]);
	if (strcmp(argv[1], "normal") == 0)
		workload = { false };
	else if (strcmp(argv[1], "buggy") == 0)
		workload = { true };
	else
		return usage(argv[0]);

	/* <query_cache>: the server defaults */
	QueryCacheLimits limits = { 1ull << 30, 1024, 1 << 20, 30000000 };
	createQueryCache(limits);
	loadHitsTable(600000, N_COUNTERS);

	std::vector<std::unique_ptr<TCPHandler>> handlers;
	for (unsigned c = 0; c < N_CONNECTIONS; c++)
		handlers.emplace_back(new TCPHandler("website_thumbs", makeQueries(c)));
	std::vector<std::thread> threads;
	for (auto &h : handlers)
		threads.emplace_back(&TCPHandler::run, h.get());
	uint64_t checksum = 0, queries = 0;
	for (unsigned c = 0; c < N_CONNECTIONS; c++) {
		threads[c].join();
		checksum += handlers[c]->resultChecksum();
		queries += handlers[c]->queries();
	}
	printf("query_cache_full %s: queries=%llu hover_cached=%d checksum=%016llx\n", argv[1],
	       (unsigned long long)queries, workload.hover_uses_cache ? 1 : 0, (unsigned long long)checksum);
	return 0;
}

/*
 * query_cache_full (ClickHouse-118473): QueryCache.cpp
 * The query result cache (src/Interpreters/Cache/QueryCache.cpp): keys by
 * AST hash and user, staleness by the key's expiry time, and the cache's
 * reader and writer, which lock the cache around the policy.
 */
#include "query_cache_full.h"

namespace DB {

static std::unique_ptr<QueryCache> query_cache;

void createQueryCache(const QueryCacheLimits &limits)
{
	query_cache.reset(new QueryCache(limits));
}

QueryCache &getQueryCache()
{
	return *query_cache;
}

size_t QueryCacheKeyHasher::operator()(const QueryCacheKey &key) const
{
	SipHash hash;
	hash.update(key.ast_hash);
	hash.update(key.user_name);
	return hash.get64();
}

bool IsStale::operator()(const QueryCacheKey &key) const
{
	return key.expires_at < std::chrono::system_clock::now();
}

std::optional<ChunkPtr> QueryCache::read(const QueryCacheKey &key)
{
	std::lock_guard<std::mutex> lock(mutex);
	ChunkPtr entry = policy.get(key);
	if (!entry) {
		nmisses++;
		return std::nullopt;
	}
	/* the entry's key carries its expiry; a stale entry is a miss */
	nhits++;
	return entry;
}

void QueryCache::write(const QueryCacheKey &key, const ChunkPtr &chunk)
{
	if (chunk->bytes() > limits.max_entry_size_in_bytes || chunk->keys.size() > limits.max_entry_size_in_rows)
		return;
	std::lock_guard<std::mutex> lock(mutex);
	policy.set(key, chunk, &limits);
}

size_t QueryCache::count()
{
	std::lock_guard<std::mutex> lock(mutex);
	return policy.count();
}

}  // namespace DB

/*
 * query_cache_full (ClickHouse-118473): TTLCachePolicy.cpp
 * The cache policy of the query result cache (src/Common/TTLCachePolicy.h):
 * an entry lives until it is stale (its key's expires_at has passed); live
 * entries are never evicted. set() checks the new entry against the
 * cache's size and entry limits and the user's quota; if it does not fit,
 * it scans the whole cache for stale entries, then checks again.
 */
#include "query_cache_full.h"

namespace DB {

ChunkPtr TTLCachePolicy::get(const QueryCacheKey &key)
{
	auto it = cache.find(key);
	if (it == cache.end())
		return nullptr;
	return it->second;
}

bool TTLCachePolicy::set(const QueryCacheKey &key, const ChunkPtr &mapped, const QueryCacheLimits *limits)
{
	const size_t entry_size_in_bytes = QueryCacheEntryWeight()(*mapped);

	/* Checks against per-user limits */
	auto sufficient_space_in_cache_for_user = [&]() {
		auto it = user_bytes.find(key.user_name);
		size_t used = it == user_bytes.end() ? 0 : it->second;
		return used + entry_size_in_bytes <= limits->max_size_in_bytes;
	};

	/* Checks against total cache limits */
	auto sufficient_space_in_cache = [&]() {
		return size_in_bytes + entry_size_in_bytes <= limits->max_size_in_bytes && cache.size() + 1 <= limits->max_entries;
	};

	if (!sufficient_space_in_cache() || !sufficient_space_in_cache_for_user()) {
		/* Remove stale entries. Nothing tells whether any entry can be
		stale yet: with a long query_cache_ttl the cache fills with live
		entries and every insert walks all of them, and then drops the
		new result anyway. */
		for (auto it = cache.begin(); it != cache.end();) {	/* ROOT CAUSE */
			if (IsStale()(it->first)) {
				size_t sz = QueryCacheEntryWeight()(*it->second);
				size_in_bytes -= sz;
				user_bytes[it->first.user_name] -= sz;
				it = cache.erase(it);
			} else {
				++it;
			}
		}
	}

	if (sufficient_space_in_cache() && sufficient_space_in_cache_for_user()) {
		/* Insert or replace key */
		auto it = cache.find(key);
		if (it != cache.end()) {
			size_t sz = QueryCacheEntryWeight()(*it->second);
			size_in_bytes -= sz;
			user_bytes[it->first.user_name] -= sz;
			cache.erase(it);
		}
		cache[key] = mapped;
		size_in_bytes += entry_size_in_bytes;
		user_bytes[key.user_name] += entry_size_in_bytes;
		return true;
	}
	rejected++;
	return false;
}

}  // namespace DB

/*
 * query_cache_full (ClickHouse-118473): MergeTree.cpp
 * The hits table (src/Storages/MergeTree): columns sorted by the primary
 * key CounterID, with one mark per granule of 8192 rows.
 */
#include "query_cache_full.h"

namespace DB {

HitsTable hits;

void loadHitsTable(size_t rows, uint32_t counters)
{
	uint64_t s = 0x9e3779b97f4a7c15ull;
	auto rnd = [&s]() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; };
	hits.counter_id.resize(rows);
	hits.url_hash.resize(rows);
	hits.event_date.resize(rows);
	hits.duration.resize(rows);
	for (size_t i = 0; i < rows; i++) {
		hits.counter_id[i] = (uint32_t)(i * counters / rows);	/* sorted by the primary key */
		hits.url_hash[i] = rnd() % 97 * 0x9e3779b97f4a7c15ull + hits.counter_id[i];
		hits.event_date[i] = (uint16_t)(20000 + rnd() % 30);
		hits.duration[i] = (uint32_t)(rnd() % 600);
	}
	for (size_t g = 0; g < rows; g += HitsTable::index_granularity)
		hits.marks.push_back(hits.counter_id[g]);
}

}  // namespace DB

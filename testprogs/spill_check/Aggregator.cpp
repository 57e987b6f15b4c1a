/*
 * spill_check - TiFlash-7935: the aggregation (dbms/src/Interpreters/Aggregator.cpp
 * in TiFlash): GROUP BY one key column with count(), sum(Duration),
 * min(EventTime) and a uniq sketch; the states live in the arena of the
 * operator's spill context.
 */
#include "spill_check.h"

namespace DB {

static inline UInt64 intHash64(UInt64 x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

void Aggregator::executeOnBlock(const Block &block, int key_column)
{
	const std::vector<UInt64> &keys = block.columns[key_column];
	const std::vector<UInt64> &event_time = block.columns[2];
	const std::vector<UInt64> &duration = block.columns[3];
	/* the hashed key column, a temporary of the query */
	std::vector<UInt64> hashes(keys.size());
	current_memory_tracker->alloc((Int64)(hashes.size() * sizeof(UInt64)));
	for (size_t i = 0; i < keys.size(); i++) {
		UInt64 h = keys[i];
		for (int r = 0; r < 16; r++)
			h = intHash64(h + (UInt64)r);
		hashes[i] = h;
	}
	for (size_t i = 0; i < keys.size(); i++) {
		auto it = states.find(keys[i]);
		AggregateState *s;
		if (it == states.end()) {
			s = reinterpret_cast<AggregateState *>(spill_context->allocState(hashes[i], sizeof(AggregateState)));
			s->count = 0;
			s->sum_duration = 0;
			s->min_event_time = ~0ull;
			memset(s->uniq_sketch, 0, sizeof s->uniq_sketch);
			states.emplace(keys[i], s);
		} else {
			s = it->second;
		}
		s->count++;
		s->sum_duration += duration[i];
		if (event_time[i] < s->min_event_time)
			s->min_event_time = event_time[i];
		s->uniq_sketch[hashes[i] % sizeof s->uniq_sketch] |= (unsigned char)(1u << (hashes[i] >> 61));
	}
	current_memory_tracker->free((Int64)(hashes.size() * sizeof(UInt64)));
}

UInt64 Aggregator::checksum() const
{
	UInt64 c = 0;
	for (const auto &kv : states) {
		const AggregateState *s = kv.second;
		UInt64 x = kv.first * 1000003 + s->count * 31 + s->sum_duration + s->min_event_time;
		for (unsigned char b : s->uniq_sketch)
			x = x * 3 + b;
		c += intHash64(x);
	}
	return c;
}

} // namespace DB

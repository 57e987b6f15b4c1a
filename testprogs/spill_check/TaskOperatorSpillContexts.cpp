/*
 * spill_check - TiFlash-7935: a task's operator spill contexts and an
 * operator's spill context (dbms/src/Core/TaskOperatorSpillContexts.h and
 * OperatorSpillContext.cpp in TiFlash): the revocable memory of an
 * aggregation is the arena chunks of its hash table's partitions; a
 * partition is spilled only if it is big enough to be worth a spill file.
 */
#include "spill_check.h"

namespace DB {

static const UInt32 CHUNK_BYTES = 512;

OperatorSpillContext::OperatorSpillContext(const char *op_name, UInt32 n_partitions)
	: op_name(op_name), auto_spill(true), partitions(n_partitions), n_spills(0)
{
	for (SpillPartition &p : partitions) {
		p.used_in_last = CHUNK_BYTES;
		p.spilled_bytes = 0;
	}
}

OperatorSpillContext::~OperatorSpillContext()
{
	for (SpillPartition &p : partitions)
		for (char *c : p.chunks)
			delete[] c;
}

char *OperatorSpillContext::allocState(UInt64 key_hash, UInt32 size)
{
	SpillPartition &p = partitions[(key_hash >> 24) % partitions.size()];
	if (p.used_in_last + size > CHUNK_BYTES) {
		p.chunks.push_back(new char[CHUNK_BYTES]);
		p.chunk_bytes.push_back(0);
		p.used_in_last = 0;
		current_memory_tracker->alloc(CHUNK_BYTES);
	}
	char *res = p.chunks.back() + p.used_in_last;
	p.used_in_last += size;
	p.chunk_bytes.back() += size;
	return res;
}

Int64 OperatorSpillContext::getTotalRevocableMemory() const
{
	Int64 total = 0;
	for (const SpillPartition &p : partitions)
		for (UInt32 b : p.chunk_bytes)
			total += b;
	return total;
}

Int64 OperatorSpillContext::triggerSpill(Int64 expected_released_memories)
{
	Int64 revocable = getTotalRevocableMemory();
	if (revocable <= 0)
		return expected_released_memories;
	for (SpillPartition &p : partitions) {
		Int64 bytes = 0;
		for (UInt32 b : p.chunk_bytes)
			bytes += b;
		/* a small partition is not worth a spill file */
		if (bytes < g_settings.min_spill_bytes_per_partition)
			continue;
		p.spilled_bytes += (UInt64)bytes;
		n_spills++;
		expected_released_memories -= bytes;
		if (expected_released_memories <= 0)
			break;
	}
	return expected_released_memories;
}

Int64 TaskOperatorSpillContexts::triggerAutoSpill(Int64 expected_released_memories)
{
	for (OperatorSpillContext *c : contexts) {
		if (!c->supportAutoTriggerSpill())
			continue;
		expected_released_memories = c->triggerSpill(expected_released_memories);
		if (expected_released_memories <= 0)
			break;
	}
	return expected_released_memories;
}

} // namespace DB

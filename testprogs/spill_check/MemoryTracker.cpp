/*
 * spill_check - TiFlash-7935: the query's memory tracker
 * (dbms/src/Common/MemoryTracker.cpp in TiFlash): every allocation of the
 * query is added to it; above auto_memory_revoke_trigger_threshold of the
 * limit it asks the query's operators to spill (auto spill).
 */
#include "spill_check.h"

namespace DB {

MemoryTracker *current_memory_tracker;

MemoryTracker::MemoryTracker(Int64 limit, double trigger_threshold)
	: amount(0), peak_amount(0), limit(limit), auto_spill_trigger((Int64)((double)limit * trigger_threshold)),
	  spill_contexts(nullptr)
{
}

void MemoryTracker::alloc(Int64 size)
{
	Int64 will_be = amount + size;
	amount = will_be;
	if (will_be > peak_amount)
		peak_amount = will_be;
	if (spill_contexts != nullptr && will_be > auto_spill_trigger)
		spill_contexts->triggerAutoSpill(will_be - auto_spill_trigger / 2);
}

void MemoryTracker::free(Int64 size)
{
	amount -= size;
}

} // namespace DB

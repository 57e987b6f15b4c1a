/*
 * spill_check - TiFlash-7935: the query's operator spill contexts
 * (dbms/src/Core/QueryOperatorSpillContexts.h in TiFlash): the memory
 * tracker calls triggerAutoSpill() when the query is over its auto spill
 * threshold, and it asks every task's operators to spill.
 *
 * QueryOperatorSpillContexts::triggerAutoSpill() holds the ROOT CAUSE: it
 * has no minimum interval between two checks. See main.cpp.
 */
#include "spill_check.h"

namespace DB {

Int64 QueryOperatorSpillContexts::triggerAutoSpill(Int64 expected_released_memories)
{
	/* use mutex to avoid concurrent check */
	std::unique_lock<std::mutex> lock(mutex, std::try_to_lock);
	if (!lock.owns_lock())
		return expected_released_memories;
	if (!first_check_done) {
		first_check_done = true;
		first_check_ms = watch.elapsedMilliseconds();
	}
	checks++;
	/* The check runs on every allocation while the query is over the
	 * threshold: nothing bounds how often (the fix returns early while
	 * watch.elapsedMillisecondsFromLastTime() is under
	 * auto_spill_check_min_interval_ms). ROOT CAUSE */
	for (size_t i = 0; i < task_contexts.size(); i++) {
		TaskOperatorSpillContexts *task = task_contexts[i];
		if (task->finished)
			continue;
		expected_released_memories = task->triggerAutoSpill(expected_released_memories);
		if (expected_released_memories <= 0)
			break;
	}
	return expected_released_memories;
}

} // namespace DB

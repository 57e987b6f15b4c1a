/*
 * spill_check - TiFlash-7935: "add min interval time in auto spill check"
 * https://github.com/pingcap/tiflash/pull/7935 (TiFlash 7.x, August 2023;
 * ref https://github.com/pingcap/tiflash/issues/7738).
 *
 * The real bug: once a query's memory is over its auto spill threshold
 * (auto_memory_revoke_trigger_threshold of max_memory_usage), the memory
 * tracker calls QueryOperatorSpillContexts::triggerAutoSpill() on every
 * allocation, and each call walks every task's operator spill contexts to
 * find revocable memory. Nothing bounded how often; the code even said
 * "todo maybe need add minimum check interval(like 100ms) here?". The PR
 * adds, in dbms/src/Core/QueryOperatorSpillContexts.h (around line 47):
 *     if (watch.elapsedMillisecondsFromLastTime() < auto_spill_check_min_interval_ms)
 *             return expected_released_memories;
 *
 * Here (C++: classes with this-> fields, std::vector, std::unordered_map,
 * std::unique_ptr, std::mutex): the pipeline executor runs 4 tasks of a
 * GROUP BY over the hits table, block by block (its event loop); the
 * aggregation keeps its states in the arena chunks of 256 partitions, the
 * revocable memory of its spill context; the limit is 32 MiB and auto spill
 * triggers at 70%. A partition is spilled only when it holds 1 MiB. The slow
 * run is the same binary on a different query: normal: GROUP BY RegionID
 * (3,000 groups per task: the query stays far under the threshold); buggy:
 * GROUP BY UserID (60,000 groups per task: the query goes over the
 * threshold early, no partition is big enough to spill, and every
 * allocation walks every partition's chunks). Same rows, same columns, same
 * per-row work.
 *
 * Root cause: DB::QueryOperatorSpillContexts::triggerAutoSpill()
 * (QueryOperatorSpillContexts.cpp), the check with no minimum interval
 * (ROOT CAUSE); it is cheap itself, its callees
 * (TaskOperatorSpillContexts::triggerAutoSpill, OperatorSpillContext::
 * triggerSpill and getTotalRevocableMemory) pay. Pattern: missing
 * constraint (a time constraint: the Stopwatch is there, the check of the
 * elapsed time is not). Settings in struct globals (g_settings, g_query);
 * pointers (tasks, states, contexts), timestamps (the stopwatch, EventTime,
 * last_yield_ns) in scope; the executor's loop above the bug.
 *
 * Files, as in TiFlash's dbms/src: QueryOperatorSpillContexts.cpp (the root
 * cause), TaskOperatorSpillContexts.cpp, MemoryTracker.cpp, Aggregator.cpp,
 * PipelineExecutor.cpp, spill_check.h; main.cpp (this driver: the session's
 * settings and the query).
 */
#include "spill_check.h"

namespace DB {
Settings g_settings;
QueryPlan g_query;
} // namespace DB

using namespace DB;

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  A GROUP BY under a memory limit with auto spill (TiFlash PR 7935).\n"
		"  normal: GROUP BY RegionID (3,000 groups); buggy: GROUP BY UserID (60,000 groups).\n", argv0);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return usage(argv[0]);
	g_settings = { 3ll << 20, 0.7, 256, 1ll << 20, 500000, 8 };
	if (strcmp(argv[1], "normal") == 0)
		g_query = { "SELECT RegionID, count(), sum(Duration), min(EventTime), uniq(UserID) FROM hits GROUP BY RegionID", 1 };
	else if (strcmp(argv[1], "buggy") == 0)
		g_query = { "SELECT UserID, count(), sum(Duration), min(EventTime), uniq(UserID) FROM hits GROUP BY UserID", 0 };
	else
		return usage(argv[0]);

	MemoryTracker tracker(g_settings.max_memory_usage, g_settings.auto_memory_revoke_trigger_threshold);
	current_memory_tracker = &tracker;
	QueryOperatorSpillContexts query_spill("query-1");
	tracker.setQueryOperatorSpillContexts(&query_spill);
	PipelineExecutor executor(query_spill, g_settings.n_tasks);
	executor.execute();
	printf("spill_check %s: groups=%llu peak_memory=%lld checksum=%016llx\n", argv[1],
	       (unsigned long long)executor.groups(), (long long)tracker.peak(), (unsigned long long)executor.checksum());
	return 0;
}

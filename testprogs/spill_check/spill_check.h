/*
 * spill_check - TiFlash-7935: the query's types: settings, the memory
 * tracker, the operator spill contexts, the aggregation and the pipeline
 * executor. See main.cpp.
 */
#ifndef SPILL_CHECK_H
#define SPILL_CHECK_H

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>
#include <time.h>

namespace DB {

typedef uint64_t UInt64;
typedef int64_t Int64;
typedef uint32_t UInt32;

/* The query's settings (SET ... in the session). */
struct Settings {
	Int64 max_memory_usage;
	double auto_memory_revoke_trigger_threshold;
	UInt64 max_block_size;
	Int64 min_spill_bytes_per_partition;
	UInt64 rows_per_task;
	UInt32 n_tasks;
};
extern Settings g_settings;

/* The query: which column it groups by (the input differs, not the code). */
struct QueryPlan {
	const char *sql;
	int group_by_column; /* index into Block::columns */
};
extern QueryPlan g_query;

class Stopwatch {
public:
	Stopwatch() : start_ns(nowNanoseconds()), last_ns(start_ns) {}
	static UInt64 nowNanoseconds()
	{
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		return (UInt64)ts.tv_sec * 1000000000ull + (UInt64)ts.tv_nsec;
	}
	UInt64 elapsedMilliseconds() const { return (nowNanoseconds() - start_ns) / 1000000; }
	UInt64 elapsedMillisecondsFromLastTime()
	{
		UInt64 now = nowNanoseconds(), d = (now - last_ns) / 1000000;
		last_ns = now;
		return d;
	}

private:
	UInt64 start_ns;
	UInt64 last_ns;
};

/* A block of rows: columns of UInt64 (0: UserID, 1: RegionID, 2: EventTime, 3: Duration). */
struct Block {
	static const int n_columns = 4;
	std::vector<UInt64> columns[n_columns];
	size_t rows() const { return columns[0].size(); }
	size_t bytes() const { return rows() * n_columns * sizeof(UInt64); }
};

class QueryOperatorSpillContexts;

class MemoryTracker {
public:
	MemoryTracker(Int64 limit, double trigger_threshold);
	void alloc(Int64 size);
	void free(Int64 size);
	Int64 get() const { return amount; }
	Int64 peak() const { return peak_amount; }
	void setQueryOperatorSpillContexts(QueryOperatorSpillContexts *c) { spill_contexts = c; }

private:
	Int64 amount;
	Int64 peak_amount;
	Int64 limit;
	Int64 auto_spill_trigger;
	QueryOperatorSpillContexts *spill_contexts;
};
extern MemoryTracker *current_memory_tracker;

/* One partition of an aggregation's two-level hash table: its arena chunks. */
struct SpillPartition {
	std::vector<UInt32> chunk_bytes;
	std::vector<char *> chunks;
	UInt32 used_in_last;
	UInt64 spilled_bytes;
};

class OperatorSpillContext {
public:
	OperatorSpillContext(const char *op_name, UInt32 n_partitions);
	~OperatorSpillContext();
	bool supportAutoTriggerSpill() const { return auto_spill; }
	Int64 getTotalRevocableMemory() const;
	Int64 triggerSpill(Int64 expected_released_memories);
	char *allocState(UInt64 key_hash, UInt32 size);
	UInt64 spills() const { return n_spills; }

private:
	const char *op_name;
	bool auto_spill;
	std::vector<SpillPartition> partitions;
	UInt64 n_spills;
};

class TaskOperatorSpillContexts {
public:
	explicit TaskOperatorSpillContexts(UInt64 task_id) : task_id(task_id), finished(false) {}
	void registerOperatorSpillContext(OperatorSpillContext *c) { contexts.push_back(c); }
	Int64 triggerAutoSpill(Int64 expected_released_memories);
	UInt64 task_id;
	bool finished;

private:
	std::vector<OperatorSpillContext *> contexts;
};

class QueryOperatorSpillContexts {
public:
	explicit QueryOperatorSpillContexts(const char *query_id) : query_id(query_id), first_check_done(false), checks(0) {}
	void registerTaskOperatorSpillContexts(TaskOperatorSpillContexts *t) { task_contexts.push_back(t); }
	Int64 triggerAutoSpill(Int64 expected_released_memories);
	UInt64 autoSpillChecks() const { return checks; }

private:
	const char *query_id;
	std::mutex mutex;
	Stopwatch watch;
	bool first_check_done;
	UInt64 first_check_ms;
	UInt64 checks;
	std::vector<TaskOperatorSpillContexts *> task_contexts;
};

/* Aggregator.cpp: GROUP BY key: count(), sum(Duration), min(EventTime). */
struct AggregateState {
	UInt64 count;
	UInt64 sum_duration;
	UInt64 min_event_time;
	unsigned char uniq_sketch[8];
};

class Aggregator {
public:
	explicit Aggregator(OperatorSpillContext *spill_context) : spill_context(spill_context) {}
	void executeOnBlock(const Block &block, int key_column);
	UInt64 checksum() const;
	size_t groups() const { return states.size(); }

private:
	OperatorSpillContext *spill_context;
	std::unordered_map<UInt64, AggregateState *> states;
};

/* PipelineExecutor.cpp: a task (source -> aggregation) and the executor. */
struct PipelineTask {
	UInt64 id;
	UInt64 rows_read;
	UInt64 seed;
	UInt64 last_yield_ns;
	std::unique_ptr<OperatorSpillContext> agg_spill;
	std::unique_ptr<TaskOperatorSpillContexts> spill_contexts;
	std::unique_ptr<Aggregator> aggregator;
};

class PipelineExecutor {
public:
	PipelineExecutor(QueryOperatorSpillContexts &query_spill, UInt32 n_tasks);
	void execute();
	UInt64 checksum() const;
	UInt64 groups() const;

private:
	bool readBlock(PipelineTask &task, Block &block);
	QueryOperatorSpillContexts &query_spill;
	std::vector<std::unique_ptr<PipelineTask>> tasks;
};

} // namespace DB

#endif

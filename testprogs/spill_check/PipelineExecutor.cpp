/*
 * spill_check - TiFlash-7935: the pipeline executor
 * (dbms/src/Flash/Pipeline/Exec/PipelineExec.cpp and the task scheduler in
 * TiFlash): it runs the query's tasks round-robin, one block at a time, as
 * the task thread pool's event loop does: a source reads a block of the
 * table (its columns are memory of the query), the aggregation consumes it.
 */
#include "spill_check.h"

namespace DB {

PipelineExecutor::PipelineExecutor(QueryOperatorSpillContexts &query_spill, UInt32 n_tasks) : query_spill(query_spill)
{
	for (UInt32 i = 0; i < n_tasks; i++) {
		std::unique_ptr<PipelineTask> t(new PipelineTask);
		t->id = i;
		t->rows_read = 0;
		t->seed = 0x9e3779b97f4a7c15ull * (i + 1);
		t->last_yield_ns = Stopwatch::nowNanoseconds();
		t->agg_spill.reset(new OperatorSpillContext("AggregationBuild", 256));
		t->spill_contexts.reset(new TaskOperatorSpillContexts(i));
		t->spill_contexts->registerOperatorSpillContext(t->agg_spill.get());
		query_spill.registerTaskOperatorSpillContexts(t->spill_contexts.get());
		t->aggregator.reset(new Aggregator(t->agg_spill.get()));
		tasks.push_back(std::move(t));
	}
}

/* The table scan: the hits table's UserID, RegionID, EventTime and Duration. */
bool PipelineExecutor::readBlock(PipelineTask &task, Block &block)
{
	if (task.rows_read >= g_settings.rows_per_task)
		return false;
	size_t rows = g_settings.max_block_size;
	for (int c = 0; c < Block::n_columns; c++) {
		block.columns[c].resize(rows);
		current_memory_tracker->alloc((Int64)(rows * sizeof(UInt64)));
	}
	UInt64 s = task.seed;
	for (size_t i = 0; i < rows; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		block.columns[0][i] = 1000000 + (s >> 20) % 10000;    /* UserID */
		block.columns[1][i] = (s >> 40) % 3000;               /* RegionID */
		block.columns[2][i] = 1700000000 + task.rows_read + i; /* EventTime */
		block.columns[3][i] = s % 977;                         /* Duration */
	}
	task.seed = s;
	task.rows_read += rows;
	return true;
}

void PipelineExecutor::execute()
{
	Block block;
	size_t active = tasks.size();
	std::vector<bool> done(tasks.size(), false);
	while (active > 0) {
		for (size_t i = 0; i < tasks.size(); i++) {
			PipelineTask &task = *tasks[i];
			if (done[i])
				continue;
			if (!readBlock(task, block)) {
				done[i] = true;
				task.spill_contexts->finished = true;
				active--;
				continue;
			}
			task.aggregator->executeOnBlock(block, g_query.group_by_column);
			for (int c = 0; c < Block::n_columns; c++)
				current_memory_tracker->free((Int64)(block.rows() * sizeof(UInt64)));
			task.last_yield_ns = Stopwatch::nowNanoseconds();
		}
	}
}

UInt64 PipelineExecutor::checksum() const
{
	UInt64 c = 0;
	for (const auto &t : tasks)
		c ^= t->aggregator->checksum() + t->id;
	return c;
}

UInt64 PipelineExecutor::groups() const
{
	UInt64 g = 0;
	for (const auto &t : tasks)
		g += t->aggregator->groups();
	return g;
}

} // namespace DB

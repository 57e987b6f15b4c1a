/*
 * gpu_query_erase - LumixEngine-1538: a simulated GPU (src/renderer/gpu/gpu.cpp
 * in Lumix): timestamp queries that become ready g_engine_config.gpu_latency
 * frames after they are issued, as a GPU running behind the CPU returns them.
 */
#include "gpu_query_erase.h"

namespace Lumix {
namespace gpu {

struct QueryState {
	u64 issued_frame;
	u64 result;
};

static std::vector<QueryState> queries;
static u64 frame_index;
static u64 gpu_clock = 1000000;

void init(u32 max_queries)
{
	queries.reserve(max_queries);
}

QueryHandle createQuery()
{
	queries.push_back({ 0, 0 });
	return (QueryHandle)(queries.size() - 1);
}

void queryTimestamp(QueryHandle q)
{
	/* the GPU clock advances with the work submitted */
	gpu_clock += 1300 + (q * 2654435761u >> 24);
	queries[q].issued_frame = frame_index;
	queries[q].result = gpu_clock;
}

bool isQueryReady(QueryHandle q)
{
	return frame_index >= queries[q].issued_frame + g_engine_config.gpu_latency;
}

u64 getQueryResult(QueryHandle q)
{
	return queries[q].result;
}

void swapBuffers()
{
	frame_index++;
	gpu_clock += 50000;
}

u64 frameIndex()
{
	return frame_index;
}

} // namespace gpu
} // namespace Lumix

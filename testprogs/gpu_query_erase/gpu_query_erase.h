/*
 * gpu_query_erase - LumixEngine-1538: the engine's types, the simulated GPU,
 * the profiler and the renderer's GPUProfiler. See main.cpp.
 */
#ifndef GPU_QUERY_ERASE_H
#define GPU_QUERY_ERASE_H

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

namespace Lumix {

typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t i64;

/* The engine's configuration, from the command line and the scene file. */
struct EngineConfig {
	const char *scene;
	u32 frames;           /* frames to render */
	u32 passes_per_frame; /* profiled render passes (lights, shadow maps, views) */
	u32 objects_per_pass; /* objects culled per pass */
	u32 gpu_latency;      /* frames before a timestamp query is ready */
};
extern EngineConfig g_engine_config;

namespace gpu {
typedef u32 QueryHandle;
const QueryHandle INVALID_QUERY = 0xffffffff;
void init(u32 max_queries);
QueryHandle createQuery();
void queryTimestamp(QueryHandle q);
bool isQueryReady(QueryHandle q);
u64 getQueryResult(QueryHandle q);
void swapBuffers();
u64 frameIndex();
} // namespace gpu

namespace profiler {
void beginGPUBlock(const char *name, u64 timestamp, i64 profiler_link);
void endGPUBlock(u64 timestamp);
void gpuFrame();
u64 checksum();
u64 blocks();
} // namespace profiler

struct Sphere {
	float x, y, z, r;
};

struct Pass {
	const char *name;
	float plane[6][4];
	const std::vector<Sphere> *objects; /* the scene's objects, culled by every pass */
};

class GPUProfiler {
public:
	explicit GPUProfiler(i64 gpu_to_cpu_offset);
	void beginQuery(const char *name, i64 profiler_link);
	void endQuery();
	void frame();
	u32 pending() const { return (u32)m_queries.size(); }

private:
	struct Query {
		const char *name;
		gpu::QueryHandle handle;
		bool is_end;
		bool is_frame;
		i64 profiler_link;
		u64 cpu_timestamp;
		u32 stats;
	};
	gpu::QueryHandle allocQuery();
	u64 toCPUTimestamp(u64 gpu_timestamp) const;

	std::vector<Query> m_queries;
	std::vector<gpu::QueryHandle> m_pool;
	i64 m_gpu_to_cpu_offset;
	u32 m_stats_counter;
};

class Pipeline {
public:
	Pipeline(GPUProfiler &profiler, u32 passes, u32 objects);
	u32 render(u64 frame);

private:
	u32 cull(const Pass &pass, u64 frame);
	GPUProfiler &m_profiler;
	std::vector<Sphere> m_objects;
	std::vector<Pass> m_passes;
	std::unordered_map<std::string, u32> m_visible_by_pass;
};

u64 cpuTimestamp();

} // namespace Lumix

#endif

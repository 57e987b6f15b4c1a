/*
 * gpu_query_erase - LumixEngine-1538: "perf: replace O(n^2) GPUProfiler
 * erase(0) loop with cursor + eraseRange"
 * https://github.com/nem0/LumixEngine/pull/1538 (Lumix Engine master,
 * February 2026; merged).
 *
 * The real bug: the renderer's GPUProfiler (src/renderer/renderer.cpp)
 * keeps the GPU timestamp queries of the last frames in an array,
 * m_queries. Every frame, GPUProfiler::frame() takes the queries the GPU
 * has returned from the front of the array, turns them into profiler blocks
 * and removes each with m_queries.erase(0), which moves every query behind
 * it: O(n) per query, O(n^2) per frame for n ready queries. The PR measured
 * 329.61 us per frame with 1024 ready queries before and 0.90 us after; the
 * fix counts the processed queries with a cursor and erases them with one
 * eraseRange(0, processed) after the loop.
 *
 * Here (C++: classes with this-> fields, std::vector, std::unordered_map,
 * std::string): the engine renders a scene; the render pipeline profiles each
 * pass (views, shadow cascades, point and spot lights, probes) with a begin
 * and an end timestamp query, and the simulated GPU returns a query 2 frames
 * after it was issued, so about 3 frames of queries are pending. The slow
 * run is the same binary on a different scene, as in the report's
 * benchmark: normal: sponza.unv, 16 profiled passes per frame, 9600 frames;
 * buggy: city_night.unv, 512 passes per frame (a city at night, every street
 * light a shadowed point light), 300 frames. Both render the same 153,600
 * passes and cull the same number of objects; only the number of queries
 * pending at once differs (about 100 against 3,000).
 *
 * Root cause: Lumix::GPUProfiler::frame() (renderer.cpp), the erase of the
 * first element for each query consumed (ROOT CAUSE). The time goes to the
 * memmove that std::vector::erase calls (libc, no DWARF). Pattern:
 * scalability (the cost of each erase grows with the queries pending).
 * The scene configuration is a struct global (g_engine_config); pointers
 * (pass names, the profiler), timestamps (cpuTimestamp, GPU results) and a
 * hash keyed by pointers (the profiler's block stats) are in scope; the
 * engine's frame loop (Engine::run) is above the bug.
 *
 * Files, as in Lumix's src/: renderer.cpp (the root cause), pipeline.cpp,
 * gpu.cpp, profiler.cpp, gpu_query_erase.h; main.cpp (this driver: the
 * engine, the scenes and the frame loop).
 */
#include "gpu_query_erase.h"
#include <time.h>

namespace Lumix {

EngineConfig g_engine_config;

u64 cpuTimestamp()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
}

struct Engine {
	Engine() : profiler(-250000), pipeline(nullptr), last_frame_ns(0), drawn(0) {}
	~Engine() { delete pipeline; }

	void init()
	{
		gpu::init(4 * g_engine_config.passes_per_frame * (g_engine_config.gpu_latency + 1));
		pipeline = new Pipeline(profiler, g_engine_config.passes_per_frame, g_engine_config.objects_per_pass);
	}

	/* the game loop: update, render, let the GPU profiler read its queries, swap */
	void run()
	{
		for (u32 f = 0; f < g_engine_config.frames; f++) {
			u64 start = cpuTimestamp();
			drawn += pipeline->render(gpu::frameIndex());
			profiler.frame();
			gpu::swapBuffers();
			last_frame_ns = cpuTimestamp() - start;
		}
	}

	GPUProfiler profiler;
	Pipeline *pipeline;
	u64 last_frame_ns;
	u64 drawn;
};

} // namespace Lumix

using namespace Lumix;

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  Render a scene with GPU timestamp queries on every pass (LumixEngine PR 1538).\n"
		"  normal: sponza.unv, 16 passes a frame; buggy: city_night.unv, 512 passes a frame.\n", argv0);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return usage(argv[0]);
	if (strcmp(argv[1], "normal") == 0)
		g_engine_config = { "sponza.unv", 9600, 16, 384, 2 };
	else if (strcmp(argv[1], "buggy") == 0)
		g_engine_config = { "city_night.unv", 300, 512, 384, 2 };
	else
		return usage(argv[0]);

	Engine engine;
	engine.init();
	engine.run();
	printf("gpu_query_erase %s: scene=%s frames=%u blocks=%llu drawn=%llu checksum=%016llx\n", argv[1],
	       g_engine_config.scene, g_engine_config.frames, (unsigned long long)profiler::blocks(),
	       (unsigned long long)engine.drawn, (unsigned long long)profiler::checksum());
	return 0;
}

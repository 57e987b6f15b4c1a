/*
 * gpu_query_erase - LumixEngine-1538: the renderer's GPUProfiler
 * (src/renderer/renderer.cpp in Lumix), which turns GPU timestamp queries
 * into profiler blocks once the GPU has returned them.
 *
 * GPUProfiler::frame() holds the ROOT CAUSE: it consumes the ready queries
 * from the front of m_queries and removes each one with an erase of the
 * first element, which moves every query still pending. See main.cpp.
 */
#include "gpu_query_erase.h"

namespace Lumix {

GPUProfiler::GPUProfiler(i64 gpu_to_cpu_offset)
	: m_gpu_to_cpu_offset(gpu_to_cpu_offset), m_stats_counter(0)
{
}

gpu::QueryHandle GPUProfiler::allocQuery()
{
	if (!m_pool.empty()) {
		gpu::QueryHandle res = m_pool.back();
		m_pool.pop_back();
		return res;
	}
	return gpu::createQuery();
}

u64 GPUProfiler::toCPUTimestamp(u64 gpu_timestamp) const
{
	return (u64)((i64)gpu_timestamp + m_gpu_to_cpu_offset);
}

void GPUProfiler::beginQuery(const char *name, i64 profiler_link)
{
	Query q;
	q.name = name;
	q.is_end = false;
	q.is_frame = false;
	q.profiler_link = profiler_link;
	q.cpu_timestamp = cpuTimestamp();
	q.stats = 0;
	q.handle = allocQuery();
	gpu::queryTimestamp(q.handle);
	m_queries.push_back(q);
}

void GPUProfiler::endQuery()
{
	Query q;
	q.name = nullptr;
	q.is_end = true;
	q.is_frame = false;
	q.profiler_link = 0;
	q.cpu_timestamp = cpuTimestamp();
	q.stats = ++m_stats_counter;
	q.handle = allocQuery();
	gpu::queryTimestamp(q.handle);
	m_queries.push_back(q);
}

void GPUProfiler::frame()
{
	Query frame_query;
	frame_query.name = "frame";
	frame_query.is_frame = true;
	frame_query.is_end = false;
	frame_query.handle = gpu::INVALID_QUERY;
	frame_query.profiler_link = 0;
	frame_query.cpu_timestamp = cpuTimestamp();
	frame_query.stats = 0;
	m_queries.push_back(frame_query);
	u32 consumed = 0;
	while (!m_queries.empty()) {
		Query q = m_queries[0];
		if (q.is_frame) {
			profiler::gpuFrame();
			m_queries.erase(m_queries.begin());
			continue;
		}
		if (!gpu::isQueryReady(q.handle))
			break;
		const u64 timestamp = toCPUTimestamp(gpu::getQueryResult(q.handle));
		if (q.is_end)
			profiler::endGPUBlock(timestamp);
		else
			profiler::beginGPUBlock(q.name, timestamp, q.profiler_link);
		m_pool.push_back(q.handle);
		consumed++;
		/* Erasing the first element moves every pending query down by
		 * one, for each query consumed: quadratic in the queries of a
		 * frame (the fix counts the ready queries and erases them with
		 * one range erase after the loop). ROOT CAUSE */
		m_queries.erase(m_queries.begin());
	}
	if (consumed == 0 && m_queries.size() > 1u << 20)
		fprintf(stderr, "GPUProfiler: %zu queries pending\n", m_queries.size());
}

} // namespace Lumix

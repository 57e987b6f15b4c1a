/*
 * gpu_query_erase - LumixEngine-1538: the engine's profiler
 * (src/engine/profiler.cpp in Lumix): GPU blocks with their begin and end
 * timestamps, accumulated per block name.
 */
#include "gpu_query_erase.h"

namespace Lumix {
namespace profiler {

struct OpenBlock {
	const char *name;
	u64 begin;
	i64 link;
};

struct BlockStats {
	u64 count;
	u64 total;
	u64 max;
};

static std::vector<OpenBlock> open_blocks;
static std::unordered_map<const char *, BlockStats> stats;
static u64 sum;
static u64 n_blocks;
static u64 n_frames;

void beginGPUBlock(const char *name, u64 timestamp, i64 profiler_link)
{
	open_blocks.push_back({ name, timestamp, profiler_link });
}

void endGPUBlock(u64 timestamp)
{
	if (open_blocks.empty())
		return;
	OpenBlock b = open_blocks.back();
	open_blocks.pop_back();
	u64 dt = timestamp - b.begin;
	BlockStats &s = stats[b.name];
	s.count++;
	s.total += dt;
	if (dt > s.max)
		s.max = dt;
	sum = sum * 31 + dt + (u64)b.link;
	n_blocks++;
}

void gpuFrame()
{
	n_frames++;
	sum ^= n_frames;
}

u64 checksum()
{
	u64 c = sum;
	for (auto &kv : stats)
		c += kv.second.count * 7 + kv.second.total;
	return c;
}

u64 blocks()
{
	return n_blocks;
}

} // namespace profiler
} // namespace Lumix

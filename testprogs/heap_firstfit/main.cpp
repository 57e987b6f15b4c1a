/*
 * heap_firstfit - hhuOS-5: "Memory Manager is slow under workload: The
 * memory manager uses a first-fit implementation. The memory-list
 * contains all memory blocks, the allocated and the free ones. With
 * increasing fragmentation, the heap memory manager becomes slower
 * because it has to run through the whole memory list."
 * https://github.com/hhuOS/hhuOS/issues/5 (hhuOS, a teaching operating
 * system in C++, 2018; fixed by keeping a separate free list).
 *
 * Here (C++, single thread): a kernel's request loop (main: serve) takes
 * requests; each builds a few short-lived buffers on the kernel heap
 * (Kernel::FirstFitMemoryManager::alloc, the ROOT CAUSE, and free), and
 * the file cache keeps some objects for good. The slow run is the same
 * binary under another workload: normal: the cache keeps 200 objects;
 * buggy: it keeps 1,500, all at the front of the heap, so every
 * allocation walks past them. The walk's cursor is kept by gcc -O2 in a
 * register (method.md D118).
 *
 * Usage: heap_firstfit normal|buggy
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "FirstFitMemoryManager.h"

Workload workload;

static Kernel::FirstFitMemoryManager kernelHeap;
static std::uint32_t rngState = 2463534242u;

static std::uint32_t rng()
{
	rngState ^= rngState << 13;
	rngState ^= rngState >> 17;
	rngState ^= rngState << 5;
	return rngState;
}

static int usage(const char *argv0)
{
	std::fprintf(stderr, "usage: %s normal|buggy\n"
		"  normal: the file cache keeps 200 objects; buggy: 1,500 (all at the heap's front).\n", argv0);
	return 2;
}

/* One request: a few buffers, filled, summed and freed. */
static std::uint64_t handle(int request)
{
	void *bufs[8];
	std::uint64_t sum = 0;
	int n = workload.burst;
	for (int i = 0; i < n; i++) {
		std::size_t size = 64 + (rng() % 8) * 32;
		bufs[i] = kernelHeap.alloc(size);
		if (bufs[i] == nullptr)
			return 0;
		std::memset(bufs[i], request + i, size);
		sum += static_cast<unsigned char *>(bufs[i])[size / 2] * (std::uint64_t)size;
	}
	for (int i = n - 1; i >= 0; i--)
		kernelHeap.free(bufs[i]);
	return sum;
}

static std::uint64_t serve()
{
	std::uint64_t checksum = 0;
	/* The file cache: objects kept for the whole run. */
	for (int i = 0; i < workload.resident; i++) {
		void *p = kernelHeap.alloc(48);
		if (p == nullptr)
			return 0;
		std::memset(p, i, 48);
	}
	for (int r = 0; r < workload.requests; r++)
		checksum = checksum * 31 + handle(r);
	return checksum;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return usage(argv[0]);
	if (std::strcmp(argv[1], "normal") == 0)
		workload = Workload{ 120000, 200, 6 };
	else if (std::strcmp(argv[1], "buggy") == 0)
		workload = Workload{ 120000, 1500, 6 };
	else
		return usage(argv[0]);

	const std::size_t heapSize = 16u << 20;
	void *memory = std::malloc(heapSize);
	if (memory == nullptr)
		return 1;
	kernelHeap.init(memory, heapSize);
	std::uint64_t checksum = serve();
	std::printf("heap_firstfit %s: allocations=%lu free=%zu checksum=%016llx\n", argv[1],
		    kernelHeap.allocations(), kernelHeap.freeBytes(), (unsigned long long)checksum);
	std::free(memory);
	return 0;
}

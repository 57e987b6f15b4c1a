/*
 * heap_firstfit - hhuOS-5: the kernel heap's memory manager (see main.cpp).
 */
#ifndef HEAP_FIRSTFIT_H
#define HEAP_FIRSTFIT_H

#include <cstddef>
#include <cstdint>

namespace Kernel {

/* One block of the heap: the memory list holds every block, the
 * allocated ones and the free ones, in address order. */
struct Chunk {
	std::size_t size; /* bytes after the header */
	bool free;
	Chunk *next;
};

class FirstFitMemoryManager {
public:
	void init(void *memory, std::size_t size);
	void *alloc(std::size_t size);
	void free(void *ptr);
	std::size_t freeBytes() const { return freeMemory; }
	unsigned long allocations() const { return allocCount; }

private:
	Chunk *memoryList = nullptr;
	std::size_t freeMemory = 0;
	unsigned long allocCount = 0;
};

} // namespace Kernel

/* main.cpp: the workload's shape */
struct Workload {
	int requests;     /* requests served by the loop */
	int resident;     /* long-lived objects kept by the file cache */
	int burst;        /* short-lived buffers per request */
};
extern Workload workload;

#endif

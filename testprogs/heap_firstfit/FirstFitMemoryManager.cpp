/*
 * heap_firstfit - hhuOS-5: the first-fit memory manager of the kernel heap
 * (hhuOS's FirstFitMemoryManager / ListMemoryManager).
 *
 * The memory list holds all blocks, allocated and free, in address order;
 * alloc() walks it from its head until a free block large enough. With
 * many long-lived allocations at the front of the heap every allocation
 * runs through all of them first: alloc() holds the ROOT CAUSE. See
 * main.cpp.
 */
#include "FirstFitMemoryManager.h"

namespace Kernel {

static constexpr std::size_t ALIGN = 16;
static constexpr std::size_t MIN_SPLIT = sizeof(Chunk) + ALIGN;

void FirstFitMemoryManager::init(void *memory, std::size_t size)
{
	memoryList = static_cast<Chunk *>(memory);
	memoryList->size = size - sizeof(Chunk);
	memoryList->free = true;
	memoryList->next = nullptr;
	freeMemory = memoryList->size;
}

static inline bool fits(const Chunk *chunk, std::size_t size)
{
	return chunk->free && chunk->size >= size;
}

void *FirstFitMemoryManager::alloc(std::size_t size)
{
	size = (size + ALIGN - 1) & ~(ALIGN - 1);
	Chunk **link = &memoryList;
	/* First fit over the list of every block: each allocated block
	 * before the first free one that fits is walked, at every call.
	 * ROOT CAUSE */
	while (*link != nullptr && !fits(*link, size))
		link = &(*link)->next;
	Chunk *chunk = *link;
	if (chunk == nullptr)
		return nullptr;
	if (chunk->size >= size + MIN_SPLIT) {
		Chunk *rest = reinterpret_cast<Chunk *>(reinterpret_cast<char *>(chunk + 1) + size);
		rest->size = chunk->size - size - sizeof(Chunk);
		rest->free = true;
		rest->next = chunk->next;
		chunk->next = rest;
		chunk->size = size;
		freeMemory -= sizeof(Chunk);
	}
	chunk->free = false;
	freeMemory -= chunk->size;
	allocCount++;
	return chunk + 1;
}

void FirstFitMemoryManager::free(void *ptr)
{
	if (ptr == nullptr)
		return;
	Chunk *chunk = static_cast<Chunk *>(ptr) - 1;
	chunk->free = true;
	freeMemory += chunk->size;
	/* Merge with the following free blocks. */
	while (chunk->next != nullptr && chunk->next->free) {
		Chunk *next = chunk->next;
		chunk->size += sizeof(Chunk) + next->size;
		chunk->next = next->next;
		freeMemory += sizeof(Chunk);
	}
}

} // namespace Kernel

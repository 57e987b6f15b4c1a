/*
 * lru_scan (MDEV-23399): buf0lru.c
 * The LRU list and eviction (storage/innobase/buf/buf0lru.cc), with the root
 * cause buf_LRU_free_from_common_LRU_list().
 */
#include "lru_scan.h"

void lru_remove(buf_page_t *b)
{
	if (b->lru_prev) b->lru_prev->lru_next = b->lru_next; else buf_pool.lru_head = b->lru_next;
	if (b->lru_next) b->lru_next->lru_prev = b->lru_prev; else buf_pool.lru_tail = b->lru_prev;
	b->lru_prev = b->lru_next = NULL;
}

void lru_add_head(buf_page_t *b)
{
	b->lru_prev = NULL;
	b->lru_next = buf_pool.lru_head;
	if (buf_pool.lru_head) buf_pool.lru_head->lru_prev = b; else buf_pool.lru_tail = b;
	buf_pool.lru_head = b;
}

static void page_hash_remove(buf_page_t *b)
{
	buf_page_t **pp = &buf_pool.hash[page_hash_cell(b->id)];
	while (*pp != b)
		pp = &(*pp)->hash_next;
	*pp = b->hash_next;
	b->hash_next = NULL;
}

/* Walks the LRU list from the tail for a page that can be evicted (clean and not
 * fixed) and moves its frame to the free list. Caller holds the mutex. */
__attribute__((noinline)) static bool buf_LRU_free_from_common_LRU_list(bool scan_all)
{
	ulint scanned = 0;
	bool freed = false;
	buf_page_t *bpage, *prev;

	/* ROOT CAUSE: under buffer-pool pressure the tail is all dirty pages and this
	 * walk, done with the mutex held, skips hundreds of them per free block. */
	for (bpage = buf_pool.lru_tail; bpage && !freed && (scan_all || scanned < 100); ++scanned, bpage = prev) {
		prev = bpage->lru_prev;
		pthread_mutex_lock(&bpage->mutex);
		bool can_relocate = bpage->fix_count == 0 && !bpage->io_pending;
		pthread_mutex_unlock(&bpage->mutex);
		if (can_relocate && bpage->oldest_modification == 0) {
			lru_remove(bpage);
			page_hash_remove(bpage);
			bpage->id = ~(ulint)0;
			bpage->lru_next = buf_pool.free_list;
			buf_pool.free_list = bpage;
			freed = true;
		}
	}
	srv_LRU_scanned_total += scanned;
	return freed;
}

/* Returns a free frame. Caller holds the mutex; it may be released while waiting. */
buf_page_t *buf_LRU_get_free_block(void)
{
	for (ulint n_iterations = 0;; n_iterations++) {
		buf_page_t *b = buf_pool.free_list;
		if (b) {
			buf_pool.free_list = b->lru_next;
			b->lru_next = NULL;
			return b;
		}
		if (buf_LRU_free_from_common_LRU_list(n_iterations > 0))
			continue;
		if (!buf_flush_list_batch(srv_LRU_flush_size)) {
			/* everything is fixed: let the other threads finish */
			pthread_mutex_unlock(&buf_pool.mutex);
			sched_yield();
			pthread_mutex_lock(&buf_pool.mutex);
		}
	}
}

/*
 * lru_scan (MDEV-23399): buf0buf.c
 * The buffer pool and page access (storage/innobase/buf/buf0buf.cc).
 */
#include "lru_scan.h"

struct buf_pool_t buf_pool = { .mutex = PTHREAD_MUTEX_INITIALIZER };

static buf_page_t *page_hash_get(ulint id)
{
	for (buf_page_t *b = buf_pool.hash[page_hash_cell(id)]; b; b = b->hash_next)
		if (b->id == id)
			return b;
	return NULL;
}

/* Returns page id buffer-fixed, reading it in if needed. */
buf_page_t *buf_page_get_gen(ulint id)
{
	pthread_mutex_lock(&buf_pool.mutex);
	buf_page_t *b = page_hash_get(id);
	if (b) {
		pthread_mutex_lock(&b->mutex);
		b->fix_count++;
		pthread_mutex_unlock(&b->mutex);
		if (b != buf_pool.lru_head) {
			lru_remove(b);
			lru_add_head(b);
		}
		pthread_mutex_unlock(&buf_pool.mutex);
		for (;;) {
			pthread_mutex_lock(&b->mutex);
			bool pending = b->io_pending;
			pthread_mutex_unlock(&b->mutex);
			if (!pending)
				return b;
			sched_yield();
		}
	}
	b = buf_LRU_get_free_block();
	b->id = id;
	pthread_mutex_lock(&b->mutex);
	b->fix_count = 1;
	b->io_pending = true;
	pthread_mutex_unlock(&b->mutex);
	b->oldest_modification = 0;
	b->hash_next = buf_pool.hash[page_hash_cell(id)];
	buf_pool.hash[page_hash_cell(id)] = b;
	lru_add_head(b);
	if (++srv_n_pages_read % FLUSH_EVERY == 0)
		buf_flush_list_batch(FLUSH_BATCH);
	pthread_mutex_unlock(&buf_pool.mutex);

	buf_read_page_low(b);
	pthread_mutex_lock(&b->mutex);
	b->io_pending = false;
	pthread_mutex_unlock(&b->mutex);
	return b;
}

void buf_page_release(buf_page_t *b, bool modified)
{
	pthread_mutex_lock(&buf_pool.mutex);
	if (modified && !b->oldest_modification)
		buf_flush_note_modification(b);
	pthread_mutex_lock(&b->mutex);
	b->fix_count--;
	pthread_mutex_unlock(&b->mutex);
	pthread_mutex_unlock(&buf_pool.mutex);
}

void buf_pool_init(void)
{
	byte *frames = aligned_alloc(PAGE_SIZE, (size_t)POOL_FRAMES * PAGE_SIZE);
	if (!frames) { perror("aligned_alloc"); exit(1); }
	for (int i = POOL_FRAMES - 1; i >= 0; i--) {
		buf_page_t *b = &buf_pool.pages[i];
		b->frame = frames + (size_t)i * PAGE_SIZE;
		pthread_mutex_init(&b->mutex, NULL);
		b->id = ~(ulint)0;
		b->lru_next = buf_pool.free_list;
		buf_pool.free_list = b;
	}
}

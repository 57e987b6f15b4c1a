/*
 * lru_scan (MDEV-23399): buf0flu.c
 * Flushing (storage/innobase/buf/buf0flu.cc).
 */
#include "lru_scan.h"

/* Writes a dirty page to the data file and removes it from the flush list.
 * Caller holds the mutex; the page is not fixed. */
void buf_flush_write_page(buf_page_t *b)
{
	page_set_checksum(b->frame);
	memcpy(fil_space + b->id * PAGE_SIZE, b->frame, PAGE_SIZE);
	b->oldest_modification = 0;
	if (b->flush_prev) b->flush_prev->flush_next = b->flush_next; else buf_pool.flush_head = b->flush_next;
	if (b->flush_next) b->flush_next->flush_prev = b->flush_prev; else buf_pool.flush_tail = b->flush_prev;
	b->flush_prev = b->flush_next = NULL;
	srv_n_pages_flushed++;
}

void buf_flush_note_modification(buf_page_t *b)
{
	b->oldest_modification = ++buf_pool.lsn;
	b->flush_next = NULL;
	b->flush_prev = buf_pool.flush_tail;
	if (buf_pool.flush_tail) buf_pool.flush_tail->flush_next = b; else buf_pool.flush_head = b;
	buf_pool.flush_tail = b;
}

/* Flushes up to n of the oldest modified pages (the flush list order), as the page
 * cleaner does to advance the checkpoint. Caller holds the mutex. */
int buf_flush_list_batch(int n)
{
	int flushed = 0;
	buf_page_t *next;
	for (buf_page_t *b = buf_pool.flush_head; b && flushed < n; b = next) {
		next = b->flush_next;
		pthread_mutex_lock(&b->mutex);
		if (b->fix_count == 0) {
			buf_flush_write_page(b);
			flushed++;
		}
		pthread_mutex_unlock(&b->mutex);
	}
	return flushed;
}

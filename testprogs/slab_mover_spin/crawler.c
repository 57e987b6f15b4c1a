/*
 * slab_mover_spin (memcached-1239): crawler.c
 * The LRU crawler: once a second it walks each class's LRU from the tail and
 * reclaims expired items, so their memory comes back before the tail reaches them.
 */
#include "memcached.h"

#define CRAWL_MAX_PER_CLASS 20000

void lru_crawler_run(void)
{
	for (int id = POWER_SMALLEST; id < MAX_NUMBER_OF_SLAB_CLASSES; id++) {
		item *it = lru_tail(id);
		int checked = 0;
		while (it != NULL && checked++ < CRAWL_MAX_PER_CLASS) {
			item *prev = lru_prev(it);
			if (it->refcount == 1 && it->exptime != 0 && it->exptime <= current_time) {
				uint32_t hv = MurmurHash3_x86_32(ITEM_key(it), it->nkey);
				do_item_unlink(it, hv);
				stats.crawler_reclaimed++;
			}
			it = prev;
		}
	}
}

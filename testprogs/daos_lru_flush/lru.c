/*
 * daos_lru_flush - DAOS-8343: the LRU cache of the engine's xstreams
 * (src/common/lru.c in DAOS 1.2/2.0): a hash table of reference-counted
 * items. Items whose last reference is released stay cached; once the cache
 * holds more than its size, every release flushes it.
 *
 * daos_lru_ref_flush() holds the ROOT CAUSE: it scans every item of the
 * table to evict the unreferenced ones. See main.c.
 */
#include "daos_lru_flush.h"

uint64_t daos_gettime_coarse(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec;
}

static uint32_t lru_hash(const daos_unit_oid_t *key, uint32_t nbuckets)
{
	uint64_t h = key->lo * 0x9e3779b97f4a7c15ull ^ key->hi ^ ((uint64_t)key->shard << 32);
	h ^= h >> 29;
	return (uint32_t)(h % nbuckets);
}

int daos_lru_cache_create(uint32_t csize, struct daos_llink_ops *ops, struct daos_lru_cache **lcache)
{
	struct daos_lru_cache *lc = calloc(1, sizeof *lc);
	if (lc == NULL)
		return -1;
	lc->dlc_csize = csize;
	lc->dlc_nbuckets = 4 * csize + 1;
	lc->dlc_htable = calloc(lc->dlc_nbuckets, sizeof *lc->dlc_htable);
	lc->dlc_ops = ops;
	if (lc->dlc_htable == NULL) {
		free(lc);
		return -1;
	}
	*lcache = lc;
	return 0;
}

static void lru_del_evicted(struct daos_lru_cache *lcache, struct daos_llink *llink)
{
	lcache->dlc_count--;
	llink->ll_ops->lop_free_ref(llink);
}

void daos_lru_ref_flush(struct daos_lru_cache *lcache)
{
	uint32_t b;

	lcache->dlc_flushes++;
	/* Every bucket, every item: the referenced items cannot be evicted
	 * and are scanned anyway, and the scan goes on after the cache is
	 * back under its size (the fix keeps the unreferenced items on an
	 * LRU list and evicts from its tail). ROOT CAUSE */
	for (b = 0; b < lcache->dlc_nbuckets; b++) {
		struct daos_llink **pp = &lcache->dlc_htable[b];
		while (*pp != NULL) {
			struct daos_llink *llink = *pp;
			if (llink->ll_ref == 0) {
				*pp = llink->ll_next;
				lru_del_evicted(lcache, llink);
				continue;
			}
			pp = &llink->ll_next;
		}
	}
}

void daos_lru_cache_destroy(struct daos_lru_cache *lcache)
{
	daos_lru_ref_flush(lcache);
	free(lcache->dlc_htable);
	free(lcache);
}

int daos_lru_ref_hold(struct daos_lru_cache *lcache, daos_unit_oid_t *key, void *args, struct daos_llink **llink)
{
	uint32_t b = lru_hash(key, lcache->dlc_nbuckets);
	struct daos_llink *link;
	int rc;

	for (link = lcache->dlc_htable[b]; link != NULL; link = link->ll_next) {
		if (link->ll_key.lo == key->lo && link->ll_key.hi == key->hi && link->ll_key.shard == key->shard &&
		    !link->ll_evicted) {
			link->ll_ref++;
			link->ll_accessed = daos_gettime_coarse();
			lcache->dlc_hits++;
			*llink = link;
			return 0;
		}
	}
	lcache->dlc_misses++;
	rc = lcache->dlc_ops->lop_alloc_ref(key, sizeof *key, args, &link);
	if (rc != 0)
		return rc;
	link->ll_key = *key;
	link->ll_ref = 1;
	link->ll_evicted = false;
	link->ll_accessed = daos_gettime_coarse();
	link->ll_ops = lcache->dlc_ops;
	link->ll_next = lcache->dlc_htable[b];
	lcache->dlc_htable[b] = link;
	lcache->dlc_count++;
	*llink = link;
	return 0;
}

void daos_lru_ref_release(struct daos_lru_cache *lcache, struct daos_llink *llink)
{
	if (llink->ll_ref == 0) {
		fprintf(stderr, "lru: release of an unreferenced item\n");
		abort();
	}
	llink->ll_ref--;
	if (lcache->dlc_csize && lcache->dlc_count > lcache->dlc_csize)
		daos_lru_ref_flush(lcache);
}

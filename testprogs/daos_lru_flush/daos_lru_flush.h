/*
 * daos_lru_flush - DAOS-8343: the engine's types: the LRU cache
 * (src/common/lru.c), the VOS object cache and the xstreams. See main.c.
 */
#ifndef DAOS_LRU_FLUSH_H
#define DAOS_LRU_FLUSH_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The engine's configuration: the targets' xstreams, the per-xstream
 * object cache, and the I/O the clients send. */
struct dss_config {
	int nr_xstreams;
	uint32_t obj_cache_size;   /* LRU_CACHE_BITS: objects cached per xstream */
	uint32_t requests_per_xs;  /* I/O requests each xstream serves */
	uint32_t inflight;         /* ULTs in flight per xstream (the clients' queue depth) */
	uint32_t nr_objects;       /* objects the clients address per target */
};
extern struct dss_config dss_conf;

typedef struct {
	uint64_t lo, hi;
	uint32_t shard;
} daos_unit_oid_t;

struct daos_llink;

struct daos_llink_ops {
	int (*lop_alloc_ref)(void *key, unsigned int ksize, void *args, struct daos_llink **llink);
	void (*lop_free_ref)(struct daos_llink *llink);
};

struct daos_llink {
	struct daos_llink *ll_next; /* hash chain */
	daos_unit_oid_t ll_key;
	uint32_t ll_ref;
	bool ll_evicted;
	uint64_t ll_accessed; /* seconds, coarse clock */
	struct daos_llink_ops *ll_ops;
};

struct daos_lru_cache {
	uint32_t dlc_csize;  /* configured size */
	uint32_t dlc_count;  /* items in the cache */
	uint32_t dlc_nbuckets;
	struct daos_llink **dlc_htable;
	struct daos_llink_ops *dlc_ops;
	uint64_t dlc_hits, dlc_misses, dlc_flushes;
};

/* lru.c */
int daos_lru_cache_create(uint32_t csize, struct daos_llink_ops *ops, struct daos_lru_cache **lcache);
void daos_lru_cache_destroy(struct daos_lru_cache *lcache);
int daos_lru_ref_hold(struct daos_lru_cache *lcache, daos_unit_oid_t *key, void *args, struct daos_llink **llink);
void daos_lru_ref_release(struct daos_lru_cache *lcache, struct daos_llink *llink);
void daos_lru_ref_flush(struct daos_lru_cache *lcache);
uint64_t daos_gettime_coarse(void);

/* vos_obj_cache.c */
struct vos_object {
	struct daos_llink obj_llink; /* first: the cache's link */
	daos_unit_oid_t obj_id;
	uint64_t obj_df_csum;
	uint32_t obj_epoch;
	unsigned char obj_df[192]; /* the durable format, loaded from SCM */
};
int vos_obj_cache_init(struct daos_lru_cache **occ);
int vos_obj_hold(struct daos_lru_cache *occ, daos_unit_oid_t oid, struct vos_object **obj);
void vos_obj_release(struct daos_lru_cache *occ, struct vos_object *obj);

/* srv_obj.c */
struct obj_rw_in {
	daos_unit_oid_t orw_oid;
	uint64_t orw_dkey_hash;
	uint32_t orw_epoch;
	uint32_t orw_size;
};
struct obj_ult {
	struct obj_rw_in in;
	struct vos_object *obj;
	uint64_t start;
};
int ds_obj_rw_begin(struct daos_lru_cache *occ, struct obj_ult *ult);
uint64_t ds_obj_rw_end(struct daos_lru_cache *occ, struct obj_ult *ult);

#endif

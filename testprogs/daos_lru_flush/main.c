/*
 * daos_lru_flush - DAOS-8343: "common: avoid full scan while evicting from
 * LRU" https://github.com/daos-stack/daos/pull/6510 (DAOS master for 2.0,
 * August 2021; the same patch as https://github.com/daos-stack/daos/pull/6096).
 *
 * The real bug: the LRU cache of src/common/lru.c, used by each xstream's
 * VOS object cache, kept no LRU list: daos_lru_ref_release() ended with
 *     if (lcache->dlc_csize && lcache->dlc_count > lcache->dlc_csize)
 *             daos_lru_ref_flush(lcache);
 * and the flush scanned every item of the cache to evict those without a
 * reference. When the objects held at once outnumber the cache size, the
 * cache stays over its size, every release scans all items and evicts at
 * most the one just released. The patch (src/common/lru.c around line 300)
 * puts unreferenced items on an LRU list and evicts from its tail, only
 * while the cache is over its size or the tail is older than LRU_TOO_OLD
 * seconds, so nothing is scanned.
 *
 * Here (C, 4 pthreads): the engine starts 4 xstreams (a thread pool, one per
 * target); each has its own object cache of 1024 objects and serves 40,000
 * object updates through its scheduler loop (dss_srv_handler): it starts
 * ULTs up to the clients' queue depth (each holds its object while its bulk
 * transfer is in flight) and completes them in order (checksum the data,
 * release the object). The slow run is the same binary on a different
 * workload: normal: the clients keep 32 I/Os in flight per target over 1,536
 * objects; buggy: 1,536 I/Os in flight per target (a deeper queue, as with
 * many clients or a large event queue) over the same objects, so more
 * objects are held at once than the cache holds. Same requests, same data.
 *
 * Root cause: daos_lru_ref_flush() (lru.c), its scan of every bucket and item
 * (ROOT CAUSE). Pattern: missing constraint (no bound on the scan: it walks
 * items it cannot evict and does not stop once the cache is under its
 * size). Configuration in a struct global (dss_conf); pointers (the cache,
 * its items, the ULTs' objects), timestamps (ll_accessed from a coarse
 * clock, the ULTs' start times) in scope; each xstream's scheduler loop
 * above the bug, the engine's start-up (dss_srv_init) above that.
 *
 * Files, as in DAOS's src/: lru.c (the root cause, src/common), vos_obj_cache.c
 * (src/vos), srv_obj.c (src/object), daos_lru_flush.h; main.c (this driver:
 * the engine's xstreams and the clients' I/O).
 */
#include "daos_lru_flush.h"

struct dss_config dss_conf;

struct dss_xstream {
	int dx_xs_id;
	pthread_t dx_thread;
	struct daos_lru_cache *dx_occ;
	uint64_t dx_csum;
	uint64_t dx_done;
	uint64_t dx_last_tick;
};

static uint64_t rnd_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The clients' next I/O to this target: an update of a random object. */
static void next_request(struct obj_rw_in *in, uint64_t *seed, uint32_t epoch)
{
	uint64_t x = rnd_next(seed);
	in->orw_oid.lo = x % dss_conf.nr_objects;
	in->orw_oid.hi = 0x1000000000000ull;
	in->orw_oid.shard = 0;
	in->orw_dkey_hash = rnd_next(seed);
	in->orw_epoch = epoch;
	in->orw_size = 1024 + (uint32_t)(x >> 52) % 2048;
}

/* An xstream's scheduler loop: keep up to inflight ULTs running, complete
 * the oldest when the queue is full. */
static void *dss_srv_handler(void *arg)
{
	struct dss_xstream *dx = arg;
	uint32_t depth = dss_conf.inflight, head = 0, tail = 0, running = 0, issued = 0;
	struct obj_ult *ults = calloc(depth, sizeof *ults);
	uint64_t seed = 0x2545f4914f6cdd1dull * (uint64_t)(dx->dx_xs_id + 1);

	if (ults == NULL || vos_obj_cache_init(&dx->dx_occ) != 0)
		return (void *)1;
	while (issued < dss_conf.requests_per_xs || running > 0) {
		if (issued < dss_conf.requests_per_xs && running < depth) {
			struct obj_ult *ult = &ults[tail];
			next_request(&ult->in, &seed, issued + 1);
			if (ds_obj_rw_begin(dx->dx_occ, ult) != 0)
				return (void *)1;
			tail = (tail + 1) % depth;
			running++;
			issued++;
			continue;
		}
		dx->dx_csum = dx->dx_csum * 31 + ds_obj_rw_end(dx->dx_occ, &ults[head]);
		head = (head + 1) % depth;
		running--;
		dx->dx_done++;
		dx->dx_last_tick = daos_gettime_coarse();
	}
	daos_lru_cache_destroy(dx->dx_occ);
	free(ults);
	return NULL;
}

static int dss_srv_init(struct dss_xstream *xs, int n)
{
	int i;
	void *ret;

	for (i = 0; i < n; i++) {
		xs[i].dx_xs_id = i;
		if (pthread_create(&xs[i].dx_thread, NULL, dss_srv_handler, &xs[i]) != 0)
			return -1;
	}
	for (i = 0; i < n; i++) {
		if (pthread_join(xs[i].dx_thread, &ret) != 0 || ret != NULL)
			return -1;
	}
	return 0;
}

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  Object updates on 4 xstreams, each with its own object cache (DAOS-8343).\n"
		"  normal: 32 I/Os in flight per target; buggy: 1,536 in flight.\n", argv0);
	return 2;
}

int main(int argc, char **argv)
{
	struct dss_xstream xs[4];
	uint64_t csum = 0, done = 0;
	int i;

	if (argc != 2)
		return usage(argv[0]);
	if (strcmp(argv[1], "normal") == 0)
		dss_conf = (struct dss_config){ 4, 1024, 40000, 32, 200000 };
	else if (strcmp(argv[1], "buggy") == 0)
		dss_conf = (struct dss_config){ 4, 1024, 40000, 1536, 200000 };
	else
		return usage(argv[0]);

	memset(xs, 0, sizeof xs);
	if (dss_srv_init(xs, dss_conf.nr_xstreams) != 0) {
		fprintf(stderr, "daos_lru_flush: an xstream failed\n");
		return 1;
	}
	for (i = 0; i < dss_conf.nr_xstreams; i++) {
		csum ^= xs[i].dx_csum + (uint64_t)i;
		done += xs[i].dx_done;
	}
	printf("daos_lru_flush %s: xstreams=%d inflight=%u updates=%llu checksum=%016llx\n", argv[1],
	       dss_conf.nr_xstreams, dss_conf.inflight, (unsigned long long)done, (unsigned long long)csum);
	return 0;
}

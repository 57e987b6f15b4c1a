/*
 * daos_lru_flush - DAOS-8343: the object I/O handler (src/object/srv_obj.c
 * in DAOS): a ULT holds the object, waits for its bulk transfer, does the
 * update or fetch (checksums of the data) and releases the object.
 */
#include "daos_lru_flush.h"

static __thread unsigned char bulk_buf[4096];

int ds_obj_rw_begin(struct daos_lru_cache *occ, struct obj_ult *ult)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ult->start = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return vos_obj_hold(occ, ult->in.orw_oid, &ult->obj);
}

uint64_t ds_obj_rw_end(struct daos_lru_cache *occ, struct obj_ult *ult)
{
	struct obj_rw_in *in = &ult->in;
	uint64_t csum = in->orw_dkey_hash ^ ult->obj->obj_df_csum;
	uint32_t i, n = in->orw_size < sizeof bulk_buf ? in->orw_size : (uint32_t)sizeof bulk_buf;

	/* the bulk data arrived: checksum it against the object's extents */
	for (i = 0; i < n; i++) {
		bulk_buf[i] = (unsigned char)(bulk_buf[i] + i + in->orw_epoch);
		csum = (csum ^ bulk_buf[i]) * 0x100000001b3ull;
	}
	ult->obj->obj_epoch = in->orw_epoch;
	vos_obj_release(occ, ult->obj);
	ult->obj = NULL;
	return csum;
}

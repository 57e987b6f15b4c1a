/*
 * daos_lru_flush - DAOS-8343: the VOS object cache (src/vos/vos_obj_cache.c
 * in DAOS): the objects an xstream's I/O touches, held in the LRU cache
 * while a ULT uses them, loaded from the durable format on a miss.
 */
#include "daos_lru_flush.h"

static int obj_lop_alloc(void *key, unsigned int ksize, void *args, struct daos_llink **llink)
{
	daos_unit_oid_t *oid = key;
	struct vos_object *obj = malloc(sizeof *obj);
	uint64_t csum = 0xcbf29ce484222325ull;
	unsigned int i;

	(void)ksize;
	if (obj == NULL)
		return -1;
	obj->obj_id = *oid;
	obj->obj_epoch = args ? *(uint32_t *)args : 0;
	/* load the object's durable format and verify it */
	for (i = 0; i < sizeof obj->obj_df; i++) {
		obj->obj_df[i] = (unsigned char)((oid->lo >> (i % 8)) + i * 31);
		csum = (csum ^ obj->obj_df[i]) * 0x100000001b3ull;
	}
	obj->obj_df_csum = csum;
	*llink = &obj->obj_llink;
	return 0;
}

static void obj_lop_free(struct daos_llink *llink)
{
	free((struct vos_object *)llink);
}

static struct daos_llink_ops obj_lru_ops = {
	.lop_alloc_ref = obj_lop_alloc,
	.lop_free_ref = obj_lop_free,
};

int vos_obj_cache_init(struct daos_lru_cache **occ)
{
	return daos_lru_cache_create(dss_conf.obj_cache_size, &obj_lru_ops, occ);
}

int vos_obj_hold(struct daos_lru_cache *occ, daos_unit_oid_t oid, struct vos_object **obj)
{
	struct daos_llink *lret;
	uint32_t epoch = 1;
	int rc = daos_lru_ref_hold(occ, &oid, &epoch, &lret);
	if (rc != 0)
		return rc;
	*obj = (struct vos_object *)lret;
	return 0;
}

void vos_obj_release(struct daos_lru_cache *occ, struct vos_object *obj)
{
	daos_lru_ref_release(occ, &obj->obj_llink);
}

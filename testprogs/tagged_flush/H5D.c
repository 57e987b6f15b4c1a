/*
 * tagged_flush - HDFGroup/hdf5#4017: datasets (src/H5D.c, H5Dint.c and
 * H5Dchunk.c in HDF5): a dataset's metadata is its object header and the
 * nodes of its chunk index (a v2 B-tree), each a cache entry tagged with
 * the object header's address; appending a record writes its chunk
 * (Fletcher-32 filtered) and dirties the header and the index leaf.
 */
#include "hdf5.h"

static haddr_t H5MF_alloc(H5F_t *f, size_t size)
{
	haddr_t a = f->eoa;
	f->eoa += size;
	return a;
}

static void H5D__fill_image(H5C_cache_entry_t *e, uint64_t seed)
{
	for (size_t i = 0; i < H5C_IMAGE_SIZE; i += 8) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		memcpy(e->image + i, &seed, 8);
	}
}

H5D_t *H5D_create(H5F_t *f)
{
	H5D_t *dset = calloc(1, sizeof *dset);
	if (!dset)
		return NULL;
	dset->oh_addr = H5MF_alloc(f, 512);
	H5C_cache_entry_t *oh = H5C_insert_entry(f->cache, dset->oh_addr, H5AC_OHDR_ID, dset->oh_addr);
	H5D__fill_image(oh, dset->oh_addr);
	for (int i = 0; i < 3; i++) {
		dset->btree_addr[i] = H5MF_alloc(f, 512);
		H5C_cache_entry_t *n = H5C_insert_entry(f->cache, dset->btree_addr[i],
						       i == 0 ? H5AC_BT2_INT_ID : H5AC_BT2_LEAF_ID, dset->oh_addr);
		H5D__fill_image(n, dset->btree_addr[i]);
	}
	return dset;
}

herr_t H5Dwrite_record(H5F_t *f, H5D_t *dset, uint64_t value)
{
	/* the record goes into the chunk, which the filter pipeline checksums */
	size_t slot = (size_t)(dset->nrecords % (sizeof dset->chunk / 8));
	memcpy(dset->chunk + slot * 8, &value, 8);
	uint32_t sum = H5_checksum_fletcher32(dset->chunk, sizeof dset->chunk);
	dset->nrecords++;
	/* the index leaf that points to the chunk, and the header's modification time */
	H5C_cache_entry_t *leaf = H5C_protect(f->cache, dset->btree_addr[1 + (dset->nrecords & 1)]);
	H5C_cache_entry_t *oh = H5C_protect(f->cache, dset->oh_addr);
	if (!leaf || !oh)
		return -1;
	memcpy(leaf->image + 16, &sum, 4);
	memcpy(oh->image + 24, &dset->nrecords, 8);
	H5C_mark_entry_dirty(f->cache, leaf);
	H5C_mark_entry_dirty(f->cache, oh);
	return 0;
}

herr_t H5Dflush(H5F_t *f, H5D_t *dset)
{
	return H5O_flush_common(f, dset->oh_addr);
}

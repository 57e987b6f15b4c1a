/*
 * tagged_flush - HDFGroup/hdf5#4017: flushing one object (src/H5Oflush.c in
 * HDF5): H5Oflush and H5Dflush write the metadata of one object, the
 * cache entries tagged with its object header's address.
 */
#include "hdf5.h"

herr_t H5O_flush_common(H5F_t *f, haddr_t oh_addr)
{
	/* H5F_flush_tagged_metadata -> H5AC_flush_tagged_metadata */
	if (H5C_flush_tagged_entries(f->cache, oh_addr) < 0)
		return -1;
	return 0;
}

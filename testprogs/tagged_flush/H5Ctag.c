/*
 * tagged_flush - HDFGroup/hdf5#4017: the cache's tags (src/H5Ctag.c in
 * HDF5): every entry is tagged with the address of the object header it
 * belongs to, and the entries of a tag are found through the tag's list;
 * flushing one object marks its tag's entries and flushes the marked ones.
 */
#include "hdf5.h"

static H5C_tag_info_t *H5C__tag_info(H5C_t *cache, haddr_t tag, int create)
{
	size_t h = (size_t)(tag >> 9) & (H5C_TAG_HASH_SIZE - 1);
	for (H5C_tag_info_t *ti = cache->tag_list[h]; ti; ti = ti->next)
		if (ti->tag == tag)
			return ti;
	if (!create)
		return NULL;
	H5C_tag_info_t *ti = calloc(1, sizeof *ti);
	ti->tag = tag;
	ti->next = cache->tag_list[h];
	cache->tag_list[h] = ti;
	return ti;
}

void H5C__tag_entry(H5C_t *cache, H5C_cache_entry_t *entry)
{
	H5C_tag_info_t *ti = H5C__tag_info(cache, entry->tag, 1);
	entry->tl_next = ti->head;
	ti->head = entry;
	ti->entry_cnt++;
}

/* Set the flush marker of the tag's dirty entries. */
herr_t H5C__mark_tagged_entries(H5C_t *cache, haddr_t tag)
{
	H5C_tag_info_t *ti = H5C__tag_info(cache, tag, 0);
	if (!ti)
		return -1;
	for (H5C_cache_entry_t *e = ti->head; e; e = e->tl_next)
		if (e->is_dirty)
			e->flush_marker = 1;
	return 0;
}

herr_t H5C_flush_tagged_entries(H5C_t *cache, haddr_t tag)
{
	if (H5C__mark_tagged_entries(cache, tag) < 0)
		return -1;
	return H5C__flush_marked_entries(cache);
}

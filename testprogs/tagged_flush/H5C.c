/*
 * tagged_flush - HDFGroup/hdf5#4017: the metadata cache (src/H5C.c and
 * src/H5Cint.c in HDF5 1.14): the index of every entry (a hash table and
 * the index list), the skip list of dirty entries a flush builds, and the
 * flush of the entries marked for it.
 *
 * H5C__flush_marked_entries() holds the ROOT CAUSE: it walks every entry
 * of the cache to build the skip list of all dirty entries, however few
 * are marked. See main.c.
 */
#include "hdf5.h"

H5C_t *H5C_create(size_t file_image_size)
{
	H5C_t *cache = calloc(1, sizeof *cache);
	if (!cache)
		return NULL;
	cache->file_image = calloc(1, file_image_size);
	cache->file_image_size = file_image_size;
	cache->slist.rnd = 0x853c49e6748fea9bull;
	return cache;
}

static size_t H5C__hash(haddr_t addr)
{
	return (size_t)((addr >> 8) ^ (addr >> 20)) & (H5C_HASH_SIZE - 1);
}

H5C_cache_entry_t *H5C_insert_entry(H5C_t *cache, haddr_t addr, int type, haddr_t tag)
{
	H5C_cache_entry_t *e = calloc(1, sizeof *e);
	if (!e)
		return NULL;
	e->addr = addr;
	e->type = type;
	e->tag = tag;
	size_t h = H5C__hash(addr);
	e->ht_next = cache->index[h];
	cache->index[h] = e;
	e->il_next = cache->il_head;
	cache->il_head = e;
	cache->index_len++;
	H5C__tag_entry(cache, e);
	H5C_mark_entry_dirty(cache, e);
	return e;
}

H5C_cache_entry_t *H5C_protect(H5C_t *cache, haddr_t addr)
{
	for (H5C_cache_entry_t *e = cache->index[H5C__hash(addr)]; e; e = e->ht_next)
		if (e->addr == addr)
			return e;
	return NULL;
}

void H5C_mark_entry_dirty(H5C_t *cache, H5C_cache_entry_t *entry)
{
	if (!entry->is_dirty) {
		entry->is_dirty = 1;
		cache->dirty_index_len++;
	}
}

uint32_t H5_checksum_fletcher32(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint32_t sum1 = 0, sum2 = 0;
	for (size_t i = 0; i + 1 < len; i += 2) {
		sum1 = (sum1 + (((uint32_t)p[i] << 8) | p[i + 1])) % 65535;
		sum2 = (sum2 + sum1) % 65535;
	}
	return (sum2 << 16) | sum1;
}

/* Serialize an entry and write its image to the file. */
void H5C__flush_single_entry(H5C_t *cache, H5C_cache_entry_t *entry)
{
	uint32_t sum = H5_checksum_fletcher32(entry->image, H5C_IMAGE_SIZE - 4);
	memcpy(entry->image + H5C_IMAGE_SIZE - 4, &sum, 4);
	size_t off = (size_t)(entry->addr % (cache->file_image_size - H5C_IMAGE_SIZE));
	memcpy(cache->file_image + off, entry->image, H5C_IMAGE_SIZE);
	entry->is_dirty = 0;
	entry->flush_marker = 0;
	cache->dirty_index_len--;
	cache->entries_flushed++;
}

static int H5SL__random_level(H5SL_t *sl)
{
	int level = 1;
	sl->rnd = sl->rnd * 6364136223846793005ull + 1442695040888963407ull;
	uint64_t r = sl->rnd >> 20;
	while ((r & 3) == 0 && level < H5C_SLIST_MAX_LEVEL) {
		level++;
		r >>= 2;
	}
	return level;
}

static void H5SL_insert(H5SL_t *sl, H5C_cache_entry_t *item)
{
	H5SL_node_t *update[H5C_SLIST_MAX_LEVEL];
	H5SL_node_t *x = &sl->head;
	for (int i = sl->level - 1; i >= 0; i--) {
		while (x->forward[i] && x->forward[i]->item->addr < item->addr)
			x = x->forward[i];
		update[i] = x;
	}
	int level = H5SL__random_level(sl);
	if (level > sl->level) {
		for (int i = sl->level; i < level; i++)
			update[i] = &sl->head;
		sl->level = level;
	}
	H5SL_node_t *n = calloc(1, sizeof *n);
	n->item = item;
	for (int i = 0; i < level; i++) {
		n->forward[i] = update[i]->forward[i];
		update[i]->forward[i] = n;
	}
	sl->len++;
}

static void H5SL_close(H5SL_t *sl)
{
	H5SL_node_t *n = sl->head.forward[0];
	while (n) {
		H5SL_node_t *next = n->forward[0];
		free(n);
		n = next;
	}
	memset(sl->head.forward, 0, sizeof sl->head.forward);
	sl->level = 1;
	sl->len = 0;
}

/* Flush the entries marked for it (flush_marker), in address order. */
herr_t H5C__flush_marked_entries(H5C_t *cache)
{
	size_t flushed = 0;
	/* Enable the skip list: every dirty entry of the cache goes into it,
	 * found by a walk of the whole index list, the marked ones and the
	 * others alike (the fix inserts only the tagged entries, found
	 * through the tag's list). ROOT CAUSE */
	cache->slist_enabled = 1;
	cache->slist.level = 1;
	for (H5C_cache_entry_t *e = cache->il_head; e; e = e->il_next)
		if (e->is_dirty)
			H5SL_insert(&cache->slist, e);
	for (H5SL_node_t *n = cache->slist.head.forward[0]; n; n = n->forward[0])
		if (n->item->flush_marker) {
			H5C__flush_single_entry(cache, n->item);
			flushed++;
		}
	H5SL_close(&cache->slist);
	cache->slist_enabled = 0;
	return flushed > 0 ? 0 : -1;
}

/* Flush every dirty entry (file close, H5Fflush). */
herr_t H5C_flush_cache(H5C_t *cache)
{
	for (H5C_cache_entry_t *e = cache->il_head; e; e = e->il_next)
		if (e->is_dirty)
			H5C__flush_single_entry(cache, e);
	return 0;
}

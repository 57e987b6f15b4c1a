/*
 * glyph_cache - libass-27: the glyph cache (libass/ass_cache.c): a hash
 * map of buckets, each a chain of items, looked up for every glyph of
 * every event rendered.
 *
 * The hash combines the key's fields one byte of each (the bug of the
 * report: "This didn't make much sense and caused a lot of hash
 * collisions, letting the hashtable degenerate into a linear list"), so
 * every code point that shares its low byte with another lands in its
 * bucket: with a Latin script that is no one, with a CJK script of
 * thousands of distinct characters the chains are dozens long and every
 * lookup walks one. ass_cache_get() holds the ROOT CAUSE. See main.c.
 */
#include "glyph_cache.h"

static unsigned glyph_hash(const GlyphHashKey *key)
{
	/* The fields' low bytes only: the collisions of the report. */
	unsigned h = 2166136261u;
	h = (h ^ (key->font_id & 0xff)) * 16777619u;
	h = (h ^ (key->size & 0xff)) * 16777619u;
	h = (h ^ (key->symbol & 0xff)) * 16777619u;
	h = (h ^ (key->flags & 0xff)) * 16777619u;
	return h;
}

static int glyph_compare(const GlyphHashKey *a, const GlyphHashKey *b)
{
	return a->symbol == b->symbol && a->font_id == b->font_id && a->size == b->size &&
	       a->flags == b->flags;
}

/* Makes the glyph of a missing key: the outline and its metrics (a
 * stand-in for FreeType's load and the outline's bounding box). */
static void glyph_construct(const GlyphHashKey *key, GlyphValue *v)
{
	uint32_t x = key->symbol * 2654435761u ^ key->font_id;
	for (int i = 0; i < 64; i++)
		x = x * 1103515245u + 12345u + (uint32_t)i;
	v->advance = (int)(key->size >> 6) / 2 + (int)(x & 7);
	v->bbox[0] = 0;
	v->bbox[1] = -(int)(key->size >> 6);
	v->bbox[2] = v->advance;
	v->bbox[3] = (int)(x >> 28);
	v->outline_hash = x;
}

Cache *ass_glyph_cache_create(unsigned buckets)
{
	Cache *cache = calloc(1, sizeof *cache);
	if (cache == NULL)
		return NULL;
	cache->buckets = buckets;
	cache->map = calloc(buckets, sizeof *cache->map);
	if (cache->map == NULL) {
		free(cache);
		return NULL;
	}
	return cache;
}

GlyphValue *ass_cache_get(Cache *cache, const GlyphHashKey *key)
{
	unsigned bucket = glyph_hash(key) % cache->buckets;
	CacheItem **bucketp = &cache->map[bucket];
	/* A chain holds every key whose low bytes hash alike: with many
	 * distinct characters, dozens per bucket, walked on every glyph of
	 * every frame. ROOT CAUSE */
	while (*bucketp) {
		if (glyph_compare(&(*bucketp)->key, key)) {
			cache->hits++;
			return &(*bucketp)->value;
		}
		bucketp = &(*bucketp)->next;
	}
	CacheItem *item = malloc(sizeof *item);
	if (item == NULL)
		return NULL;
	item->key = *key;
	glyph_construct(key, &item->value);
	item->size = 1;
	item->next = NULL;
	*bucketp = item;
	cache->items++;
	cache->cache_size += item->size;
	cache->misses++;
	return &item->value;
}

void ass_cache_done(Cache *cache)
{
	for (unsigned i = 0; i < cache->buckets; i++) {
		CacheItem *item = cache->map[i];
		while (item) {
			CacheItem *next = item->next;
			free(item);
			item = next;
		}
	}
	free(cache->map);
	free(cache);
}

/*
 * glyph_cache - libass-27: the shared declarations (see main.c).
 */
#ifndef GLYPH_CACHE_H
#define GLYPH_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A glyph's cache key (ass_cache_template.h's GlyphHashKey, reduced). */
typedef struct {
	uint32_t font_id;
	uint32_t size;   /* 26.6 fixed point */
	uint32_t symbol; /* Unicode code point */
	uint32_t flags;  /* bold, italic, vertical */
} GlyphHashKey;

typedef struct {
	int advance;
	int bbox[4];
	uint32_t outline_hash;
} GlyphValue;

typedef struct cache_item {
	GlyphHashKey key;
	struct cache_item *next;
	GlyphValue value;
	size_t size;
} CacheItem;

typedef struct {
	CacheItem **map;
	unsigned buckets;
	size_t items;
	size_t cache_size;
	unsigned long hits, misses;
} Cache;

/* ass_cache.c */
Cache *ass_glyph_cache_create(unsigned buckets);
void ass_cache_done(Cache *cache);
GlyphValue *ass_cache_get(Cache *cache, const GlyphHashKey *key);

/* ass_render.c */
typedef struct {
	const uint32_t *text; /* code points of the event's text */
	int len;
	uint32_t font_id;
	uint32_t size;
	uint32_t flags;
} Event;

typedef struct {
	Cache *glyph_cache;
	long glyphs_drawn;
	uint64_t checksum;
	int frame_width;
} ASS_Renderer;

void ass_render_event(ASS_Renderer *priv, const Event *ev, long now);

/* main.c: the player's track */
struct track {
	int n_events;
	int event_len;
	int alphabet;       /* distinct code points in the text */
	uint32_t first_cp;  /* where the script's code points start */
	int frames;
};
extern struct track track;

#endif

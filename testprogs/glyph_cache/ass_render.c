/*
 * glyph_cache - libass-27: rendering an event (libass/ass_render.c): each
 * character's glyph comes from the cache, then it is placed and its
 * bitmap blended into the frame (the innocent per-glyph work).
 */
#include "glyph_cache.h"

static uint32_t blend(uint32_t acc, const GlyphValue *g, int pen_x)
{
	/* The glyph's coverage over its box, a few rows of it. */
	for (int row = 0; row < 6; row++)
		acc = (acc ^ (g->outline_hash + (uint32_t)(row * pen_x))) * 16777619u;
	return acc;
}

void ass_render_event(ASS_Renderer *priv, const Event *ev, long now)
{
	GlyphHashKey key;
	int pen_x = 0, line = 0;
	uint32_t acc = (uint32_t)now;

	memset(&key, 0, sizeof key);
	key.font_id = ev->font_id;
	key.size = ev->size;
	key.flags = ev->flags;
	for (int i = 0; i < ev->len; i++) {
		key.symbol = ev->text[i];
		GlyphValue *g = ass_cache_get(priv->glyph_cache, &key);
		if (g == NULL)
			continue;
		if (pen_x + g->advance > priv->frame_width) {
			pen_x = 0;
			line++;
		}
		acc = blend(acc, g, pen_x + line);
		pen_x += g->advance;
		priv->glyphs_drawn++;
	}
	priv->checksum = priv->checksum * 31 + acc;
}

/*
 * glyph_cache - libass-27: "Fix hash function: This didn't make much
 * sense and caused a lot of hash collisions, letting the hashtable
 * degenerate into a linear list." https://github.com/libass/libass/pull/27
 * (libass, the subtitle renderer of mpv and VLC, 2014).
 *
 * The real bug: libass caches every glyph it renders in a hash map keyed
 * by font, size, code point and style (ass_cache.c); the map's hash
 * function mixed its fields so poorly that keys collided in few buckets,
 * and each lookup walked a chain that grew with the number of distinct
 * glyphs. A Latin subtitle track, a hundred-odd glyphs, never shows it;
 * a CJK track, thousands of distinct characters, makes every glyph's
 * lookup a walk along a list.
 *
 * Here (C, single thread): the player's loop (main) plays frames; each
 * frame renders the events on screen (ass_render_event), whose every
 * character is looked up in the glyph cache (ass_cache_get, the ROOT
 * CAUSE), then placed and blended. The hash keeps one byte of each
 * field. The slow run is the same binary on another track: normal: a
 * Latin script (95 distinct characters: no two share their low byte);
 * buggy: a CJK script of 6,000 distinct characters (about 23 per
 * bucket). The walk's cursor is the chain's link (`*bucketp`), which gcc
 * -O2 keeps in a register with no DWARF location: the function has no
 * loop variable of its own (method.md D118).
 *
 * Usage: glyph_cache normal|buggy
 */
#include "glyph_cache.h"

struct track track;

static uint32_t rng_state = 12345;

static uint32_t rng(void)
{
	rng_state = rng_state * 1664525u + 1013904223u;
	return rng_state >> 8;
}

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  normal: a Latin subtitle track (95 distinct characters); buggy: a CJK one (6,000).\n", argv0);
	return 2;
}

/* Plays the track: each frame shows n_events events, each rendered
 * glyph by glyph. */
static int play(ASS_Renderer *priv)
{
	Event *events = calloc((size_t)track.n_events, sizeof *events);
	uint32_t *text = calloc((size_t)track.n_events * (size_t)track.event_len, sizeof *text);
	if (events == NULL || text == NULL)
		return -1;
	for (int e = 0; e < track.n_events; e++) {
		events[e].text = text + (size_t)e * (size_t)track.event_len;
		events[e].len = track.event_len;
		events[e].font_id = 1 + (uint32_t)(e % 2);
		events[e].size = 48u << 6;
		events[e].flags = 0;
	}
	for (int frame = 0; frame < track.frames; frame++) {
		/* A new line of dialogue every 25 frames. */
		if (frame % 25 == 0) {
			int e = (frame / 25) % track.n_events;
			uint32_t *t = text + (size_t)e * (size_t)track.event_len;
			for (int i = 0; i < track.event_len; i++)
				t[i] = track.first_cp + rng() % (uint32_t)track.alphabet;
		}
		for (int e = 0; e < track.n_events; e++)
			ass_render_event(priv, &events[e], (long)frame * 40);
	}
	free(text);
	free(events);
	return 0;
}

int main(int argc, char **argv)
{
	ASS_Renderer priv;

	if (argc != 2)
		return usage(argv[0]);
	if (strcmp(argv[1], "normal") == 0)
		track = (struct track){ 4, 40, 95, 0x20, 60000 };
	else if (strcmp(argv[1], "buggy") == 0)
		track = (struct track){ 4, 40, 6000, 0x4e00, 60000 };
	else
		return usage(argv[0]);

	memset(&priv, 0, sizeof priv);
	priv.frame_width = 1280;
	priv.glyph_cache = ass_glyph_cache_create(4096);
	if (priv.glyph_cache == NULL || play(&priv) != 0) {
		fprintf(stderr, "glyph_cache: out of memory\n");
		return 1;
	}
	printf("glyph_cache %s: glyphs=%ld cached=%zu hits=%lu checksum=%016llx\n", argv[1],
	       priv.glyphs_drawn, priv.glyph_cache->items, priv.glyph_cache->hits,
	       (unsigned long long)priv.checksum);
	ass_cache_done(priv.glyph_cache);
	return 0;
}

/*
 * scan_match - redis/redis#5660: "KEYS with pattern can take exponential time"
 * (https://github.com/redis/redis/issues/5660, 2018), fixed in Redis 7.0.9 by
 * redis/redis#11858, "String pattern matching had exponential time complexity
 * on pathological patterns (CVE-2022-36021)".
 *
 * The real bug: stringmatchlen() (src/util.c), the glob matcher behind KEYS,
 * SCAN ... MATCH, PSUBSCRIBE and ACL key patterns, is a recursive backtracker.
 * At a '*' it tries the rest of the pattern at every position of the rest of
 * the string; when that fails everywhere it returns 0, and the '*' before it
 * moves on one character and tries it all again, so a pattern with k stars
 * costs up to C(n, k) tries on a string of n characters ("set aaa...ab x;
 * keys a*a*a*...a" blocked the server for 7.46 s, #5660). The fix adds the
 * missing constraint: a flag, skipLongerMatches, set when the rest of the
 * pattern matched nowhere, which makes every enclosing star give up at once.
 * The maintainers' view in #5660: patterns come from the application, "if
 * there are usages of Redis where the pattern comes from untrusted input,
 * it's definitely a completely broken usage": the pattern is input the server
 * does not choose.
 *
 * Here: a Redis server holds a shop's catalogue (16,384 product keys named by
 * the products' titles, such as product:kitchen:stainless-steel-electric-
 * kettle-with-led-display-and-stay-cool-handle:10042, and carts); the
 * shop's search service finds products with SCAN 0 MATCH <pattern> COUNT 1000
 * to the end of the keyspace, while the shop's front end reads and writes
 * carts with GET and SET. The same binary, the same keyspace, the same 24
 * searches and cart traffic in both runs; only the search service's setting
 * differs, as a deployment's would: normal: substring search, the pattern
 * product:*kettle* (one star each side); buggy: typo-tolerant ("fuzzy")
 * search, which puts a star between the letters of the term,
 * product:*k*e*t*t*l*e* : a title that holds many of those letters costs the
 * matcher hundreds to thousands of recursive calls; over the 24 searches, 694
 * calls a key scanned against 63 for the substring patterns (11 times).
 *
 * Root cause: stringmatchlen() (util.c), its '*' loop (ROOT CAUSE), a
 * recursive function (its frames repeat on the stack). Key variables:
 * stringLen, patternLen (stringmatchlen). Pattern: missing constraint (the
 * retry loop has no check that the rest of the pattern already failed).
 *
 * Files, as in Redis' src/: util.c (the matcher: the root cause), db.c (GET,
 * SET, SCAN and the reply buffer of networking.c), dict.c (the hash table and
 * its SCAN cursor), server.h; main.c (this driver: the search service and the
 * front end, as clients).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"

struct redisServer server;

static const char *categories[] = { "kitchen", "garden", "office", "bathroom", "bedroom", "garage", "nursery", "outdoor" };
static const char *materials[] = { "stainless-steel", "cast-iron", "bamboo", "ceramic", "tempered-glass", "recycled-plastic", "solid-oak", "brushed-copper" };
static const char *adjectives[] = { "electric", "cordless", "compact", "deluxe", "foldable", "insulated", "adjustable", "rechargeable" };
static const char *nouns[] = { "kettle", "toaster", "blender", "lantern", "organizer", "shelf", "trimmer", "thermometer", "cabinet", "planter", "heater", "speaker" };
static const char *features[] = { "temperature-control", "led-display", "automatic-shutoff", "removable-filter", "stay-cool-handle", "keep-warm-function", "detachable-base", "water-level-indicator" };

/* What customers type into the search box. */
static const char *terms[] = { "kettle", "lantern", "ceramic", "heater", "cordless", "bamboo", "trimmer", "speaker", "planter", "thermometer", "organizer", "adjustable" };

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

/* The search service's pattern for a term: substring search, or the
 * typo-tolerant search that allows anything between the term's letters. */
static int search_pattern(char *out, size_t cap, const char *term, int fuzzy)
{
	int n = snprintf(out, cap, "product:*");
	for (const char *p = term; *p && n + 3 < (int)cap; p++) {
		out[n++] = *p;
		if (fuzzy && p[1])
			out[n++] = '*';
	}
	out[n++] = '*';
	out[n] = '\0';
	return n;
}

static int usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s normal|buggy\n"
		"  A Redis server under a shop's search service (redis/redis#5660).\n"
		"  normal: substring search (SCAN MATCH product:*term*); buggy: typo-tolerant\n"
		"  search (SCAN MATCH product:*t*e*r*m*), the same searches and keyspace.\n",
		argv0);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return usage(argv[0]);
	int fuzzy;
	if (strcmp(argv[1], "normal") == 0)
		fuzzy = 0;
	else if (strcmp(argv[1], "buggy") == 0)
		fuzzy = 1;
	else
		return usage(argv[0]);

	server.db = dictCreate();
	server.scan_default_count = 1000;
	static client front, search;
	front.id = 1;
	search.id = 2;
	front.reply_hash = search.reply_hash = 0xcbf29ce484222325ull;

	/* The catalogue, loaded once (as from an RDB file). */
	char key[256], val[256];
	for (int i = 0; i < 16384; i++) {
		int kl = snprintf(key, sizeof key, "product:%s:%s-%s-%s-with-%s-and-%s:%05d",
			categories[rnd(8)], materials[rnd(8)], adjectives[rnd(8)], nouns[rnd(12)],
			features[rnd(8)], features[rnd(8)], 10000 + i);
		int vl = snprintf(val, sizeof val, "{\"price\":%u.%02u,\"stock\":%u}", 5 + rnd(300), rnd(100), rnd(500));
		setCommand(&front, key, kl, val, vl);
	}

	long long found = 0, scans = 0;
	char pat[128];
	for (int s = 0; s < 24; s++) {
		/* The front end: carts read and updated between searches. */
		for (int j = 0; j < 4000; j++) {
			int kl = snprintf(key, sizeof key, "cart:%u", rnd(5000));
			getCommand(&front, key, kl);
			int vl = snprintf(val, sizeof val, "[%u,%u,%u]", 10000 + rnd(24576), rnd(5), rnd(9));
			setCommand(&front, key, kl, val, vl);
		}
		/* The search service: one search, a SCAN to the end of the keyspace. */
		int pl = search_pattern(pat, sizeof pat, terms[s % 12], fuzzy);
		unsigned long cursor = 0;
		long long before = search.replies;
		do {
			cursor = scanGenericCommand(&search, cursor, pat, pl, server.scan_default_count);
			scans++;
		} while (cursor != 0);
		found += search.replies - before;
	}

	/* The checksum is over the carts' replies and the scan count: the two
	 * searches find different products (the typo-tolerant one more). */
	for (int i = 0; i < front.bufpos; i++)
		front.reply_hash = (front.reply_hash ^ (unsigned char)front.buf[i]) * 0x100000001b3ull;
	printf("scan_match %s: keys=%lu scans=%lld found=%lld commands=%lld checksum=%016llx\n", argv[1],
		server.db->used, scans, found, server.stat_numcommands,
		(unsigned long long)(front.reply_hash ^ (uint64_t)scans));
	return 0;
}

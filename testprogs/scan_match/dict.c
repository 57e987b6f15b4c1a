/*
 * scan_match - redis/redis#5660: dict.c, Redis' hash table (one table, grown by
 * doubling) and its reverse-binary SCAN cursor (src/dict.c).
 */
#include <stdlib.h>
#include <string.h>

#include "server.h"

static const uint8_t dict_hash_seed[16] = "scan_match-seed";

/* A 64-bit hash of the key (Redis uses SipHash-1-2 with a random seed; this
 * is a fixed seed, so the table's layout is the same from run to run). */
uint64_t dictGenHashFunction(const void *key, int len)
{
	const unsigned char *p = key;
	uint64_t h = 0xcbf29ce484222325ull ^ ((uint64_t)dict_hash_seed[0] << 32);

	for (int i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

dict *dictCreate(void)
{
	dict *d = calloc(1, sizeof *d);
	d->size = 4;
	d->sizemask = 3;
	d->table = calloc(d->size, sizeof *d->table);
	return d;
}

static void dictExpand(dict *d, unsigned long size)
{
	dictEntry **table = calloc(size, sizeof *table);

	for (unsigned long i = 0; i < d->size; i++) {
		dictEntry *de = d->table[i];
		while (de) {
			dictEntry *next = de->next;
			uint64_t h = dictGenHashFunction(de->key, de->keylen) & (size - 1);
			de->next = table[h];
			table[h] = de;
			de = next;
		}
	}
	free(d->table);
	d->table = table;
	d->size = size;
	d->sizemask = size - 1;
}

dictEntry *dictFind(dict *d, const char *key, int keylen)
{
	uint64_t h = dictGenHashFunction(key, keylen) & d->sizemask;

	for (dictEntry *de = d->table[h]; de; de = de->next)
		if (de->keylen == keylen && memcmp(de->key, key, keylen) == 0)
			return de;
	return NULL;
}

/* Set key to val; returns 1 if the key is new. */
int dictReplace(dict *d, const char *key, int keylen, const char *val, int vallen)
{
	dictEntry *de = dictFind(d, key, keylen);

	if (de) {
		free(de->val);
		de->val = malloc(vallen);
		memcpy(de->val, val, vallen);
		de->vallen = vallen;
		return 0;
	}
	if (d->used >= d->size)
		dictExpand(d, d->size * 2);
	de = malloc(sizeof *de);
	de->key = malloc(keylen);
	memcpy(de->key, key, keylen);
	de->keylen = keylen;
	de->val = malloc(vallen);
	memcpy(de->val, val, vallen);
	de->vallen = vallen;
	uint64_t h = dictGenHashFunction(key, keylen) & d->sizemask;
	de->next = d->table[h];
	d->table[h] = de;
	d->used++;
	return 1;
}

static unsigned long rev(unsigned long v)
{
	unsigned long s = 8 * sizeof(v);
	unsigned long mask = ~0UL;

	while ((s >>= 1) > 0) {
		mask ^= (mask << s);
		v = ((v >> s) & mask) | ((v << s) & ~mask);
	}
	return v;
}

/* Visit one bucket and return the next cursor (0 when the scan is over):
 * the cursor's bits are incremented from the top, so that a scan started
 * before the table grew still visits every key. */
unsigned long dictScan(dict *d, unsigned long v, dictScanFunction *fn, void *privdata)
{
	unsigned long m0 = d->sizemask;

	for (const dictEntry *de = d->table[v & m0]; de; de = de->next)
		fn(privdata, de);
	v |= ~m0;
	v = rev(v);
	v++;
	v = rev(v);
	return v;
}

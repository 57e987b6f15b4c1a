/*
 * blocked_clients (Redis-8668): dict.c
 * Hash tables (src/dict.c).
 */
#include "server.h"

static const uint8_t dict_hash_seed[16] = "vprof-testprogs!";

dict *dictCreate(void)
{
	dict *d = zmalloc(sizeof *d);
	d->size = DICT_INITIAL;
	d->used = 0;
	d->table = zmalloc(sizeof(dictEntry *) * d->size);
	memset(d->table, 0, sizeof(dictEntry *) * d->size);
	return d;
}

static void dictExpand(dict *d)
{
	unsigned long nsize = d->size * 2;
	dictEntry **nt = zmalloc(sizeof(dictEntry *) * nsize);
	memset(nt, 0, sizeof(dictEntry *) * nsize);
	for (unsigned long i = 0; i < d->size; i++) {
		dictEntry *e = d->table[i], *next;
		for (; e; e = next) {
			next = e->next;
			unsigned long h = siphash((uint8_t *)e->key->ptr, e->key->len, dict_hash_seed) & (nsize - 1);
			e->next = nt[h];
			nt[h] = e;
		}
	}
	zfree(d->table);
	d->table = nt;
	d->size = nsize;
}

dictEntry *dictFind(dict *d, const robj *key)
{
	unsigned long h = siphash((uint8_t *)key->ptr, key->len, dict_hash_seed) & (d->size - 1);
	for (dictEntry *e = d->table[h]; e; e = e->next)
		if (dictEncObjKeyCompare(e->key, key))
			return e;
	return NULL;
}

/* Adds key (taking ownership) or returns the existing entry. */
dictEntry *dictAddOrFind(dict *d, robj *key, int *existed)
{
	dictEntry *e = dictFind(d, key);
	if (e) {
		*existed = 1;
		return e;
	}
	*existed = 0;
	if (d->used >= d->size)
		dictExpand(d);
	unsigned long h = siphash((uint8_t *)key->ptr, key->len, dict_hash_seed) & (d->size - 1);
	e = zmalloc(sizeof *e);
	e->key = key;
	e->val = NULL;
	e->next = d->table[h];
	d->table[h] = e;
	d->used++;
	return e;
}

/*
 * cluster_nodes (Redis-8145): db.c
 * The keyspace (src/db.c).
 */
#include "server.h"

static dictEntry *db[1 << 16];
unsigned long keys_by_slot[CLUSTER_SLOTS];

dictEntry *dbLookup(const char *key, int klen, int create)
{
	unsigned long h = siphash((const uint8_t *)key, (size_t)klen) & ((1 << 16) - 1);
	for (dictEntry *e = db[h]; e; e = e->next)
		if (e->klen == klen && memcmp(e->key, key, (size_t)klen) == 0)
			return e;
	if (!create)
		return NULL;
	dictEntry *e = calloc(1, sizeof *e);
	if (!e) { perror("calloc"); exit(1); }
	memcpy(e->key, key, (size_t)klen);
	e->klen = klen;
	e->next = db[h];
	db[h] = e;
	return e;
}

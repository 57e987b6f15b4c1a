/*
 * record_scan - libphenom-26 (facebookarchive/libphenom#26): the
 * application's store, a hash table of keys with the digest of each value
 * (the work a command does, in both kinds of runs).
 */
#include "record_scan.h"

struct kv_ent {
	uint64_t hash;
	uint64_t vdigest;
	uint64_t vlen;
	struct kv_ent *next;
};

static struct kv_ent **buckets;
static uint32_t nbuckets;
static uint64_t nsets, ngets;

static uint64_t fnv(const uint8_t *p, uint64_t len, uint64_t h)
{
	for (uint64_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

void kv_init(uint32_t n)
{
	nbuckets = n;
	buckets = calloc(n, sizeof(*buckets));
	if (!buckets) {
		perror("calloc");
		exit(1);
	}
}

static struct kv_ent *lookup(uint64_t h, bool create)
{
	struct kv_ent **pp = &buckets[h % nbuckets];
	for (struct kv_ent *e = *pp; e; e = e->next)
		if (e->hash == h)
			return e;
	if (!create)
		return NULL;
	struct kv_ent *e = calloc(1, sizeof(*e));
	if (!e) {
		perror("calloc");
		exit(1);
	}
	e->hash = h;
	e->next = *pp;
	*pp = e;
	return e;
}

uint64_t kv_set(const uint8_t *key, uint32_t klen, const uint8_t *val, uint64_t vlen)
{
	struct kv_ent *e = lookup(fnv(key, klen, 0xcbf29ce484222325ull), true);
	e->vdigest = fnv(val, vlen, 0xcbf29ce484222325ull);
	e->vlen = vlen;
	nsets++;
	return e->vdigest;
}

uint64_t kv_get(const uint8_t *key, uint32_t klen)
{
	struct kv_ent *e = lookup(fnv(key, klen, 0xcbf29ce484222325ull), false);
	ngets++;
	return e ? e->vdigest ^ e->vlen : 0;
}

uint64_t kv_checksum(void)
{
	uint64_t sum = nsets * 1000003 + ngets;
	for (uint32_t i = 0; i < nbuckets; i++)
		for (struct kv_ent *e = buckets[i]; e; e = e->next)
			sum += e->vdigest ^ (e->hash * 7) ^ e->vlen;
	return sum;
}

/*
 * slab_mover_spin (memcached-1239): assoc.c
 * The hash table: chained buckets, doubled when it holds 1.5 items a bucket
 * (memcached's assoc.c; expansion here is done at once, not by a thread).
 */
#include "memcached.h"

static unsigned int hashpower;
static item **primary_hashtable;
static uint64_t hash_items;

#define hashsize(n) ((uint64_t)1 << (n))
#define hashmask(n) (hashsize(n) - 1)

void assoc_init(int hashpower_init)
{
	hashpower = hashpower_init;
	primary_hashtable = calloc(hashsize(hashpower), sizeof(void *));
	if (!primary_hashtable) {
		fprintf(stderr, "Failed to init hashtable.\n");
		exit(1);
	}
	stats_state.hash_power_level = hashpower;
}

item *assoc_find(const char *key, size_t nkey, uint32_t hv)
{
	item *it = primary_hashtable[hv & hashmask(hashpower)];
	while (it) {
		if (nkey == it->nkey && memcmp(key, ITEM_key(it), nkey) == 0)
			return it;
		it = it->h_next;
	}
	return NULL;
}

static item **hashitem_before(const char *key, size_t nkey, uint32_t hv)
{
	item **pos = &primary_hashtable[hv & hashmask(hashpower)];
	while (*pos && (nkey != (*pos)->nkey || memcmp(key, ITEM_key(*pos), nkey)))
		pos = &(*pos)->h_next;
	return pos;
}

static void assoc_expand(void)
{
	unsigned int newpower = hashpower + 1;
	item **newtable = calloc(hashsize(newpower), sizeof(void *));
	if (!newtable)
		return;
	stats_state.hash_is_expanding = true;
	for (uint64_t b = 0; b < hashsize(hashpower); b++) {
		item *it = primary_hashtable[b];
		while (it) {
			item *next = it->h_next;
			uint32_t hv = MurmurHash3_x86_32(ITEM_key(it), it->nkey);
			uint64_t nb = hv & hashmask(newpower);
			it->h_next = newtable[nb];
			newtable[nb] = it;
			it = next;
		}
	}
	free(primary_hashtable);
	primary_hashtable = newtable;
	hashpower = newpower;
	stats_state.hash_power_level = hashpower;
	stats_state.hash_is_expanding = false;
}

int assoc_insert(item *it, uint32_t hv)
{
	uint64_t b = hv & hashmask(hashpower);
	it->h_next = primary_hashtable[b];
	primary_hashtable[b] = it;
	hash_items++;
	if (hash_items > (hashsize(hashpower) * 3) / 2)
		assoc_expand();
	return 1;
}

void assoc_delete(const char *key, size_t nkey, uint32_t hv)
{
	item **before = hashitem_before(key, nkey, hv);
	if (*before) {
		item *nxt = (*before)->h_next;
		(*before)->h_next = NULL;
		*before = nxt;
		hash_items--;
	}
}

/* The page mover moved an item to a new chunk: the chain points at the copy. */
bool assoc_replace(item *old_it, item *new_it, uint32_t hv)
{
	item **before = hashitem_before(ITEM_key(old_it), old_it->nkey, hv);
	if (*before != old_it)
		return false;
	new_it->h_next = old_it->h_next;
	*before = new_it;
	return true;
}

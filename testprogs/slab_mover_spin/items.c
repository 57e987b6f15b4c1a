/*
 * slab_mover_spin (memcached-1239): items.c
 * Items: allocation (evicting from the LRU tail when the class is out of memory),
 * linking into the hash table and the per-class LRU, reference counting, and the
 * statistics the slab automover reads.
 */
#include "memcached.h"

static item *heads[MAX_NUMBER_OF_SLAB_CLASSES];
static item *tails[MAX_NUMBER_OF_SLAB_CLASSES];
static unsigned int sizes[MAX_NUMBER_OF_SLAB_CLASSES];

typedef struct {
	uint64_t evicted;
	uint64_t evicted_nonzero;
	uint64_t reclaimed;
	uint64_t outofmemory;
	uint64_t expired_unfetched;
} itemstats_t;
static itemstats_t itemstats[MAX_NUMBER_OF_SLAB_CLASSES];

static size_t item_make_header(int nkey, int nbytes)
{
	return sizeof(item) + nkey + 1 + nbytes;
}

static void do_item_link_q(item *it)
{
	item **head = &heads[it->slabs_clsid], **tail = &tails[it->slabs_clsid];
	it->prev = NULL;
	it->next = *head;
	if (it->next)
		it->next->prev = it;
	*head = it;
	if (*tail == NULL)
		*tail = it;
	sizes[it->slabs_clsid]++;
}

static void do_item_unlink_q(item *it)
{
	item **head = &heads[it->slabs_clsid], **tail = &tails[it->slabs_clsid];
	if (*head == it)
		*head = it->next;
	if (*tail == it)
		*tail = it->prev;
	if (it->next)
		it->next->prev = it->prev;
	if (it->prev)
		it->prev->next = it->next;
	sizes[it->slabs_clsid]--;
}

item *lru_tail(unsigned int id)
{
	return tails[id];
}

item *lru_prev(item *it)
{
	return it->prev;
}

void item_free(item *it)
{
	size_t ntotal = ITEM_ntotal(it);
	unsigned int clsid = it->slabs_clsid;
	it->slabs_clsid = 0;
	slabs_free(it, ntotal, clsid);
}

/* Free up to a few items from the tail of the class's LRU: expired ones first. */
static int lru_pull_tail(unsigned int id)
{
	item *search = tails[id];
	int tries = 5;
	for (; tries > 0 && search != NULL; tries--, search = search->prev) {
		if (search->refcount != 1)
			continue;   /* a connection is using it */
		uint32_t hv = MurmurHash3_x86_32(ITEM_key(search), search->nkey);
		if (search->exptime != 0 && search->exptime < current_time) {
			itemstats[id].reclaimed++;
			stats.reclaimed++;
			if (!(search->it_flags & ITEM_FETCHED)) {
				itemstats[id].expired_unfetched++;
				stats.expired_unfetched++;
			}
		} else {
			itemstats[id].evicted++;
			if (search->exptime != 0)
				itemstats[id].evicted_nonzero++;
			stats.evictions++;
		}
		do_item_unlink(search, hv);
		return 1;
	}
	return 0;
}

item *do_item_alloc(const char *key, size_t nkey, uint32_t flags, rel_time_t exptime, int nbytes)
{
	size_t ntotal = item_make_header(nkey, nbytes);
	unsigned int id = slabs_clsid(ntotal);
	item *it = NULL;

	if (id == 0)
		return NULL;
	for (int i = 0; i < 10; i++) {
		it = slabs_alloc(ntotal, id);
		if (it != NULL)
			break;
		if (lru_pull_tail(id) == 0)
			break;
	}
	if (it == NULL) {
		itemstats[id].outofmemory++;
		return NULL;
	}
	it->next = it->prev = it->h_next = NULL;
	it->slabs_clsid = id;
	it->it_flags = 0;
	it->nkey = nkey;
	it->nbytes = nbytes;
	it->flags = flags;
	it->exptime = exptime;
	memcpy(ITEM_key(it), key, nkey);
	ITEM_key(it)[nkey] = '\0';
	return it;
}

int do_item_link(item *it, uint32_t hv)
{
	it->it_flags |= ITEM_LINKED;
	it->time = current_time;
	stats_state.curr_items++;
	assoc_insert(it, hv);
	do_item_link_q(it);
	it->refcount++;
	return 1;
}

void do_item_remove(item *it)
{
	if (it->refcount != 0 && --it->refcount == 0)
		item_free(it);
}

void do_item_unlink(item *it, uint32_t hv)
{
	if (it->it_flags & ITEM_LINKED) {
		it->it_flags &= ~ITEM_LINKED;
		stats_state.curr_items--;
		assoc_delete(ITEM_key(it), it->nkey, hv);
		do_item_unlink_q(it);
		do_item_remove(it);
	}
}

/* The page mover copied old_it to new_it: hash chain and LRU point at the copy. */
void do_item_relink_rescued(item *old_it, item *new_it, uint32_t hv)
{
	assoc_replace(old_it, new_it, hv);
	new_it->next = old_it->next;
	new_it->prev = old_it->prev;
	if (new_it->next)
		new_it->next->prev = new_it;
	else
		tails[new_it->slabs_clsid] = new_it;
	if (new_it->prev)
		new_it->prev->next = new_it;
	else
		heads[new_it->slabs_clsid] = new_it;
	new_it->refcount = 1;   /* the link's reference */
}

static void do_item_bump(item *it)
{
	if (it->time < current_time - ITEM_UPDATE_INTERVAL) {
		do_item_unlink_q(it);
		it->time = current_time;
		do_item_link_q(it);
	}
}

item *do_item_get(const char *key, size_t nkey, uint32_t hv)
{
	item *it = assoc_find(key, nkey, hv);
	if (it == NULL)
		return NULL;
	it->refcount++;
	if (it->exptime != 0 && it->exptime <= current_time) {
		do_item_unlink(it, hv);
		do_item_remove(it);
		stats.get_expired++;
		return NULL;
	}
	it->it_flags |= ITEM_FETCHED;
	do_item_bump(it);
	return it;
}

void fill_item_stats_automove(item_stats_automove *am)
{
	for (int n = 1; n < MAX_NUMBER_OF_SLAB_CLASSES; n++) {
		am[n].evicted = itemstats[n].evicted;
		am[n].outofmemory = itemstats[n].outofmemory;
		am[n].age = tails[n] ? current_time - tails[n]->time : 0;
	}
}

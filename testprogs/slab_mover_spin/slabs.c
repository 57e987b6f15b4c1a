/*
 * slab_mover_spin (memcached-1239): slabs.c
 * The slab allocator (pages cut into chunks of one size per class, a freelist per
 * class, a global pool of unassigned pages) and the steps of a page move:
 * slab_rebalance_start() picks a page of the source class, slab_rebalance_move()
 * walks its chunks, rescuing live items into other chunks of the class, and
 * slab_rebalance_finish() hands the empty page to the destination class. The
 * mover that drives them is in slabs_mover.c.
 */
#include "memcached.h"

typedef struct {
	unsigned int size;          /* chunk size */
	unsigned int perslab;       /* chunks per page */
	item *slots;                /* freelist */
	unsigned int sl_curr;       /* free chunks */
	unsigned int slabs;         /* pages */
	char **slab_list;
	unsigned int list_size;
	size_t requested;
} slabclass_t;

static slabclass_t slabclass[MAX_NUMBER_OF_SLAB_CLASSES];
static size_t mem_limit;
static size_t mem_malloced;
static int power_largest;

struct slab_rebalance slab_rebal;
volatile int slab_rebalance_signal;

void slabs_init(size_t limit, double factor)
{
	int i = POWER_SMALLEST - 1;
	unsigned int size = sizeof(item) + settings.chunk_size;

	mem_limit = limit;
	memset(slabclass, 0, sizeof(slabclass));
	while (++i < MAX_NUMBER_OF_SLAB_CLASSES - 1) {
		if (size % CHUNK_ALIGN_BYTES)
			size += CHUNK_ALIGN_BYTES - (size % CHUNK_ALIGN_BYTES);
		if (size > (unsigned int)settings.slab_page_size / 2)
			break;
		slabclass[i].size = size;
		slabclass[i].perslab = settings.slab_page_size / slabclass[i].size;
		size *= factor;
	}
	power_largest = i;
	slabclass[power_largest].size = settings.slab_page_size;
	slabclass[power_largest].perslab = 1;
}

unsigned int slabs_clsid(size_t size)
{
	int res = POWER_SMALLEST;
	if (size == 0 || size > (size_t)settings.item_size_max)
		return 0;
	while (size > slabclass[res].size)
		if (res++ == power_largest)
			return power_largest;
	return res;
}

static int grow_slab_list(unsigned int id)
{
	slabclass_t *p = &slabclass[id];
	if (p->slabs == p->list_size) {
		size_t new_size = p->list_size ? p->list_size * 2 : 16;
		char **new_list = realloc(p->slab_list, new_size * sizeof(void *));
		if (!new_list)
			return 0;
		p->list_size = new_size;
		p->slab_list = new_list;
	}
	return 1;
}

static void do_slabs_free(void *ptr, unsigned int id)
{
	slabclass_t *p = &slabclass[id];
	item *it = (item *)ptr;
	it->it_flags = ITEM_SLABBED;
	it->slabs_clsid = id;
	it->prev = NULL;
	it->next = p->slots;
	if (it->next)
		it->next->prev = it;
	p->slots = it;
	p->sl_curr++;
}

static void split_slab_page_into_freelist(char *ptr, unsigned int id)
{
	slabclass_t *p = &slabclass[id];
	for (unsigned int x = 0; x < p->perslab; x++) {
		do_slabs_free(ptr, id);
		ptr += p->size;
	}
}

/* A page from the global pool, else a new one while under the memory limit. */
static char *get_page_from_global_pool(void)
{
	slabclass_t *p = &slabclass[SLAB_GLOBAL_PAGE_POOL];
	if (p->slabs < 1)
		return NULL;
	char *ret = p->slab_list[p->slabs - 1];
	p->slabs--;
	return ret;
}

static int do_slabs_newslab(unsigned int id)
{
	slabclass_t *p = &slabclass[id];
	int len = settings.slab_page_size;
	char *ptr;

	if ((mem_limit && mem_malloced + len > mem_limit && p->slabs > 0 &&
	     slabclass[SLAB_GLOBAL_PAGE_POOL].slabs == 0) || grow_slab_list(id) == 0)
		return 0;
	ptr = get_page_from_global_pool();
	if (ptr == NULL) {
		if (mem_limit && mem_malloced + len > mem_limit)
			return 0;
		ptr = malloc(len);
		if (ptr == NULL)
			return 0;
		mem_malloced += len;
	}
	memset(ptr, 0, len);
	split_slab_page_into_freelist(ptr, id);
	p->slab_list[p->slabs++] = ptr;
	return 1;
}

void *slabs_alloc(size_t size, unsigned int id)
{
	slabclass_t *p;
	item *it;

	if (id < POWER_SMALLEST || (int)id > power_largest)
		return NULL;
	p = &slabclass[id];
	if (p->sl_curr == 0 && do_slabs_newslab(id) == 0)
		return NULL;
	it = p->slots;
	p->slots = it->next;
	if (it->next)
		it->next->prev = NULL;
	it->it_flags &= ~ITEM_SLABBED;
	it->refcount = 1;
	p->sl_curr--;
	p->requested += size;
	return it;
}

void slabs_free(void *ptr, size_t size, unsigned int id)
{
	if (id < POWER_SMALLEST || (int)id > power_largest)
		return;
	slabclass[id].requested -= size;
	do_slabs_free(ptr, id);
}

void fill_slab_stats_automove(slab_stats_automove *am)
{
	for (int n = 0; n < MAX_NUMBER_OF_SLAB_CLASSES; n++) {
		slabclass_t *p = &slabclass[n];
		am[n].chunks_per_page = p->perslab;
		am[n].chunk_size = p->size;
		am[n].free_chunks = p->sl_curr;
		am[n].total_pages = p->slabs;
	}
}

int slab_rebalance_start(void)
{
	slabclass_t *s_cls;
	int no_go = 0;

	if (slab_rebal.s_clsid < SLAB_GLOBAL_PAGE_POOL || slab_rebal.s_clsid > power_largest ||
	    slab_rebal.d_clsid < SLAB_GLOBAL_PAGE_POOL || slab_rebal.d_clsid > power_largest ||
	    slab_rebal.s_clsid == slab_rebal.d_clsid)
		no_go = -2;
	s_cls = &slabclass[slab_rebal.s_clsid];
	if (!no_go && !grow_slab_list(slab_rebal.d_clsid))
		no_go = -1;
	if (!no_go && s_cls->slabs < 2)
		no_go = -3;
	if (no_go != 0)
		return no_go;

	/* the oldest page of the class */
	slab_rebal.slab_start = s_cls->slab_list[0];
	slab_rebal.slab_end = slab_rebal.slab_start + (s_cls->size * s_cls->perslab);
	slab_rebal.slab_pos = slab_rebal.slab_start;
	slab_rebal.done = 0;
	slab_rebal.busy_loops = 0;
	slab_rebal.last_busy_items = 0;
	slab_rebalance_signal = 2;
	stats_state.slab_reassign_running = true;
	return 0;
}

/* A chunk to rescue an item into, not on the page being moved. */
static item *slab_rebalance_alloc(size_t size, unsigned int id)
{
	slabclass_t *s_cls = &slabclass[id];
	item *new_it = NULL;
	for (unsigned int x = 0; x < s_cls->perslab; x++) {
		new_it = slabs_alloc(size, id);
		if (new_it == NULL)
			break;
		if ((char *)new_it >= slab_rebal.slab_start && (char *)new_it < slab_rebal.slab_end) {
			/* on the page being moved: leave it marked free for the walk */
			new_it->refcount = 0;
			new_it->it_flags = ITEM_SLABBED | ITEM_FETCHED;
			new_it = NULL;
			continue;
		}
		break;
	}
	return new_it;
}

/*
 * One pass over the page: every chunk is looked at. A free chunk is taken off the
 * freelist; a linked, unreferenced item is copied into another chunk of the class
 * (or evicted when there is none); an item a connection still references is busy
 * and stays. Returns the number of busy items: the pass is done again later.
 */
int slab_rebalance_move(void)
{
	slabclass_t *s_cls = &slabclass[slab_rebal.s_clsid];
	int was_busy = 0;

	slab_rebal.busy_items = 0;
	stats.slab_reassign_passes++;
	for (slab_rebal.slab_pos = slab_rebal.slab_start; slab_rebal.slab_pos < slab_rebal.slab_end;
	     slab_rebal.slab_pos += s_cls->size) {
		item *it = (item *)slab_rebal.slab_pos;
		if (it->it_flags & ITEM_SLABBED) {
			if (!(it->it_flags & ITEM_FETCHED)) {
				/* take it off the freelist for good */
				if (s_cls->slots == it)
					s_cls->slots = it->next;
				if (it->next)
					it->next->prev = it->prev;
				if (it->prev)
					it->prev->next = it->next;
				s_cls->sl_curr--;
				it->it_flags = ITEM_SLABBED | ITEM_FETCHED;
			}
			continue;
		}
		if (!(it->it_flags & ITEM_LINKED)) {
			if (it->refcount == 0)
				it->it_flags = ITEM_SLABBED | ITEM_FETCHED;
			else
				slab_rebal.busy_items++;
			continue;
		}
		uint32_t hv = MurmurHash3_x86_32(ITEM_key(it), it->nkey);
		if (it->refcount > 1) {
			/* a connection is still sending it */
			slab_rebal.busy_items++;
			stats.slab_reassign_busy_items++;
			if (slab_rebal.busy_loops > settings.slab_move_max_loops) {
				/* give up on it: no new references; freed on release */
				do_item_unlink(it, hv);
			}
			continue;
		}
		size_t ntotal = ITEM_ntotal(it);
		bool expired = it->exptime != 0 && it->exptime <= current_time;
		item *new_it = expired ? NULL : slab_rebalance_alloc(ntotal, slab_rebal.s_clsid);
		if (new_it) {
			memcpy(new_it, it, ntotal);
			new_it->refcount = 0;
			new_it->it_flags = ITEM_LINKED;
			do_item_relink_rescued(it, new_it, hv);
			slab_rebal.rescues++;
			stats.slab_reassign_rescues++;
		} else {
			it->refcount = 2;   /* unlinked, not freed: the chunk is being moved */
			do_item_unlink(it, hv);
			if (!expired) {
				slab_rebal.evictions_nomem++;
				stats.slab_reassign_evictions++;
			}
		}
		it->refcount = 0;
		it->it_flags = ITEM_SLABBED | ITEM_FETCHED;
	}
	was_busy = slab_rebal.busy_items;
	if (was_busy)
		slab_rebal.busy_loops++;
	else
		slab_rebal.done = 1;
	return was_busy;
}

void slab_rebalance_finish(void)
{
	slabclass_t *s_cls = &slabclass[slab_rebal.s_clsid];
	slabclass_t *d_cls = &slabclass[slab_rebal.d_clsid];

	/* drop the page from the source class */
	for (unsigned int x = 0; x < s_cls->slabs; x++)
		if (s_cls->slab_list[x] == slab_rebal.slab_start) {
			s_cls->slab_list[x] = s_cls->slab_list[s_cls->slabs - 1];
			s_cls->slabs--;
			break;
		}
	memset(slab_rebal.slab_start, 0, settings.slab_page_size);
	d_cls->slab_list[d_cls->slabs++] = slab_rebal.slab_start;
	if (slab_rebal.d_clsid > SLAB_GLOBAL_PAGE_POOL)
		split_slab_page_into_freelist(slab_rebal.slab_start, slab_rebal.d_clsid);

	slab_rebal.slab_start = NULL;
	slab_rebal.slab_end = NULL;
	slab_rebal.slab_pos = NULL;
	slab_rebal.done = 0;
	slab_rebal.rescues = 0;
	slab_rebal.evictions_nomem = 0;
	slab_rebalance_signal = 0;
	stats.slabs_moved++;
	stats_state.slab_reassign_running = false;
}


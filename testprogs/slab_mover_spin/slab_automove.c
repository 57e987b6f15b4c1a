/*
 * slab_mover_spin (memcached-1239): slab_automove.c
 * The automover (memcached's slab_automove.c, "-o slab_automove=1"): once a second it
 * compares each class's free memory, evictions and LRU tail age over a window of
 * seconds, and asks the page mover to return a page that stayed free too long to
 * the global pool, or to move a page from the class with the oldest items to the
 * one evicting the youngest.
 */
#include "memcached.h"

#define MIN_PAGES_FOR_SOURCE 2
#define MIN_PAGES_FOR_RECLAIM 2.5

struct window_data {
	uint64_t age;
	uint64_t dirty;
	uint64_t evicted;
};

typedef struct {
	struct window_data *window_data;
	uint32_t window_size;
	uint32_t window_cur;
	double max_age_ratio;
	item_stats_automove iam_before[MAX_NUMBER_OF_SLAB_CLASSES];
	item_stats_automove iam_after[MAX_NUMBER_OF_SLAB_CLASSES];
	slab_stats_automove sam_before[MAX_NUMBER_OF_SLAB_CLASSES];
	slab_stats_automove sam_after[MAX_NUMBER_OF_SLAB_CLASSES];
} slab_automove;

void *slab_automove_init(struct settings *s)
{
	slab_automove *a = calloc(1, sizeof(slab_automove));
	if (a == NULL)
		return NULL;
	a->window_size = s->slab_automove_window;
	a->max_age_ratio = s->slab_automove_ratio;
	a->window_data = calloc(a->window_size * MAX_NUMBER_OF_SLAB_CLASSES, sizeof(struct window_data));
	if (a->window_data == NULL) {
		free(a);
		return NULL;
	}
	fill_item_stats_automove(a->iam_after);
	fill_slab_stats_automove(a->sam_after);
	return a;
}

static void window_sum(struct window_data *wd, struct window_data *w, uint32_t size)
{
	for (uint32_t x = 0; x < size; x++) {
		struct window_data *d = &wd[x];
		w->age += d->age;
		w->dirty += d->dirty;
		w->evicted += d->evicted;
	}
}

void slab_automove_run(void *arg, int *src, int *dst)
{
	slab_automove *a = (slab_automove *)arg;
	int n;
	struct window_data w_sum;
	int oldest = -1;
	uint64_t oldest_age = 0;
	int youngest = -1;
	uint64_t youngest_age = ~0ULL;

	*src = -1;
	*dst = -1;
	memcpy(a->iam_before, a->iam_after, sizeof(item_stats_automove) * MAX_NUMBER_OF_SLAB_CLASSES);
	memcpy(a->sam_before, a->sam_after, sizeof(slab_stats_automove) * MAX_NUMBER_OF_SLAB_CLASSES);
	fill_item_stats_automove(a->iam_after);
	fill_slab_stats_automove(a->sam_after);
	a->window_cur++;

	for (n = POWER_SMALLEST; n < MAX_NUMBER_OF_SLAB_CLASSES; n++) {
		struct window_data *wd = &a->window_data[n * a->window_size + a->window_cur % a->window_size];
		memset(wd, 0, sizeof(*wd));
		if (a->iam_after[n].evicted - a->iam_before[n].evicted > 0 ||
		    a->iam_after[n].outofmemory - a->iam_before[n].outofmemory > 0) {
			wd->evicted = 1;
			wd->dirty = 1;
		}
		if (a->sam_after[n].total_pages - a->sam_before[n].total_pages > 0)
			wd->dirty = 1;
		wd->age = a->iam_after[n].age;

		memset(&w_sum, 0, sizeof(w_sum));
		window_sum(&a->window_data[n * a->window_size], &w_sum, a->window_size);
		uint64_t age = w_sum.age / a->window_size;

		/* free memory that stayed free for the whole window goes back to the pool */
		if (a->sam_after[n].free_chunks > a->sam_after[n].chunks_per_page * MIN_PAGES_FOR_RECLAIM &&
		    a->sam_after[n].total_pages > MIN_PAGES_FOR_SOURCE && w_sum.dirty == 0) {
			*src = n;
			*dst = SLAB_GLOBAL_PAGE_POOL;
			break;
		}
		if (age > oldest_age && a->sam_after[n].total_pages > MIN_PAGES_FOR_SOURCE) {
			oldest = n;
			oldest_age = age;
		}
		if (age < youngest_age && a->sam_after[n].total_pages != 0 &&
		    w_sum.evicted > a->window_size / 2) {
			youngest = n;
			youngest_age = age;
		}
	}
	if (*src == -1 && youngest != -1 && oldest != -1 && youngest != oldest &&
	    a->iam_after[youngest].age < a->iam_after[oldest].age * a->max_age_ratio) {
		*src = oldest;
		*dst = youngest;
	}
	if (*src != -1)
		slabs_reassign(*src, *dst);
}

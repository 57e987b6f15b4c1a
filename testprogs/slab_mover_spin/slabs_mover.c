/*
 * slab_mover_spin (memcached-1239): slabs_mover.c
 * The page mover (memcached 1.6's slabs_mover.c; slab_rebalance_thread before it):
 * takes the automover's requests (slabs_reassign) and drives a page move with the
 * steps of slabs.c. In memcached it is a thread that sleeps with a back-off while
 * items on the page are busy (referenced by a connection still sending them); here
 * it is an event the event loop runs after each iteration, backing off by
 * iterations.
 */
#include "memcached.h"

static unsigned long mover_wakeup;      /* loop iteration the mover sleeps until */
static unsigned int backoff_iters;

#define BACKOFF_MIN 1
#define BACKOFF_MAX 64

int slabs_reassign(int src, int dst)
{
	if (slab_rebalance_signal != 0)
		return -1;   /* REASSIGN_RUNNING */
	slab_rebal.s_clsid = src;
	slab_rebal.d_clsid = dst;
	slab_rebalance_signal = 1;
	mover_wakeup = 0;
	backoff_iters = BACKOFF_MIN;
	return 0;
}

bool slab_rebalance_pending(void)
{
	return slab_rebalance_signal != 0;
}

/*
 * The page mover's turn, after every event-loop iteration (the body of memcached's
 * slab_rebalance_thread loop): start a requested move, make a pass over the page,
 * finish it, or, while items on the page are busy, sleep (back off) before the
 * next pass so the connections holding them can finish sending.
 */
void slab_rebalance_event(unsigned long loop_iter)
{
	int was_busy = 0;
	/* the page, for the log: its address bits differ from run to run */
	unsigned int page_id = (unsigned int)(((uintptr_t)slab_rebal.slab_start >> 12) & 0xfffff);

	if (slab_rebalance_signal == 0 || loop_iter < mover_wakeup)
		return;
	if (slab_rebalance_signal == 1) {
		if (slab_rebalance_start() < 0) {
			slab_rebalance_signal = 0;
			return;
		}
	} else if (slab_rebal.slab_start != NULL) {
		was_busy = slab_rebalance_move();
	}

	if (slab_rebal.done) {
		slab_rebalance_finish();
		backoff_iters = BACKOFF_MIN;
	} else if (was_busy) {
		/* ROOT CAUSE: the back-off only ramps up while more items get stuck; items that
		 * stay busy (a slow client holding them) keep the count flat, the sleep stays
		 * at its minimum and the whole page is walked again at every iteration. */
		if (slab_rebal.busy_items > slab_rebal.last_busy_items) {
			backoff_iters *= 2;
			if (backoff_iters > BACKOFF_MAX)
				backoff_iters = BACKOFF_MAX;
		} else {
			backoff_iters = BACKOFF_MIN;
		}
		slab_rebal.last_busy_items = slab_rebal.busy_items;
		mover_wakeup = loop_iter + backoff_iters;
		if (settings.verbose > 1)
			fprintf(stderr, "slab mover: page %05x of class %d: %u busy, sleeping %u\n",
				page_id, slab_rebal.s_clsid, slab_rebal.busy_items, backoff_iters);
	}
}

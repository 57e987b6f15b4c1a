/*
 * record_scan - libphenom-26 (facebookarchive/libphenom#26): corelib/nbio,
 * the event loop. Each turn dispatches every session that has bytes
 * waiting, one read each, round robin, until all peers are done.
 */
#include "record_scan.h"

void ph_nbio_run(ph_sock_t *socks, int nsocks)
{
	int open = nsocks;
	uint64_t turns = 0;
	while (open > 0) {
		open = 0;
		for (int i = 0; i < nsocks; i++) {
			ph_sock_t *s = &socks[i];
			if (s->closed)
				continue;
			if (s->stream.pos == s->stream.len) {
				s->closed = true;
				continue;
			}
			ph_sock_on_readable(s);
			open++;
		}
		turns++;
	}
	(void)turns;
}

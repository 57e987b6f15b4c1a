/*
 * lru_scan (MDEV-23399): row0sel.c
 * Row search (storage/innobase/row/row0sel.cc).
 */
#include "lru_scan.h"

/* Searches the page's records for the key: hashes every record (the row format's
 * field offsets are computed for each, as rec_get_offsets() does). */
EXTERN_FN uint64_t row_search_on_page(const byte *frame, uint64_t key)
{
	uint64_t best = 0;
	for (int r = 0; r < (PAGE_SIZE - PAGE_HDR) / REC_SIZE; r++) {
		const byte *rec = frame + PAGE_HDR + r * REC_SIZE;
		uint64_t h = 0xcbf29ce484222325ull;
		for (int i = 0; i < REC_SIZE; i++)
			h = (h ^ rec[i]) * 0x100000001b3ull;
		if ((h ^ key) > best)
			best = h ^ key;
	}
	return best;
}

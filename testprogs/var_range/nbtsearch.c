/*
 * var_range (Postgres-17330): nbtsearch.c
 * The btree's leaf pages (access/nbtree/nbtsearch.c).
 */
#include "postgres.h"

BTPage *btree;                  /* leaf pages in key order */
int n_pages;

/* Reads one leaf page into the scan position (copying its items), keeping the
 * items within [lo, hi]. */
EXTERN_FN int _bt_readpage(BTScanPos *pos, int page, int64_t lo, int64_t hi)
{
	const BTPage *p = &btree[page];
	int n = 0;
	for (int i = 0; i < p->nitems; i++) {
		/* _bt_checkkeys */
		if (p->items[i].key < lo || p->items[i].key > hi)
			continue;
		memcpy(&pos->items[n++], &p->items[i], sizeof(IndexTuple));
	}
	pos->page = page;
	pos->nitems = n;
	return n;
}

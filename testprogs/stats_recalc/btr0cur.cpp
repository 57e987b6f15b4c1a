/*
 * stats_recalc (MySQL-98546): btr0cur.cpp
 * The index trees (storage/innobase/btr/btr0cur.cc, btr0btr.cc, page0cur.cc),
 * reduced to their leaf level: a list of leaf pages in key order, each an
 * array of fixed-size records; insert with page split, delete with page
 * merge into the free list, and btr_get_size().
 */
#include "stats_recalc.h"

static inline ulint page_get_n_recs(const byte *page)
{
	return mach_read_from_4(page + PAGE_N_RECS);
}
static inline void page_set_n_recs(byte *page, ulint n)
{
	mach_write_to_4(page + PAGE_N_RECS, (uint32_t)n);
}
static inline byte *page_rec(byte *page, const dict_index_t *index, ulint i)
{
	return page + PAGE_DATA + i * index->rec_size;
}

void btr_bulk_load(dict_index_t *index, std::vector<std::vector<byte>> &recs)
{
	ulint per_page = index->recs_per_page() * 15 / 16;	/* innodb_fill_factor */
	buf_block_t *block = nullptr;
	ulint n = 0;
	for (auto &r : recs) {
		if (!block || n == per_page) {
			if (block)
				page_set_n_recs(block->frame.data(), n);
			block = buf_pool.alloc_page();
			index->leaves.push_back(block->page_no);
			n = 0;
		}
		memcpy(page_rec(block->frame.data(), index, n++), r.data(), index->rec_size);
	}
	if (block)
		page_set_n_recs(block->frame.data(), n);
	if (index->leaves.empty())
		index->leaves.push_back(buf_pool.alloc_page()->page_no);
}

/* btr_cur_search_to_nth_level(): the leaf page (by its position in leaves)
that holds or would hold rec */
static ulint btr_search_leaf(dict_index_t *index, const byte *rec)
{
	ulint lo = 0, hi = index->leaves.size();
	while (hi - lo > 1) {
		ulint mid = (lo + hi) / 2;
		byte *page = buf_pool.page_get(index->leaves[mid]);
		if (page_get_n_recs(page) == 0 || cmp_rec_rec(index, page_rec(page, index, 0), rec, nullptr) <= 0)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* page_cur_search_with_match(): the first record >= rec */
static ulint page_cur_search(dict_index_t *index, byte *page, const byte *rec, bool *found)
{
	ulint lo = 0, hi = page_get_n_recs(page);
	*found = false;
	while (lo < hi) {
		ulint mid = (lo + hi) / 2;
		int c = cmp_rec_rec(index, page_rec(page, index, mid), rec, nullptr);
		if (c < 0) {
			lo = mid + 1;
		} else {
			if (c == 0)
				*found = true;
			hi = mid;
		}
	}
	return lo;
}

/* btr_page_split_and_insert(): move the upper half to a new right sibling */
static void btr_page_split(dict_index_t *index, ulint pos, lsn_t lsn)
{
	byte *page = buf_pool.page_get(index->leaves[pos]);
	ulint n = page_get_n_recs(page), half = n / 2;
	buf_block_t *right = buf_pool.alloc_page();
	memcpy(page_rec(right->frame.data(), index, 0), page_rec(page, index, half), (n - half) * index->rec_size);
	page_set_n_recs(right->frame.data(), n - half);
	page_set_n_recs(page, half);
	index->leaves.insert(index->leaves.begin() + pos + 1, right->page_no);
	buf_pool.modify(index->leaves[pos], lsn);
	buf_pool.modify(right->page_no, lsn);
}

bool btr_insert(dict_index_t *index, const byte *rec, lsn_t lsn)
{
	ulint pos = btr_search_leaf(index, rec);
	byte *page = buf_pool.page_get(index->leaves[pos]);
	if (page_get_n_recs(page) >= index->recs_per_page()) {
		btr_page_split(index, pos, lsn);
		pos = btr_search_leaf(index, rec);
		page = buf_pool.page_get(index->leaves[pos]);
	}
	bool found;
	ulint i = page_cur_search(index, page, rec, &found);
	if (found)
		return false;	/* DB_DUPLICATE_KEY */
	ulint n = page_get_n_recs(page);
	memmove(page_rec(page, index, i + 1), page_rec(page, index, i), (n - i) * index->rec_size);
	memcpy(page_rec(page, index, i), rec, index->rec_size);
	page_set_n_recs(page, n + 1);
	buf_pool.modify(index->leaves[pos], lsn);
	return true;
}

bool btr_delete(dict_index_t *index, const byte *rec, lsn_t lsn)
{
	ulint pos = btr_search_leaf(index, rec);
	byte *page = buf_pool.page_get(index->leaves[pos]);
	bool found;
	ulint i = page_cur_search(index, page, rec, &found);
	if (!found)
		return false;
	ulint n = page_get_n_recs(page);
	memmove(page_rec(page, index, i), page_rec(page, index, i + 1), (n - i - 1) * index->rec_size);
	page_set_n_recs(page, n - 1);
	if (n - 1 == 0 && index->leaves.size() > 1) {
		/* btr_discard_page() */
		buf_pool.free_page(index->leaves[pos]);
		index->leaves.erase(index->leaves.begin() + pos);
	} else {
		buf_pool.modify(index->leaves[pos], lsn);
	}
	return true;
}

const byte *btr_search_pk(dict_index_t *index, uint64_t id)
{
	byte key[ROW_LEN];
	memset(key, 0, sizeof key);
	mach_write_to_8(key, id);
	ulint pos = btr_search_leaf(index, key);
	byte *page = buf_pool.page_get(index->leaves[pos]);
	bool found;
	ulint i = page_cur_search(index, page, key, &found);
	return found ? page_rec(page, index, i) : nullptr;
}

/* btr_cur_update_in_place(): overwrite the clustered index record */
bool btr_update_in_place(dict_index_t *index, uint64_t id, const byte *row, lsn_t lsn)
{
	byte key[ROW_LEN];
	memset(key, 0, sizeof key);
	mach_write_to_8(key, id);
	ulint pos = btr_search_leaf(index, key);
	byte *page = buf_pool.page_get(index->leaves[pos]);
	bool found;
	ulint i = page_cur_search(index, page, key, &found);
	if (!found)
		return false;
	memcpy(page_rec(page, index, i), row, index->rec_size);
	buf_pool.modify(index->leaves[pos], lsn);
	return true;
}

/* btr_get_size(BTR_TOTAL_SIZE): the pages the index occupies (the leaf
level and, one per hundred leaves, the node pointer levels above) */
ulint btr_get_size(const dict_index_t *index)
{
	ulint n_leaf = index->leaves.size();
	return n_leaf + n_leaf / 100 + 1;
}

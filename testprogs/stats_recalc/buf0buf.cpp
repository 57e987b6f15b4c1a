/*
 * stats_recalc (MySQL-98546): buf0buf.cpp
 * The buffer pool (storage/innobase/buf/buf0buf.cc, buf0flu.cc): page
 * allocation, the flush list, and the page cleaner's batch, which stamps
 * each dirty page with its LSN and CRC-32C checksum before the write.
 */
#include "stats_recalc.h"

buf_pool_t buf_pool;

buf_block_t *buf_pool_t::alloc_page()
{
	buf_block_t *block;
	if (!free_list.empty()) {
		page_no_t no = free_list.back();
		free_list.pop_back();
		block = blocks[no].get();
	} else {
		page_no_t no = (page_no_t)blocks.size();
		blocks.emplace_back(new buf_block_t(no));
		block = blocks.back().get();
	}
	byte *frame = block->frame.data();
	memset(frame, 0, PAGE_DATA);
	mach_write_to_4(frame + FIL_PAGE_OFFSET, block->page_no);
	return block;
}

void buf_pool_t::free_page(page_no_t no)
{
	buf_block_t *block = blocks[no].get();
	if (block->dirty) {
		for (auto it = flush_list.begin(); it != flush_list.end(); ++it)
			if (*it == block) {
				flush_list.erase(it);
				break;
			}
		block->dirty = false;
	}
	free_list.push_back(no);
}

void buf_pool_t::modify(page_no_t no, lsn_t lsn)
{
	buf_block_t *block = blocks[no].get();
	mach_write_to_8(block->frame.data() + FIL_PAGE_LSN, lsn);
	if (!block->dirty) {
		block->dirty = true;
		block->oldest_modification = lsn;
		flush_list.push_back(block);
	}
}

/* buf_flush_init_for_writing(): the checksum of the whole page, as
innodb_checksum_algorithm=crc32 computes it on every page write */
static uint32_t buf_flush_init_for_writing(byte *frame)
{
	uint32_t checksum = ut_crc32(frame + FIL_PAGE_OFFSET, FIL_PAGE_LSN - FIL_PAGE_OFFSET) ^
			    ut_crc32(frame + PAGE_DATA - 12, UNIV_PAGE_SIZE - PAGE_DATA + 12 - FIL_PAGE_DATA_END);
	mach_write_to_4(frame + FIL_PAGE_SPACE_OR_CHKSUM, checksum);
	mach_write_to_4(frame + UNIV_PAGE_SIZE - FIL_PAGE_DATA_END, checksum);
	mach_write_to_4(frame + UNIV_PAGE_SIZE - 4, (uint32_t)mach_read_from_8(frame + FIL_PAGE_LSN));
	return checksum;
}

ulint buf_pool_t::flush_list_batch(ulint max_n)
{
	ulint n = 0;
	while (n < max_n && !flush_list.empty()) {
		buf_block_t *block = flush_list.front();
		flush_list.pop_front();
		block->dirty = false;
		flush_checksum = flush_checksum * 31 + buf_flush_init_for_writing(block->frame.data());
		n++;
	}
	n_flushed += n;
	n_pages_written += n;
	return n;
}

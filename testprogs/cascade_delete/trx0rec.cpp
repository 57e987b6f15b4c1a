/*
 * cascade_delete (MDEV-13498): trx0rec.cpp
 * Undo log records (storage/innobase/trx/trx0rec.cc).
 */
#include "cascade_delete.h"

namespace innodb {

/* Writes the row to the undo log (trx_undo_report_row_operation()). */
void trx_undo_t::report_row_operation(const rec_t &rec, trx_id_t trx)
{
	unsigned char buf[512];
	size_t n = 0;
	auto put = [&](const void *p, size_t len) {
		if (n + len > sizeof buf)
			len = sizeof buf - n;
		memcpy(buf + n, p, len);
		n += len;
	};
	put(&rec.id, sizeof rec.id);
	put(&rec.parent_id, sizeof rec.parent_id);
	put(&trx, sizeof trx);
	put(rec.name.data(), rec.name.size());
	put(rec.email.data(), rec.email.size());
	put(rec.city.data(), rec.city.size());
	put(rec.phone.data(), rec.phone.size());
	/* the undo page is logged in the redo log: the record and the page image */
	checksum_ ^= ut_crc32(buf, n);
	memcpy(page_ + page_used_, buf, n);
	page_used_ += n;
	if (page_used_ > sizeof page_ - 512) {
		checksum_ ^= ut_crc32(page_, page_used_);
		page_used_ = 0;
	}
	n_recs_++;
}

}  // namespace innodb

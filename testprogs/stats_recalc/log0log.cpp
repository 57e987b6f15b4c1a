/*
 * stats_recalc (MySQL-98546): log0log.cpp
 * The redo log buffer (storage/innobase/log/log0log.cc): records are copied
 * into 512-byte log blocks; a full block gets its header and CRC-32C
 * checksum (log_block_calc_checksum_crc32) before it is written.
 */
#include "stats_recalc.h"

static const ulint OS_FILE_LOG_BLOCK_SIZE = 512;
static const ulint LOG_BLOCK_HDR_SIZE = 12;
static const ulint LOG_BLOCK_TRL_SIZE = 4;
static const ulint LOG_BUFFER_SIZE = 1 << 20;

struct log_t {
	std::vector<byte> buf;
	ulint buf_free;
	lsn_t lsn;
	ulint n_log_ios;
	log_t() : buf(LOG_BUFFER_SIZE), buf_free(0), lsn(8192), n_log_ios(0) {}
};
static log_t log_sys;
uint64_t log_block_checksums;

static void log_block_close(byte *block, lsn_t lsn)
{
	mach_write_to_4(block, (uint32_t)(lsn / OS_FILE_LOG_BLOCK_SIZE));
	mach_write_to_4(block + 4, OS_FILE_LOG_BLOCK_SIZE);
	uint32_t crc = ut_crc32(block, OS_FILE_LOG_BLOCK_SIZE - LOG_BLOCK_TRL_SIZE);
	mach_write_to_4(block + OS_FILE_LOG_BLOCK_SIZE - LOG_BLOCK_TRL_SIZE, crc);
	log_block_checksums = log_block_checksums * 33 + crc;
}

lsn_t log_write_low(const byte *rec, ulint len)
{
	while (len) {
		ulint in_block = log_sys.buf_free % OS_FILE_LOG_BLOCK_SIZE;
		if (in_block == 0) {
			log_sys.buf_free += LOG_BLOCK_HDR_SIZE;
			in_block = LOG_BLOCK_HDR_SIZE;
		}
		ulint room = OS_FILE_LOG_BLOCK_SIZE - LOG_BLOCK_TRL_SIZE - in_block;
		ulint n = len < room ? len : room;
		memcpy(log_sys.buf.data() + log_sys.buf_free, rec, n);
		log_sys.buf_free += n;
		log_sys.lsn += n;
		rec += n;
		len -= n;
		if (n == room) {
			byte *block = log_sys.buf.data() + log_sys.buf_free - (OS_FILE_LOG_BLOCK_SIZE - LOG_BLOCK_TRL_SIZE);
			log_block_close(block, log_sys.lsn);
			log_sys.buf_free += LOG_BLOCK_TRL_SIZE;
			if (log_sys.buf_free >= LOG_BUFFER_SIZE) {
				log_sys.buf_free = 0;	/* log_write_up_to(): the buffer went to the file */
				log_sys.n_log_ios++;
			}
		}
	}
	return log_sys.lsn;
}

/*
 * recovery_budget (MDEV-21826): recovery_budget.h - the declarations the files
 * of this program share (univ.i, log0recv.h, buf0buf.h, mach0data.ic ... in
 * MariaDB). The program is described in main.c.
 */
#ifndef RECOVERY_BUDGET_H
#define RECOVERY_BUDGET_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned long ulint;
typedef uint64_t lsn_t;
typedef unsigned char byte;

#define UNIV_PAGE_SIZE 16384
#define POOL_PAGES 3072             /* divisible by 3: with 3 instances the budget is 0 */
#define LOG_BLOCK_SIZE 512
#define LOG_BLOCK_HDR 12
#define LOG_BLOCK_TRL 4
#define LOG_BLOCK_DATA (LOG_BLOCK_SIZE - LOG_BLOCK_HDR - LOG_BLOCK_TRL)
#define RECV_SCAN_SIZE (8 * LOG_BLOCK_SIZE)
#define RECV_HASH_CELLS 4096
#define N_MTR 40000                 /* mini-transactions written before the "crash" */

/* srv0srv.c: configuration */
extern ulint srv_buf_pool_instances;

/* log0recv.c */
extern ulint recv_n_pool_free_frames;
extern ulint recv_n_batches;

/* fil0fil.c, buf0buf.c, log0log.c */
extern byte *fil_space;             /* the data file: POOL_PAGES pages */
extern byte *buf_pool;              /* POOL_PAGES page frames */
extern bool *buf_page_resident;     /* frame p holds page p */
extern byte *log_sys_buf;           /* the redo log as written before the crash */
extern lsn_t log_sys_lsn;           /* end of the written log */

/* ut0crc32.c */
void ut_crc32_init(void);
extern uint32_t (*ut_crc32)(const byte *p, size_t n);

/* log0log.ic */
static inline uint32_t log_block_calc_checksum(const byte *block)
{
	return ut_crc32(block, LOG_BLOCK_SIZE - LOG_BLOCK_TRL);
}

/* buf0checksum.c */
uint32_t buf_calc_page_crc32(const byte *page);

/* mach0data.ic */
static inline void mach_write_4(byte *b, uint32_t v)
{
	b[0] = (byte)(v >> 24); b[1] = (byte)(v >> 16); b[2] = (byte)(v >> 8); b[3] = (byte)v;
}

static inline uint32_t mach_read_4(const byte *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static inline uint32_t mach_read_2(const byte *b)
{
	return (uint32_t)b[0] << 8 | b[1];
}

/* ut0rnd.ic; the state is in ut0rnd.c */
extern uint64_t rng_state;

static inline uint64_t ut_rnd_gen(void)
{
	uint64_t x = rng_state;
	x ^= x << 13; x ^= x >> 7; x ^= x << 17;
	return rng_state = x;
}

/* log0log.c */
void log_write_mtrs(void);

/* log0recv.h */
typedef struct recv_t {
	struct recv_t *next;
	lsn_t lsn;
	uint16_t offset;
	uint16_t len;
	byte data[];
} recv_t;

typedef struct recv_addr_t {
	struct recv_addr_t *next;   /* hash chain */
	ulint page_no;
	recv_t *recs, *last;
} recv_addr_t;

struct recv_sys_t {
	recv_addr_t *hash[RECV_HASH_CELLS];
	byte *heap;
	ulint heap_used;
	ulint heap_size;
	ulint n_addrs;
	bool apply_log_recs;        /* the heap reached the budget: apply before scanning on */
	lsn_t scanned_lsn;
	lsn_t recovered_lsn;
};

extern struct recv_sys_t recv_sys;

void recv_sys_init(void);
bool recv_group_scan_log_recs(lsn_t checkpoint_lsn);

/* buf0buf.c, buf0flu.c, fil0fil.c */
byte *buf_page_get(ulint page_no);
void buf_flush_init_for_writing(byte *page, lsn_t lsn);
void buf_flush_all(void);
void fil_space_create(void);

#endif

/*
 * lru_scan (MDEV-23399): lru_scan.h - the declarations the files of this program share
 * (buf0buf.h, buf0buf.ic, buf0lru.h, ... in MariaDB). The program is described
 * in main.c.
 */
#ifndef LRU_SCAN_H
#define LRU_SCAN_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A function that lives in another compilation unit of the server (no LTO), so it
 * is never inlined into its callers there either. */
#define EXTERN_FN __attribute__((noinline))

typedef unsigned long ulint;
typedef unsigned char byte;
typedef uint64_t lsn_t;

#define PAGE_SIZE 4096
#define POOL_FRAMES 1024
#define PAGE_HASH_CELLS 2048
#define N_WORKERS 4
#define OPS_PER_WORKER 60000
#define WRITE_PCT 90
#define REC_SIZE 64
#define PAGE_HDR 64
#define MAX_DATA_PAGES 6000
#define FLUSH_BATCH 2        /* pages per flush batch: the IO capacity */
#define FLUSH_EVERY 64       /* a flush batch per this many page reads */

typedef struct buf_page_t {
	pthread_mutex_t mutex;              /* block mutex: fix_count, io_pending */
	ulint id;
	lsn_t oldest_modification;          /* 0: clean */
	unsigned fix_count;                 /* buffer-fixed by readers */
	bool io_pending;                    /* being read from the data file */
	struct buf_page_t *lru_prev, *lru_next;
	struct buf_page_t *flush_prev, *flush_next;  /* flush list, by oldest_modification */
	struct buf_page_t *hash_next;
	byte *frame;
} buf_page_t;

/* srv0srv.c */
extern ulint srv_data_pages;
extern int srv_LRU_flush_size;
extern ulint srv_LRU_scanned_total;
extern ulint srv_n_pages_read;
extern ulint srv_n_pages_flushed;

/* buf0buf.c */
struct buf_pool_t {
	pthread_mutex_t mutex;
	buf_page_t pages[POOL_FRAMES];
	buf_page_t *free_list;              /* linked through lru_next */
	buf_page_t *lru_head, *lru_tail;
	buf_page_t *hash[PAGE_HASH_CELLS];
	buf_page_t *flush_head, *flush_tail;  /* oldest modification first */
	lsn_t lsn;
};

extern struct buf_pool_t buf_pool;

buf_page_t *buf_page_get_gen(ulint id);
void buf_page_release(buf_page_t *b, bool modified);
void buf_pool_init(void);

/* fil0fil.c */
extern byte *fil_space;                 /* the data file */
void fil_space_create(void);

/* ut0crc32.c */
extern bool ut_crc32_hw_ok;
void crc32_init(void);
uint32_t ut_crc32_hw(const byte *p, size_t n);
uint32_t ut_crc32_sw(const byte *p, size_t n);

/* buf0checksum.c */
EXTERN_FN uint32_t buf_calc_page_crc32(const byte *page);

/* buf0buf.ic, page0page.ic */
static inline uint32_t page_get_checksum(const byte *page)
{
	uint32_t v;
	memcpy(&v, page, 4);
	return v;
}

static inline void page_set_checksum(byte *page)
{
	uint32_t v = buf_calc_page_crc32(page);
	memcpy(page, &v, 4);
}

/* The update counter in the page header; updates are atomic adds so that the
 * final state does not depend on thread interleaving. */
static inline uint64_t *page_mod_count(byte *frame)
{
	return (uint64_t *)(frame + 8);
}

static inline ulint page_hash_cell(ulint id)
{
	return (id * 0x9e3779b1u) % PAGE_HASH_CELLS;
}

/* buf0lru.c */
void lru_remove(buf_page_t *b);
void lru_add_head(buf_page_t *b);
buf_page_t *buf_LRU_get_free_block(void);

/* buf0flu.c */
void buf_flush_write_page(buf_page_t *b);
void buf_flush_note_modification(buf_page_t *b);
int buf_flush_list_batch(int n);

/* buf0rea.c */
void buf_read_page_low(buf_page_t *b);

/* row0sel.c */
EXTERN_FN uint64_t row_search_on_page(const byte *frame, uint64_t key);

/* ut0rnd.ic */
static inline uint64_t rnd_next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13; x ^= x >> 7; x ^= x << 17;
	return *s = x;
}

#endif

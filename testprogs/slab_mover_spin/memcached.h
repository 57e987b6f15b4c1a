/*
 * slab_mover_spin (memcached-1239): memcached.h - the declarations the files of this
 * program share (memcached.h, slabs.h, items.h, assoc.h, hash.h in memcached). The
 * program is described in main.c.
 */
#ifndef MEMCACHED_H
#define MEMCACHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef unsigned int rel_time_t;

#define KEY_MAX_LENGTH 250
#define POWER_SMALLEST 1
#define POWER_LARGEST 40
#define MAX_NUMBER_OF_SLAB_CLASSES (POWER_LARGEST + 1)
#define SLAB_GLOBAL_PAGE_POOL 0
#define CHUNK_ALIGN_BYTES 8
#define READ_BUFFER_SIZE 16384
#define ITEM_LIST_INITIAL 64
#define ITEM_UPDATE_INTERVAL 2

#define ITEM_LINKED 1
#define ITEM_SLABBED 4
#define ITEM_FETCHED 8

typedef struct _stritem {
	struct _stritem *next;          /* LRU list (or the slab freelist) */
	struct _stritem *prev;
	struct _stritem *h_next;        /* hash chain */
	rel_time_t time;                /* least recent access */
	rel_time_t exptime;
	int nbytes;                     /* value length, "\r\n" included */
	unsigned short refcount;
	uint16_t it_flags;
	uint8_t slabs_clsid;
	uint8_t nkey;
	uint32_t flags;
	char data[];                    /* key, '\0', value */
} item;

#define ITEM_key(it) ((char *)&((it)->data[0]))
#define ITEM_data(it) ((char *)&((it)->data[0]) + (it)->nkey + 1)
#define ITEM_ntotal(it) (sizeof(item) + (it)->nkey + 1 + (it)->nbytes)

/* Settings, as memcached's global `settings` (-m, -f, -n, -o slab_reassign...). */
struct settings {
	size_t maxbytes;
	int item_size_max;
	int slab_page_size;
	int chunk_size;
	double factor;
	int reqs_per_event;
	bool slab_reassign;
	int slab_automove;
	double slab_automove_ratio;
	unsigned int slab_automove_window;
	unsigned int slab_move_max_loops;   /* busy passes before stuck items are unlinked */
	int hashpower_init;
	bool lru_crawler;
	int verbose;
};
extern struct settings settings;

/* Server-wide counters (memcached's `stats` and `stats_state`). */
struct stats {
	uint64_t get_cmds, get_hits, get_misses, get_expired;
	uint64_t set_cmds, delete_cmds;
	uint64_t evictions, reclaimed, expired_unfetched;
	uint64_t crawler_reclaimed;
	uint64_t slabs_moved, slab_reassign_rescues, slab_reassign_busy_items;
	uint64_t slab_reassign_evictions, slab_reassign_passes;
	uint64_t bytes_read, bytes_written;
	uint64_t conn_yields;
};
struct stats_state {
	uint64_t curr_items;
	uint64_t curr_conns;
	unsigned int hash_power_level;
	bool hash_is_expanding;
	bool slab_reassign_running;
};
extern struct stats stats;
extern struct stats_state stats_state;
extern volatile rel_time_t current_time;
extern time_t process_started;

/* The connection state machine (memcached.c: drive_machine). */
enum conn_states {
	conn_waiting, conn_read, conn_parse_cmd, conn_nread, conn_new_cmd, conn_mwrite, conn_closing,
};

/* A socket: what the client sent, and what the server sent that the client has
 * not read yet (the socket buffers). */
typedef struct netsock {
	char *in;           /* client -> server */
	size_t in_len, in_off, in_cap;
	char *out;          /* server -> client, not yet read by the client */
	size_t out_len, out_cap;
} netsock;

typedef struct conn {
	int sfd;
	enum conn_states state;
	netsock *sock;
	char *rbuf, *rcurr;
	int rsize, rbytes;
	char *wbuf;                 /* response headers ("VALUE ...", "END") */
	size_t wsize, wbytes;
	struct mc_iov { const char *base; size_t len; } *iov;   /* what is sent, in order */
	int iovsize, iovused, iovcurr;
	size_t iov_off;
	item *item;                 /* the item a set is reading into */
	char *ritem;
	int rlbytes;
	item **ilist;               /* items referenced by the response being sent */
	int isize, ileft;
	int nreqs_this_event;
	struct conn *next;
} conn;

/* hash.c */
uint32_t MurmurHash3_x86_32(const void *key, size_t length);
/* assoc.c */
void assoc_init(int hashpower_init);
item *assoc_find(const char *key, size_t nkey, uint32_t hv);
int assoc_insert(item *it, uint32_t hv);
void assoc_delete(const char *key, size_t nkey, uint32_t hv);
bool assoc_replace(item *old_it, item *new_it, uint32_t hv);
/* slabs.c */
void slabs_init(size_t limit, double factor);
unsigned int slabs_clsid(size_t size);
void *slabs_alloc(size_t size, unsigned int id);
void slabs_free(void *ptr, size_t size, unsigned int id);
/* The page being moved (memcached's slab_rebal). */
struct slab_rebalance {
	char *slab_start;
	char *slab_end;
	char *slab_pos;
	int s_clsid;
	int d_clsid;
	uint32_t busy_items;
	uint32_t last_busy_items;
	uint32_t rescues;
	uint32_t evictions_nomem;
	uint32_t busy_loops;
	uint8_t done;
};
extern struct slab_rebalance slab_rebal;
extern volatile int slab_rebalance_signal;
int slab_rebalance_start(void);
int slab_rebalance_move(void);
void slab_rebalance_finish(void);
/* slabs_mover.c */
int slabs_reassign(int src, int dst);
void slab_rebalance_event(unsigned long loop_iter);
bool slab_rebalance_pending(void);
typedef struct {
	unsigned int chunks_per_page;
	unsigned int chunk_size;
	long free_chunks;
	long total_pages;
} slab_stats_automove;
void fill_slab_stats_automove(slab_stats_automove *am);
/* items.c */
typedef struct {
	uint64_t evicted;
	uint64_t outofmemory;
	uint32_t age;
} item_stats_automove;
item *do_item_alloc(const char *key, size_t nkey, uint32_t flags, rel_time_t exptime, int nbytes);
int do_item_link(item *it, uint32_t hv);
void do_item_unlink(item *it, uint32_t hv);
void do_item_remove(item *it);
item *do_item_get(const char *key, size_t nkey, uint32_t hv);
void item_free(item *it);
void do_item_relink_rescued(item *old_it, item *new_it, uint32_t hv);
void fill_item_stats_automove(item_stats_automove *am);
item *lru_tail(unsigned int id);
item *lru_prev(item *it);
/* crawler.c */
void lru_crawler_run(void);
/* slab_automove.c */
void *slab_automove_init(struct settings *s);
void slab_automove_run(void *arg, int *src, int *dst);
/* proto_text.c */
void process_command_ascii(conn *c, char *command);
void complete_nread_ascii(conn *c);
void conn_release_items(conn *c);
int add_response(conn *c, const char *buf, size_t len);
/* memcached.c */
conn *conn_new(int sfd, netsock *sock);
void event_base_loop(void (*pump)(void *), void *arg);
void clock_handler(void);
conn *conn_list(void);

#endif

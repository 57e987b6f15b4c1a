/*
 * tagged_flush - HDFGroup/hdf5#4017: the library's types: the metadata
 * cache (H5Cpkg.h), its entries, the file and the datasets. See main.c.
 */
#ifndef TAGGED_FLUSH_H
#define TAGGED_FLUSH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t haddr_t;
typedef int herr_t;
typedef int64_t hid_t;

#define H5C_IMAGE_SIZE 256
#define H5C_HASH_SIZE 4096
#define H5C_TAG_HASH_SIZE 1024
#define H5C_SLIST_MAX_LEVEL 12

/* Metadata entry types. */
enum { H5AC_OHDR_ID, H5AC_BT2_INT_ID, H5AC_BT2_LEAF_ID, H5AC_SUPERBLOCK_ID };

/* A metadata cache entry (H5C_cache_entry_t). */
typedef struct H5C_cache_entry_t {
	haddr_t addr;
	int type;
	int is_dirty;
	int flush_marker;
	haddr_t tag;                          /* the object header this entry belongs to */
	struct H5C_cache_entry_t *ht_next;    /* the index's hash chain */
	struct H5C_cache_entry_t *il_next;    /* the index list: every entry */
	struct H5C_cache_entry_t *tl_next;    /* the entries of its tag */
	unsigned char image[H5C_IMAGE_SIZE];  /* its serialized form */
} H5C_cache_entry_t;

/* The entries of one tag (H5C_tag_info_t). */
typedef struct H5C_tag_info_t {
	haddr_t tag;
	H5C_cache_entry_t *head;
	size_t entry_cnt;
	struct H5C_tag_info_t *next;
} H5C_tag_info_t;

/* The skip list of dirty entries in address order (H5SL_t), built for a flush. */
typedef struct H5SL_node_t {
	H5C_cache_entry_t *item;
	struct H5SL_node_t *forward[H5C_SLIST_MAX_LEVEL];
} H5SL_node_t;

typedef struct H5SL_t {
	H5SL_node_t head;
	int level;
	size_t len;
	uint64_t rnd;
} H5SL_t;

/* The metadata cache (H5C_t). */
typedef struct H5C_t {
	H5C_cache_entry_t *index[H5C_HASH_SIZE];
	H5C_cache_entry_t *il_head;
	size_t index_len;
	size_t dirty_index_len;
	H5C_tag_info_t *tag_list[H5C_TAG_HASH_SIZE];
	H5SL_t slist;
	int slist_enabled;
	uint64_t entries_flushed;
	unsigned char *file_image; /* the file's metadata as written */
	size_t file_image_size;
} H5C_t;

/* A dataset: its object header (the tag of its metadata) and chunk index. */
typedef struct H5D_t {
	haddr_t oh_addr;
	haddr_t btree_addr[3];
	uint64_t nrecords;
	unsigned char chunk[16384];
} H5D_t;

typedef struct H5F_t {
	H5C_t *cache;
	haddr_t eoa; /* end of allocated space */
	H5D_t **dsets;
	size_t ndsets;
} H5F_t;

/* H5C.c, H5Ctag.c: the cache */
H5C_t *H5C_create(size_t file_image_size);
H5C_cache_entry_t *H5C_insert_entry(H5C_t *cache, haddr_t addr, int type, haddr_t tag);
H5C_cache_entry_t *H5C_protect(H5C_t *cache, haddr_t addr);
void H5C_mark_entry_dirty(H5C_t *cache, H5C_cache_entry_t *entry);
herr_t H5C__flush_marked_entries(H5C_t *cache);
herr_t H5C__mark_tagged_entries(H5C_t *cache, haddr_t tag);
herr_t H5C_flush_tagged_entries(H5C_t *cache, haddr_t tag);
herr_t H5C_flush_cache(H5C_t *cache);
void H5C__tag_entry(H5C_t *cache, H5C_cache_entry_t *entry);
void H5C__flush_single_entry(H5C_t *cache, H5C_cache_entry_t *entry);
uint32_t H5_checksum_fletcher32(const void *data, size_t len);

/* H5Oflush.c, H5D.c: objects and datasets */
herr_t H5O_flush_common(H5F_t *f, haddr_t oh_addr);
H5D_t *H5D_create(H5F_t *f);
herr_t H5Dwrite_record(H5F_t *f, H5D_t *dset, uint64_t value);
herr_t H5Dflush(H5F_t *f, H5D_t *dset);

#endif

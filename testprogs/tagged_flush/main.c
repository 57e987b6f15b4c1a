/*
 * tagged_flush - HDFGroup/hdf5#4017: "Improve performance of flushing single
 * objects" https://github.com/HDFGroup/hdf5/pull/4017 (HDF5 1.14.4,
 * February 2024).
 *
 * The real bug: flushing one object (H5Oflush, H5Dflush) "use[d] a hash
 * table to quickly look up cache entries with the matching tag, and set the
 * flush_marker field in the entry", then "iterate[d] over ALL cache entries,
 * adding ALL dirty entries to the (initially empty) main skip list", then
 * flushed the marked ones from the skip list and destroyed it. "This causes
 * obvious performance problems when there are many cache entries, with
 * multiple iterations over all entries (instead of only the tagged
 * entries), and an O(N log N) build of the skip list, where N is the total
 * number of entries." The fix adds only the tagged entries to the skip list.
 *
 * Here (C): a data logger appends records to 16 datasets of a file, one
 * record at a time, and flushes the dataset after each append (H5Dflush, so
 * that a reader sees every record). The metadata cache holds every entry of
 * the file's open objects: each dataset's object header and its chunk
 * index's nodes. The slow run is the same binary on a different file:
 * normal: a file with only the 16 logged datasets (64 cache entries); buggy:
 * the same 16 datasets in a file that also holds 400 other datasets the
 * application keeps open (1,664 cache entries, most of them dirty: their
 * attributes were just updated and are written at file close). The logger
 * makes exactly the same appends and the same flush calls in both; each
 * flush marks the same 2 entries; what grew is each flush's walk of the
 * cache and its skip list of every dirty entry.
 *
 * Root cause: H5C__flush_marked_entries() (H5C.c), the walk of every cache
 * entry into the skip list (ROOT CAUSE), a costly callee under cheap,
 * innocent callers (H5C_flush_tagged_entries, H5O_flush_common, H5Dflush)
 * that call it once per flush, as in the normal runs. Pattern: scalability.
 *
 * Files, as in HDF5's src/: H5C.c (the cache, the root cause), H5Ctag.c
 * (tags), H5Oflush.c (object flush), H5D.c (datasets), hdf5.h; main.c (this
 * driver: the logger).
 */
#include "hdf5.h"

#define N_LOGGED 16
#define N_APPENDS 12000

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  A logger appends to 16 datasets and flushes each after every append (HDF5 PR 4017).\n"
		"  normal: a file of the 16 datasets; buggy: the same in a file with 400 other open datasets.\n", argv0);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return usage(argv[0]);
	size_t n_other;
	if (strcmp(argv[1], "normal") == 0)
		n_other = 0;
	else if (strcmp(argv[1], "buggy") == 0)
		n_other = 400;
	else
		return usage(argv[0]);

	H5F_t file = { 0 };
	file.cache = H5C_create(1u << 20);
	file.eoa = 4096; /* after the superblock */
	file.ndsets = N_LOGGED + n_other;
	file.dsets = calloc(file.ndsets, sizeof *file.dsets);
	if (!file.cache || !file.dsets)
		return 1;
	for (size_t i = 0; i < file.ndsets; i++)
		if (!(file.dsets[i] = H5D_create(&file)))
			return 1;
	/* the logged datasets start clean; the others keep their new attributes dirty */
	for (size_t i = 0; i < N_LOGGED; i++)
		H5Dflush(&file, file.dsets[i]);

	uint64_t v = 88172645463325252ull;
	for (unsigned i = 0; i < N_APPENDS; i++) {
		H5D_t *dset = file.dsets[i % N_LOGGED];
		v ^= v << 13;
		v ^= v >> 7;
		v ^= v << 17;
		if (H5Dwrite_record(&file, dset, v) < 0 || H5Dflush(&file, dset) < 0) {
			fprintf(stderr, "tagged_flush: append %u failed\n", i);
			return 1;
		}
	}
	uint64_t flushed = file.cache->entries_flushed;
	H5C_flush_cache(file.cache);
	uint32_t sum = H5_checksum_fletcher32(file.cache->file_image, 65536);
	for (size_t i = 0; i < N_LOGGED; i++)
		sum ^= H5_checksum_fletcher32(file.dsets[i]->chunk, sizeof file.dsets[i]->chunk);
	printf("tagged_flush %s: appends=%u flushed=%llu checksum=%08x\n", argv[1], N_APPENDS,
	       (unsigned long long)flushed, sum);
	return 0;
}

/*
 * overlap_sort - RocksDB-10161: "Reduce overhead of SortFileByOverlappingRatio()"
 * https://github.com/facebook/rocksdb/pull/10161 (RocksDB 7.4, 2022).
 *
 * The real bug: with the default compaction priority kMinOverlappingRatio,
 * every new version (every LogAndApply: each flush, trivial move and
 * compaction) calls VersionStorageInfo::UpdateFilesByCompactionPri(), which
 * for each level calls SortFileByOverlappingRatio(): a merge walk computing
 * each file's overlap with the next level, then a std::sort of the whole
 * level whose comparator looks both files up in an unordered_map. "It is
 * usually OK but when there are a lot of files in an LSM-tree,
 * SortFileByOverlappingRatio() can take non-trivial amount of time. The
 * problem is severe when the user is loading keys in sorted order, where
 * compaction is only trivial move and this operation becomes the
 * bottleneck" (the PR, reproduced with db_bench fillseq and a small
 * write_buffer_size). The fix sorts only the top 50 files
 * (std::partial_sort), as the other priorities do.
 *
 * Here: db_bench's fill benchmarks drive DBImpl::Put (write-ahead log record
 * with CRC-32C, skip-list memtable); full memtables are flushed to block-based
 * tables (prefix-compressed blocks, CRC-32C trailers, bloom filter) and
 * leveled compaction merges or trivially moves files, each step installed
 * by VersionSet::LogAndApply. normal: fillrandom, 120,000 keys, a 256 KiB
 * write buffer (tens of files, merging compactions); buggy: fillseq, the
 * same keys in order, a 16 KiB write buffer (as in the PR's test plan):
 * over a thousand files, every compaction a trivial move.
 *
 * Root cause: rocksdb::SortFileByOverlappingRatio() (version_set.cpp), its
 * full sort of the level (ROOT CAUSE), a costly callee under innocent
 * callers (UpdateFilesByCompactionPri, LogAndApply, the flush). Key
 * variables: files (its size), temp, file_to_order. Pattern: scalability.
 *
 * Files, as in RocksDB's db/, table/ and util/ (flattened): version_set.cpp
 * (the root cause), version_builder.cpp, compaction.cpp (picker and job),
 * db_impl.cpp (write path, flush), memtable.cpp, table_builder.cpp,
 * coding.cpp (varints, CRC-32C, hash, clock, comparator), overlap_sort.h;
 * main.cpp (this driver: db_bench's fillrandom / fillseq).
 */
#include "overlap_sort.h"

using namespace rocksdb;

static const uint64_t NUM_KEYS = 120000;
static const int VALUE_SIZE = 100;

struct Benchmark {
	const char *name;
	bool sequential;
	size_t write_buffer_size;
};

/* db_bench's RandomGenerator: compressible value bytes */
static std::string MakeValue(uint64_t k, uint64_t *state)
{
	std::string v(VALUE_SIZE, ' ');
	for (int i = 0; i < VALUE_SIZE; i++) {
		*state = *state * 6364136223846793005ull + 1442695040888963407ull;
		v[i] = (char)(' ' + ((*state >> 33) % 95));
	}
	memcpy(&v[0], &k, sizeof k);
	return v;
}

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  db_bench fill on a leveled LSM tree (RocksDB PR 10161).\n"
		"  normal: fillrandom, 256 KiB write buffer; buggy: fillseq, 16 KiB write buffer.\n", argv0);
	return 2;
}

int main(int argc, char **argv)
{
	Benchmark bench;
	if (argc != 2)
		return usage(argv[0]);
	if (strcmp(argv[1], "normal") == 0)
		bench = { "fillrandom", false, 256 << 10 };
	else if (strcmp(argv[1], "buggy") == 0)
		bench = { "fillseq", true, 8 << 10 };
	else
		return usage(argv[0]);

	Options options;
	options.write_buffer_size = bench.write_buffer_size;
	options.max_bytes_for_level_base = 1 << 20;
	options.target_file_size_base = 256 << 10;
	DBImpl db(options);

	uint64_t state = 0x853c49e6748fea9bull;
	char key[32];
	uint64_t start_micros = SystemClock::Default()->NowMicros();
	for (uint64_t i = 0; i < NUM_KEYS; i++) {
		/* fillrandom: a permutation of the key space (db_bench's KeyGenerator) */
		uint64_t k = bench.sequential ? i : (i * 2654435761ull) % NUM_KEYS;
		snprintf(key, sizeof key, "%016llx", (unsigned long long)k);
		Status s = db.Put(key, MakeValue(k, &state));
		if (!s.ok()) {
			fprintf(stderr, "put error\n");
			return 1;
		}
	}
	db.Flush();
	uint64_t elapsed = SystemClock::Default()->NowMicros() - start_micros;
	(void)elapsed;

	const VersionStorageInfo &vs = db.versions()->current()->storage_info_;
	size_t nfiles = 0;
	char levels[128];
	int n = 0;
	for (int l = 0; l < vs.num_levels(); l++) {
		nfiles += vs.LevelFiles(l).size();
		n += snprintf(levels + n, sizeof levels - n, "%s%zu", l ? "," : "", vs.LevelFiles(l).size());
	}
	const DBStats &st = db.stats();
	printf("overlap_sort %s: %s keys=%llu files=%zu levels=%s flushes=%llu compactions=%llu moves=%llu "
	       "versions=%llu checksum=%016llx\n", argv[1], bench.name, (unsigned long long)NUM_KEYS, nfiles, levels,
	       (unsigned long long)st.flushes, (unsigned long long)st.compactions,
	       (unsigned long long)st.trivial_moves, (unsigned long long)db.versions()->num_versions(),
	       (unsigned long long)(st.table_checksum ^ st.bytes_compacted));
	return 0;
}

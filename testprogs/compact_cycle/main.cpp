/*
 * compact_cycle - ydb-platform/nbs#1157: "Compaction triggered by blobs per
 * disk threshold should take into account the number of blobs in cleanup
 * queue" https://github.com/ydb-platform/nbs/issues/1157 (NBS, network
 * block store of YDB, May 2024).
 *
 * The real bug: "If cleanup process is slow for any reason, this could lead
 * to cycling compactions because blobs in cleanup queue are considered to
 * be part of 'live' blobs. The same is actually true for blocks (both per
 * disk and per range thresholds)." The partition compacts its top range
 * whenever the disk holds more blobs than its per-disk limit; the blobs
 * compaction replaced stay in the blob storage until cleanup deletes them,
 * and they are counted too, so while cleanup lags the limit stays exceeded
 * and every write is followed by a compaction that cannot lower the count
 * (it adds the replaced blobs to the queue).
 *
 * Here (C++: classes with this-> fields, std::vector, std::unordered_map,
 * std::unique_ptr): a partition of 16 compaction ranges of 1,024 blocks
 * takes 64-block writes; each write is one fresh blob; a range is compacted
 * when it holds 8 blobs (the per-range trigger, the normal path), or its top
 * range when the disk holds more than 200 blobs (the per-disk trigger,
 * ROOT CAUSE: it counts the cleanup queue). Cleanup deletes replaced blobs
 * 32 at a time, except those replaced while a checkpoint exists (a backup
 * reads through it). The slow run is the same binary on a different input:
 * normal: the write workload alone (cleanup keeps up: the disk never holds
 * 200 blobs, compaction runs every 7-8 writes); buggy: the same writes while
 * a backup holds a checkpoint (the cleanup queue is held: after a few
 * hundred writes the disk is over its limit for good and every write
 * compacts a range of 2 blobs). Each compaction does the usual work (the
 * range's written blocks, read, checksummed and written again): compaction
 * runs 7-8 times as often, each call the same size.
 *
 * Root cause: TPartitionActor::EnqueueCompactionIfNeeded()
 * (part_actor_compaction.cpp), the per-disk trigger that counts the cleanup
 * queue (ROOT CAUSE); it is cheap itself, its callee HandleCompaction pays.
 * Pattern: wrong constraint (the condition is there, its count is wrong).
 *
 * Files, as in NBS's cloud/blockstore/libs/storage/partition/ (flattened):
 * part_actor_compaction.cpp (the root cause), part_actor_writeblob.cpp,
 * part_actor_cleanup.cpp, part_state.cpp, part.h; main.cpp (this driver:
 * the volume's config and the write workload).
 */
#include "part.h"

namespace NCloud::NBlockStore::NStorage::NPartition {
TStorageConfig StorageConfig;
} // namespace NCloud::NBlockStore::NStorage::NPartition

using namespace NCloud::NBlockStore::NStorage::NPartition;

static const ui32 N_WRITES = 1000;
static const ui32 WRITE_BLOCKS = 64;

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  64-block writes to a partition that compacts and cleans up its blobs (NBS #1157).\n"
		"  normal: the writes alone; buggy: the same writes while a backup holds a checkpoint.\n", argv0);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return usage(argv[0]);
	bool backup;
	if (strcmp(argv[1], "normal") == 0)
		backup = false;
	else if (strcmp(argv[1], "buggy") == 0)
		backup = true;
	else
		return usage(argv[0]);
	StorageConfig = { 16, 8, 200, 32 };

	TPartitionActor partition(StorageConfig);
	if (backup)
		partition.CreateCheckpoint();
	ui64 rnd = 0x2545f4914f6cdd1dull;
	const ui64 slots = (ui64)StorageConfig.RangeCount * BlocksPerRange / WRITE_BLOCKS;
	for (ui32 i = 0; i < N_WRITES; i++) {
		rnd = rnd * 6364136223846793005ull + 1442695040888963407ull;
		ui64 start = ((rnd >> 33) % slots) * WRITE_BLOCKS;
		partition.HandleWriteBlocks(start, WRITE_BLOCKS, rnd | 1);
	}
	printf("compact_cycle %s: compactions=%llu cleanups=%llu blobs=%u queued=%u checksum=%016llx\n", argv[1],
	       (unsigned long long)partition.State.CompactionCount, (unsigned long long)partition.State.CleanupCount,
	       partition.State.GetBlobCount(), partition.State.CleanupQueue.GetQueueBlobs(),
	       (unsigned long long)partition.State.Checksum());
	return 0;
}

/*
 * compact_cycle - ydb-platform/nbs#1157: compaction
 * (cloud/blockstore/libs/storage/partition/part_actor_compaction.cpp in
 * NBS): after each write the partition checks whether to compact, and the
 * compaction of a range reads the latest version of each of its blocks from
 * the range's blobs and writes them as one new blob.
 *
 * TPartitionActor::EnqueueCompactionIfNeeded() holds the ROOT CAUSE: its
 * disk-wide threshold counts the blobs in the cleanup queue as live. See
 * main.cpp.
 */
#include "part.h"

namespace NCloud::NBlockStore::NStorage::NPartition {

void TPartitionActor::EnqueueCompactionIfNeeded()
{
	ui32 topBlobs = 0;
	ui32 topRange = State.GetTopRange(&topBlobs);
	ui32 diskBlobs = State.GetBlobCount();
	/* The disk-wide trigger counts every blob in the storage, the ones
	 * compaction already replaced and the cleanup queue still holds
	 * included: while cleanup lags, every write compacts again (the fix
	 * subtracts State.CleanupQueue.GetQueueBlobs()). ROOT CAUSE */
	if (topBlobs >= Config.CompactionThreshold || (topBlobs > 1 && diskBlobs > Config.MaxBlobsPerDisk))
		HandleCompaction(topRange);
}

void TPartitionActor::HandleCompaction(ui32 rangeIdx)
{
	TRangeStat &range = State.Ranges[rangeIdx];
	TBlob merged;
	merged.CommitId = State.GenerateCommitId();
	merged.RangeIdx = rangeIdx;
	ui32 crc = 0;
	for (ui32 b = 0; b < BlocksPerRange; b++) {
		ui64 id = range.BlockBlob[b];
		if (id == 0)
			continue;
		const TBlob &src = *State.Blobs[id];
		const unsigned char *data = &src.Data[(size_t)range.BlockOffset[b] * BlockSize];
		crc = Crc32c(data, BlockSize, crc);
		merged.BlockIndices.push_back(b);
		merged.Data.insert(merged.Data.end(), data, data + BlockSize);
	}
	State.ReplaceRange(rangeIdx, std::move(merged));
	State.CompactionCount++;
	(void)crc;
}

} // namespace NCloud::NBlockStore::NStorage::NPartition

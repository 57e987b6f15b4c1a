/*
 * compact_cycle - ydb-platform/nbs#1157: the partition's types: its config,
 * its state (blobs, ranges, the cleanup queue, checkpoints) and the actor
 * whose handlers run the write path, compaction and cleanup. See main.cpp.
 */
#ifndef COMPACT_CYCLE_H
#define COMPACT_CYCLE_H

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <vector>

namespace NCloud::NBlockStore::NStorage::NPartition {

typedef uint64_t ui64;
typedef uint32_t ui32;

static const ui32 BlockSize = 512;      /* bytes of one block (a sector) */
static const ui32 BlocksPerRange = 1024; /* a compaction range */

/* The partition's config (the volume's storage config). */
struct TStorageConfig {
	ui32 RangeCount;              /* compaction ranges of the disk */
	ui32 CompactionThreshold;     /* blobs in a range that trigger its compaction */
	ui32 MaxBlobsPerDisk;         /* blobs of the disk that trigger compaction of the top range */
	ui32 CleanupThreshold;        /* queued blobs that trigger a cleanup */
};
extern TStorageConfig StorageConfig;

/* A blob: the blocks one write (or one compaction) put into the blob storage. */
struct TBlob {
	ui64 CommitId;
	ui32 RangeIdx;
	std::vector<ui32> BlockIndices; /* within the range */
	std::vector<unsigned char> Data;
	bool Live;
};

/* Blobs that compaction replaced, waiting to be deleted from the storage. */
struct TCleanupQueueItem {
	ui64 BlobId;
	ui64 CommitId; /* when it was replaced */
};

class TCleanupQueue {
public:
	/* A blob replaced while a checkpoint exists may be read through it:
	 * it is held until the checkpoint is deleted. */
	void Add(ui64 blobId, ui64 commitId, ui64 checkpointCommitId)
	{
		if (checkpointCommitId != 0 && commitId > checkpointCommitId)
			Held.push_back({ blobId, commitId });
		else
			Items.push_back({ blobId, commitId });
	}
	ui32 GetQueueBlobs() const { return (ui32)(Items.size() + Held.size()); }
	ui32 GetDeletableBlobs() const { return (ui32)Items.size(); }
	std::vector<TCleanupQueueItem> Items;
	std::vector<TCleanupQueueItem> Held;
};

/* Per range: the blobs that hold its blocks, newest last, and the block map. */
struct TRangeStat {
	std::vector<ui64> BlobIds;
	std::vector<ui64> BlockBlob;   /* per block: the blob that holds its latest version, 0 if none */
	std::vector<ui32> BlockOffset; /* per block: its place in that blob */
};

class TPartitionState {
public:
	explicit TPartitionState(const TStorageConfig &config);
	ui64 GenerateCommitId() { return ++LastCommitId; }
	ui64 AddBlob(TBlob &&blob);
	void ReplaceRange(ui32 rangeIdx, TBlob &&merged);
	ui32 GetBlobCount() const;
	ui32 GetTopRange(ui32 *blobs) const;
	ui64 Checksum() const;

	const TStorageConfig &Config;
	std::unordered_map<ui64, std::unique_ptr<TBlob>> Blobs;
	std::vector<TRangeStat> Ranges;
	TCleanupQueue CleanupQueue;
	ui32 LiveBlobs;
	ui64 LastCommitId;
	ui64 NextBlobId;
	ui64 CheckpointCommitId; /* 0: none; blobs replaced after it are kept for the checkpoint */
	ui64 CompactionCount;
	ui64 CleanupCount;
};

class TPartitionActor {
public:
	TPartitionActor(const TStorageConfig &config) : Config(config), State(config) {}
	void HandleWriteBlocks(ui64 startIndex, ui32 blockCount, ui64 seed);
	void EnqueueCompactionIfNeeded();
	void EnqueueCleanupIfNeeded();
	void HandleCompaction(ui32 rangeIdx);
	void HandleCleanup();
	void CreateCheckpoint() { State.CheckpointCommitId = State.GenerateCommitId(); }

	const TStorageConfig &Config;
	TPartitionState State;
};

ui32 Crc32c(const unsigned char *p, size_t n, ui32 crc);

} // namespace NCloud::NBlockStore::NStorage::NPartition

#endif

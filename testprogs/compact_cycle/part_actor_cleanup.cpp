/*
 * compact_cycle - ydb-platform/nbs#1157: cleanup
 * (cloud/blockstore/libs/storage/partition/part_actor_cleanup.cpp in NBS):
 * the blobs compaction replaced are deleted from the blob storage once
 * enough of them wait; those a checkpoint may still read (replaced after it
 * was taken) are held until the checkpoint is deleted.
 */
#include "part.h"

namespace NCloud::NBlockStore::NStorage::NPartition {

void TPartitionActor::EnqueueCleanupIfNeeded()
{
	if (State.CleanupQueue.GetDeletableBlobs() >= Config.CleanupThreshold)
		HandleCleanup();
}

void TPartitionActor::HandleCleanup()
{
	std::vector<TCleanupQueueItem> &items = State.CleanupQueue.Items;
	for (size_t i = 0; i < items.size(); i++)
		State.Blobs.erase(items[i].BlobId);
	items.clear();
	State.CleanupCount++;
}

} // namespace NCloud::NBlockStore::NStorage::NPartition

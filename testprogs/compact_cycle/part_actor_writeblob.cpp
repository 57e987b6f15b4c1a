/*
 * compact_cycle - ydb-platform/nbs#1157: the write path
 * (cloud/blockstore/libs/storage/partition/part_actor_writeblob.cpp in
 * NBS): a write of whole blocks becomes one fresh blob of its range, then
 * the partition checks compaction and cleanup.
 */
#include "part.h"

namespace NCloud::NBlockStore::NStorage::NPartition {

void TPartitionActor::HandleWriteBlocks(ui64 startIndex, ui32 blockCount, ui64 seed)
{
	TBlob blob;
	blob.CommitId = State.GenerateCommitId();
	blob.RangeIdx = (ui32)(startIndex / BlocksPerRange);
	blob.Data.resize((size_t)blockCount * BlockSize);
	ui64 s = seed;
	for (ui32 i = 0; i < blockCount; i++) {
		blob.BlockIndices.push_back((ui32)(startIndex % BlocksPerRange) + i);
		unsigned char *block = &blob.Data[(size_t)i * BlockSize];
		for (ui32 w = 0; w < BlockSize; w += 8) {
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			memcpy(block + w, &s, 8);
		}
	}
	/* the blob storage checks each blob's checksum */
	ui32 crc = Crc32c(blob.Data.data(), blob.Data.size(), 0);
	blob.Data.push_back((unsigned char)crc);
	blob.Data.pop_back();
	State.AddBlob(std::move(blob));
	EnqueueCompactionIfNeeded();
	EnqueueCleanupIfNeeded();
}

} // namespace NCloud::NBlockStore::NStorage::NPartition

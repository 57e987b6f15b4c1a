/*
 * compact_cycle - ydb-platform/nbs#1157: the partition's state
 * (cloud/blockstore/libs/storage/partition/part_state.cpp in NBS): the
 * blobs of the disk, which blob holds each block's latest version, per
 * compaction range, and the cleanup queue of replaced blobs.
 */
#include "part.h"

namespace NCloud::NBlockStore::NStorage::NPartition {

TPartitionState::TPartitionState(const TStorageConfig &config)
	: Config(config), Ranges(config.RangeCount), LiveBlobs(0), LastCommitId(0), NextBlobId(1),
	  CheckpointCommitId(0), CompactionCount(0), CleanupCount(0)
{
	for (TRangeStat &r : Ranges)
	{
		r.BlockBlob.assign(BlocksPerRange, 0);
		r.BlockOffset.assign(BlocksPerRange, 0);
	}
}

ui64 TPartitionState::AddBlob(TBlob &&blob)
{
	ui64 id = NextBlobId++;
	TRangeStat &range = Ranges[blob.RangeIdx];
	for (ui32 k = 0; k < blob.BlockIndices.size(); k++) {
		range.BlockBlob[blob.BlockIndices[k]] = id;
		range.BlockOffset[blob.BlockIndices[k]] = k;
	}
	range.BlobIds.push_back(id);
	blob.Live = true;
	Blobs.emplace(id, std::unique_ptr<TBlob>(new TBlob(std::move(blob))));
	LiveBlobs++;
	return id;
}

/* Compaction's result replaces every blob of the range: they go to the
 * cleanup queue (their data stays in the blob storage until cleanup). */
void TPartitionState::ReplaceRange(ui32 rangeIdx, TBlob &&merged)
{
	TRangeStat &range = Ranges[rangeIdx];
	ui64 commitId = GenerateCommitId();
	for (ui64 id : range.BlobIds) {
		TBlob &old = *Blobs[id];
		old.Live = false;
		std::vector<unsigned char>().swap(old.Data);
		LiveBlobs--;
		CleanupQueue.Add(id, commitId, CheckpointCommitId);
	}
	range.BlobIds.clear();
	merged.RangeIdx = rangeIdx;
	AddBlob(std::move(merged));
}

/* Every blob the disk has in the blob storage. */
ui32 TPartitionState::GetBlobCount() const
{
	return (ui32)Blobs.size();
}

/* The range with the most blobs (the compaction map's top). */
ui32 TPartitionState::GetTopRange(ui32 *blobs) const
{
	ui32 top = 0, most = 0;
	for (ui32 i = 0; i < Ranges.size(); i++) {
		ui32 n = (ui32)Ranges[i].BlobIds.size();
		if (n > most) {
			most = n;
			top = i;
		}
	}
	*blobs = most;
	return top;
}

ui64 TPartitionState::Checksum() const
{
	ui64 c = 0;
	for (ui32 i = 0; i < Ranges.size(); i++)
		for (ui32 b = 0; b < BlocksPerRange; b++) {
			ui64 id = Ranges[i].BlockBlob[b];
			if (id == 0)
				continue;
			const TBlob &blob = *Blobs.at(id);
			c = c * 1000003 + Crc32c(&blob.Data[(size_t)Ranges[i].BlockOffset[b] * BlockSize], BlockSize, 0);
		}
	return c;
}

ui32 Crc32c(const unsigned char *p, size_t n, ui32 crc)
{
	static ui32 table[256];
	if (table[1] == 0)
		for (ui32 i = 0; i < 256; i++) {
			ui32 c = i;
			for (int k = 0; k < 8; k++)
				c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
			table[i] = c;
		}
	crc = ~crc;
	for (size_t i = 0; i < n; i++)
		crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	return ~crc;
}

} // namespace NCloud::NBlockStore::NStorage::NPartition

/*
 * overlap_sort (RocksDB-10161): table_builder.cpp
 * The block-based table (table/block_based/block_based_table_builder.cc,
 * block_builder.cc, filter_policy.cc, and the reader's block iteration):
 * prefix-compressed data blocks with restart points, a CRC-32C trailer per
 * block, a full bloom filter, an index block and a footer.
 */
#include "overlap_sort.h"

namespace rocksdb {

static const int kBlockRestartInterval = 16;
static const uint64_t kBlockBasedTableMagicNumber = 0x88e241b785f4cff7ull;

TableBuilder::TableBuilder(const Options &options, std::string *file) : options_(options), file_(file)
{
	file_->clear();
	restarts_.push_back(0);
}

void TableBuilder::Add(const std::string &ikey, const std::string &value)
{
	size_t shared = 0;
	if (restart_counter_ < (uint32_t)kBlockRestartInterval) {
		size_t min_length = std::min(last_key_.size(), ikey.size());
		while (shared < min_length && last_key_[shared] == ikey[shared])
			shared++;
	} else {
		restarts_.push_back((uint32_t)data_block_.size());
		restart_counter_ = 0;
	}
	size_t non_shared = ikey.size() - shared;
	PutVarint32(&data_block_, (uint32_t)shared);
	PutVarint32(&data_block_, (uint32_t)non_shared);
	PutVarint32(&data_block_, (uint32_t)value.size());
	data_block_.append(ikey.data() + shared, non_shared);
	data_block_.append(value);
	last_key_ = ikey;
	restart_counter_++;
	/* the filter is on the user key */
	filter_hashes_.push_back(Hash(ikey.data(), ikey.size() - 8, 0xbc9f1d34));
	props_.num_entries++;
	if (data_block_.size() >= options_.block_size)
		Flush();
}

void TableBuilder::WriteBlock(std::string *block)
{
	char trailer[5];
	trailer[0] = 0;	/* kNoCompression */
	uint32_t crc = crc32c::Value(block->data(), block->size());
	crc = crc32c::Extend(crc, trailer, 1);
	uint32_t masked = crc32c::Mask(crc);
	memcpy(trailer + 1, &masked, 4);
	uint64_t offset = file_->size();
	file_->append(*block);
	file_->append(trailer, 5);
	props_.checksum = props_.checksum * 31 + masked;
	/* the index entry: the block's last key, its handle */
	PutVarint32(&index_block_, (uint32_t)last_key_.size());
	index_block_ += last_key_;
	PutFixed64(&index_block_, offset);
	PutFixed64(&index_block_, block->size());
}

void TableBuilder::Flush()
{
	if (data_block_.empty())
		return;
	for (uint32_t r : restarts_)
		PutFixed32(&data_block_, r);
	PutFixed32(&data_block_, (uint32_t)restarts_.size());
	props_.data_size += data_block_.size();
	WriteBlock(&data_block_);
	data_block_.clear();
	restarts_.assign(1, 0);
	restart_counter_ = 0;
}

void TableBuilder::Finish()
{
	Flush();
	/* FullFilterBitsBuilder: k probes by double hashing */
	size_t bits = std::max<size_t>(64, filter_hashes_.size() * options_.bloom_bits_per_key);
	size_t bytes = (bits + 7) / 8;
	bits = bytes * 8;
	std::string filter(bytes, '\0');
	int k = std::max(1, std::min(30, (int)(options_.bloom_bits_per_key * 69 / 100)));
	for (uint32_t h : filter_hashes_) {
		const uint32_t delta = (h >> 17) | (h << 15);
		for (int j = 0; j < k; j++) {
			const uint32_t bitpos = h % bits;
			filter[bitpos / 8] |= (char)(1 << (bitpos % 8));
			h += delta;
		}
	}
	filter.push_back((char)k);
	uint64_t filter_offset = file_->size();
	WriteBlock(&filter);
	uint64_t index_offset = file_->size();
	props_.filter_size = filter.size();
	props_.index_size = index_block_.size();
	std::string index = index_block_;
	file_->append(index);
	PutFixed64(file_, filter_offset);
	PutFixed64(file_, index_offset);
	PutFixed64(file_, index.size());
	PutFixed64(file_, kBlockBasedTableMagicNumber);
}

/* BlockBasedTableIterator over the whole file: verify each data block's
checksum, then decode its entries */
void ReadTable(const std::string &file, std::vector<std::pair<std::string, std::string>> *out)
{
	size_t n = file.size();
	uint64_t index_offset = DecodeFixed64(file.data() + n - 24);
	uint64_t index_size = DecodeFixed64(file.data() + n - 16);
	const char *p = file.data() + index_offset, *limit = p + index_size;
	std::string key;
	while (p < limit) {
		uint32_t klen;
		p = GetVarint32(p, limit, &klen);
		p += klen;
		uint64_t offset = DecodeFixed64(p), size = DecodeFixed64(p + 8);
		p += 16;
		const char *block = file.data() + offset;
		uint32_t crc = crc32c::Extend(crc32c::Value(block, size), block + size, 1);
		if (crc32c::Mask(crc) != DecodeFixed32(block + size + 1)) {
			fprintf(stderr, "Corruption: block checksum mismatch at %llu\n", (unsigned long long)offset);
			exit(3);
		}
		uint32_t num_restarts = DecodeFixed32(block + size - 4);
		const char *bp = block, *bend = block + size - 4 - 4 * num_restarts;
		key.clear();
		while (bp < bend) {
			uint32_t shared, non_shared, vlen;
			bp = GetVarint32(bp, bend, &shared);
			bp = GetVarint32(bp, bend, &non_shared);
			bp = GetVarint32(bp, bend, &vlen);
			key.resize(shared);
			key.append(bp, non_shared);
			bp += non_shared;
			out->emplace_back(key, std::string(bp, vlen));
			bp += vlen;
		}
	}
}

}  // namespace rocksdb

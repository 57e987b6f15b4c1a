/*
 * overlap_sort (RocksDB-10161): overlap_sort.h
 * Shared declarations, after RocksDB's db/dbformat.h (internal keys),
 * db/version_edit.h (FileMetaData), db/version_set.h (VersionStorageInfo,
 * Version, VersionSet), db/memtable.h, table/block_based/
 * block_based_table_builder.h and include/rocksdb/options.h.
 */
#ifndef OVERLAP_SORT_H
#define OVERLAP_SORT_H

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace rocksdb {

typedef uint64_t SequenceNumber;

/* util/coding.h */
inline void PutFixed32(std::string *dst, uint32_t v) { dst->append(reinterpret_cast<const char *>(&v), 4); }
inline void PutFixed64(std::string *dst, uint64_t v) { dst->append(reinterpret_cast<const char *>(&v), 8); }
inline uint64_t DecodeFixed64(const char *p) { uint64_t v; memcpy(&v, p, 8); return v; }
inline uint32_t DecodeFixed32(const char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
void PutVarint32(std::string *dst, uint32_t v);
const char *GetVarint32(const char *p, const char *limit, uint32_t *v);

/* util/crc32c.cc, util/hash.cc */
namespace crc32c {
uint32_t Extend(uint32_t crc, const char *data, size_t n);
inline uint32_t Value(const char *data, size_t n) { return Extend(0, data, n); }
inline uint32_t Mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8ul; }
}
uint32_t Hash(const char *data, size_t n, uint32_t seed);

/* include/rocksdb/status.h */
class Status {
public:
	Status() : code_(0) {}
	static Status OK() { return Status(); }
	static Status NotSupported() { Status s; s.code_ = 3; return s; }
	bool ok() const { return code_ == 0; }
private:
	int code_;
};

/* include/rocksdb/system_clock.h */
class SystemClock {
public:
	uint64_t NowMicros();
	Status GetCurrentTime(int64_t *unix_time);
	static SystemClock *Default();
};

/* db/dbformat.h: internal key = user key + (sequence << 8 | type) */
enum ValueType : unsigned char { kTypeDeletion = 0x0, kTypeValue = 0x1 };

class InternalKey {
public:
	InternalKey() {}
	InternalKey(const std::string &user_key, SequenceNumber s, ValueType t) : rep_(user_key) { PutFixed64(&rep_, (s << 8) | t); }
	const std::string &Encode() const { return rep_; }
	std::string user_key() const { return rep_.substr(0, rep_.size() - 8); }
	void DecodeFrom(const std::string &s) { rep_ = s; }
	bool empty() const { return rep_.empty(); }
private:
	std::string rep_;
};

class InternalKeyComparator {
public:
	int Compare(const std::string &a, const std::string &b) const;
	int Compare(const InternalKey &a, const InternalKey &b) const { return Compare(a.Encode(), b.Encode()); }
	int CompareUserKey(const char *a, size_t an, const char *b, size_t bn) const;
};

/* db/version_edit.h */
struct FileDescriptor {
	uint64_t packed_number;
	uint64_t file_size;
	uint64_t GetNumber() const { return packed_number; }
};

struct FileMetaData {
	FileDescriptor fd;
	InternalKey smallest;
	InternalKey largest;
	uint64_t compensated_file_size = 0;
	uint64_t num_entries = 0;
	uint64_t oldest_ancester_time = 0;
	uint64_t file_creation_time = 0;
	int refs = 0;
	bool being_compacted = false;
};

class VersionEdit {
public:
	void AddFile(int level, FileMetaData *f) { new_files_.push_back({ level, f }); }
	void DeleteFile(int level, uint64_t number) { deleted_files_.push_back({ level, number }); }
	std::vector<std::pair<int, FileMetaData *>> new_files_;
	std::vector<std::pair<int, uint64_t>> deleted_files_;
	std::string EncodeTo() const;
};

/* include/rocksdb/options.h */
enum CompactionPri { kByCompensatedSize, kOldestLargestSeqFirst, kMinOverlappingRatio };

struct Options {
	size_t write_buffer_size = 64 << 10;
	int num_levels = 7;
	int level0_file_num_compaction_trigger = 4;
	uint64_t max_bytes_for_level_base = 256 << 10;
	int max_bytes_for_level_multiplier = 10;
	uint64_t target_file_size_base = 64 << 10;
	size_t block_size = 4096;
	int bloom_bits_per_key = 10;
	uint64_t ttl = 30 * 24 * 3600;
	CompactionPri compaction_pri = kMinOverlappingRatio;
};

/* db/version_set.h */
struct Fsize {
	size_t index;
	FileMetaData *file;
};

class VersionStorageInfo {
public:
	VersionStorageInfo(const InternalKeyComparator *icmp, int num_levels);
	int num_levels() const { return num_levels_; }
	int number_of_levels() const { return num_levels_; }
	const std::vector<FileMetaData *> &LevelFiles(int level) const { return files_[level]; }
	const std::vector<int> &FilesByCompactionPri(int level) const { return files_by_compaction_pri_[level]; }
	uint64_t NumLevelBytes(int level) const;
	void AddFile(int level, FileMetaData *f) { files_[level].push_back(f); }
	void PrepareForVersionAppend(const Options &options, SystemClock *clock);
	void ComputeCompactionScore(const Options &options);
	double CompactionScore(int idx) const { return compaction_score_[idx]; }
	int CompactionScoreLevel(int idx) const { return compaction_level_[idx]; }
	void GetOverlappingInputs(int level, const InternalKey &begin, const InternalKey &end, std::vector<FileMetaData *> *inputs) const;
	uint64_t MaxBytesForLevel(int level) const { return level_max_bytes_[level]; }

	std::vector<std::vector<FileMetaData *>> files_;
private:
	void UpdateNumNonEmptyLevels();
	void UpdateFilesByCompactionPri(const Options &options, SystemClock *clock);
	void CalculateBaseBytes(const Options &options);

	const InternalKeyComparator *internal_comparator_;
	int num_levels_;
	int num_non_empty_levels_ = 0;
	std::vector<std::vector<int>> files_by_compaction_pri_;
	std::vector<double> compaction_score_;
	std::vector<int> compaction_level_;
	std::vector<uint64_t> level_max_bytes_;
	static const size_t kNumberFilesToSort = 50;
};

void SortFileByOverlappingRatio(const InternalKeyComparator &icmp, const std::vector<FileMetaData *> &files,
				const std::vector<FileMetaData *> &next_level_files, SystemClock *clock, int level,
				int num_non_empty_levels, uint64_t ttl, std::vector<Fsize> *temp);

class VersionSet;
class Version {
public:
	Version(VersionSet *vset, uint64_t version_number);
	VersionStorageInfo storage_info_;
	VersionSet *vset_;
	uint64_t version_number_;
	int refs_ = 0;
	void PrepareAppend(const Options &options);
};

class VersionSet {
public:
	VersionSet(const Options &options, const InternalKeyComparator *icmp);
	Status LogAndApply(VersionEdit *edit);
	Version *current() const { return current_; }
	uint64_t NewFileNumber() { return next_file_number_++; }
	uint64_t manifest_file_size() const { return manifest_file_size_; }
	uint64_t num_versions() const { return version_number_; }
	const Options &options() const { return options_; }
	const InternalKeyComparator *icmp() const { return icmp_; }
private:
	void AppendVersion(Version *v);
	const Options &options_;
	const InternalKeyComparator *icmp_;
	Version *current_;
	uint64_t next_file_number_ = 2;
	uint64_t version_number_ = 0;
	uint64_t manifest_file_size_ = 0;
	uint32_t manifest_crc_ = 0;
};

/* db/version_builder.cc */
void ApplyEditToVersion(const VersionStorageInfo &base, const VersionEdit &edit, VersionStorageInfo *out,
			const InternalKeyComparator &icmp);

/* db/memtable.h: a skip list of encoded entries in an arena */
class MemTable {
public:
	explicit MemTable(const InternalKeyComparator *cmp);
	~MemTable();
	void Add(SequenceNumber seq, ValueType type, const std::string &key, const std::string &value);
	size_t ApproximateMemoryUsage() const { return memory_usage_; }
	uint64_t num_entries() const { return num_entries_; }
	bool GetOldestKeyTime(uint64_t *t) const;
	/* iteration in key order */
	struct Node;
	Node *First() const;
	static Node *Next(Node *n);
	static const char *Key(Node *n, size_t *len);
	static const char *Value(Node *n, size_t *len);
private:
	Node *NewNode(const char *entry, size_t len, int height);
	int RandomHeight();
	int KeyCompare(const char *a, const char *b) const;
	const InternalKeyComparator *cmp_;
	std::vector<std::unique_ptr<char[]>> arena_;
	Node *head_;
	int max_height_ = 1;
	size_t memory_usage_ = 0;
	uint64_t num_entries_ = 0;
	uint32_t rnd_ = 0xdeadbeef;
};

/* table/block_based/block_based_table_builder.cc and the reader */
struct TableProperties {
	uint64_t num_entries = 0;
	uint64_t data_size = 0;
	uint64_t index_size = 0;
	uint64_t filter_size = 0;
	uint32_t checksum = 0;
};

class TableBuilder {
public:
	TableBuilder(const Options &options, std::string *file);
	void Add(const std::string &ikey, const std::string &value);
	void Finish();
	uint64_t FileSize() const { return file_->size(); }
	uint64_t NumEntries() const { return props_.num_entries; }
	const TableProperties &props() const { return props_; }
private:
	void Flush();
	void WriteBlock(std::string *block);
	const Options &options_;
	std::string *file_;
	std::string data_block_;
	std::string index_block_;
	std::vector<uint32_t> filter_hashes_;
	std::string last_key_;
	uint32_t restart_counter_ = 0;
	std::vector<uint32_t> restarts_;
	TableProperties props_;
};

/* reads every entry of a table file back (compaction input) */
void ReadTable(const std::string &file, std::vector<std::pair<std::string, std::string>> *out);

/* an in-memory Env: the table files by number */
class Env {
public:
	std::string *NewWritableFile(uint64_t number) { return &files_[number]; }
	const std::string &File(uint64_t number) { return files_[number]; }
	void DeleteFile(uint64_t number) { files_.erase(number); }
	uint64_t bytes_written = 0;
private:
	std::unordered_map<uint64_t, std::string> files_;
};

/* db/db_impl */
struct DBStats {
	uint64_t flushes = 0;
	uint64_t compactions = 0;
	uint64_t trivial_moves = 0;
	uint64_t bytes_compacted = 0;
	uint64_t table_checksum = 0;
};

class DBImpl {
public:
	DBImpl(const Options &options);
	Status Put(const std::string &key, const std::string &value);
	Status Flush();
	const DBStats &stats() const { return stats_; }
	VersionSet *versions() { return versions_.get(); }
private:
	Status WriteToMemtable(const std::string &key, const std::string &value);
	Status FlushMemTableToOutputFile();
	void MaybeScheduleFlushOrCompaction();
	Status BackgroundCompaction(bool *made_progress);
	Status BuildTable(MemTable *mem, FileMetaData *meta);
	const Options options_;
	InternalKeyComparator icmp_;
	std::unique_ptr<VersionSet> versions_;
	std::unique_ptr<MemTable> mem_;
	SequenceNumber last_sequence_ = 0;
	DBStats stats_;
	uint64_t last_flush_us_ = 0;
};

extern Env *g_env;

/* db/compaction/compaction_picker_level.cc and compaction_job.cc */
struct Compaction {
	int start_level;
	int output_level;
	std::vector<FileMetaData *> inputs[2];
	bool trivial_move;
};
bool PickCompaction(VersionStorageInfo *vstorage, const Options &options, const InternalKeyComparator &icmp, Compaction *c);
void RunCompactionJob(const Compaction &c, VersionSet *versions, const Options &options, VersionEdit *edit, DBStats *stats);

}  // namespace rocksdb

#endif

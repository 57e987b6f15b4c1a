/*
 * overlap_sort (RocksDB-10161): version_set.cpp
 * The LSM tree's versions (db/version_set.cc): VersionStorageInfo's files by
 * level, the compaction scores, the order in which a level's files are
 * picked for compaction (UpdateFilesByCompactionPri and, for
 * kMinOverlappingRatio, SortFileByOverlappingRatio), and
 * VersionSet::LogAndApply, which writes a version edit to the MANIFEST and
 * installs the new version.
 */
#include "overlap_sort.h"

namespace rocksdb {

VersionStorageInfo::VersionStorageInfo(const InternalKeyComparator *icmp, int num_levels)
	: files_(num_levels), internal_comparator_(icmp), num_levels_(num_levels), files_by_compaction_pri_(num_levels),
	  compaction_score_(num_levels), compaction_level_(num_levels), level_max_bytes_(num_levels)
{
}

uint64_t VersionStorageInfo::NumLevelBytes(int level) const
{
	uint64_t sum = 0;
	for (FileMetaData *f : files_[level])
		sum += f->fd.file_size;
	return sum;
}

void VersionStorageInfo::UpdateNumNonEmptyLevels()
{
	num_non_empty_levels_ = num_levels_;
	for (int i = num_levels_ - 1; i >= 0; i--) {
		if (!files_[i].empty())
			return;
		num_non_empty_levels_ = i;
	}
}

void VersionStorageInfo::CalculateBaseBytes(const Options &options)
{
	level_max_bytes_[0] = 0;
	uint64_t max_bytes = options.max_bytes_for_level_base;
	for (int i = 1; i < num_levels_; i++) {
		level_max_bytes_[i] = max_bytes;
		max_bytes *= options.max_bytes_for_level_multiplier;
	}
}

/* FileTtlBooster: files older than the TTL are compacted sooner */
class FileTtlBooster {
public:
	FileTtlBooster(uint64_t current_time, uint64_t ttl, int num_non_empty_levels, int level)
		: current_time_(current_time)
	{
		if (ttl == 0 || level == 0 || level >= num_non_empty_levels - 1) {
			enabled_ = false;
			return;
		}
		enabled_ = true;
		uint64_t all_boost_start_age = ttl / 2;
		uint64_t all_boost_age_range = (ttl / 32) * 31 - all_boost_start_age;
		uint64_t boost_age_range = all_boost_age_range >> (num_non_empty_levels - level - 1);
		boost_age_start_ = all_boost_start_age + boost_age_range * (num_non_empty_levels - level - 2);
		boost_step_ = std::max(boost_age_range / 16, (uint64_t)1);
	}
	uint64_t GetBoostScore(FileMetaData *f)
	{
		if (!enabled_)
			return 1;
		uint64_t oldest_ancester_time = f->oldest_ancester_time;
		if (oldest_ancester_time >= current_time_)
			return 1;
		uint64_t age = current_time_ - oldest_ancester_time;
		if (age > boost_age_start_)
			return (age - boost_age_start_) / boost_step_ + 1;
		return 1;
	}
private:
	bool enabled_;
	uint64_t current_time_;
	uint64_t boost_age_start_ = 0;
	uint64_t boost_step_ = 1;
};

/* SortFileByOverlappingRatio(): the files of a level in ascending order of
the bytes they overlap in the next level per byte of their own, so that
compaction picks the cheapest file first. The overlap is found by a merge
walk over the next level; then the whole level is sorted, with a hash
lookup of both files' ratio in every comparison. A level holding thousands
of files is sorted on every LogAndApply, that is on every flush, trivial
move and compaction; the fix (RocksDB PR 10161) finds only the top 50
files with std::partial_sort, as the other compaction priorities do. */
void SortFileByOverlappingRatio(const InternalKeyComparator &icmp, const std::vector<FileMetaData *> &files,
				const std::vector<FileMetaData *> &next_level_files, SystemClock *clock, int level,
				int num_non_empty_levels, uint64_t ttl, std::vector<Fsize> *temp)
{
	std::unordered_map<uint64_t, uint64_t> file_to_order;
	auto next_level_it = next_level_files.begin();

	int64_t curr_time;
	Status status = clock->GetCurrentTime(&curr_time);
	if (!status.ok()) {
		/* If we can't get time, disable TTL. */
		ttl = 0;
	}

	FileTtlBooster ttl_booster(static_cast<uint64_t>(curr_time), ttl, num_non_empty_levels, level);

	for (auto &file : files) {
		uint64_t overlapping_bytes = 0;
		/* Skip files in next level that is smaller than current file */
		while (next_level_it != next_level_files.end() && icmp.Compare((*next_level_it)->largest, file->smallest) < 0)
			next_level_it++;

		while (next_level_it != next_level_files.end() && icmp.Compare((*next_level_it)->smallest, file->largest) < 0) {
			overlapping_bytes += (*next_level_it)->fd.file_size;
			if (icmp.Compare((*next_level_it)->largest, file->largest) > 0) {
				/* next level file cross large boundary of current file. */
				break;
			}
			next_level_it++;
		}

		uint64_t ttl_boost_score = (ttl > 0) ? ttl_booster.GetBoostScore(file) : 1;
		file_to_order[file->fd.GetNumber()] = overlapping_bytes * 1024U / file->compensated_file_size / ttl_boost_score;
	}

	std::sort(temp->begin(), temp->end(), [&](const Fsize &f1, const Fsize &f2) -> bool {	/* ROOT CAUSE */
		return file_to_order[f1.file->fd.GetNumber()] < file_to_order[f2.file->fd.GetNumber()];
	});
}

void VersionStorageInfo::UpdateFilesByCompactionPri(const Options &options, SystemClock *clock)
{
	for (int level = 0; level < number_of_levels() - 1; level++) {
		const std::vector<FileMetaData *> &files = files_[level];
		auto &files_by_compaction_pri = files_by_compaction_pri_[level];
		files_by_compaction_pri.clear();

		/* populate a temp vector for sorting based on size */
		std::vector<Fsize> temp(files.size());
		for (size_t i = 0; i < files.size(); i++) {
			temp[i].index = i;
			temp[i].file = files[i];
		}

		/* sort the top number_of_files_to_sort_ based on file size */
		size_t num = VersionStorageInfo::kNumberFilesToSort;
		if (num > temp.size())
			num = temp.size();
		switch (options.compaction_pri) {
		case kByCompensatedSize:
			std::partial_sort(temp.begin(), temp.begin() + num, temp.end(), [](const Fsize &a, const Fsize &b) {
				return a.file->compensated_file_size > b.file->compensated_file_size;
			});
			break;
		case kOldestLargestSeqFirst:
			std::sort(temp.begin(), temp.end(), [](const Fsize &a, const Fsize &b) {
				return a.file->fd.GetNumber() < b.file->fd.GetNumber();
			});
			break;
		case kMinOverlappingRatio:
			SortFileByOverlappingRatio(*internal_comparator_, files_[level], files_[level + 1], clock, level,
						   num_non_empty_levels_, options.ttl, &temp);
			break;
		}
		for (size_t i = 0; i < temp.size(); i++)
			files_by_compaction_pri.push_back((int)temp[i].index);
	}
}

void VersionStorageInfo::ComputeCompactionScore(const Options &options)
{
	for (int level = 0; level < num_levels_ - 1; level++) {
		double score;
		if (level == 0) {
			int num_sorted_runs = 0;
			for (FileMetaData *f : files_[0])
				if (!f->being_compacted)
					num_sorted_runs++;
			score = (double)num_sorted_runs / options.level0_file_num_compaction_trigger;
		} else {
			score = (double)NumLevelBytes(level) / MaxBytesForLevel(level);
		}
		compaction_level_[level] = level;
		compaction_score_[level] = score;
	}
	/* sort all the levels by score, descending */
	for (int i = 0; i < num_levels_ - 2; i++)
		for (int j = i + 1; j < num_levels_ - 1; j++)
			if (compaction_score_[i] < compaction_score_[j]) {
				std::swap(compaction_score_[i], compaction_score_[j]);
				std::swap(compaction_level_[i], compaction_level_[j]);
			}
}

void VersionStorageInfo::PrepareForVersionAppend(const Options &options, SystemClock *clock)
{
	UpdateNumNonEmptyLevels();
	CalculateBaseBytes(options);
	UpdateFilesByCompactionPri(options, clock);
}

void VersionStorageInfo::GetOverlappingInputs(int level, const InternalKey &begin, const InternalKey &end,
					      std::vector<FileMetaData *> *inputs) const
{
	inputs->clear();
	std::string user_begin = begin.user_key(), user_end = end.user_key();
	for (FileMetaData *f : files_[level]) {
		std::string fs = f->smallest.user_key(), fl = f->largest.user_key();
		if (fl < user_begin || fs > user_end)
			continue;
		inputs->push_back(f);
	}
}

Version::Version(VersionSet *vset, uint64_t version_number)
	: storage_info_(vset->icmp(), vset->options().num_levels), vset_(vset), version_number_(version_number)
{
}

void Version::PrepareAppend(const Options &options)
{
	storage_info_.PrepareForVersionAppend(options, SystemClock::Default());
}

VersionSet::VersionSet(const Options &options, const InternalKeyComparator *icmp) : options_(options), icmp_(icmp)
{
	current_ = new Version(this, version_number_++);
	current_->PrepareAppend(options_);
	current_->storage_info_.ComputeCompactionScore(options_);
}

void VersionSet::AppendVersion(Version *v)
{
	Version *old = current_;
	current_ = v;
	/* the old version's files lose a reference; files no version holds
	are obsolete (PurgeObsoleteFiles) */
	for (auto &level : old->storage_info_.files_)
		for (FileMetaData *f : level)
			if (--f->refs == 0) {
				g_env->DeleteFile(f->fd.GetNumber());
				delete f;
			}
	delete old;
}

/* LogAndApply(): write the edit to the MANIFEST, build the new version
from the current one and the edit, prepare it (the compaction order and
scores) and install it */
Status VersionSet::LogAndApply(VersionEdit *edit)
{
	std::string record = edit->EncodeTo();
	manifest_crc_ = crc32c::Extend(manifest_crc_, record.data(), record.size());
	manifest_file_size_ += record.size() + 7;

	Version *v = new Version(this, version_number_++);
	ApplyEditToVersion(current_->storage_info_, *edit, &v->storage_info_, *icmp_);
	v->PrepareAppend(options_);
	v->storage_info_.ComputeCompactionScore(options_);
	AppendVersion(v);
	return Status::OK();
}

}  // namespace rocksdb

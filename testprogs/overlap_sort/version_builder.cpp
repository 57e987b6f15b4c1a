/*
 * overlap_sort (RocksDB-10161): version_builder.cpp
 * VersionBuilder (db/version_builder.cc): the files of the base version
 * without the deleted ones, plus the added ones, each level of L1+ kept in
 * key order and L0 newest first.
 */
#include "overlap_sort.h"

namespace rocksdb {

void ApplyEditToVersion(const VersionStorageInfo &base, const VersionEdit &edit, VersionStorageInfo *out,
			const InternalKeyComparator &icmp)
{
	std::vector<std::unordered_set<uint64_t>> deleted(base.num_levels());
	for (auto &d : edit.deleted_files_)
		deleted[d.first].insert(d.second);
	std::vector<std::vector<FileMetaData *>> added(base.num_levels());
	for (auto &n : edit.new_files_)
		added[n.first].push_back(n.second);

	for (int level = 0; level < base.num_levels(); level++) {
		const std::vector<FileMetaData *> &base_files = base.LevelFiles(level);
		std::vector<FileMetaData *> &files = out->files_[level];
		files.reserve(base_files.size() + added[level].size());
		if (level == 0) {
			/* L0: newest (highest file number) first */
			for (FileMetaData *f : added[level])
				files.push_back(f);
			for (FileMetaData *f : base_files)
				if (!deleted[level].count(f->fd.GetNumber()))
					files.push_back(f);
			std::sort(files.begin(), files.end(), [](FileMetaData *a, FileMetaData *b) {
				return a->fd.GetNumber() > b->fd.GetNumber();
			});
		} else {
			/* merge the added files into the sorted base level */
			std::vector<FileMetaData *> &add = added[level];
			std::sort(add.begin(), add.end(), [&icmp](FileMetaData *a, FileMetaData *b) {
				return icmp.Compare(a->smallest, b->smallest) < 0;
			});
			auto ai = add.begin();
			for (FileMetaData *f : base_files) {
				while (ai != add.end() && icmp.Compare((*ai)->smallest, f->smallest) < 0)
					files.push_back(*ai++);
				if (!deleted[level].count(f->fd.GetNumber()))
					files.push_back(f);
			}
			while (ai != add.end())
				files.push_back(*ai++);
		}
		for (FileMetaData *f : files)
			f->refs++;
	}
}

}  // namespace rocksdb

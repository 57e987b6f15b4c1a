/*
 * overlap_sort (RocksDB-10161): compaction.cpp
 * Leveled compaction (db/compaction/compaction_picker_level.cc,
 * compaction_job.cc): pick the level with the highest score; from L0 take
 * every file, from L1+ the first file of the level's compaction order;
 * add the overlapping files of the next level. A compaction whose inputs
 * overlap nothing below is a trivial move; any other merges its inputs
 * and writes new table files.
 */
#include "overlap_sort.h"

namespace rocksdb {

static void GetRange(const std::vector<FileMetaData *> &files, const InternalKeyComparator &icmp, InternalKey *smallest,
		     InternalKey *largest)
{
	*smallest = files[0]->smallest;
	*largest = files[0]->largest;
	for (FileMetaData *f : files) {
		if (icmp.Compare(f->smallest, *smallest) < 0)
			*smallest = f->smallest;
		if (icmp.Compare(f->largest, *largest) > 0)
			*largest = f->largest;
	}
}

static bool FilesOverlap(std::vector<FileMetaData *> files, const InternalKeyComparator &icmp)
{
	std::sort(files.begin(), files.end(),
		  [&icmp](FileMetaData *a, FileMetaData *b) { return icmp.Compare(a->smallest, b->smallest) < 0; });
	for (size_t i = 1; i < files.size(); i++)
		if (icmp.Compare(files[i - 1]->largest, files[i]->smallest) >= 0)
			return true;
	return false;
}

bool PickCompaction(VersionStorageInfo *vstorage, const Options &options, const InternalKeyComparator &icmp, Compaction *c)
{
	for (int i = 0; i < vstorage->num_levels() - 1; i++) {
		if (vstorage->CompactionScore(i) < 1)
			return false;
		int level = vstorage->CompactionScoreLevel(i);
		c->start_level = level;
		c->output_level = level + 1;
		c->inputs[0].clear();
		c->inputs[1].clear();
		if (level == 0) {
			c->inputs[0] = vstorage->LevelFiles(0);
		} else {
			const std::vector<int> &order = vstorage->FilesByCompactionPri(level);
			if (order.empty())
				continue;
			c->inputs[0].push_back(vstorage->LevelFiles(level)[order[0]]);
		}
		InternalKey smallest, largest;
		GetRange(c->inputs[0], icmp, &smallest, &largest);
		vstorage->GetOverlappingInputs(c->output_level, smallest, largest, &c->inputs[1]);
		c->trivial_move = c->inputs[1].empty() && (level > 0 || !FilesOverlap(c->inputs[0], icmp));
		(void)options;
		return true;
	}
	return false;
}

void RunCompactionJob(const Compaction &c, VersionSet *versions, const Options &options, VersionEdit *edit, DBStats *stats)
{
	if (c.trivial_move) {
		for (FileMetaData *f : c.inputs[0]) {
			edit->DeleteFile(c.start_level, f->fd.GetNumber());
			edit->AddFile(c.output_level, f);
		}
		stats->trivial_moves++;
		return;
	}
	/* read the inputs (MergingIterator over the tables) */
	std::vector<std::pair<std::string, std::string>> entries;
	for (int which = 0; which < 2; which++)
		for (FileMetaData *f : c.inputs[which]) {
			ReadTable(g_env->File(f->fd.GetNumber()), &entries);
			edit->DeleteFile(which == 0 ? c.start_level : c.output_level, f->fd.GetNumber());
			stats->bytes_compacted += f->fd.file_size;
		}
	const InternalKeyComparator &icmp = *versions->icmp();
	std::sort(entries.begin(), entries.end(),
		  [&icmp](const std::pair<std::string, std::string> &a, const std::pair<std::string, std::string> &b) {
			  return icmp.Compare(a.first, b.first) < 0;
		  });
	/* CompactionIterator: keep the newest entry of each user key */
	TableBuilder *builder = nullptr;
	FileMetaData *meta = nullptr;
	const std::string *prev_user = nullptr;
	size_t prev_len = 0;
	uint64_t oldest_ancester_time = UINT64_MAX;
	for (int which = 0; which < 2; which++)
		for (FileMetaData *f : c.inputs[which])
			oldest_ancester_time = std::min(oldest_ancester_time, f->oldest_ancester_time);
	auto finish = [&]() {
		builder->Finish();
		meta->oldest_ancester_time = oldest_ancester_time;
		meta->fd.file_size = builder->FileSize();
		meta->compensated_file_size = meta->fd.file_size;
		meta->num_entries = builder->NumEntries();
		stats->table_checksum = stats->table_checksum * 131 + builder->props().checksum;
		g_env->bytes_written += meta->fd.file_size;
		edit->AddFile(c.output_level, meta);
		delete builder;
		builder = nullptr;
	};
	for (auto &e : entries) {
		size_t ulen = e.first.size() - 8;
		if (prev_user && ulen == prev_len && memcmp(prev_user->data(), e.first.data(), ulen) == 0)
			continue;	/* shadowed by a newer entry */
		prev_user = &e.first;
		prev_len = ulen;
		if (!builder) {
			meta = new FileMetaData;
			meta->fd.packed_number = versions->NewFileNumber();
			meta->smallest.DecodeFrom(e.first);
			builder = new TableBuilder(options, g_env->NewWritableFile(meta->fd.GetNumber()));
		}
		builder->Add(e.first, e.second);
		meta->largest.DecodeFrom(e.first);
		if (builder->FileSize() >= options.target_file_size_base)
			finish();
	}
	if (builder)
		finish();
	stats->compactions++;
}

}  // namespace rocksdb

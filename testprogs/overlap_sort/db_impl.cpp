/*
 * overlap_sort (RocksDB-10161): db_impl.cpp
 * The write path and background work (db/db_impl/db_impl_write.cc,
 * db_impl_compaction_flush.cc, db/flush_job.cc, db/builder.cc): a Put goes
 * to the write-ahead log and the memtable; a full memtable is flushed to an
 * L0 table file and installed with LogAndApply; then compactions run while
 * a level's score is at least 1, each installed with LogAndApply too.
 */
#include "overlap_sort.h"

namespace rocksdb {

Env *g_env;

static std::string wal_buffer;
static uint32_t wal_crc;

DBImpl::DBImpl(const Options &options) : options_(options)
{
	static Env env;
	g_env = &env;
	versions_.reset(new VersionSet(options_, &icmp_));
	mem_.reset(new MemTable(&icmp_));
}

/* log::Writer::AddRecord(): a WriteBatch record with its CRC-32C */
static void WalAddRecord(const std::string &rep)
{
	char header[7];
	uint32_t crc = crc32c::Mask(crc32c::Value(rep.data(), rep.size()));
	memcpy(header, &crc, 4);
	header[4] = (char)(rep.size() & 0xff);
	header[5] = (char)(rep.size() >> 8);
	header[6] = 1;	/* kFullType */
	wal_buffer.append(header, 7);
	wal_buffer.append(rep);
	wal_crc ^= crc;
	if (wal_buffer.size() > (1 << 20))
		wal_buffer.clear();	/* the log file was synced */
}

Status DBImpl::WriteToMemtable(const std::string &key, const std::string &value)
{
	SequenceNumber seq = ++last_sequence_;
	/* WriteBatch::Put: sequence, count, then the record */
	std::string rep;
	PutFixed64(&rep, seq);
	PutFixed32(&rep, 1);
	rep.push_back((char)kTypeValue);
	PutVarint32(&rep, (uint32_t)key.size());
	rep += key;
	PutVarint32(&rep, (uint32_t)value.size());
	rep += value;
	WalAddRecord(rep);
	mem_->Add(seq, kTypeValue, key, value);
	return Status::OK();
}

Status DBImpl::Put(const std::string &key, const std::string &value)
{
	Status s = WriteToMemtable(key, value);
	if (mem_->ApproximateMemoryUsage() >= options_.write_buffer_size) {
		s = FlushMemTableToOutputFile();
		MaybeScheduleFlushOrCompaction();
	}
	return s;
}

Status DBImpl::Flush()
{
	Status s;
	if (mem_->num_entries()) {
		s = FlushMemTableToOutputFile();
		MaybeScheduleFlushOrCompaction();
	}
	return s;
}

/* BuildTable(): write the memtable's entries, in order, to a table file */
Status DBImpl::BuildTable(MemTable *mem, FileMetaData *meta)
{
	TableBuilder builder(options_, g_env->NewWritableFile(meta->fd.GetNumber()));
	std::string ikey, value;
	bool first = true;
	for (MemTable::Node *n = mem->First(); n; n = MemTable::Next(n)) {
		size_t klen, vlen;
		const char *k = MemTable::Key(n, &klen);
		const char *v = MemTable::Value(n, &vlen);
		ikey.assign(k, klen);
		value.assign(v, vlen);
		if (first) {
			meta->smallest.DecodeFrom(ikey);
			first = false;
		}
		builder.Add(ikey, value);
	}
	meta->largest.DecodeFrom(ikey);
	builder.Finish();
	meta->fd.file_size = builder.FileSize();
	meta->compensated_file_size = meta->fd.file_size;
	meta->num_entries = builder.NumEntries();
	stats_.table_checksum = stats_.table_checksum * 131 + builder.props().checksum;
	g_env->bytes_written += meta->fd.file_size;
	return Status::OK();
}

/* FlushJob::Run(): the memtable becomes an L0 file */
Status DBImpl::FlushMemTableToOutputFile()
{
	uint64_t start_micros = SystemClock::Default()->NowMicros();
	FileMetaData *meta = new FileMetaData;
	meta->fd.packed_number = versions_->NewFileNumber();
	uint64_t oldest_key_time;
	if (mem_->GetOldestKeyTime(&oldest_key_time))
		meta->oldest_ancester_time = oldest_key_time;
	else
		meta->oldest_ancester_time = (uint64_t)time(nullptr);
	meta->file_creation_time = meta->oldest_ancester_time;
	Status s = BuildTable(mem_.get(), meta);

	VersionEdit edit;
	edit.AddFile(0, meta);
	s = versions_->LogAndApply(&edit);
	mem_.reset(new MemTable(&icmp_));
	stats_.flushes++;
	last_flush_us_ = SystemClock::Default()->NowMicros() - start_micros;
	return s;
}

Status DBImpl::BackgroundCompaction(bool *made_progress)
{
	*made_progress = false;
	Compaction c;
	VersionStorageInfo *vstorage = &versions_->current()->storage_info_;
	if (!PickCompaction(vstorage, options_, icmp_, &c))
		return Status::OK();
	VersionEdit edit;
	RunCompactionJob(c, versions_.get(), options_, &edit, &stats_);
	Status s = versions_->LogAndApply(&edit);
	*made_progress = true;
	return s;
}

/* the background threads' work, run inline after each flush */
void DBImpl::MaybeScheduleFlushOrCompaction()
{
	bool made_progress = true;
	while (made_progress)
		BackgroundCompaction(&made_progress);
}

}  // namespace rocksdb

// log_under_mutex - facebook/rocksdb#10029: DBImpl's construction and the
// background flush (db/db_impl/db_impl.cc, db_impl_compaction_flush.cc,
// db/flush_job.cc). The flush logs through a LogBuffer: its lines are written
// after the mutex is released, as RocksDB's flush jobs do.
#include "db_impl.h"

#include <cstdio>

namespace rocksdb {

DBImpl::DBImpl(const DBOptions& options)
    : options_(options), bg_cv_(&mutex_), mem_(new MemTable(1)) {
  crc32c_extend(0, "", 0);
}

DBImpl::~DBImpl() = default;

void DBImpl::Put(const std::string& key, const std::string& value) {
  mutex_.Lock();
  WriteImpl(key, value);
  mutex_.Unlock();
}

// Write an immutable memtable as a table file: its entries in key order,
// block by block, each block checksummed (table/block_based_table_builder.cc).
static void BuildTable(const MemTable& m, FlushStats* stats) {
  std::string block;
  uint32_t crc = 0;
  for (const auto& [key, sv] : m.table()) {
    char seq[16];
    int n = std::snprintf(seq, sizeof seq, "%08llx", (unsigned long long)sv.first);
    block.append(key).append(seq, size_t(n)).append(sv.second);
    stats->entries++;
    // The checksum of the table's data, independent of the sequence numbers
    // (the order the writers took the mutex in differs from run to run).
    crc ^= crc32c_extend(0, key.data(), key.size()) ^ crc32c_extend(0, sv.second.data(), sv.second.size());
    if (block.size() >= 4096) {
      crc32c_extend(0, block.data(), block.size());
      stats->bytes += block.size();
      block.clear();
    }
  }
  crc32c_extend(0, block.data(), block.size());
  stats->bytes += block.size();
  stats->crc ^= crc;
  stats->tables++;
}

void DBImpl::BackgroundFlushLoop() {
  std::vector<std::string> log_buffer;
  mutex_.Lock();
  while (true) {
    while (imm_.empty() && !shutting_down_) {
      bg_cv_.Wait();
    }
    if (imm_.empty()) {
      break;
    }
    MemTable* m = imm_.front().get();
    mutex_.Unlock();
    BuildTable(*m, &flush_stats_);
    char line[160];
    std::snprintf(line, sizeof line, "[default] [JOB %llu] Level-0 flush table #%llu: %zu entries OK",
                  (unsigned long long)flush_stats_.tables, (unsigned long long)m->id(), m->num_entries());
    log_buffer.emplace_back(line);
    mutex_.Lock();
    imm_.pop_front();
    bg_cv_.SignalAll();
    // LogBuffer::FlushBufferToLog(): after the mutex is released.
    mutex_.Unlock();
    for (const auto& l : log_buffer) {
      Log(options_.info_log, "%s", l.c_str());
    }
    log_buffer.clear();
    mutex_.Lock();
  }
  mutex_.Unlock();
}

void DBImpl::Shutdown() {
  mutex_.Lock();
  if (mem_->num_entries() > 0) {
    imm_.push_back(std::move(mem_));
    mem_.reset(new MemTable(next_file_number_++));
  }
  shutting_down_ = true;
  bg_cv_.SignalAll();
  mutex_.Unlock();
}

} // namespace rocksdb

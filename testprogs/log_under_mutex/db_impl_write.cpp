// log_under_mutex - facebook/rocksdb#10029: the write path
// (db/db_impl/db_impl_write.cc): WriteImpl, MakeRoomForWrite and
// SwitchMemtable, the root cause. Every function here runs with mutex_ held.
#include "db_impl.h"

namespace rocksdb {

void DBImpl::WriteToWAL(const std::string& key, const std::string& value) {
  // A WAL record: the checksum over the batch, then the bytes (buffered).
  uint32_t crc = crc32c_extend(0, key.data(), key.size());
  crc = crc32c_extend(crc, value.data(), value.size());
  wal_crc_ ^= crc;
  wal_bytes_ += 7 + key.size() + value.size();
}

void DBImpl::WriteImpl(const std::string& key, const std::string& value) {
  MakeRoomForWrite();
  const uint64_t seq = ++last_sequence_;
  WriteToWAL(key, value);
  mem_->Add(seq, key, value);
}

void DBImpl::MakeRoomForWrite() {
  while (mem_->ApproximateMemoryUsage() >= options_.write_buffer_size) {
    if (int(imm_.size()) >= options_.max_write_buffer_number - 1) {
      // Write stall: too many memtables wait for the flush.
      bg_cv_.Wait();
      continue;
    }
    SwitchMemtable();
  }
}

// Replace the full memtable by a new one and a new WAL, and hand the full one
// to the flush thread.
void DBImpl::SwitchMemtable() {
  const uint64_t new_log_number = next_file_number_++;
  const size_t num_imm = imm_.size() + 1;
  const size_t mem_usage = mem_->ApproximateMemoryUsage();
  const size_t mem_entries = mem_->num_entries();
  // Info logging under the DB mutex: a LOG write that blocks (a slow disk,
  // a full pipe) holds every writer and the flush thread on mutex_; #10029
  // moves such lines to a LogBuffer written after the unlock. ROOT CAUSE
  Log(options_.info_log, "[default] New memtable created with log file: #%llu. Immutable memtables: %zu.",
      (unsigned long long)new_log_number, num_imm);
  Log(options_.info_log,
      "[default] Switched memtable #%llu: %zu entries, %zu bytes (write_buffer_size %zu), WAL #%llu: %llu bytes",
      (unsigned long long)mem_->id(), mem_entries, mem_usage, options_.write_buffer_size,
      (unsigned long long)logfile_number_, (unsigned long long)wal_bytes_);
  Log(options_.info_log, "[default] Level summary: files[%llu 0 0 0 0 0 0] max score %.2f",
      (unsigned long long)(next_file_number_ - 2 - num_imm), double(num_imm) / 4.0);
  logfile_number_ = new_log_number;
  wal_bytes_ = 0;
  imm_.push_back(std::move(mem_));
  mem_.reset(new MemTable(new_log_number));
  bg_cv_.SignalAll();
}

} // namespace rocksdb

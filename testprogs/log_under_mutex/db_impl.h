// log_under_mutex - facebook/rocksdb#10029: the DB (db/db_impl/db_impl.h), its
// mutex, memtables and info log, as in RocksDB.
#pragma once

#include <pthread.h>

#include <cstdarg>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace rocksdb {

// port::Mutex and port::CondVar (port/port_posix.h): pthread wrappers.
namespace port {
class Mutex {
public:
  Mutex() { pthread_mutex_init(&mu_, nullptr); }
  ~Mutex() { pthread_mutex_destroy(&mu_); }
  void Lock() { pthread_mutex_lock(&mu_); }
  void Unlock() { pthread_mutex_unlock(&mu_); }
  pthread_mutex_t mu_;
};
class CondVar {
public:
  explicit CondVar(Mutex* mu) : mu_(mu) { pthread_cond_init(&cv_, nullptr); }
  ~CondVar() { pthread_cond_destroy(&cv_); }
  void Wait() { pthread_cond_wait(&cv_, &mu_->mu_); }
  void SignalAll() { pthread_cond_broadcast(&cv_); }

private:
  pthread_cond_t cv_;
  Mutex* mu_;
};
} // namespace port

// env/env_posix.cc: the info LOG, written line by line to a file descriptor.
class Logger {
public:
  explicit Logger(int fd) : fd_(fd) {}
  void Logv(const char* format, va_list ap);
  uint64_t bytes() const { return bytes_; }

private:
  int fd_;
  uint64_t bytes_ = 0;
};
void Log(Logger* info_log, const char* format, ...) __attribute__((format(printf, 2, 3)));

// db/memtable.cc: a sorted buffer of the latest writes.
class MemTable {
public:
  explicit MemTable(uint64_t id) : id_(id) {}
  void Add(uint64_t seq, const std::string& key, const std::string& value);
  size_t ApproximateMemoryUsage() const { return usage_; }
  uint64_t id() const { return id_; }
  size_t num_entries() const { return table_.size(); }
  const std::map<std::string, std::pair<uint64_t, std::string>>& table() const { return table_; }

private:
  uint64_t id_;
  size_t usage_ = 0;
  std::map<std::string, std::pair<uint64_t, std::string>> table_;
};

struct DBOptions {
  size_t write_buffer_size;
  int max_write_buffer_number;
  Logger* info_log;
};

struct FlushStats {
  uint64_t tables = 0;
  uint64_t entries = 0;
  uint64_t bytes = 0;
  uint32_t crc = 0;
};

class DBImpl {
public:
  explicit DBImpl(const DBOptions& options);
  ~DBImpl();
  // Put(): one write, under the DB mutex (WriteImpl, the single writer path).
  void Put(const std::string& key, const std::string& value);
  // The background flush thread's loop (db/db_impl/db_impl_compaction_flush.cc).
  void BackgroundFlushLoop();
  void Shutdown();
  uint64_t last_sequence() const { return last_sequence_; }
  const FlushStats& flush_stats() const { return flush_stats_; }
  uint32_t wal_crc() const { return wal_crc_; }

private:
  void WriteImpl(const std::string& key, const std::string& value);
  void MakeRoomForWrite();
  void SwitchMemtable();
  void WriteToWAL(const std::string& key, const std::string& value);

  DBOptions options_;
  port::Mutex mutex_;
  port::CondVar bg_cv_;
  std::unique_ptr<MemTable> mem_;
  std::deque<std::unique_ptr<MemTable>> imm_;
  uint64_t last_sequence_ = 0;
  uint64_t logfile_number_ = 1;
  uint64_t next_file_number_ = 2;
  uint64_t wal_bytes_ = 0;
  uint32_t wal_crc_ = 0;
  bool shutting_down_ = false;
  FlushStats flush_stats_;
};

// util/crc32c.cc
uint32_t crc32c_extend(uint32_t crc, const char* data, size_t n);

} // namespace rocksdb

// log_under_mutex - facebook/rocksdb#10029: "Move three info logging within DB
// Mutex to use log buffer" (https://github.com/facebook/rocksdb/pull/10029,
// May 2022): "info logging with DB Mutex could potentially invoke I/O and
// cause performance issues". The same class of bug: cockroachdb/pebble#44,
// "avoid holding DB.mu during log writes ... a log write can result in a disk
// write and thus hold DB.mu for a significant amount of time".
//
// The real bug: RocksDB's DBImpl guards its memtables and versions with one
// mutex (mutex_), which every write takes. Some info-LOG lines were written
// while it was held; the LOG is a file written line by line (PosixLogger),
// so when a write to it blocks (a slow or busy disk, a network volume), the
// thread holding mutex_ blocks in write() and every other writer, and the
// flush thread, wait for mutex_ in futex waits. RocksDB's LogBuffer exists
// for this: the flush and compaction jobs buffer their lines and write them
// after the unlock; the PR moves three more cases to it.
//
// Here (C++ with pthreads: a key-value store with four client threads doing
// Put(), a background flush thread and a log shipper thread; port::Mutex and
// port::CondVar over pthread mutexes and condition variables, std::map
// memtables, std::unique_ptr, varargs logging, CRC-32C of WAL records and
// table blocks): each Put() takes mutex_, and when the 32 KB memtable is
// full, DBImpl::SwitchMemtable() replaces it and writes three info lines to
// the LOG with mutex_ held. The LOG is a pipe to a log shipper that forwards
// it to a collector. The same binary, the same 120,000 writes in both runs;
// the deployment differs: normal: the shipper forwards at once (a local
// collector); buggy: the collector is across a 96 KB/s link (the shipper
// forwards 4 KB at a time at that rate: the link, not code of the store),
// so once the pipe's 64 KB are full every LOG write waits for the link
// while holding mutex_. The cost is blocked time: record with a wall clock.
//
// Root cause: rocksdb::DBImpl::SwitchMemtable() (db_impl_write.cpp), its info
// logging under mutex_ (ROOT CAUSE); the time is in write() under
// Logger::Logv in the thread that holds the mutex, and in the futex waits of
// the three other writers under DBImpl::Put (more samples than the holder's).
// Key variables: new_log_number, num_imm (SwitchMemtable). Pattern: wrong
// constraint (the critical section's extent: it covers the LOG's I/O).
//
// Files, as in RocksDB's db/, env/ and util/: db_impl_write.cpp (the write
// path: the root cause), db_impl.cpp (construction and the background flush),
// memtable.cpp (the memtable and CRC-32C), env_posix.cpp (the info LOG),
// db_impl.h; main.cpp (this driver: the clients and the log shipper).
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "db_impl.h"

using namespace rocksdb;

static constexpr int kClients = 4;
static constexpr int kPutsPerClient = 30000;

struct Shipper {
  int fd;
  long link_bytes_per_sec; // 0: forward at once
  uint64_t forwarded = 0;
};

// The log shipper: reads the LOG pipe and forwards it to the collector. A
// slow link is its pace: it forwards a chunk, then waits the chunk's time.
static void* ShipperMain(void* arg) {
  Shipper* s = static_cast<Shipper*>(arg);
  char buf[4096];
  while (true) {
    ssize_t n = read(s->fd, buf, sizeof buf);
    if (n <= 0) break;
    s->forwarded += uint64_t(n);
    if (s->link_bytes_per_sec > 0) {
      long ns = long(n) * 1000000000L / s->link_bytes_per_sec;
      struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
      nanosleep(&ts, nullptr);
    }
  }
  return nullptr;
}

struct Client {
  DBImpl* db;
  int id;
  uint64_t hash = 0;
};

// A client: writes sensor readings, each under its own key.
static void* ClientMain(void* arg) {
  Client* c = static_cast<Client*>(arg);
  uint64_t x = 0x9E3779B97F4A7C15ull * uint64_t(c->id + 1);
  char key[32], value[128];
  for (int i = 0; i < kPutsPerClient; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    std::snprintf(key, sizeof key, "s%02d:%08d", c->id, i);
    int n = std::snprintf(value, sizeof value, "{\"t\":%d,\"v\":%llu,\"unit\":\"kPa\",\"station\":\"north-%02d\"}",
                          i, (unsigned long long)(x % 100000), c->id);
    std::memset(value + n, ' ', 100 - n);
    std::string k(key), v(value, 100);
    c->db->Put(k, v);
    c->hash += crc32c_extend(0, v.data(), v.size());
  }
  return nullptr;
}

static void* FlushMain(void* arg) {
  static_cast<DBImpl*>(arg)->BackgroundFlushLoop();
  return nullptr;
}

static int Usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s normal|buggy\n"
               "  A key-value store's writers and its info LOG (facebook/rocksdb#10029).\n"
               "  normal: the LOG's shipper forwards at once; buggy: over a 96 KB/s link.\n",
               argv0);
  return 2;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    return Usage(argv[0]);
  }
  long link;
  if (std::strcmp(argv[1], "normal") == 0) {
    link = 0;
  } else if (std::strcmp(argv[1], "buggy") == 0) {
    link = 96 * 1024;
  } else {
    return Usage(argv[0]);
  }

  int fds[2];
  if (pipe(fds) != 0) {
    std::perror("pipe");
    return 1;
  }
  Shipper shipper{fds[0], link};
  pthread_t shipper_thread;
  pthread_create(&shipper_thread, nullptr, ShipperMain, &shipper);

  Logger info_log(fds[1]);
  DBImpl db(DBOptions{32 * 1024, 4, &info_log});
  Log(&info_log, "DB opened: write_buffer_size %d, max_write_buffer_number %d", 32 * 1024, 4);
  pthread_t flush_thread;
  pthread_create(&flush_thread, nullptr, FlushMain, &db);

  Client clients[kClients];
  pthread_t threads[kClients];
  for (int i = 0; i < kClients; i++) {
    clients[i].db = &db;
    clients[i].id = i;
    pthread_create(&threads[i], nullptr, ClientMain, &clients[i]);
  }
  uint64_t hash = 0;
  for (int i = 0; i < kClients; i++) {
    pthread_join(threads[i], nullptr);
    hash += clients[i].hash;
  }
  db.Shutdown();
  pthread_join(flush_thread, nullptr);
  // The store closes its LOG; what the pipe still holds is the shipper's
  // (a separate service in a deployment): the store does not wait for it.
  close(fds[1]);

  const FlushStats& fs = db.flush_stats();
  std::printf("log_under_mutex %s: writes=%llu tables=%llu entries=%llu checksum=%016llx\n", argv[1],
              (unsigned long long)db.last_sequence(), (unsigned long long)fs.tables,
              (unsigned long long)fs.entries,
              (unsigned long long)(hash ^ (uint64_t(fs.crc) << 32) ^ db.wal_crc() ^ fs.bytes));
  return 0;
}

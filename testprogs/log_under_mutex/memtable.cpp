// log_under_mutex - facebook/rocksdb#10029: the memtable (db/memtable.cc) and
// CRC-32C (util/crc32c.cc).
#include "db_impl.h"

namespace rocksdb {

void MemTable::Add(uint64_t seq, const std::string& key, const std::string& value) {
  auto [it, fresh] = table_.emplace(key, std::make_pair(seq, value));
  if (!fresh) {
    usage_ -= it->second.second.size();
    it->second = std::make_pair(seq, value);
    usage_ += value.size();
    return;
  }
  // The arena's cost of an entry: the key, the value and a skip-list node.
  usage_ += key.size() + value.size() + 64;
}

static uint32_t crc_table[256];
static bool crc_ready = false;

static void crc_init() {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) {
      c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    }
    crc_table[i] = c;
  }
  crc_ready = true;
}

uint32_t crc32c_extend(uint32_t crc, const char* data, size_t n) {
  if (!crc_ready) {
    crc_init();
  }
  crc = ~crc;
  for (size_t i = 0; i < n; i++) {
    crc = crc_table[(crc ^ uint8_t(data[i])) & 0xff] ^ (crc >> 8);
  }
  return ~crc;
}

} // namespace rocksdb

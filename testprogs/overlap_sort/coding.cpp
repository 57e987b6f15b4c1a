/*
 * overlap_sort (RocksDB-10161): coding.cpp
 * util/coding.cc (varints), util/crc32c.cc (table-driven CRC-32C),
 * util/hash.cc (the Murmur-like Hash of bloom filters), the system clock
 * (env/env_posix.cc) and db/dbformat.cc's InternalKeyComparator.
 */
#include "overlap_sort.h"

namespace rocksdb {

void PutVarint32(std::string *dst, uint32_t v)
{
	char buf[5];
	int n = 0;
	while (v >= 128) {
		buf[n++] = (char)(v | 128);
		v >>= 7;
	}
	buf[n++] = (char)v;
	dst->append(buf, n);
}

const char *GetVarint32(const char *p, const char *limit, uint32_t *v)
{
	uint32_t result = 0;
	for (uint32_t shift = 0; shift <= 28 && p < limit; shift += 7) {
		uint32_t byte = (unsigned char)*p++;
		if (byte & 128) {
			result |= (byte & 127) << shift;
		} else {
			result |= byte << shift;
			*v = result;
			return p;
		}
	}
	return nullptr;
}

namespace crc32c {
static uint32_t table0_[256];
static bool initialized;

static void Init()
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0x82f63b78u ^ (c >> 1) : c >> 1;
		table0_[i] = c;
	}
	initialized = true;
}

uint32_t Extend(uint32_t crc, const char *buf, size_t size)
{
	if (!initialized)
		Init();
	const unsigned char *p = reinterpret_cast<const unsigned char *>(buf);
	uint32_t l = crc ^ 0xffffffffu;
	for (size_t i = 0; i < size; i++)
		l = table0_[(l ^ p[i]) & 0xff] ^ (l >> 8);
	return l ^ 0xffffffffu;
}
}  // namespace crc32c

uint32_t Hash(const char *data, size_t n, uint32_t seed)
{
	const uint32_t m = 0xc6a4a793;
	const uint32_t r = 24;
	const char *limit = data + n;
	uint32_t h = (uint32_t)(seed ^ (n * m));
	while (data + 4 <= limit) {
		uint32_t w = DecodeFixed32(data);
		data += 4;
		h += w;
		h *= m;
		h ^= (h >> 16);
	}
	switch (limit - data) {
	case 3: h += (uint32_t)(unsigned char)data[2] << 16; /* fall through */
	case 2: h += (uint32_t)(unsigned char)data[1] << 8; /* fall through */
	case 1:
		h += (uint32_t)(unsigned char)data[0];
		h *= m;
		h ^= (h >> r);
		break;
	}
	return h;
}

uint64_t SystemClock::NowMicros()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

Status SystemClock::GetCurrentTime(int64_t *unix_time)
{
	time_t ret = time(nullptr);
	if (ret == (time_t)-1)
		return Status::NotSupported();
	*unix_time = (int64_t)ret;
	return Status::OK();
}

SystemClock *SystemClock::Default()
{
	static SystemClock clock;
	return &clock;
}

int InternalKeyComparator::CompareUserKey(const char *a, size_t an, const char *b, size_t bn) const
{
	int r = memcmp(a, b, an < bn ? an : bn);
	if (r == 0)
		r = an < bn ? -1 : an > bn ? 1 : 0;
	return r;
}

/* order by user key ascending, then by sequence number descending */
int InternalKeyComparator::Compare(const std::string &a, const std::string &b) const
{
	int r = CompareUserKey(a.data(), a.size() - 8, b.data(), b.size() - 8);
	if (r == 0) {
		uint64_t anum = DecodeFixed64(a.data() + a.size() - 8);
		uint64_t bnum = DecodeFixed64(b.data() + b.size() - 8);
		if (anum > bnum)
			r = -1;
		else if (anum < bnum)
			r = 1;
	}
	return r;
}

std::string VersionEdit::EncodeTo() const
{
	std::string dst;
	for (auto &d : deleted_files_) {
		PutVarint32(&dst, 4);
		PutVarint32(&dst, (uint32_t)d.first);
		PutFixed64(&dst, d.second);
	}
	for (auto &n : new_files_) {
		PutVarint32(&dst, 7);
		PutVarint32(&dst, (uint32_t)n.first);
		PutFixed64(&dst, n.second->fd.GetNumber());
		PutFixed64(&dst, n.second->fd.file_size);
		dst += n.second->smallest.Encode();
		dst += n.second->largest.Encode();
	}
	return dst;
}

}  // namespace rocksdb

/*
 * query_cache_full (ClickHouse-118473): SipHash.cpp
 * SipHash-2-4 (src/Common/SipHash.h), used for AST tree hashes and the
 * query cache key.
 */
#include "query_cache_full.h"

namespace DB {

#define ROTL(x, b) static_cast<uint64_t>(((x) << (b)) | ((x) >> (64 - (b))))

SipHash::SipHash(uint64_t k0, uint64_t k1)
{
	v0 = 0x736f6d6570736575ULL ^ k0;
	v1 = 0x646f72616e646f6dULL ^ k1;
	v2 = 0x6c7967656e657261ULL ^ k0;
	v3 = 0x7465646279746573ULL ^ k1;
	cnt = 0;
	current_word = 0;
}

void SipHash::round()
{
	v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32);
	v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2;
	v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0;
	v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32);
}

void SipHash::update(const char *data, size_t size)
{
	const char *end = data + size;
	/* complete the word left from the previous update */
	if (cnt & 7) {
		while (cnt & 7 && data < end) {
			current_bytes[cnt & 7] = *data;
			++data;
			++cnt;
		}
		if (cnt & 7)
			return;
		v3 ^= current_word;
		round();
		round();
		v0 ^= current_word;
	}
	cnt += end - data;
	while (data + 8 <= end) {
		memcpy(&current_word, data, 8);
		v3 ^= current_word;
		round();
		round();
		v0 ^= current_word;
		data += 8;
	}
	current_word = 0;
	switch (end - data) {
	case 7: current_bytes[6] = data[6]; /* fall through */
	case 6: current_bytes[5] = data[5]; /* fall through */
	case 5: current_bytes[4] = data[4]; /* fall through */
	case 4: current_bytes[3] = data[3]; /* fall through */
	case 3: current_bytes[2] = data[2]; /* fall through */
	case 2: current_bytes[1] = data[1]; /* fall through */
	case 1: current_bytes[0] = data[0]; /* fall through */
	case 0: break;
	}
}

uint64_t SipHash::get64()
{
	current_bytes[7] = static_cast<char>(cnt);
	v3 ^= current_word;
	round();
	round();
	v0 ^= current_word;
	v2 ^= 0xff;
	round();
	round();
	round();
	round();
	return v0 ^ v1 ^ v2 ^ v3;
}

}  // namespace DB

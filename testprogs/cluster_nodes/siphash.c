/*
 * cluster_nodes (Redis-8145): siphash.c
 * SipHash (src/siphash.c).
 */
#include "server.h"

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND do { v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32); \
	v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2; v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0; \
	v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32); } while (0)

EXTERN_FN uint64_t siphash(const uint8_t *in, size_t inlen)
{
	uint64_t k0 = 0x0706050403020100ull, k1 = 0x0f0e0d0c0b0a0908ull;
	uint64_t v0 = 0x736f6d6570736575ull ^ k0, v1 = 0x646f72616e646f6dull ^ k1;
	uint64_t v2 = 0x6c7967656e657261ull ^ k0, v3 = 0x7465646279746573ull ^ k1;
	uint64_t b = (uint64_t)inlen << 56;
	const uint8_t *end = in + inlen - (inlen % 8);
	for (; in != end; in += 8) {
		uint64_t m;
		memcpy(&m, in, 8);
		v3 ^= m;
		SIPROUND; SIPROUND;
		v0 ^= m;
	}
	for (int i = 0; i < (int)(inlen & 7); i++)
		b |= (uint64_t)in[i] << (8 * i);
	v3 ^= b;
	SIPROUND; SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND; SIPROUND; SIPROUND; SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

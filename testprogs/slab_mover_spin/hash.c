/*
 * slab_mover_spin (memcached-1239): hash.c
 * MurmurHash3 (x86, 32-bit), memcached's default hash since 1.5 (murmur3_hash.c).
 */
#include "memcached.h"

static inline uint32_t rotl32(uint32_t x, int8_t r)
{
	return (x << r) | (x >> (32 - r));
}

static inline uint32_t fmix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6b;
	h ^= h >> 13;
	h *= 0xc2b2ae35;
	h ^= h >> 16;
	return h;
}

uint32_t MurmurHash3_x86_32(const void *key, size_t length)
{
	const uint8_t *data = (const uint8_t *)key;
	const int nblocks = length / 4;
	uint32_t h1 = 0;
	const uint32_t c1 = 0xcc9e2d51;
	const uint32_t c2 = 0x1b873593;

	for (int i = 0; i < nblocks; i++) {
		uint32_t k1;
		memcpy(&k1, data + i * 4, 4);
		k1 *= c1;
		k1 = rotl32(k1, 15);
		k1 *= c2;
		h1 ^= k1;
		h1 = rotl32(h1, 13);
		h1 = h1 * 5 + 0xe6546b64;
	}
	const uint8_t *tail = data + nblocks * 4;
	uint32_t k1 = 0;
	switch (length & 3) {
	case 3: k1 ^= tail[2] << 16; /* fall through */
	case 2: k1 ^= tail[1] << 8;  /* fall through */
	case 1: k1 ^= tail[0];
		k1 *= c1;
		k1 = rotl32(k1, 15);
		k1 *= c2;
		h1 ^= k1;
	}
	h1 ^= length;
	return fmix32(h1);
}

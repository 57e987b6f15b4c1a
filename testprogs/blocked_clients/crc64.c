/*
 * blocked_clients (Redis-8668): crc64.c
 * CRC-64 (src/crc64.c).
 */
#include "server.h"

static uint64_t crc64_table[256];

void crc64_init(void)
{
	for (int i = 0; i < 256; i++) {
		uint64_t c = (uint64_t)i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0x95ac9329ac4bc9b5ull ^ (c >> 1) : c >> 1;
		crc64_table[i] = c;
	}
}

EXTERN_FN uint64_t crc64(uint64_t crc, const unsigned char *s, size_t l)
{
	for (size_t j = 0; j < l; j++)
		crc = crc64_table[(uint8_t)crc ^ s[j]] ^ (crc >> 8);
	return crc;
}

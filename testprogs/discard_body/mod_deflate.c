/*
 * discard_body (HTTPD-52914): mod_deflate.c
 * The output side (modules/filters/mod_deflate.c).
 */
#include "discard_body.h"

uint32_t crc_table[256];

/* The output side: mod_deflate's CRC and a match finder over the response. */
uint64_t deflate_out_filter(const unsigned char *out, size_t n)
{
	uint32_t crc = 0xffffffffu;
	static uint32_t head[4096];
	memset(head, 0, sizeof head);
	uint64_t matches = 0;
	for (size_t i = 0; i < n; i++) {
		crc = crc_table[(crc ^ out[i]) & 0xff] ^ (crc >> 8);
		if (i + 3 < n) {
			uint32_t h = ((uint32_t)out[i] << 16 ^ (uint32_t)out[i + 1] << 8 ^ out[i + 2]) * 2654435761u >> 20;
			uint32_t cand = head[h];
			if (cand && memcmp(out + cand - 1, out + i, 3) == 0)
				matches++;
			head[h] = (uint32_t)i + 1;
		}
	}
	return (uint64_t)~crc << 20 ^ matches;
}

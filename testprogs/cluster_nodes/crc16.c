/*
 * cluster_nodes (Redis-8145): crc16.c
 * CRC16 for the key slots (src/crc16.c).
 */
#include "server.h"

static uint16_t crc16tab[256];

void crc16_init(void)
{
	for (int i = 0; i < 256; i++) {
		uint16_t c = (uint16_t)(i << 8);
		for (int k = 0; k < 8; k++)
			c = (c & 0x8000) ? (uint16_t)((c << 1) ^ 0x1021) : (uint16_t)(c << 1);
		crc16tab[i] = c;
	}
}

EXTERN_FN uint16_t crc16(const char *buf, int len)
{
	uint16_t crc = 0;
	for (int i = 0; i < len; i++)
		crc = (uint16_t)(crc << 8) ^ crc16tab[((crc >> 8) ^ (unsigned char)buf[i]) & 0xff];
	return crc;
}

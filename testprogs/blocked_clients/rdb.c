/*
 * blocked_clients (Redis-8668): rdb.c
 * The snapshot (src/rdb.c).
 */
#include "server.h"

uint64_t rdb_checksum;
unsigned long rdb_saves;

/* The snapshot ("save 60 10000"): serializes every string key with its value into
 * the RDB stream, whose checksum is CRC-64. */
void rdbSave(void)
{
	uint64_t cksum = 0;
	unsigned char hdr[16];
	for (unsigned long i = 0; i < server.keys->size; i++) {
		for (dictEntry *e = server.keys->table[i]; e; e = e->next) {
			robj *v = e->val;
			if (v->type != OBJ_STRING)
				continue;
			hdr[0] = 0; /* RDB_TYPE_STRING */
			memcpy(hdr + 1, &e->key->len, 8);
			cksum = crc64(cksum, hdr, 9);
			cksum = crc64(cksum, (unsigned char *)e->key->ptr, e->key->len);
			cksum = crc64(cksum, (unsigned char *)v->ptr, v->len);
		}
	}
	rdb_checksum ^= cksum;
	rdb_saves++;
}

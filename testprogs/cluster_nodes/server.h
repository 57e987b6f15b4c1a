/*
 * cluster_nodes (Redis-8145): server.h - the declarations the files of this program share
 * (server.h, cluster.h, sds.h ... in Redis). The program is described in main.c.
 */
#ifndef CLUSTER_NODES_SERVER_H
#define CLUSTER_NODES_SERVER_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A function that lives in another compilation unit of Redis (no LTO). */
#define EXTERN_FN __attribute__((noinline))

#define CLUSTER_SLOTS 16384
#define CLUSTER_NAMELEN 40
#define N_COMMANDS 2000000
#define N_KEYS 40000
#define CLUSTER_NODES_EVERY 20000    /* a client refreshes its slot map */
/* clusterCron runs 10 times a second; at the 100,000 commands a second of a busy
 * node, every 10,000 commands. */
#define CRON_EVERY 10000

#define CLUSTER_NODE_MASTER 1
#define CLUSTER_NODE_SLAVE 2
#define CLUSTER_NODE_MYSELF 4

typedef struct clusterNode {
	char name[CLUSTER_NAMELEN];
	int flags;
	uint64_t configEpoch;
	unsigned char slots[CLUSTER_SLOTS / 8];
	int numslots;
	struct clusterNode *slaveof;
	long ping_sent, pong_received;
	char ip[46];
	int port, cport;
	struct clusterNode *hash_next;
} clusterNode;

/* cluster.c */
extern int cluster_size;

struct clusterState {
	clusterNode *nodes;          /* array of cluster_size */
	clusterNode *node_hash[1024];
	clusterNode *myself;
	long now;                    /* logical milliseconds */
	uint64_t currentEpoch;
};

extern struct clusterState cluster;

unsigned int keyHashSlot(const char *key, int keylen);
int clusterNodeGetSlotBit(const clusterNode *n, int slot);
void clusterInit(void);
void clusterCron(uint64_t *rng);

/* sds.c */
typedef struct { char *buf; size_t len, alloc; } sds;

void sdscatlen(sds *s, const char *t, size_t len);
EXTERN_FN void sdscatfmt(sds *s, const char *fmt, ...);

void clusterGenNodesDescription(sds *ci);

/* crc16.c, siphash.c */
void crc16_init(void);
EXTERN_FN uint16_t crc16(const char *buf, int len);
EXTERN_FN uint64_t siphash(const uint8_t *in, size_t inlen);

/* db.c */
typedef struct dictEntry { char key[32]; int klen; char val[64]; struct dictEntry *next; } dictEntry;
extern unsigned long keys_by_slot[CLUSTER_SLOTS];
dictEntry *dbLookup(const char *key, int klen, int create);

#endif

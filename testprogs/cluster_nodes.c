//go:build ignore

/*
 * cluster_nodes.c - Redis-8145: the CLUSTER NODES command is costly in a large
 * cluster (Table 3.1 b11).
 *
 * The real bug: clusterGenNodesDescription() walks all known nodes and, through
 * clusterGenNodeDescription(), scans all 16384 hash slots for every node to print
 * the slot ranges the node serves: O(nodes x 16384) per command, while cluster-aware
 * clients call CLUSTER NODES (or CLUSTER SLOTS) to refresh their routing tables.
 * The fix computed every node's slot ranges in one pass over the slots
 * (clusterGenNodesSlotsInfo). vProf reports it as a scalability bug: the sampled
 * variables are pointers whose processing cost looks the same in normal and buggy
 * runs; the function just runs on more data.
 *
 * Here: a Redis Cluster node serves GET/SET traffic (CRC16 key slots, siphash dict),
 * processes cluster-bus pings with gossip sections from the other nodes, and answers
 * CLUSTER NODES from its clients. normal: a 20-node cluster; buggy: 300 nodes.
 *
 * Root cause: clusterGenNodesDescription() and the slot scan of
 * clusterGenNodeDescription() that it calls for every node (ROOT CAUSE). Key
 * variables: node (clusterGenNodesDescription), j and start
 * (clusterGenNodeDescription), cluster_size (#global). Pattern: scalability.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A function that lives in another compilation unit of Redis (no LTO). */
#define EXTERN_FN __attribute__((noinline))

#define CLUSTER_SLOTS 16384
#define CLUSTER_NAMELEN 40
#define N_COMMANDS 1500000
#define N_KEYS 40000
#define CLUSTER_NODES_EVERY 20000    /* a client refreshes its slot map */
#define CRON_EVERY 150               /* clusterCron runs (commands between runs) */

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

/* Cluster size: how many nodes this node knows. */
int cluster_size = 20;

static struct {
	clusterNode *nodes;          /* array of cluster_size */
	clusterNode *node_hash[1024];
	clusterNode *myself;
	long now;                    /* logical milliseconds */
	uint64_t currentEpoch;
} cluster;

/* ---------------------------------------------------------------- sds */

typedef struct { char *buf; size_t len, alloc; } sds;

static void sdsMakeRoomFor(sds *s, size_t add)
{
	if (s->len + add + 1 <= s->alloc)
		return;
	size_t n = (s->len + add + 1) * 2;
	char *b = realloc(s->buf, n);
	if (!b) { perror("realloc"); exit(1); }
	s->buf = b;
	s->alloc = n;
}

static void sdscatlen(sds *s, const char *t, size_t len)
{
	sdsMakeRoomFor(s, len);
	memcpy(s->buf + s->len, t, len);
	s->len += len;
	s->buf[s->len] = 0;
}

EXTERN_FN void sdscatfmt(sds *s, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n > 0)
		sdscatlen(s, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* ---------------------------------------------------------------- hashing */

static uint16_t crc16tab[256];

static void crc16_init(void)
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

/* The hash slot of a key, honouring {hash tags}. */
static unsigned int keyHashSlot(const char *key, int keylen)
{
	int s, e;
	for (s = 0; s < keylen; s++)
		if (key[s] == '{')
			break;
	if (s == keylen)
		return crc16(key, keylen) & 0x3FFF;
	for (e = s + 1; e < keylen; e++)
		if (key[e] == '}')
			break;
	if (e == keylen || e == s + 1)
		return crc16(key, keylen) & 0x3FFF;
	return crc16(key + s + 1, e - s - 1) & 0x3FFF;
}

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

/* ---------------------------------------------------------------- keyspace */

typedef struct dictEntry { char key[32]; int klen; char val[64]; struct dictEntry *next; } dictEntry;
static dictEntry *db[1 << 16];
static unsigned long keys_by_slot[CLUSTER_SLOTS];

static dictEntry *dbLookup(const char *key, int klen, int create)
{
	unsigned long h = siphash((const uint8_t *)key, (size_t)klen) & ((1 << 16) - 1);
	for (dictEntry *e = db[h]; e; e = e->next)
		if (e->klen == klen && memcmp(e->key, key, (size_t)klen) == 0)
			return e;
	if (!create)
		return NULL;
	dictEntry *e = calloc(1, sizeof *e);
	if (!e) { perror("calloc"); exit(1); }
	memcpy(e->key, key, (size_t)klen);
	e->klen = klen;
	e->next = db[h];
	db[h] = e;
	return e;
}

/* ---------------------------------------------------------------- cluster nodes */

static int clusterNodeGetSlotBit(const clusterNode *n, int slot)
{
	return (n->slots[slot >> 3] >> (slot & 7)) & 1;
}

static clusterNode *clusterLookupNode(const char *name)
{
	unsigned long h = siphash((const uint8_t *)name, CLUSTER_NAMELEN) & 1023;
	for (clusterNode *n = cluster.node_hash[h]; n; n = n->hash_next)
		if (memcmp(n->name, name, CLUSTER_NAMELEN) == 0)
			return n;
	return NULL;
}

static void clusterInit(void)
{
	cluster.nodes = calloc((size_t)cluster_size, sizeof(clusterNode));
	if (!cluster.nodes) { perror("calloc"); exit(1); }
	int masters = (cluster_size + 1) / 2;
	uint64_t s = 12345;
	for (int i = 0; i < cluster_size; i++) {
		clusterNode *n = &cluster.nodes[i];
		for (int k = 0; k < CLUSTER_NAMELEN; k++) {
			s ^= s << 13; s ^= s >> 7; s ^= s << 17;
			n->name[k] = "0123456789abcdef"[s & 15];
		}
		snprintf(n->ip, sizeof n->ip, "10.1.%d.%d", i / 200, i % 200 + 1);
		n->port = 6379;
		n->cport = 16379;
		n->configEpoch = (uint64_t)i + 1;
		if (i < masters) {
			n->flags = CLUSTER_NODE_MASTER;
			/* the slots are split in contiguous ranges, with a few moved ones */
			int from = (int)((long)CLUSTER_SLOTS * i / masters), to = (int)((long)CLUSTER_SLOTS * (i + 1) / masters);
			for (int slot = from; slot < to; slot++) {
				if (slot % 97 == 5)
					continue;
				n->slots[slot >> 3] |= (unsigned char)(1 << (slot & 7));
				n->numslots++;
			}
		} else {
			n->flags = CLUSTER_NODE_SLAVE;
			n->slaveof = &cluster.nodes[i - masters];
		}
		unsigned long h = siphash((const uint8_t *)n->name, CLUSTER_NAMELEN) & 1023;
		n->hash_next = cluster.node_hash[h];
		cluster.node_hash[h] = n;
	}
	/* the slots moved away (slot % 97 == 5) belong to the last master */
	for (int slot = 5; slot < CLUSTER_SLOTS; slot += 97) {
		clusterNode *n = &cluster.nodes[masters - 1];
		n->slots[slot >> 3] |= (unsigned char)(1 << (slot & 7));
		n->numslots++;
	}
	cluster.myself = &cluster.nodes[0];
	cluster.myself->flags |= CLUSTER_NODE_MYSELF;
}

/* One line of CLUSTER NODES for node n. */
static void clusterGenNodeDescription(sds *ci, clusterNode *node)
{
	int j, start;

	sdscatlen(ci, node->name, CLUSTER_NAMELEN);
	sdscatfmt(ci, " %s:%d@%d %s%s %.*s %ld %ld %llu connected", node->ip, node->port, node->cport,
		  node->flags & CLUSTER_NODE_MYSELF ? "myself," : "",
		  node->flags & CLUSTER_NODE_MASTER ? "master" : "slave",
		  node->slaveof ? CLUSTER_NAMELEN : 1, node->slaveof ? node->slaveof->name : "-",
		  node->ping_sent, node->pong_received, (unsigned long long)node->configEpoch);

	/* ROOT CAUSE: all 16384 slots are scanned for every node */
	start = -1;
	for (j = 0; j < CLUSTER_SLOTS; j++) {
		int bit;
		if ((bit = clusterNodeGetSlotBit(node, j)) != 0) {
			if (start == -1)
				start = j;
		}
		if (start != -1 && (!bit || j == CLUSTER_SLOTS - 1)) {
			if (bit && j == CLUSTER_SLOTS - 1)
				j++;
			if (start == j - 1)
				sdscatfmt(ci, " %d", start);
			else
				sdscatfmt(ci, " %d-%d", start, j - 1);
			start = -1;
		}
	}
}

/* CLUSTER NODES: a description of every node the cluster knows. */
__attribute__((noinline)) static void clusterGenNodesDescription(sds *ci)
{
	ci->len = 0;
	for (int i = 0; i < cluster_size; i++) {
		clusterNode *node = &cluster.nodes[i];
		clusterGenNodeDescription(ci, node);
		sdscatlen(ci, "\n", 1);
	}
}

/* ---------------------------------------------------------------- the cluster bus */

typedef struct {
	char nodename[CLUSTER_NAMELEN];
	long ping_sent, pong_received;
	char ip[46];
	int port, flags;
} clusterMsgDataGossip;

/* Handles a PING from sender: compares its advertised slots with what we know and
 * processes its gossip about other nodes. */
static void clusterProcessPacket(clusterNode *sender, const unsigned char *slots,
				 const clusterMsgDataGossip *g, int count)
{
	if (memcmp(sender->slots, slots, CLUSTER_SLOTS / 8) != 0) {
		fprintf(stderr, "slot configuration changed\n");
		exit(3);
	}
	sender->pong_received = cluster.now;
	for (int i = 0; i < count; i++) {
		clusterNode *n = clusterLookupNode(g[i].nodename);
		if (n && g[i].pong_received > n->pong_received)
			n->pong_received = g[i].pong_received;
	}
}

/* A PING from a random node, with its slots and gossip sections. */
static void clusterReceivePing(uint64_t *rng)
{
	static clusterMsgDataGossip gossip[64];
	*rng ^= *rng << 13; *rng ^= *rng >> 7; *rng ^= *rng << 17;
	clusterNode *sender = &cluster.nodes[1 + *rng % (uint64_t)(cluster_size - 1)];
	/* a ping carries gossip about a tenth of the cluster (at least 3 nodes) */
	int wanted = cluster_size / 10 < 3 ? 3 : cluster_size / 10;
	if (wanted > 64)
		wanted = 64;
	for (int i = 0; i < wanted; i++) {
		clusterNode *n = &cluster.nodes[(*rng >> 8) % (uint64_t)cluster_size];
		*rng ^= *rng << 13; *rng ^= *rng >> 7; *rng ^= *rng << 17;
		memcpy(gossip[i].nodename, n->name, CLUSTER_NAMELEN);
		gossip[i].pong_received = cluster.now - (long)(*rng % 1000);
		memcpy(gossip[i].ip, n->ip, sizeof n->ip);
		gossip[i].port = n->port;
	}
	clusterProcessPacket(sender, sender->slots, gossip, wanted);
	sender->ping_sent = cluster.now;
}

/* Receives the pings that arrived since the last run. Every node pings the nodes
 * it has not heard from within half the node timeout, so the number of pings a
 * node receives grows with the size of the cluster. */
static void clusterCron(uint64_t *rng)
{
	int npings = cluster_size / 3 < 1 ? 1 : cluster_size / 3;
	for (int p = 0; p < npings; p++)
		clusterReceivePing(rng);
}

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  A Redis Cluster node serving traffic and CLUSTER NODES (Redis-8145).\n"
		"  normal: 20 nodes; buggy: 300 nodes.\n", argv0);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return usage(argv[0]);
	if (strcmp(argv[1], "normal") == 0)
		cluster_size = 20;
	else if (strcmp(argv[1], "buggy") == 0)
		cluster_size = 300;
	else
		return usage(argv[0]);

	crc16_init();
	clusterInit();
	sds reply = { NULL, 0, 0 };
	uint64_t s = 99, rng = 7, sum = 0;
	unsigned long moved = 0, nodes_bytes = 0;
	char key[32];
	for (long i = 0; i < N_COMMANDS; i++) {
		cluster.now += 1;
		s ^= s << 13; s ^= s >> 7; s ^= s << 17;
		int klen = snprintf(key, sizeof key, "{user%llu}:cart", (unsigned long long)(s >> 16) % N_KEYS);
		unsigned slot = keyHashSlot(key, klen);
		/* keys of slots served by other masters get a MOVED redirection */
		if (!clusterNodeGetSlotBit(cluster.myself, (int)slot)) {
			moved++;
			sum = sum * 31 + slot;
		}
		if (s % 3 == 0) {
			dictEntry *e = dbLookup(key, klen, 1);
			if (!e->val[0])
				keys_by_slot[slot]++;
			snprintf(e->val, sizeof e->val, "item-%ld", i);
		} else {
			dictEntry *e = dbLookup(key, klen, 0);
			sum = sum * 31 + (e ? (unsigned char)e->val[5] : 0);
		}
		if (i % CRON_EVERY == 0)
			clusterCron(&rng);
		if (i % CLUSTER_NODES_EVERY == 0) {
			clusterGenNodesDescription(&reply);
			nodes_bytes += reply.len;
			sum = sum * 31 + siphash((const uint8_t *)reply.buf, reply.len);
		}
	}
	printf("cluster_nodes %s: nodes=%d moved=%lu description_bytes=%lu checksum=%016llx\n", argv[1],
	       cluster_size, moved, nodes_bytes, (unsigned long long)sum);
	free(reply.buf);
	return 0;
}

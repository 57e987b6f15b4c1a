/*
 * cluster_nodes (Redis-8145): cluster.c
 * Redis Cluster (src/cluster.c), with the root cause
 * clusterGenNodesDescription().
 */
#include "server.h"

/* Cluster size: how many nodes this node knows. */
int cluster_size = 20;

struct clusterState cluster;

/* The hash slot of a key, honouring {hash tags}. */
unsigned int keyHashSlot(const char *key, int keylen)
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

int clusterNodeGetSlotBit(const clusterNode *n, int slot)
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

void clusterInit(void)
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
__attribute__((noinline)) void clusterGenNodesDescription(sds *ci)
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

/* Receives the pings that arrived since the last run (100 ms). Every node pings the
 * nodes it has not heard from within half the node timeout (15 s), so a node
 * receives about cluster_size / 7.5 pings a second: cluster_size / 75 a run. */
void clusterCron(uint64_t *rng)
{
	int npings = cluster_size / 75 < 1 ? 1 : cluster_size / 75;
	for (int p = 0; p < npings; p++)
		clusterReceivePing(rng);
}

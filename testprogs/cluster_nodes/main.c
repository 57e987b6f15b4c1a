/*
 * cluster_nodes - Redis-8145: the CLUSTER NODES command is costly in a large
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
 * The cluster bus runs at Redis's rates (clusterCron 10 times a second, pings from
 * each node every half node timeout; see CRON_EVERY and clusterCron): gossip grows
 * with the cluster too, but as in Redis it stays a small share of the CPU, and the
 * slow run's extra time is the CLUSTER NODES command's, as in the bug report
 * ("cluster nodes commands may cost 10~15ms", 400+ nodes, CPU near 100%).
 *
 * Root cause: clusterGenNodesDescription() and the slot scan of
 * clusterGenNodeDescription() that it calls for every node (ROOT CAUSE). Key
 * variables: node (clusterGenNodesDescription), j and start
 * (clusterGenNodeDescription), cluster_size (#global). Pattern: scalability.
 *
 * Files, as in Redis's src/: cluster.c (the cluster state, the bus and CLUSTER
 * NODES: the root cause; cluster_size, the number of nodes this node knows, is
 * part of its state), db.c (the keyspace), sds.c, crc16.c, siphash.c, server.h
 * (shared declarations); main.c (this driver: the clients' commands, the cron;
 * Redis has its main() in server.c).
 */
#include "server.h"

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

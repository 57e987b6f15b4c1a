/*
 * evasive_hash - mod_evasive-63: "RSRC_CONF vs create_dir_conf
 * inconsistency causes directives to be silently ignored outside
 * VirtualHost, leading to unbounded hash table growth and 100% CPU usage"
 * https://github.com/jvdmr/mod_evasive/issues/63 (mod_evasive 2.4.0 on
 * Apache 2.4.66; see also https://github.com/jvdmr/mod_evasive/pull/35,
 * "Hashtable tweaks", which drops entries with no hit in 6 hours and grows
 * the table when the items approach the buckets).
 *
 * The real bug: every child process of the server keeps its own hash table
 * (ntt) of client addresses and address/URI pairs, created with
 * DOSHashTableSize buckets. Entries are never removed and the table never
 * grows; on a busy server in front of many distinct clients (the report: a
 * high-traffic reverse proxy) the chains of the fixed-size table grow
 * without bound, and every request's lookups (ntt_find, called three times
 * per request by access_checker) walk them: the children burn 100% CPU.
 * The report adds that the configuration meant to size the table is
 * silently ignored outside a <VirtualHost>, so the defaults apply.
 *
 * Here (C, fork): the prefork parent (ap_mpm_run, the supervisor) forks 2
 * children and waits for them; each child serves 120,000 connections of one
 * request each (parse, mod_evasive's access_checker, a generated page with
 * its ETag) and reports to the parent over a pipe. The table has the
 * default 3097 buckets. The slow run is the same binary on different
 * traffic: normal: the requests come from 1,500 distinct client addresses
 * (an intranet site: the table settles at a few thousand entries); buggy:
 * from 1,000,000 addresses (a public site behind a CDN: almost every
 * request is from a new address and adds two entries). Same requests, same
 * pages, same per-request work.
 *
 * Root cause: ntt_find() (mod_evasive.c), its walk of a bucket chain that
 * nothing bounds (ROOT CAUSE). Pattern: scalability (the cost of a lookup
 * grows with the number of distinct clients seen). Configuration in struct
 * globals (dos_conf, ap_server_conf); pointers (the table, its nodes, the
 * connection), timestamps (request_time in microseconds, node->timestamp)
 * and uninitialised-looking buffers (hash_key) in scope; the child's
 * connection loop (child_main) above the bug, the parent above that.
 *
 * Files, as in httpd and mod_evasive: mod_evasive.c (the root cause),
 * prefork.c (the MPM: parent and children), http_protocol.c (reading a
 * request, sending the response), evasive_hash.h; main.c (this driver: the
 * server's configuration and the traffic).
 */
#include "evasive_hash.h"

struct server_config ap_server_conf;

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  A prefork server whose children run mod_evasive (mod_evasive issue 63).\n"
		"  normal: traffic from 1,500 client addresses; buggy: from 1,000,000.\n", argv0);
	return 2;
}

int main(int argc, char **argv)
{
	uint64_t checksum;
	long served;
	unsigned long blocked;

	if (argc != 2)
		return usage(argv[0]);
	if (strcmp(argv[1], "normal") == 0)
		ap_server_conf = (struct server_config){ 2, 60000, 300, 40, 1764547200000000LL };
	else if (strcmp(argv[1], "buggy") == 0)
		ap_server_conf = (struct server_config){ 2, 60000, 1000000, 40, 1764547200000000LL };
	else
		return usage(argv[0]);

	if (ap_mpm_run(&checksum, &served, &blocked) != 0) {
		fprintf(stderr, "evasive_hash: a child failed\n");
		return 1;
	}
	printf("evasive_hash %s: children=%d served=%ld blocked=%lu checksum=%016llx\n", argv[1],
	       ap_server_conf.start_servers, served, blocked, (unsigned long long)checksum);
	return 0;
}

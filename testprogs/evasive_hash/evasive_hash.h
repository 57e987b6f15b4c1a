/*
 * evasive_hash - mod_evasive-63: the server's and the module's types. See
 * main.c.
 */
#ifndef EVASIVE_HASH_H
#define EVASIVE_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/types.h>

typedef int64_t apr_time_t; /* microseconds */

/* mod_evasive's configuration (DOSHashTableSize, DOSPageCount, ...). The
 * report: set in mods-enabled/evasive.conf outside a <VirtualHost>, the
 * directives are silently ignored and these defaults apply. */
struct evasive_config {
	unsigned long hash_table_size;
	int page_count;
	int site_count;
	int page_interval;   /* seconds */
	int site_interval;   /* seconds */
	int blocking_period; /* seconds */
	int http_reply;
};
extern struct evasive_config dos_conf;

/* The prefork MPM's configuration and the traffic the server sees. */
struct server_config {
	int start_servers;         /* children forked by the parent */
	long requests_per_child;   /* requests each child serves */
	unsigned long n_clients;   /* distinct client addresses in the traffic */
	unsigned int n_pages;
	apr_time_t start_time;     /* the traffic's first request time */
};
extern struct server_config ap_server_conf;

/* mod_evasive's hash table ("ntt": named timestamp tree). */
struct ntt_node {
	char *key;
	time_t timestamp;
	long count;
	struct ntt_node *next;
};

struct ntt {
	long size;
	long items;
	struct ntt_node **tbl;
};

struct ntt *ntt_create(unsigned long size);
struct ntt_node *ntt_find(struct ntt *ntt, const char *key);
struct ntt_node *ntt_insert(struct ntt *ntt, const char *key, time_t timestamp);
long ntt_hashcode(struct ntt *ntt, const char *key);

typedef struct conn_rec {
	char client_ip[48];
	long id;
	void *sbh;
} conn_rec;

typedef struct request_rec {
	conn_rec *connection;
	const char *the_request;
	char method[16];
	char uri[256];
	char host[128];
	char user_agent[160];
	int n_headers;
	apr_time_t request_time;
	int status;
	size_t bytes_sent;
	struct request_rec *prev;
} request_rec;

#define DECLINED -1
#define OK 0
#define HTTP_FORBIDDEN 403

/* mod_evasive.c */
void evasive_child_init(void);
int access_checker(request_rec *r);
unsigned long evasive_blocked(void);

/* http_protocol.c */
int ap_read_request(request_rec *r, const char *raw, size_t len);
uint64_t ap_send_response(request_rec *r);

/* prefork.c */
int ap_mpm_run(uint64_t *checksum, long *served, unsigned long *blocked);

#endif

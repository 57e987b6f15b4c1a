/*
 * evasive_hash - mod_evasive-63: mod_evasive's per-child hash table of
 * client addresses and address/URI pairs, and its access checker
 * (mod_evasive24.c in mod_evasive 2.4.0).
 *
 * Each child of the prefork server has its own table with
 * dos_conf.hash_table_size buckets. Entries are never removed and the
 * table never grows, so with many distinct clients the bucket chains grow
 * without bound and every lookup walks one: ntt_find() holds the ROOT
 * CAUSE. See main.c.
 */
#include "evasive_hash.h"

struct evasive_config dos_conf = {
	3097, /* DOSHashTableSize, the module's default */
	2,    /* DOSPageCount */
	50,   /* DOSSiteCount */
	1,    /* DOSPageInterval */
	1,    /* DOSSiteInterval */
	10,   /* DOSBlockingPeriod */
	HTTP_FORBIDDEN,
};

static struct ntt *hit_list; /* this child's table */
static unsigned long blocked;

struct ntt *ntt_create(unsigned long size)
{
	struct ntt *ntt = malloc(sizeof *ntt);
	if (ntt == NULL)
		return NULL;
	ntt->size = (long)size;
	ntt->items = 0;
	ntt->tbl = calloc(size, sizeof *ntt->tbl);
	if (ntt->tbl == NULL) {
		free(ntt);
		return NULL;
	}
	return ntt;
}

long ntt_hashcode(struct ntt *ntt, const char *key)
{
	unsigned long val = 0;
	for (; *key; ++key)
		val = 5 * val + (unsigned char)*key;
	return (long)(val % (unsigned long)ntt->size);
}

struct ntt_node *ntt_find(struct ntt *ntt, const char *key)
{
	long hash_code;
	struct ntt_node *node;

	if (ntt == NULL)
		return NULL;
	hash_code = ntt_hashcode(ntt, key);
	node = ntt->tbl[hash_code];
	/* The chain of a bucket holds every key that ever hashed to it:
	 * nothing is evicted and the table keeps its configured size, so a
	 * lookup walks items / size nodes. ROOT CAUSE */
	while (node) {
		if (!strcmp(key, node->key))
			return node;
		node = node->next;
	}
	return NULL;
}

struct ntt_node *ntt_insert(struct ntt *ntt, const char *key, time_t timestamp)
{
	long hash_code = ntt_hashcode(ntt, key);
	struct ntt_node *node = malloc(sizeof *node);
	if (node == NULL)
		return NULL;
	node->key = strdup(key);
	node->timestamp = timestamp;
	node->count = 0;
	node->next = ntt->tbl[hash_code];
	ntt->tbl[hash_code] = node;
	ntt->items++;
	return node;
}

void evasive_child_init(void)
{
	hit_list = ntt_create(dos_conf.hash_table_size);
}

unsigned long evasive_blocked(void)
{
	return blocked;
}

/* The access_checker hook: count the client's hits on this page and on
 * the site; a client over a limit within its interval is blacklisted for
 * the blocking period. */
int access_checker(request_rec *r)
{
	int ret = OK;
	char hash_key[2048];
	struct ntt_node *n;
	time_t t = (time_t)(r->request_time / 1000000);

	if (r->prev != NULL || hit_list == NULL)
		return DECLINED;

	/* First see if the IP itself is on the "blacklist" */
	n = ntt_find(hit_list, r->connection->client_ip);
	if (n != NULL && t - n->timestamp < dos_conf.blocking_period) {
		ret = dos_conf.http_reply;
		n->timestamp = t;
	} else {
		/* Has the client requested the same page too many times? */
		snprintf(hash_key, sizeof hash_key, "%s_%s", r->connection->client_ip, r->uri);
		n = ntt_find(hit_list, hash_key);
		if (n != NULL) {
			if (t - n->timestamp < dos_conf.page_interval && n->count >= dos_conf.page_count) {
				ret = dos_conf.http_reply;
				ntt_insert(hit_list, r->connection->client_ip, t);
			} else if (t - n->timestamp >= dos_conf.page_interval) {
				n->count = 0;
			}
			n->timestamp = t;
			n->count++;
		} else {
			ntt_insert(hit_list, hash_key, t);
		}

		/* Has the client requested too many pages from the site? */
		snprintf(hash_key, sizeof hash_key, "%s_SITE_", r->connection->client_ip);
		n = ntt_find(hit_list, hash_key);
		if (n != NULL) {
			if (t - n->timestamp < dos_conf.site_interval && n->count >= dos_conf.site_count) {
				ret = dos_conf.http_reply;
				ntt_insert(hit_list, r->connection->client_ip, t);
			} else if (t - n->timestamp >= dos_conf.site_interval) {
				n->count = 0;
			}
			n->timestamp = t;
			n->count++;
		} else {
			ntt_insert(hit_list, hash_key, t);
		}
	}
	if (ret == dos_conf.http_reply)
		blocked++;
	return ret;
}

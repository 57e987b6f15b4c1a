/*
 * scan_match - redis/redis#5660 ("KEYS with pattern can take exponential time"),
 * fixed by redis/redis#11858 (CVE-2022-36021). Shared declarations, as Redis'
 * src/server.h: the dict, the keyspace, the commands and the glob matcher.
 */
#ifndef SCAN_MATCH_SERVER_H
#define SCAN_MATCH_SERVER_H

#include <stddef.h>
#include <stdint.h>

/* dict.c: a chained hash table keyed by strings (Redis' dict, one table). */
typedef struct dictEntry {
	char *key;
	int keylen;
	char *val;
	int vallen;
	struct dictEntry *next;
} dictEntry;

typedef struct dict {
	dictEntry **table;
	unsigned long size;     /* buckets, a power of two */
	unsigned long sizemask;
	unsigned long used;
} dict;

typedef void dictScanFunction(void *privdata, const dictEntry *de);

dict *dictCreate(void);
dictEntry *dictFind(dict *d, const char *key, int keylen);
int dictReplace(dict *d, const char *key, int keylen, const char *val, int vallen);
unsigned long dictScan(dict *d, unsigned long cursor, dictScanFunction *fn, void *privdata);
uint64_t dictGenHashFunction(const void *key, int len);

/* The server's state (a struct global, as Redis' `server`). */
struct redisServer {
	dict *db;
	long long stat_numcommands;
	long long stat_keyspace_hits;
	long long stat_keyspace_misses;
	int scan_default_count;
};
extern struct redisServer server;

/* A client's reply buffer: what the server sends back (networking.c in Redis). */
typedef struct client {
	int id;
	char buf[16384];
	int bufpos;
	uint64_t reply_hash;
	long long replies;
} client;

void addReplyBulk(client *c, const char *s, int len);
void addReplyLongLong(client *c, long long ll);
void addReplyArrayLen(client *c, long len);

/* db.c: the commands. */
void getCommand(client *c, const char *key, int keylen);
void setCommand(client *c, const char *key, int keylen, const char *val, int vallen);
unsigned long scanGenericCommand(client *c, unsigned long cursor, const char *pat, int patlen, long count);

/* util.c */
int stringmatchlen(const char *pattern, int patternLen, const char *string, int stringLen, int nocase);
int ll2string(char *dst, size_t dstlen, long long svalue);

#endif

/*
 * blocked_clients (Redis-8668): server.h - the declarations the files of this program share
 * (server.h, adlist.h, dict.h ... in Redis). The program is described in main.c.
 */
#ifndef BLOCKED_CLIENTS_SERVER_H
#define BLOCKED_CLIENTS_SERVER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A function that lives in another compilation unit of Redis (no LTO). */
#define EXTERN_FN __attribute__((noinline))

#define N_COMMANDS 260000
#define N_QUEUES 2
#define CLIENT_LIST_EVERY 2000
#define N_KEYS 50000
#define DICT_INITIAL 4096

enum { BLOCKED_NONE, BLOCKED_LIST, BLOCKED_MODULE };
enum { OBJ_STRING, OBJ_LIST };

/* zmalloc.c */
EXTERN_FN void *zmalloc(size_t n);
EXTERN_FN void zfree(void *ptr);

/* adlist.c */
typedef struct listNode { struct listNode *prev, *next; void *value; } listNode;
typedef struct list { listNode *head, *tail; unsigned long len; } list;

list *listCreate(void);
void listAddNodeTail(list *l, void *value);
void listAddNodeHead(list *l, void *value);
void listDelNode(list *l, listNode *n);
EXTERN_FN void listRotateHeadToTail(list *l);

/* object.c */
typedef struct { int type; size_t len; char *ptr; list *l; } robj;

robj *createStringObject(const char *s, size_t len);
void decrRefCount(robj *o);

/* siphash.c, dict.c */
EXTERN_FN uint64_t siphash(const uint8_t *in, size_t inlen, const uint8_t *k);
typedef struct dictEntry { robj *key; void *val; struct dictEntry *next; } dictEntry;
typedef struct { dictEntry **table; unsigned long size, used; } dict;

dict *dictCreate(void);
dictEntry *dictFind(dict *d, const robj *key);
dictEntry *dictAddOrFind(dict *d, robj *key, int *existed);

/* server.c */
typedef struct client {
	int id;
	int btype;
	robj *bkey;              /* key blocked on */
	char querybuf[1024];
	size_t qlen;
	int argc;
	robj *argv[4];
	long ctime, last_interaction;   /* in commands processed (the server's clock) */
	unsigned long commands;
	char buf[1024];          /* output buffer */
	size_t bufpos;
	int pending_write;
} client;

struct redisServer {
	dict *keys;
	dict *blocking_keys;     /* key -> list of clients */
	list *ready_keys;
	list *unblocked_clients;  /* served; they send their next command */
	list *clients_pending_write;
	list *clients;           /* every connected client */
	long cmd_count;
	unsigned long blocked_clients_by_type[3];
};

extern struct redisServer server;
extern unsigned long jobs_served;
EXTERN_FN int dictEncObjKeyCompare(const robj *a, const robj *b);
void processCommand(client *c);

/* main.c: the clients, and the connections' kernel send buffer */
extern int n_workers;
extern char sockbuf[4 << 20];
extern size_t sockbuf_len;

/* networking.c */
void addReplyBulk(client *c, const char *s, size_t len);
void addReplyNull(client *c);
void clientCommand(client *c);
void readQueryFromClient(client *c, const char *q, size_t n);

/* blocked.c */
void signalKeyAsReady(robj *key);
void blockForKeys(client *c, robj *key);
void handleClientsBlockedOnKeys(void);

/* t_string.c, t_list.c */
void setCommand(client *c);
void getCommand(client *c);
void lpushCommand(client *c);
void brpopCommand(client *c);

/* crc64.c, rdb.c */
extern uint64_t rdb_checksum;
extern unsigned long rdb_saves;
void crc64_init(void);
EXTERN_FN uint64_t crc64(uint64_t crc, const unsigned char *s, size_t l);
void rdbSave(void);

#endif

//go:build ignore

/*
 * blocked_clients.c - Redis-8668: BRPOP becomes slow when a large number of clients
 * exist (Table 3.1 b12, Figure 3.6b of the vProf chapter; redis/redis#8668, fixed by
 * #8689).
 *
 * The real bug (Redis 6.0/6.2): after a command makes a key ready (LPUSH on a list
 * that clients wait on with BRPOP), handleClientsBlockedOnKeys() serves the list
 * clients and then calls serveClientsBlockedOnKeyByModule(), which walks the whole
 * list of clients blocked on the key,
 *     while (numclients--) { ...; if (receiver->btype != BLOCKED_MODULE) {
 *         listRotateHeadToTail(clients); continue; } ... }
 * rotating every one of them even though no client is blocked by a module. With
 * thousands of sidekiq workers blocked on the same queue, every push costs a walk
 * over all of them. The fix (#8689) added the missing check
 *     if (server.blocked_clients_by_type[BLOCKED_MODULE]) ...
 * gprof ranked zmalloc and dictEncObjKeyCompare above the root cause (5th).
 *
 * Here: a single-threaded Redis-like server executes a deterministic command stream
 * (RESP parsing, SET/GET on a siphash dict, LPUSH to job queues) from producer
 * clients, while worker clients BRPOP the queues and re-block after each job.
 * normal: 50 blocked workers; buggy: 2000 (the report surveyed 4000 in production).
 * The checksum covers every reply byte the clients receive, and is the same in
 * both modes.
 *
 * Root cause: serveClientsBlockedOnKeyByModule() (the vProf chapter calls the
 * function by its older name serveClientsBlockedOnKey), its while loop (ROOT CAUSE).
 * Key variables: numclients (serveClientsBlockedOnKeyByModule), n_workers (#global).
 * Pattern: missing constraint.
 */
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

/* ---------------------------------------------------------------- zmalloc */

static size_t used_memory;

EXTERN_FN void *zmalloc(size_t n)
{
	size_t *p = malloc(n + sizeof(size_t));
	if (!p) { perror("malloc"); exit(1); }
	*p = n;
	__atomic_add_fetch(&used_memory, n, __ATOMIC_RELAXED);
	return p + 1;
}

EXTERN_FN void zfree(void *ptr)
{
	if (!ptr)
		return;
	size_t *p = (size_t *)ptr - 1;
	__atomic_sub_fetch(&used_memory, *p, __ATOMIC_RELAXED);
	free(p);
}

/* ---------------------------------------------------------------- adlist */

typedef struct listNode { struct listNode *prev, *next; void *value; } listNode;
typedef struct list { listNode *head, *tail; unsigned long len; } list;

static list *listCreate(void) { list *l = zmalloc(sizeof *l); l->head = l->tail = NULL; l->len = 0; return l; }

static void listAddNodeTail(list *l, void *value)
{
	listNode *n = zmalloc(sizeof *n);
	n->value = value;
	n->next = NULL;
	n->prev = l->tail;
	if (l->tail) l->tail->next = n; else l->head = n;
	l->tail = n;
	l->len++;
}

static void listAddNodeHead(list *l, void *value)
{
	listNode *n = zmalloc(sizeof *n);
	n->value = value;
	n->prev = NULL;
	n->next = l->head;
	if (l->head) l->head->prev = n; else l->tail = n;
	l->head = n;
	l->len++;
}

static void listDelNode(list *l, listNode *n)
{
	if (n->prev) n->prev->next = n->next; else l->head = n->next;
	if (n->next) n->next->prev = n->prev; else l->tail = n->prev;
	zfree(n);
	l->len--;
}

EXTERN_FN void listRotateHeadToTail(list *l)
{
	if (l->len <= 1)
		return;
	listNode *head = l->head;
	l->head = head->next;
	l->head->prev = NULL;
	l->tail->next = head;
	head->next = NULL;
	head->prev = l->tail;
	l->tail = head;
}

/* ---------------------------------------------------------------- sds and objects */

typedef struct { int type; size_t len; char *ptr; list *l; } robj;

static robj *createStringObject(const char *s, size_t len)
{
	robj *o = zmalloc(sizeof *o);
	o->type = OBJ_STRING;
	o->len = len;
	o->ptr = zmalloc(len + 1);
	memcpy(o->ptr, s, len);
	o->ptr[len] = 0;
	o->l = NULL;
	return o;
}

static void decrRefCount(robj *o)
{
	if (o->type == OBJ_LIST) {
		while (o->l->head) {
			decrRefCount(o->l->head->value);
			listDelNode(o->l, o->l->head);
		}
		zfree(o->l);
	} else {
		zfree(o->ptr);
	}
	zfree(o);
}

/* ---------------------------------------------------------------- dict with siphash */

static const uint8_t dict_hash_seed[16] = "vprof-testprogs!";

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND do { v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32); \
	v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2; v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0; \
	v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32); } while (0)

EXTERN_FN uint64_t siphash(const uint8_t *in, size_t inlen, const uint8_t *k)
{
	uint64_t k0, k1;
	memcpy(&k0, k, 8);
	memcpy(&k1, k + 8, 8);
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

typedef struct dictEntry { robj *key; void *val; struct dictEntry *next; } dictEntry;
typedef struct { dictEntry **table; unsigned long size, used; } dict;

EXTERN_FN int dictEncObjKeyCompare(const robj *a, const robj *b)
{
	return a->len == b->len && memcmp(a->ptr, b->ptr, a->len) == 0;
}

static dict *dictCreate(void)
{
	dict *d = zmalloc(sizeof *d);
	d->size = DICT_INITIAL;
	d->used = 0;
	d->table = zmalloc(sizeof(dictEntry *) * d->size);
	memset(d->table, 0, sizeof(dictEntry *) * d->size);
	return d;
}

static void dictExpand(dict *d)
{
	unsigned long nsize = d->size * 2;
	dictEntry **nt = zmalloc(sizeof(dictEntry *) * nsize);
	memset(nt, 0, sizeof(dictEntry *) * nsize);
	for (unsigned long i = 0; i < d->size; i++) {
		dictEntry *e = d->table[i], *next;
		for (; e; e = next) {
			next = e->next;
			unsigned long h = siphash((uint8_t *)e->key->ptr, e->key->len, dict_hash_seed) & (nsize - 1);
			e->next = nt[h];
			nt[h] = e;
		}
	}
	zfree(d->table);
	d->table = nt;
	d->size = nsize;
}

static dictEntry *dictFind(dict *d, const robj *key)
{
	unsigned long h = siphash((uint8_t *)key->ptr, key->len, dict_hash_seed) & (d->size - 1);
	for (dictEntry *e = d->table[h]; e; e = e->next)
		if (dictEncObjKeyCompare(e->key, key))
			return e;
	return NULL;
}

/* Adds key (taking ownership) or returns the existing entry. */
static dictEntry *dictAddOrFind(dict *d, robj *key, int *existed)
{
	dictEntry *e = dictFind(d, key);
	if (e) {
		*existed = 1;
		return e;
	}
	*existed = 0;
	if (d->used >= d->size)
		dictExpand(d);
	unsigned long h = siphash((uint8_t *)key->ptr, key->len, dict_hash_seed) & (d->size - 1);
	e = zmalloc(sizeof *e);
	e->key = key;
	e->val = NULL;
	e->next = d->table[h];
	d->table[h] = e;
	d->used++;
	return e;
}

/* ---------------------------------------------------------------- server and clients */

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

static struct {
	dict *keys;
	dict *blocking_keys;     /* key -> list of clients */
	list *ready_keys;
	list *unblocked_clients;  /* served; they send their next command */
	list *clients_pending_write;
	list *clients;           /* every connected client */
	long cmd_count;
	unsigned long blocked_clients_by_type[3];
} server;

/* Configuration: how many worker clients block on the queues. */
int n_workers;
unsigned long jobs_served;

/* Appends a bulk reply to the client's output buffer (_addReplyToBuffer). */
static void addReplyBulk(client *c, const char *s, size_t len)
{
	char hdr[32];
	int n = snprintf(hdr, sizeof hdr, "$%zu\r\n", len);
	if (c->bufpos + (size_t)n + len + 2 > sizeof c->buf) {
		fprintf(stderr, "client %d: reply too long\n", c->id);
		exit(4);
	}
	memcpy(c->buf + c->bufpos, hdr, (size_t)n);
	memcpy(c->buf + c->bufpos + n, s, len);
	memcpy(c->buf + c->bufpos + n + len, "\r\n", 2);
	c->bufpos += (size_t)n + len + 2;
	if (!c->pending_write) {
		c->pending_write = 1;
		listAddNodeTail(server.clients_pending_write, c);
	}
}

static void addReplyNull(client *c) { addReplyBulk(c, "", 0); }

/* Parses one RESP multibulk command from the query buffer into argv. */
static int processMultibulkBuffer(client *c)
{
	const char *p = c->querybuf, *end = c->querybuf + c->qlen;
	if (*p != '*')
		return -1;
	c->argc = (int)strtol(p + 1, NULL, 10);
	if (c->argc < 1 || c->argc > 4)
		return -1;
	p = memchr(p, '\n', (size_t)(end - p)) + 1;
	for (int j = 0; j < c->argc; j++) {
		if (p >= end || *p != '$')
			return -1;
		long len = strtol(p + 1, NULL, 10);
		p = memchr(p, '\n', (size_t)(end - p)) + 1;
		if (len < 0 || p + len + 2 > end)
			return -1;
		c->argv[j] = createStringObject(p, (size_t)len);
		p += len + 2;
	}
	return 0;
}

static void freeClientArgv(client *c)
{
	for (int j = 0; j < c->argc; j++)
		decrRefCount(c->argv[j]);
	c->argc = 0;
}

static void signalKeyAsReady(robj *key)
{
	if (dictFind(server.blocking_keys, key))
		listAddNodeTail(server.ready_keys, createStringObject(key->ptr, key->len));
}

static void blockForKeys(client *c, robj *key)
{
	int existed;
	robj *k = createStringObject(key->ptr, key->len);
	dictEntry *de = dictAddOrFind(server.blocking_keys, k, &existed);
	if (existed)
		decrRefCount(k);
	if (!de->val)
		de->val = listCreate();
	listAddNodeTail(de->val, c);
	c->btype = BLOCKED_LIST;
	c->bkey = createStringObject(key->ptr, key->len);
	server.blocked_clients_by_type[BLOCKED_LIST]++;
}

static void unblockClient(client *c, list *clients, listNode *ln)
{
	listDelNode(clients, ln);
	server.blocked_clients_by_type[c->btype]--;
	c->btype = BLOCKED_NONE;
	decrRefCount(c->bkey);
	c->bkey = NULL;
	listAddNodeTail(server.unblocked_clients, c);
}

/* ---------------------------------------------------------------- persistence */

static uint64_t crc64_table[256];
uint64_t rdb_checksum;
unsigned long rdb_saves;

static void crc64_init(void)
{
	for (int i = 0; i < 256; i++) {
		uint64_t c = (uint64_t)i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0x95ac9329ac4bc9b5ull ^ (c >> 1) : c >> 1;
		crc64_table[i] = c;
	}
}

EXTERN_FN uint64_t crc64(uint64_t crc, const unsigned char *s, size_t l)
{
	for (size_t j = 0; j < l; j++)
		crc = crc64_table[(uint8_t)crc ^ s[j]] ^ (crc >> 8);
	return crc;
}

/* The snapshot ("save 60 10000"): serializes every string key with its value into
 * the RDB stream, whose checksum is CRC-64. */
static void rdbSave(void)
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

/* ---------------------------------------------------------------- commands */

static void setCommand(client *c)
{
	int existed;
	robj *k = createStringObject(c->argv[1]->ptr, c->argv[1]->len);
	dictEntry *de = dictAddOrFind(server.keys, k, &existed);
	if (existed) {
		decrRefCount(k);
		decrRefCount(de->val);
	}
	de->val = createStringObject(c->argv[2]->ptr, c->argv[2]->len);
	addReplyBulk(c, "OK", 2);
}

static void getCommand(client *c)
{
	dictEntry *de = dictFind(server.keys, c->argv[1]);
	if (!de) {
		addReplyNull(c);
		return;
	}
	robj *o = de->val;
	addReplyBulk(c, o->ptr, o->len);
}

static void lpushCommand(client *c)
{
	int existed;
	robj *k = createStringObject(c->argv[1]->ptr, c->argv[1]->len);
	dictEntry *de = dictAddOrFind(server.keys, k, &existed);
	if (existed)
		decrRefCount(k);
	else {
		robj *o = zmalloc(sizeof *o);
		o->type = OBJ_LIST;
		o->l = listCreate();
		o->ptr = NULL;
		o->len = 0;
		de->val = o;
	}
	robj *o = de->val;
	listAddNodeHead(o->l, createStringObject(c->argv[2]->ptr, c->argv[2]->len));
	char n[24];
	addReplyBulk(c, n, (size_t)snprintf(n, sizeof n, "%lu", o->l->len));
	signalKeyAsReady(c->argv[1]);
}

static void brpopCommand(client *c)
{
	dictEntry *de = dictFind(server.keys, c->argv[1]);
	robj *o = de ? de->val : NULL;
	if (o && o->l->len) {
		robj *v = o->l->tail->value;
		listDelNode(o->l, o->l->tail);
		addReplyBulk(c, v->ptr, v->len);
		decrRefCount(v);
		return;
	}
	blockForKeys(c, c->argv[1]);
}

/* ---------------------------------------------------------------- serving blocked clients */

/* Pops elements for the list clients, oldest first. */
static void serveClientsBlockedOnListKey(robj *o, list *clients)
{
	unsigned long numclients = clients->len;
	while (numclients--) {
		listNode *ln = clients->head;
		client *receiver = ln->value;
		if (receiver->btype != BLOCKED_LIST) {
			listRotateHeadToTail(clients);
			continue;
		}
		if (!o->l->len)
			break;
		robj *v = o->l->tail->value;
		listDelNode(o->l, o->l->tail);
		addReplyBulk(receiver, v->ptr, v->len);
		decrRefCount(v);
		unblockClient(receiver, clients, ln);
		jobs_served++;
	}
}

/* Serves the clients blocked on the key by a module command. */
__attribute__((noinline)) static void serveClientsBlockedOnKeyByModule(robj *key, list *clients)
{
	unsigned long numclients = clients->len;
	(void)key;
	/* ROOT CAUSE: walks (and rotates) every blocked client on every ready key,
	 * although server.blocked_clients_by_type[BLOCKED_MODULE] is 0. */
	while (numclients--) {
		listNode *clientnode = clients->head;
		client *receiver = clientnode->value;
		if (receiver->btype != BLOCKED_MODULE) {
			listRotateHeadToTail(clients);
			continue;
		}
		/* a module client would be served here */
	}
}

static void handleClientsBlockedOnKeys(void)
{
	while (server.ready_keys->len) {
		robj *key = server.ready_keys->head->value;
		listDelNode(server.ready_keys, server.ready_keys->head);
		dictEntry *de = dictFind(server.blocking_keys, key);
		dictEntry *ke = dictFind(server.keys, key);
		if (de && ke && ((robj *)ke->val)->type == OBJ_LIST) {
			list *clients = de->val;
			serveClientsBlockedOnListKey(ke->val, clients);
			serveClientsBlockedOnKeyByModule(key, clients);
		}
		decrRefCount(key);
	}
}

static void addReplyLarge(client *c, const char *s, size_t len);

/* CLIENT LIST: one line of fields per connected client (catClientInfoString). */
static void clientCommand(client *c)
{
	if (strcasecmp(c->argv[1]->ptr, "list") != 0) {
		addReplyBulk(c, "ERR", 3);
		return;
	}
	size_t cap = 4096, len = 0;
	char *o = zmalloc(cap);
	for (listNode *ln = server.clients->head; ln; ln = ln->next) {
		client *cl = ln->value;
		if (cap - len < 512) {
			char *n = zmalloc(cap * 2);
			memcpy(n, o, len);
			zfree(o);
			o = n;
			cap *= 2;
		}
		char flags[8] = "N";
		if (cl->btype != BLOCKED_NONE)
			strcpy(flags, "b");
		len += (size_t)snprintf(o + len, cap - len,
			"id=%d addr=10.0.%d.%d:%d laddr=10.0.0.1:6379 fd=%d name=%s%d age=%ld idle=%ld "
			"flags=%s db=0 sub=0 psub=0 multi=-1 qbuf=%zu qbuf-free=%zu argv-mem=0 obl=%zu "
			"oll=0 omem=0 tot-mem=%zu events=r cmd=%s user=default redir=-1\n",
			cl->id, cl->id / 250, cl->id % 250, 40000 + cl->id % 20000, 8 + cl->id,
			cl->id >= 1000 ? "sidekiq-" : "app-", cl->id,
			server.cmd_count - cl->ctime, server.cmd_count - cl->last_interaction,
			flags, cl->qlen, sizeof cl->querybuf - cl->qlen, cl->bufpos,
			sizeof *cl + cl->qlen, cl->btype ? "brpop" : "get");
	}
	addReplyLarge(c, o, len);
	zfree(o);
}

static void processCommand(client *c)
{
	static const struct { const char *name; void (*proc)(client *); int arity; } table[] = {
		{ "get", getCommand, 2 }, { "set", setCommand, 3 },
		{ "lpush", lpushCommand, 3 }, { "brpop", brpopCommand, 3 },
		{ "client", clientCommand, 2 },
	};
	server.cmd_count++;
	c->last_interaction = server.cmd_count;
	c->commands++;
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
		if (strcasecmp(c->argv[0]->ptr, table[i].name) == 0 && c->argc == table[i].arity) {
			table[i].proc(c);
			handleClientsBlockedOnKeys();
			return;
		}
	}
	addReplyBulk(c, "ERR", 3);
}

/* The connections' kernel send buffer, in memory: the clients read from it. */
static char sockbuf[4 << 20];
static size_t sockbuf_len;

static void writeToClient(client *c)
{
	if (sockbuf_len + c->bufpos > sizeof sockbuf) {
		fprintf(stderr, "client %d: send buffer full\n", c->id);
		exit(4);
	}
	memcpy(sockbuf + sockbuf_len, c->buf, c->bufpos);
	sockbuf_len += c->bufpos;
	c->bufpos = 0;
	c->pending_write = 0;
}

/* A reply too large for the output buffer goes to the socket directly. */
static void addReplyLarge(client *c, const char *s, size_t len)
{
	if (c->bufpos)
		writeToClient(c);
	if (sockbuf_len + len > sizeof sockbuf) {
		fprintf(stderr, "client %d: send buffer full\n", c->id);
		exit(4);
	}
	memcpy(sockbuf + sockbuf_len, s, len);
	sockbuf_len += len;
}

static void handleClientsWithPendingWrites(void)
{
	while (server.clients_pending_write->len) {
		client *c = server.clients_pending_write->head->value;
		listDelNode(server.clients_pending_write, server.clients_pending_write->head);
		writeToClient(c);
	}
}

static void readQueryFromClient(client *c, const char *q, size_t n)
{
	memcpy(c->querybuf, q, n);
	c->qlen = n;
	if (processMultibulkBuffer(c) != 0) {
		fprintf(stderr, "client %d: protocol error\n", c->id);
		exit(4);
	}
	processCommand(c);
	freeClientArgv(c);
	handleClientsWithPendingWrites();
}

/* ---------------------------------------------------------------- the benchmark clients */

static uint64_t replies_hash = 0xcbf29ce484222325ull;

/* The clients read every reply sent to them into the reply hash. */
static void drain_replies(void)
{
	for (size_t i = 0; i < sockbuf_len; i++)
		replies_hash = (replies_hash ^ (unsigned char)sockbuf[i]) * 0x100000001b3ull;
	sockbuf_len = 0;
}

/* A client sends one command (RESP) and the server handles it. */
static void feed(client *c, const char *a, const char *b, const char *d)
{
	const char *args[3] = { a, b, d };
	int argc = d ? 3 : 2;
	char q[1024];
	size_t n = (size_t)snprintf(q, sizeof q, "*%d\r\n", argc);
	for (int j = 0; j < argc; j++)
		n += (size_t)snprintf(q + n, sizeof q - n, "$%zu\r\n%s\r\n", strlen(args[j]), args[j]);
	readQueryFromClient(c, q, n);
	drain_replies();
}

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  A Redis-like server with workers blocked in BRPOP (Redis-8668).\n"
		"  normal: 50 blocked workers; buggy: 2000.\n", argv0);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return usage(argv[0]);
	if (strcmp(argv[1], "normal") == 0)
		n_workers = 50;
	else if (strcmp(argv[1], "buggy") == 0)
		n_workers = 2000;
	else
		return usage(argv[0]);

	crc64_init();
	server.keys = dictCreate();
	server.blocking_keys = dictCreate();
	server.ready_keys = listCreate();
	server.unblocked_clients = listCreate();
	server.clients_pending_write = listCreate();
	server.clients = listCreate();

	enum { N_PRODUCERS = 32 };
	client *producers = calloc(N_PRODUCERS, sizeof(client));
	client *workers = calloc((size_t)n_workers, sizeof(client));
	client monitor = { .id = 999 };
	if (!producers || !workers) { perror("calloc"); return 1; }
	for (int p = 0; p < N_PRODUCERS; p++) {
		producers[p].id = p;
		listAddNodeTail(server.clients, &producers[p]);
	}
	listAddNodeTail(server.clients, &monitor);
	for (int w = 0; w < n_workers; w++) {
		workers[w].id = 1000 + w;
		listAddNodeTail(server.clients, &workers[w]);
	}
	char qname[16], key[32], val[600];
	for (int w = 0; w < n_workers; w++) {
		snprintf(qname, sizeof qname, "queue:%d", w % N_QUEUES);
		feed(&workers[w], "BRPOP", qname, "0");
	}
	uint64_t s = 1;
	for (long i = 0; i < N_COMMANDS; i++) {
		client *c = &producers[i % N_PRODUCERS];
		if (i % CLIENT_LIST_EVERY == 0)
			feed(&monitor, "CLIENT", "LIST", NULL);   /* the dashboard polls the clients */
		s ^= s << 13; s ^= s >> 7; s ^= s << 17;
		snprintf(key, sizeof key, "user:%llu:profile", (unsigned long long)(s >> 20) % N_KEYS);
		unsigned kind = (unsigned)(s % 100);
		if (kind < 50) {
			feed(c, "GET", key, NULL);
		} else if (kind < 90) {
			int n = snprintf(val, sizeof val, "{\"name\":\"u%llu\",\"visits\":%ld,\"history\":\"",
					 (unsigned long long)(s >> 20) % N_KEYS, i);
			for (int k = 0; k < 400; k++)
				val[n++] = "0123456789abcdef"[(s >> (k % 60)) & 15];
			val[n++] = '"';
			val[n++] = '}';
			val[n] = 0;
			feed(c, "SET", key, val);
		} else {
			snprintf(qname, sizeof qname, "queue:%llu", (unsigned long long)(s >> 33) % N_QUEUES);
			snprintf(val, sizeof val, "job-%ld", i);
			feed(c, "LPUSH", qname, val);
		}
		if ((i + 1) % 32768 == 0)
			rdbSave();
		/* workers that got a job come back for the next one */
		while (server.unblocked_clients->len) {
			client *w = server.unblocked_clients->head->value;
			listDelNode(server.unblocked_clients, server.unblocked_clients->head);
			snprintf(qname, sizeof qname, "queue:%d", (w->id - 1000) % N_QUEUES);
			feed(w, "BRPOP", qname, "0");
		}
	}
	uint64_t sum = replies_hash;
	printf("blocked_clients %s: jobs=%lu saves=%lu checksum=%016llx\n", argv[1], jobs_served, rdb_saves,
	       (unsigned long long)(sum ^ rdb_checksum));
	return 0;
}

/*
 * blocked_clients (Redis-8668): networking.c
 * Clients, the query buffer and replies (src/networking.c).
 */
#include "server.h"

/* Appends a bulk reply to the client's output buffer (_addReplyToBuffer). */
void addReplyBulk(client *c, const char *s, size_t len)
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

void addReplyNull(client *c) { addReplyBulk(c, "", 0); }

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

static void addReplyLarge(client *c, const char *s, size_t len);

/* CLIENT LIST: one line of fields per connected client (catClientInfoString). */
void clientCommand(client *c)
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

void readQueryFromClient(client *c, const char *q, size_t n)
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

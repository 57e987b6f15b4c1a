/*
 * scan_match - redis/redis#5660: db.c, the keyspace commands (GET, SET and
 * SCAN ... MATCH ... COUNT, src/db.c), and the reply buffer (networking.c).
 */
#include <stdlib.h>
#include <string.h>

#include "server.h"

static void replyBytes(client *c, const char *s, int len)
{
	if (c->bufpos + len > (int)sizeof c->buf) {
		/* The socket takes the buffer: the client reads it into its hash. */
		for (int i = 0; i < c->bufpos; i++)
			c->reply_hash = (c->reply_hash ^ (unsigned char)c->buf[i]) * 0x100000001b3ull;
		c->bufpos = 0;
	}
	if (len > (int)sizeof c->buf)
		len = sizeof c->buf;
	memcpy(c->buf + c->bufpos, s, len);
	c->bufpos += len;
}

void addReplyBulk(client *c, const char *s, int len)
{
	char hdr[32];
	int n;

	hdr[0] = '$';
	n = ll2string(hdr + 1, sizeof hdr - 3, len) + 1;
	hdr[n++] = '\r';
	hdr[n++] = '\n';
	replyBytes(c, hdr, n);
	replyBytes(c, s, len);
	replyBytes(c, "\r\n", 2);
	c->replies++;
}

void addReplyLongLong(client *c, long long ll)
{
	char buf[32];
	int n;

	buf[0] = ':';
	n = ll2string(buf + 1, sizeof buf - 3, ll) + 1;
	buf[n++] = '\r';
	buf[n++] = '\n';
	replyBytes(c, buf, n);
	c->replies++;
}

void addReplyArrayLen(client *c, long len)
{
	char buf[32];
	int n;

	buf[0] = '*';
	n = ll2string(buf + 1, sizeof buf - 3, len) + 1;
	buf[n++] = '\r';
	buf[n++] = '\n';
	replyBytes(c, buf, n);
}

void getCommand(client *c, const char *key, int keylen)
{
	dictEntry *de = dictFind(server.db, key, keylen);

	server.stat_numcommands++;
	if (!de) {
		server.stat_keyspace_misses++;
		replyBytes(c, "$-1\r\n", 5);
		return;
	}
	server.stat_keyspace_hits++;
	addReplyBulk(c, de->val, de->vallen);
}

void setCommand(client *c, const char *key, int keylen, const char *val, int vallen)
{
	server.stat_numcommands++;
	dictReplace(server.db, key, keylen, val, vallen);
	replyBytes(c, "+OK\r\n", 5);
}

/* What one SCAN call collects: the keys of the visited buckets. */
typedef struct scanData {
	const dictEntry **keys;
	long n, cap;
} scanData;

static void scanCallback(void *privdata, const dictEntry *de)
{
	scanData *data = privdata;

	if (data->n == data->cap) {
		data->cap = data->cap ? data->cap * 2 : 64;
		data->keys = realloc(data->keys, data->cap * sizeof *data->keys);
	}
	data->keys[data->n++] = de;
}

/* SCAN cursor [MATCH pattern] [COUNT count]: visit buckets until count keys
 * were collected (or the table ends), then filter them with the pattern, as
 * scanGenericCommand does (step 2, "Filter elements"). Returns the next cursor. */
unsigned long scanGenericCommand(client *c, unsigned long cursor, const char *pat, int patlen, long count)
{
	scanData data = { NULL, 0, 0 };
	int use_pattern = !(patlen == 1 && pat[0] == '*');
	long maxiterations = count * 10;

	server.stat_numcommands++;
	do {
		cursor = dictScan(server.db, cursor, scanCallback, &data);
	} while (cursor && maxiterations-- && data.n < count);

	long kept = 0;
	for (long i = 0; i < data.n; i++) {
		const dictEntry *de = data.keys[i];
		if (use_pattern && !stringmatchlen(pat, patlen, de->key, de->keylen, 0))
			data.keys[i] = NULL;
		else
			kept++;
	}
	addReplyArrayLen(c, 2);
	char buf[24];
	int n = ll2string(buf, sizeof buf, (long long)cursor);
	addReplyBulk(c, buf, n);
	addReplyArrayLen(c, kept);
	for (long i = 0; i < data.n; i++)
		if (data.keys[i])
			addReplyBulk(c, data.keys[i]->key, data.keys[i]->keylen);
	free(data.keys);
	return cursor;
}

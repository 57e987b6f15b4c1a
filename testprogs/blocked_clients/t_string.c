/*
 * blocked_clients (Redis-8668): t_string.c
 * String commands (src/t_string.c).
 */
#include "server.h"

void setCommand(client *c)
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

void getCommand(client *c)
{
	dictEntry *de = dictFind(server.keys, c->argv[1]);
	if (!de) {
		addReplyNull(c);
		return;
	}
	robj *o = de->val;
	addReplyBulk(c, o->ptr, o->len);
}

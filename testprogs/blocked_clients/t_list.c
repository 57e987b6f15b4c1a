/*
 * blocked_clients (Redis-8668): t_list.c
 * List commands (src/t_list.c).
 */
#include "server.h"

void lpushCommand(client *c)
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

void brpopCommand(client *c)
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

/*
 * blocked_clients (Redis-8668): blocked.c
 * Blocking operations (src/blocked.c), with the root cause
 * serveClientsBlockedOnKeyByModule().
 */
#include "server.h"

void signalKeyAsReady(robj *key)
{
	if (dictFind(server.blocking_keys, key))
		listAddNodeTail(server.ready_keys, createStringObject(key->ptr, key->len));
}

void blockForKeys(client *c, robj *key)
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

void handleClientsBlockedOnKeys(void)
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

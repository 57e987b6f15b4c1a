/*
 * blocked_clients (Redis-8668): server.c
 * The server state and command dispatch (src/server.c).
 */
#include "server.h"

struct redisServer server;

unsigned long jobs_served;

EXTERN_FN int dictEncObjKeyCompare(const robj *a, const robj *b)
{
	return a->len == b->len && memcmp(a->ptr, b->ptr, a->len) == 0;
}

void processCommand(client *c)
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

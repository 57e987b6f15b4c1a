/*
 * blocked_clients (Redis-8668): object.c
 * Objects (src/object.c).
 */
#include "server.h"

robj *createStringObject(const char *s, size_t len)
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

void decrRefCount(robj *o)
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

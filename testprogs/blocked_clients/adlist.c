/*
 * blocked_clients (Redis-8668): adlist.c
 * Linked lists (src/adlist.c).
 */
#include "server.h"

list *listCreate(void) { list *l = zmalloc(sizeof *l); l->head = l->tail = NULL; l->len = 0; return l; }

void listAddNodeTail(list *l, void *value)
{
	listNode *n = zmalloc(sizeof *n);
	n->value = value;
	n->next = NULL;
	n->prev = l->tail;
	if (l->tail) l->tail->next = n; else l->head = n;
	l->tail = n;
	l->len++;
}

void listAddNodeHead(list *l, void *value)
{
	listNode *n = zmalloc(sizeof *n);
	n->value = value;
	n->prev = NULL;
	n->next = l->head;
	if (l->head) l->head->prev = n; else l->tail = n;
	l->head = n;
	l->len++;
}

void listDelNode(list *l, listNode *n)
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

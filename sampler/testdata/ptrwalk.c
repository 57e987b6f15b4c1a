/* ptrwalk: a field behind a pointer local (method.md §2, D82). walk()
 * goes over a list of clients and skips (rotates) every one whose btype
 * is not 2, as Redis-8668's serveClientsBlockedOnKeyByModule does; gcc
 * keeps receiver in the node's value field and compares through the
 * register it loaded it into. btype is 1 for even ids, 3 for odd ones:
 * every value read of receiver->btype is 1 or 3. argv[1] is the number of
 * walks (each over 1000 clients). */
#include <stdio.h>
#include <stdlib.h>

struct client { int id; int btype; long served; };
struct node { struct node *prev, *next; void *value; };
struct list { struct node *head, *tail; unsigned long len; };

__attribute__((noipa)) void rotate(struct list *l)
{
	struct node *h = l->head;
	if (l->len <= 1)
		return;
	l->head = h->next;
	l->head->prev = NULL;
	l->tail->next = h;
	h->prev = l->tail;
	h->next = NULL;
	l->tail = h;
}

__attribute__((noinline)) static void walk(struct list *clients)
{
	unsigned long n = clients->len;
	while (n--) {
		struct node *cn = clients->head;
		struct client *receiver = cn->value;
		if (receiver->btype != 2) {
			rotate(clients);
			continue;
		}
	}
}

int main(int argc, char **argv)
{
	struct list l = { 0, 0, 0 };
	long walks = argc > 1 ? atol(argv[1]) : 20000;
	for (int i = 0; i < 1000; i++) {
		struct client *c = calloc(1, sizeof *c);
		struct node *x = calloc(1, sizeof *x);
		if (!c || !x)
			return 1;
		c->id = i;
		c->btype = i % 2 ? 3 : 1;
		x->value = c;
		x->prev = l.tail;
		if (l.tail)
			l.tail->next = x;
		else
			l.head = x;
		l.tail = x;
		l.len++;
	}
	for (long k = 0; k < walks; k++)
		walk(&l);
	printf("%d\n", ((struct client *)l.head->value)->id);
	return 0;
}

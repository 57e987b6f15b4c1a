/*
 * blocked_clients (Redis-8668): zmalloc.c
 * The allocator wrappers (src/zmalloc.c).
 */
#include "server.h"

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

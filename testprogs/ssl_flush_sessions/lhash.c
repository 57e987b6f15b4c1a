/*
 * ssl_flush_sessions (OpenSSL-8687): lhash.c
 * OpenSSL's linear-hashing table (crypto/lhash/lhash.c): buckets split one at a
 * time as the load grows (expand) and merge as it falls (contract).
 */
#include "ssl_local.h"

#define MIN_NODES 16
#define UP_LOAD (2 * 256)
#define DOWN_LOAD (256)

OPENSSL_LHASH *OPENSSL_LH_new(OPENSSL_LH_HASHFUNC h, OPENSSL_LH_COMPFUNC c)
{
	OPENSSL_LHASH *ret = calloc(1, sizeof(*ret));
	if (ret == NULL)
		return NULL;
	ret->b = calloc(MIN_NODES, sizeof(*ret->b));
	if (ret->b == NULL) {
		free(ret);
		return NULL;
	}
	ret->comp = c;
	ret->hash = h;
	ret->num_nodes = MIN_NODES / 2;
	ret->num_alloc_nodes = MIN_NODES;
	ret->pmax = MIN_NODES / 2;
	ret->up_load = UP_LOAD;
	ret->down_load = DOWN_LOAD;
	return ret;
}

static void expand(OPENSSL_LHASH *lh)
{
	OPENSSL_LH_NODE **n, **n1, **n2, *np;
	unsigned int p, pmax, nni, j;
	unsigned long hash;

	nni = lh->num_alloc_nodes;
	p = lh->p;
	pmax = lh->pmax;
	if (p + 1 >= pmax) {
		j = nni * 2;
		n = realloc(lh->b, sizeof(OPENSSL_LH_NODE *) * j);
		if (n == NULL) {
			lh->error++;
			return;
		}
		lh->b = n;
		memset(n + nni, 0, sizeof(*n) * (j - nni));
		lh->pmax = nni;
		lh->num_alloc_nodes = j;
		lh->p = 0;
	} else {
		lh->p++;
	}
	lh->num_nodes++;
	lh->num_expands++;
	n1 = &(lh->b[p]);
	n2 = &(lh->b[p + pmax]);
	*n2 = NULL;
	for (np = *n1; np != NULL;) {
		hash = np->hash;
		if ((hash % nni) != p) {
			*n1 = (*n1)->next;
			np->next = *n2;
			*n2 = np;
		} else {
			n1 = &((*n1)->next);
		}
		np = *n1;
	}
}

static void contract(OPENSSL_LHASH *lh)
{
	OPENSSL_LH_NODE **n, *n1, *np;

	np = lh->b[lh->p + lh->pmax - 1];
	lh->b[lh->p + lh->pmax - 1] = NULL;
	if (lh->p == 0) {
		n = realloc(lh->b, sizeof(OPENSSL_LH_NODE *) * lh->pmax);
		if (n == NULL) {
			lh->error++;
			return;
		}
		lh->num_contracts++;
		lh->num_alloc_nodes /= 2;
		lh->pmax /= 2;
		lh->p = lh->pmax - 1;
		lh->b = n;
	} else {
		lh->p--;
	}
	lh->num_nodes--;
	n1 = lh->b[(int)lh->p];
	if (n1 == NULL) {
		lh->b[(int)lh->p] = np;
	} else {
		while (n1->next != NULL)
			n1 = n1->next;
		n1->next = np;
	}
}

static OPENSSL_LH_NODE **getrn(OPENSSL_LHASH *lh, const void *data, unsigned long *rhash)
{
	OPENSSL_LH_NODE **ret, *n1;
	unsigned long hash, nn;

	hash = (*(lh->hash))(data);
	*rhash = hash;
	nn = hash % lh->pmax;
	if (nn < lh->p)
		nn = hash % lh->num_alloc_nodes;
	ret = &(lh->b[(int)nn]);
	for (n1 = *ret; n1 != NULL; n1 = n1->next) {
		if (n1->hash != hash) {
			ret = &(n1->next);
			continue;
		}
		if (lh->comp(n1->data, data) == 0)
			break;
		ret = &(n1->next);
	}
	return ret;
}

void *OPENSSL_LH_insert(OPENSSL_LHASH *lh, void *data)
{
	unsigned long hash;
	OPENSSL_LH_NODE *nn, **rn;
	void *ret;

	lh->error = 0;
	if ((lh->up_load <= (lh->num_items * 256 / lh->num_nodes)))
		expand(lh);
	rn = getrn(lh, data, &hash);
	if (*rn == NULL) {
		if ((nn = malloc(sizeof(*nn))) == NULL) {
			lh->error++;
			return NULL;
		}
		nn->data = data;
		nn->next = NULL;
		nn->hash = hash;
		*rn = nn;
		ret = NULL;
		lh->num_items++;
	} else {
		ret = (*rn)->data;
		(*rn)->data = data;
	}
	return ret;
}

void *OPENSSL_LH_delete(OPENSSL_LHASH *lh, const void *data)
{
	unsigned long hash;
	OPENSSL_LH_NODE *nn, **rn;
	void *ret;

	lh->error = 0;
	rn = getrn(lh, data, &hash);
	if (*rn == NULL)
		return NULL;
	nn = *rn;
	*rn = nn->next;
	ret = nn->data;
	free(nn);
	lh->num_items--;
	if ((lh->num_nodes > MIN_NODES) && (lh->down_load >= (lh->num_items * 256 / lh->num_nodes)))
		contract(lh);
	return ret;
}

void *OPENSSL_LH_retrieve(OPENSSL_LHASH *lh, const void *data)
{
	unsigned long hash;
	OPENSSL_LH_NODE **rn;

	lh->error = 0;
	rn = getrn(lh, data, &hash);
	if (*rn == NULL) {
		lh->num_retrieve_miss++;
		return NULL;
	}
	lh->num_retrieve++;
	return (*rn)->data;
}

/* Calls func on every item; reverse bucket order, so func may delete the item. */
void OPENSSL_LH_doall_arg(OPENSSL_LHASH *lh, OPENSSL_LH_DOALL_FUNCARG func, void *arg)
{
	int i;
	OPENSSL_LH_NODE *a, *n;

	if (lh == NULL)
		return;
	for (i = lh->num_nodes - 1; i >= 0; i--) {
		a = lh->b[i];
		while (a != NULL) {
			n = a->next;
			func(a->data, arg);
			a = n;
		}
	}
}

unsigned long OPENSSL_LH_num_items(const OPENSSL_LHASH *lh)
{
	return lh ? lh->num_items : 0;
}

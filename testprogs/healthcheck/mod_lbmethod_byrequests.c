/*
 * healthcheck (HTTPD-62318): mod_lbmethod_byrequests.c
 * Load balancing by requests (modules/proxy/balancers/mod_lbmethod_byrequests.c).
 */
#include "healthcheck.h"

proxy_worker *find_best_byrequests(void)
{
	proxy_worker *best = NULL;
	pthread_mutex_lock(&balancer_mutex);
	for (int i = 0; i < N_BACKENDS; i++) {
		proxy_worker *w = &workers[i];
		if (!best || w->lbstatus < best->lbstatus)
			best = w;
	}
	best->lbstatus += N_BACKENDS;
	for (int i = 0; i < N_BACKENDS; i++)
		workers[i].lbstatus--;
	pthread_mutex_unlock(&balancer_mutex);
	return best;
}

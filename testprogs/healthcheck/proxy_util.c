/*
 * healthcheck (HTTPD-62318): proxy_util.c
 * The proxy's workers and the balancer's lock (modules/proxy/proxy_util.c).
 */
#include "healthcheck.h"

proxy_worker_shared shared[N_BACKENDS];
proxy_worker workers[N_BACKENDS];
pthread_mutex_t balancer_mutex = PTHREAD_MUTEX_INITIALIZER;

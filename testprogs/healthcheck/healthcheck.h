/*
 * healthcheck (HTTPD-62318): healthcheck.h - the declarations the files of this program share
 * (mod_proxy.h, apr_time.h ... in httpd and APR). The program is described in
 * main.c.
 */
#ifndef HEALTHCHECK_H
#define HEALTHCHECK_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

typedef int64_t apr_time_t;     /* microseconds */
typedef int apr_status_t;
#define APR_SUCCESS 0
#define APR_EGENERAL 20014

#define N_BACKENDS 8
#define N_PROXY_THREADS 1
#define REQUESTS_PER_THREAD 30000
#define HEARTBEAT_US 1000
#define HC_INTERVAL_US 5000

typedef struct {
	char name[64];
	apr_time_t updated;            /* when the last check was done */
	apr_time_t interval;
	int status_ok;
	unsigned long checks;
	size_t status_page_size;
} proxy_worker_shared;

typedef struct {
	proxy_worker_shared *s;
	unsigned long lbstatus;
} proxy_worker;

/* main.c: the backends */
extern size_t hc_slow_backend_size;
extern char *backend_pages[N_BACKENDS];
extern size_t backend_page_len[N_BACKENDS];
extern volatile int proxy_done;

/* proxy_util.c */
extern proxy_worker_shared shared[N_BACKENDS];
extern proxy_worker workers[N_BACKENDS];
extern pthread_mutex_t balancer_mutex;

/* apr_time.c */
apr_time_t apr_time_now(void);
void apr_sleep(apr_time_t us);

/* mod_proxy_hcheck.c */
extern unsigned long hc_checks_total;
void hc_watchdog_callback(void);

/* mod_watchdog.c, mod_lbmethod_byrequests.c, mod_proxy.c */
void *watchdog_thread(void *arg);
proxy_worker *find_best_byrequests(void);
uint64_t proxy_handler(int thread, int r);

#endif

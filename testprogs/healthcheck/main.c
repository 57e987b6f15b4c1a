/*
 * healthcheck - HTTPD-62318: mod_proxy_hcheck runs health checks far more often
 * than the configured interval (Table 3.1 b8; Apache bugs 62318 and 63010).
 *
 * The real bug: the watchdog callback hc_watchdog_callback() runs at every
 * heartbeat and starts a check of a balancer member when
 *     worker->s->updated + worker->s->interval <= now
 * hc_check() takes its timestamp `now` when the check begins but stores it in
 * worker->s->updated when the check ends. When a check takes longer than the
 * interval (a slow backend, a large status page to evaluate), `updated` is already
 * stale when it is written, and the watchdog starts a new check at every heartbeat:
 * the health checker never rests and takes a core from the proxy threads. vProf
 * ranked hc_check first (abnormal values around the call of hc_check_http) and
 * classified the bug as a wrong constraint.
 *
 * Here: a proxy thread serves requests over a balancer of 8 backends (parse,
 * checksum, and apr_time_now() = clock_gettime() through the vDSO for every timing
 * field); a watchdog thread wakes every heartbeat (1 ms) and health-checks members
 * whose interval (5 ms) has passed, each check fetching and evaluating the member's
 * status page. normal: every status page is small; buggy: one backend's status
 * page is large, so its check takes longer than the interval. The checksum covers
 * the proxied responses only (the number of checks depends on timing).
 *
 * Root cause: hc_check(), which stores the start-of-check timestamp (ROOT CAUSE).
 * Key variables: now (hc_check), now (hc_watchdog_callback), hc_slow_backend_size
 * (#global). Pattern: wrong constraint.
 *
 * Files, as in Apache httpd 2.4 and APR: mod_proxy_hcheck.c (the health checks:
 * the root cause), mod_watchdog.c (modules/core: the watchdog thread),
 * mod_proxy.c, proxy_util.c, mod_lbmethod_byrequests.c (modules/proxy: the
 * proxy, its workers and balancer), apr_time.c (APR's time/unix/time.c),
 * healthcheck.h (shared declarations); main.c (this driver: the backends and
 * their status pages, the proxied traffic).
 */
#include "healthcheck.h"

/* Configuration: the status page size of the one slow backend (0: like the others). */
size_t hc_slow_backend_size;
volatile int proxy_done;

/* What each backend answers to GET /server-status?auto (built at start-up). */
char *backend_pages[N_BACKENDS];
size_t backend_page_len[N_BACKENDS];

static void backend_init(int i, size_t size)
{
	char *page = malloc(size + 256);
	if (!page) { perror("malloc"); exit(1); }
	size_t n = (size_t)snprintf(page, size + 256, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
				    "Content-Length: %zu\r\n\r\n", size);
	uint64_t s = 0x9e3779b97f4a7c15ull ^ (uint64_t)i;
	while (n < size) {
		s ^= s << 13; s ^= s >> 7; s ^= s << 17;
		n += (size_t)snprintf(page + n, size + 256 - n, "Scoreboard: %016llx\nBusyWorkers: %u\n",
				      (unsigned long long)s, (unsigned)(s % 100));
	}
	n += (size_t)snprintf(page + n, size + 256 - n, "Status: OK\n");
	backend_pages[i] = page;
	backend_page_len[i] = n;
}

struct proxy_arg { int no; uint64_t result; };

static void *proxy_thread(void *argp)
{
	struct proxy_arg *arg = argp;
	uint64_t acc = 0;
	for (int r = 0; r < REQUESTS_PER_THREAD; r++)
		acc = acc * 1000003 + proxy_handler(arg->no, r);
	arg->result = acc;
	return NULL;
}

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  A reverse proxy with mod_proxy_hcheck health checks (HTTPD-62318).\n"
		"  buggy: one backend's status page is large, so checking it takes longer\n"
		"  than the check interval.\n", argv0);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return usage(argv[0]);
	if (strcmp(argv[1], "normal") == 0)
		hc_slow_backend_size = 0;
	else if (strcmp(argv[1], "buggy") == 0)
		hc_slow_backend_size = 4 << 20;
	else
		return usage(argv[0]);

	for (int i = 0; i < N_BACKENDS; i++) {
		snprintf(shared[i].name, sizeof shared[i].name, "http://10.0.0.%d:8080", 10 + i);
		shared[i].interval = HC_INTERVAL_US;
		shared[i].status_page_size = 2048;
		workers[i].s = &shared[i];
	}
	if (hc_slow_backend_size)
		shared[N_BACKENDS - 1].status_page_size = hc_slow_backend_size;
	for (int i = 0; i < N_BACKENDS; i++)
		backend_init(i, shared[i].status_page_size);

	pthread_t wd, pt[N_PROXY_THREADS];
	struct proxy_arg pa[N_PROXY_THREADS];
	/* the first round of checks runs at start-up, before traffic is accepted */
	hc_watchdog_callback();
	if (pthread_create(&wd, NULL, watchdog_thread, NULL) != 0) {
		perror("pthread_create");
		return 1;
	}
	for (int i = 0; i < N_PROXY_THREADS; i++) {
		pa[i].no = i;
		if (pthread_create(&pt[i], NULL, proxy_thread, &pa[i]) != 0) {
			perror("pthread_create");
			return 1;
		}
	}
	uint64_t sum = 0;
	for (int i = 0; i < N_PROXY_THREADS; i++) {
		pthread_join(pt[i], NULL);
		sum = sum * 1000003 + pa[i].result;
	}
	proxy_done = 1;
	pthread_join(wd, NULL);
	int healthy = 0;
	for (int i = 0; i < N_BACKENDS; i++)
		healthy += shared[i].status_ok;
	printf("healthcheck %s: requests=%d healthy=%d checksum=%016llx\n", argv[1],
	       N_PROXY_THREADS * REQUESTS_PER_THREAD, healthy, (unsigned long long)sum);
	return 0;
}

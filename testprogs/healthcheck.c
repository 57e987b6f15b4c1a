//go:build ignore

/*
 * healthcheck.c - HTTPD-62318: mod_proxy_hcheck runs health checks far more often
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
 */
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

/* Configuration: the status page size of the one slow backend (0: like the others). */
size_t hc_slow_backend_size;
unsigned long hc_checks_total;

static proxy_worker_shared shared[N_BACKENDS];
static proxy_worker workers[N_BACKENDS];
static pthread_mutex_t balancer_mutex = PTHREAD_MUTEX_INITIALIZER;
static volatile int proxy_done;

static apr_time_t apr_time_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (apr_time_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void apr_sleep(apr_time_t us)
{
	struct timespec ts = { (time_t)(us / 1000000), (long)(us % 1000000) * 1000 };
	nanosleep(&ts, NULL);
}

/* ---------------------------------------------------------------- health checks */

/* What each backend answers to GET /server-status?auto (built at start-up). */
static char *backend_pages[N_BACKENDS];
static size_t backend_page_len[N_BACKENDS];

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

/* Receives the backend's response into a fresh buffer, as the brigade does. */
static char *hc_read_response(const proxy_worker *w, size_t *len)
{
	int i = (int)(w - workers);
	char *buf = malloc(backend_page_len[i] + 1);
	if (!buf) { perror("malloc"); exit(1); }
	for (size_t off = 0; off < backend_page_len[i]; off += 8192) {
		size_t n = backend_page_len[i] - off < 8192 ? backend_page_len[i] - off : 8192;
		memcpy(buf + off, backend_pages[i] + off, n);
	}
	buf[backend_page_len[i]] = 0;
	*len = backend_page_len[i];
	return buf;
}

/* Fetches the status page and evaluates the health-check expression on it
 * (hc_expr "Status: OK" and the BusyWorkers limit). In httpd this is a large
 * function (request set-up, connection, brigades, expression evaluation) that is
 * never inlined; its body here is the part that costs. */
__attribute__((noinline)) static apr_status_t hc_check_http(proxy_worker *w)
{
	size_t len;
	char *resp = hc_read_response(w, &len);
	apr_status_t rv = APR_EGENERAL;
	char *body = strstr(resp, "\r\n\r\n");
	if (strncmp(resp, "HTTP/1.1 200", 12) == 0 && body) {
		unsigned busy_max = 0;
		for (char *line = body + 4; line && *line; ) {
			char *nl = strchr(line, '\n');
			if (strncasecmp(line, "BusyWorkers:", 12) == 0) {
				unsigned b = (unsigned)strtoul(line + 12, NULL, 10);
				if (b > busy_max)
					busy_max = b;
			} else if (strncmp(line, "Status: OK", 10) == 0) {
				rv = APR_SUCCESS;
			}
			line = nl ? nl + 1 : NULL;
		}
		if (busy_max > 100)
			rv = APR_EGENERAL;
	}
	free(resp);
	return rv;
}

__attribute__((noinline)) static void hc_check(proxy_worker *worker)
{
	apr_time_t now = apr_time_now();
	apr_status_t rv = hc_check_http(worker);
	pthread_mutex_lock(&balancer_mutex);
	worker->s->status_ok = rv == APR_SUCCESS;
	worker->s->checks++;
	hc_checks_total++;
	/* ROOT CAUSE: the time the check began, stale by the duration of the check */
	worker->s->updated = now;
	pthread_mutex_unlock(&balancer_mutex);
}

/* Called at every heartbeat: checks the members whose interval has passed. */
static void hc_watchdog_callback(void)
{
	for (int i = 0; i < N_BACKENDS; i++) {
		proxy_worker *worker = &workers[i];
		apr_time_t now = apr_time_now();
		if (!worker->s->updated || worker->s->updated + worker->s->interval <= now)
			hc_check(worker);
	}
}

static void *watchdog_thread(void *arg)
{
	(void)arg;
	while (!proxy_done) {
		hc_watchdog_callback();
		apr_sleep(HEARTBEAT_US);
	}
	return NULL;
}

/* ---------------------------------------------------------------- the proxy */

static proxy_worker *find_best_byrequests(void)
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

/* Proxies one request: the response body is generated from the URI (as the
 * backend would), checksummed and logged with its timing fields. */
static uint64_t proxy_handler(int thread, int r)
{
	apr_time_t request_time = apr_time_now();
	(void)find_best_byrequests();
	char uri[96];
	snprintf(uri, sizeof uri, "/api/v2/orders/%d/%d?expand=items", thread, r);
	apr_time_t connect_time = apr_time_now();
	uint64_t s = 0xcbf29ce484222325ull;
	for (const char *p = uri; *p; p++)
		s = (s ^ (unsigned char)*p) * 0x100000001b3ull;
	uint32_t a = 1, b = 0;
	for (int i = 0; i < 6000; i++) {
		s ^= s << 13; s ^= s >> 7; s ^= s << 17;
		unsigned char c = (unsigned char)(s >> 33);
		a = (a + c) % 65521;
		b = (b + a) % 65521;
		if (i % 1500 == 0)
			(void)apr_time_now();      /* the proxy's read timeouts */
	}
	apr_time_t response_time = apr_time_now();
	(void)request_time;
	(void)connect_time;
	(void)response_time;
	return (uint64_t)b << 16 | a;
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

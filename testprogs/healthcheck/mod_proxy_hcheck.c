/*
 * healthcheck (HTTPD-62318): mod_proxy_hcheck.c
 * Health checks (modules/proxy/mod_proxy_hcheck.c), with the root cause
 * hc_check().
 */
#include "healthcheck.h"

unsigned long hc_checks_total;

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
void hc_watchdog_callback(void)
{
	for (int i = 0; i < N_BACKENDS; i++) {
		proxy_worker *worker = &workers[i];
		apr_time_t now = apr_time_now();
		if (!worker->s->updated || worker->s->updated + worker->s->interval <= now)
			hc_check(worker);
	}
}

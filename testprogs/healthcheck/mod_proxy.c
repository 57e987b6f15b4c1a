/*
 * healthcheck (HTTPD-62318): mod_proxy.c
 * The proxy handler (modules/proxy/mod_proxy.c).
 */
#include "healthcheck.h"

/* Proxies one request: the response body is generated from the URI (as the
 * backend would), checksummed and logged with its timing fields. */
uint64_t proxy_handler(int thread, int r)
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

/*
 * ssl_flush_sessions (OpenSSL-8687): ngx_http_request.c
 * The request on a TLS connection: parse the request line and Host header, build
 * the response (a small templated page) with an ETag, and count it.
 */
#include "ssl_local.h"

struct ngx_http_request {
	char method[8];
	char uri[128];
	char host[64];
	int status;
	size_t content_length;
};

static uint64_t fnv1a(const char *p, size_t n, uint64_t h)
{
	while (n--) {
		h ^= (unsigned char)*p++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static int ngx_http_parse_request(struct ngx_http_request *r, const char *buf)
{
	if (sscanf(buf, "%7s %127s HTTP/1.1", r->method, r->uri) != 2)
		return -1;
	const char *h = strstr(buf, "\r\nHost: ");
	if (h == NULL)
		return -1;
	h += 8;
	size_t n = strcspn(h, "\r\n");
	if (n >= sizeof r->host)
		n = sizeof r->host - 1;
	memcpy(r->host, h, n);
	r->host[n] = '\0';
	return 0;
}

/* Returns the response's hash (the driver's checksum), 0 on a bad request. */
uint64_t ngx_http_process_request(const char *buf, int resumed)
{
	struct ngx_http_request r;
	char body[2048], out[2560];
	memset(&r, 0, sizeof r);
	if (ngx_http_parse_request(&r, buf) != 0)
		return 0;
	int n = snprintf(body, sizeof body,
		"<html><head><title>%s</title></head><body><h1>%s</h1>"
		"<p>You asked for %s over %s TLS.</p><ul>", r.host, r.uri, r.uri, resumed ? "resumed" : "new");
	for (int i = 0; i < 4 && n < (int)sizeof body - 80; i++)
		n += snprintf(body + n, sizeof body - n, "<li><a href=\"%s/item/%d\">item %d</a></li>", r.uri, i, i);
	n += snprintf(body + n, sizeof body - n, "</ul></body></html>");
	uint64_t etag = fnv1a(body, n, 0xcbf29ce484222325ULL);
	int m = snprintf(out, sizeof out,
		"HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Type: text/html\r\nContent-Length: %d\r\n"
		"ETag: \"%016llx\"\r\nConnection: close\r\n\r\n%s", n, (unsigned long long)etag, body);
	return fnv1a(out, m, 0xcbf29ce484222325ULL);
}

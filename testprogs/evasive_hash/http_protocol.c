/*
 * evasive_hash - mod_evasive-63: reading a request and sending the
 * response (server/protocol.c and modules/http/http_protocol.c in httpd):
 * the innocent per-request work of a child.
 */
#include "evasive_hash.h"
#include <ctype.h>

static char page_body[4096];
static int body_ready;

static void copy_field(char *dst, size_t cap, const char *src, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

int ap_read_request(request_rec *r, const char *raw, size_t len)
{
	const char *p = raw, *end = raw + len, *eol, *sp;

	r->the_request = raw;
	r->n_headers = 0;
	r->host[0] = r->user_agent[0] = '\0';
	eol = memchr(p, '\n', (size_t)(end - p));
	if (eol == NULL)
		return -1;
	sp = memchr(p, ' ', (size_t)(eol - p));
	if (sp == NULL)
		return -1;
	copy_field(r->method, sizeof r->method, p, (size_t)(sp - p));
	p = sp + 1;
	sp = memchr(p, ' ', (size_t)(eol - p));
	if (sp == NULL)
		return -1;
	copy_field(r->uri, sizeof r->uri, p, (size_t)(sp - p));
	for (p = eol + 1; p < end; p = eol + 1) {
		const char *colon, *v;
		eol = memchr(p, '\n', (size_t)(end - p));
		if (eol == NULL || eol == p)
			break;
		colon = memchr(p, ':', (size_t)(eol - p));
		if (colon == NULL)
			continue;
		for (v = colon + 1; v < eol && isspace((unsigned char)*v); v++)
			;
		if ((size_t)(colon - p) == 4 && strncasecmp(p, "Host", 4) == 0)
			copy_field(r->host, sizeof r->host, v, (size_t)(eol - v));
		else if ((size_t)(colon - p) == 10 && strncasecmp(p, "User-Agent", 10) == 0)
			copy_field(r->user_agent, sizeof r->user_agent, v, (size_t)(eol - v));
		r->n_headers++;
	}
	return 0;
}

/* Generate the page and its ETag (a hash of the body), as a handler and
 * the core output filters would. */
uint64_t ap_send_response(request_rec *r)
{
	uint64_t etag = 1469598103934665603ull;
	size_t i, n;

	if (!body_ready) {
		for (i = 0; i < sizeof page_body; i++)
			page_body[i] = (char)('a' + (i * 7) % 26);
		body_ready = 1;
	}
	if (r->status != OK) {
		r->bytes_sent = 0;
		return (uint64_t)r->status;
	}
	n = 1024 + (strlen(r->uri) * 97) % 3000;
	for (i = 0; i < n; i++)
		etag = (etag ^ (unsigned char)(page_body[i] ^ r->uri[i % 8])) * 1099511628211ull;
	r->bytes_sent = n;
	return etag;
}

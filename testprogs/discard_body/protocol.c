/*
 * discard_body (HTTPD-52914): protocol.c
 * Reading a request (server/protocol.c).
 */
#include "discard_body.h"

int ap_read_request(conn_rec *c, request_rec *r)
{
	char line[512];
	int first = 1;
	r->clength = 0;
	for (;;) {
		if (c->pos >= c->len)
			return -1;
		const char *nl = memchr(c->buf + c->pos, '\n', c->len - c->pos);
		if (!nl)
			return -1;
		size_t n = (size_t)(nl - (c->buf + c->pos)) + 1;
		if (n >= sizeof line)
			return -1;
		memcpy(line, c->buf + c->pos, n);
		line[n] = 0;
		c->pos += n;
		if (strcmp(line, "\r\n") == 0)
			break;
		if (first) {
			char method[16];
			if (sscanf(line, "%15s %255s HTTP/1.1", method, r->uri) != 2)
				return -1;
			first = 0;
		} else if (strncasecmp(line, "Content-Length:", 15) == 0) {
			r->clength = strtol(line + 15, NULL, 10);
		}
	}
	r->remaining = r->clength;
	return 0;
}

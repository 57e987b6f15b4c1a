/*
 * killpg_poll (HTTPD-54852): protocol.c
 * Request parsing (server/protocol.c).
 */
#include "killpg_poll.h"

/* Parses a request head: request line and headers, case-insensitive names. */
int ap_read_request(const char *req, char *uri, size_t urisz, long *content_length)
{
	const char *sp = strchr(req, ' ');
	if (!sp)
		return -1;
	const char *sp2 = strchr(sp + 1, ' ');
	if (!sp2 || (size_t)(sp2 - sp - 1) >= urisz)
		return -1;
	memcpy(uri, sp + 1, sp2 - sp - 1);
	uri[sp2 - sp - 1] = 0;
	*content_length = 0;
	for (const char *line = strstr(sp2, "\r\n"); line && line[2] != '\r'; line = strstr(line + 2, "\r\n")) {
		const char *h = line + 2;
		if (strncasecmp(h, "Content-Length:", 15) == 0)
			*content_length = strtol(h + 15, NULL, 10);
	}
	return 0;
}

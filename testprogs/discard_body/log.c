/*
 * discard_body (HTTPD-52914): log.c
 * Error logging (server/log.c).
 */
#include "discard_body.h"

static uint64_t error_log_hash = 0xcbf29ce484222325ull;

/* Formats and "writes" a log line (hashed instead of written to a file). */
EXTERN_FN void ap_log_cerror(conn_rec *c, const char *fmt, ...)
{
	char line[HUGE_STRING_LEN * 2 + 256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	(void)c;
	if (n < 0)
		return;
	if ((size_t)n >= sizeof line)
		n = sizeof line - 1;
	for (int i = 0; i < n; i++)
		error_log_hash = (error_log_hash ^ (unsigned char)line[i]) * 0x100000001b3ull;
}

/*
 * discard_body (HTTPD-52914): mod_dumpio.c
 * mod_dumpio (modules/debugging/mod_dumpio.c), with the root cause
 * dumpio_input_filter().
 */
#include "discard_body.h"

unsigned long dumpio_log_lines;

/* mod_dumpio: logs every bucket read through it as hex. */
static void dumpit(ap_filter_t *f, const apr_bucket *b)
{
	static const char hex[] = "0123456789abcdef";
	char obuf[HUGE_STRING_LEN * 2 + 1];
	size_t len = b->len > HUGE_STRING_LEN ? HUGE_STRING_LEN : b->len;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)b->data[i];
		obuf[2 * i] = hex[ch >> 4];
		obuf[2 * i + 1] = hex[ch & 15];
	}
	obuf[2 * len] = 0;
	ap_log_cerror(f->c, "mod_dumpio: dumpio_in (data-HEAP): %zu bytes: %s", b->len, obuf);
	dumpio_log_lines++;
}

__attribute__((noinline)) apr_status_t dumpio_input_filter(ap_filter_t *f, apr_bucket_brigade *bb,
								   ap_input_mode_t mode, apr_off_t readbytes)
{
	apr_status_t ret;
	int before = bb->n;

	ap_log_cerror(f->c, "mod_dumpio: dumpio_in [%s-%s] %ld readbytes",
		      mode == AP_MODE_READBYTES ? "readbytes" : "getline", "blocking", (long)readbytes);
	ret = ap_get_brigade(f->next, bb, mode, readbytes);
	if (ret == APR_SUCCESS) {
		for (int i = before; i < bb->n; i++)
			if (!bb->b[i].is_eos)
				dumpit(f, &bb->b[i]);
	} else {
		ap_log_cerror(f->c, "mod_dumpio: dumpio_in - %d", ret);
	}
	return APR_SUCCESS;     /* ROOT CAUSE: a failed read is reported as success; must return ret */
}

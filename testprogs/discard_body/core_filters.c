/*
 * discard_body (HTTPD-52914): core_filters.c
 * The core input filter (server/core_filters.c).
 */
#include "discard_body.h"

/* The core input filter: reads from the socket. */
apr_status_t core_input_filter(ap_filter_t *f, apr_bucket_brigade *bb,
				      ap_input_mode_t mode, apr_off_t readbytes)
{
	conn_rec *c = f->c;
	size_t avail_end = c->stall > 0 ? c->stall_at : c->len;
	if (c->pos >= avail_end) {
		if (c->pos >= c->len)
			return APR_EOF;
		/* Nothing arrived within the Timeout: the socket read times out (and keeps
		 * timing out at once, its deadline being past). */
		c->stall--;
		c->timeouts++;
		return APR_TIMEUP;
	}
	size_t n = avail_end - c->pos;
	if (mode == AP_MODE_GETLINE) {
		const char *nl = memchr(c->buf + c->pos, '\n', n);
		if (nl)
			n = (size_t)(nl - (c->buf + c->pos)) + 1;
	} else if ((apr_off_t)n > readbytes) {
		n = (size_t)readbytes;
	}
	brigade_insert_tail(bb, 0, c->buf + c->pos, n);
	c->pos += n;
	return APR_SUCCESS;
}

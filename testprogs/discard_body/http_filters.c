/*
 * discard_body (HTTPD-52914): http_filters.c
 * HTTP_IN and ap_discard_request_body() (modules/http/http_filters.c).
 */
#include "discard_body.h"

/* HTTP_IN: limits the body to Content-Length and adds EOS at its end. */
apr_status_t ap_http_filter(ap_filter_t *f, apr_bucket_brigade *bb,
				   ap_input_mode_t mode, apr_off_t readbytes)
{
	request_rec *r = f->ctx;
	if (r->remaining <= 0) {
		brigade_insert_tail(bb, 1, NULL, 0);
		return APR_SUCCESS;
	}
	if (readbytes > r->remaining)
		readbytes = r->remaining;
	int before = bb->n;
	apr_status_t rv = f->next->func(f->next, bb, mode, readbytes);
	if (rv != APR_SUCCESS)
		return rv;
	for (int i = before; i < bb->n; i++)
		r->remaining -= (apr_off_t)bb->b[i].len;
	if (r->remaining <= 0)
		brigade_insert_tail(bb, 1, NULL, 0);
	return APR_SUCCESS;
}

/* Reads and throws away the request body the handler did not read. */
int ap_discard_request_body(request_rec *r)
{
	apr_bucket_brigade bb;
	int seen_eos = 0;
	apr_status_t rv;
	unsigned long discarded = 0;

	do {
		apr_brigade_cleanup(&bb);
		rv = ap_get_brigade(r->input_filters, &bb, AP_MODE_READBYTES, HUGE_STRING_LEN);
		if (rv != APR_SUCCESS)
			return 400;     /* close the connection */
		for (int i = 0; i < bb.n; i++) {
			if (bb.b[i].is_eos) {
				seen_eos = 1;
				break;
			}
			discarded += bb.b[i].len;
		}
	} while (!seen_eos);
	return discarded ? 0 : 0;
}

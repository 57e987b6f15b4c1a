/*
 * discard_body (HTTPD-52914): util_filter.c
 * The filter chain (server/util_filter.c).
 */
#include "discard_body.h"

apr_status_t ap_get_brigade(ap_filter_t *next, apr_bucket_brigade *bb,
				   ap_input_mode_t mode, apr_off_t readbytes)
{
	return next->func(next, bb, mode, readbytes);
}

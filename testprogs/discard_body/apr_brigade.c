/*
 * discard_body (HTTPD-52914): apr_brigade.c
 * Brigades (APR-util, buckets/apr_brigade.c).
 */
#include "discard_body.h"

void apr_brigade_cleanup(apr_bucket_brigade *bb) { bb->n = 0; }

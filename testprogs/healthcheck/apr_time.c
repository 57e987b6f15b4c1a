/*
 * healthcheck (HTTPD-62318): apr_time.c
 * Time (APR's time/unix/time.c).
 */
#include "healthcheck.h"

apr_time_t apr_time_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (apr_time_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void apr_sleep(apr_time_t us)
{
	struct timespec ts = { (time_t)(us / 1000000), (long)(us % 1000000) * 1000 };
	nanosleep(&ts, NULL);
}

/*
 * ssl_flush_sessions (OpenSSL-8687): ngx_times.c
 * nginx's cached time: updated once per event-loop iteration, read everywhere
 * (ngx_time()); here the iteration's time comes from the traffic the driver plays,
 * and the wall clock is kept for the access log.
 */
#include <sys/time.h>
#include "ssl_local.h"

volatile long ngx_cached_time_sec;
volatile uint64_t ngx_current_msec;
struct timeval ngx_cached_wall;         /* the log's wall clock */
static uint64_t ngx_start_msec;

long ngx_time(void)
{
	return ngx_cached_time_sec;
}

void ngx_time_update(uint64_t msec)
{
	gettimeofday(&ngx_cached_wall, NULL);
	if (ngx_start_msec == 0)
		ngx_start_msec = 1700000000000ULL;  /* the trace's epoch */
	ngx_current_msec = ngx_start_msec + msec;
	ngx_cached_time_sec = (long)(ngx_current_msec / 1000);
}

/*
 * keepalive_spin (Mosquitto-115): time_mosq.c
 * The library's clocks: seconds on the monotonic clock for keepalive and retries,
 * microseconds of wall time for diagnostics.
 */
#include <sys/time.h>
#include "mosquitto_internal.h"

time_t mosquitto_time(void)
{
	struct timespec tp;
	clock_gettime(CLOCK_MONOTONIC, &tp);
	return tp.tv_sec;
}

mosq_ustime_t mosquitto_time_us(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return (mosq_ustime_t)tv.tv_sec * 1000000 + tv.tv_usec;
}

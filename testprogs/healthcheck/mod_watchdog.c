/*
 * healthcheck (HTTPD-62318): mod_watchdog.c
 * The watchdog thread (modules/core/mod_watchdog.c).
 */
#include "healthcheck.h"

void *watchdog_thread(void *arg)
{
	(void)arg;
	while (!proxy_done) {
		hc_watchdog_callback();
		apr_sleep(HEARTBEAT_US);
	}
	return NULL;
}

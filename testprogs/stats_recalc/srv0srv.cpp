/*
 * stats_recalc (MySQL-98546): srv0srv.cpp
 * Server configuration (storage/innobase/srv/srv0srv.cc) and the clock
 * (ut0ut.cc).
 */
#include "stats_recalc.h"

/* innodb_stats_transient_sample_pages */
ulint srv_stats_transient_sample_pages = 8;
/* innodb_stats_persistent (the tables here are created with STATS_PERSISTENT=0) */
bool srv_stats_persistent = false;
/* innodb_io_capacity / the page cleaner's batch */
ulint srv_flush_batch = 2;
/* innodb_stats_method: 0 = nulls_equal */
ulint srv_innodb_stats_method = 0;

int64_t ut_time_us()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

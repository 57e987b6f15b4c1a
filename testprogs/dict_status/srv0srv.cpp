/*
 * dict_status (MDEV-17933): srv0srv.cpp
 * Configuration and the monitor output (storage/innobase/srv/srv0srv.cc).
 */
#include "dict_status.h"

namespace innodb {

/* Configuration: how many tables the dictionary cache holds. */
ulint srv_n_tables = 3000;
ulint srv_n_spin_wait_rounds = 30;
ulint srv_spin_wait_delay = 6;
std::atomic<ulint> srv_n_spin_waits;

/* SHOW ENGINE INNODB STATUS, as srv_printf_innodb_monitor() formats it. */
ulint srv_printf_innodb_monitor(char *buf, size_t cap, ulint dict_size)
{
	size_t n = 0;
	n += (size_t)snprintf(buf + n, cap - n, "\n=====================================\nINNODB MONITOR OUTPUT\n"
			      "=====================================\n");
	for (int i = 0; i < 200 && n < cap; i++)
		n += (size_t)snprintf(buf + n, cap - n, "---TRANSACTION %d, ACTIVE %d sec\nmysql tables in use 1, "
				      "locked 1\n%d lock struct(s), heap size %d, %d row lock(s)\n",
				      42000 + i, i % 7, i % 5 + 1, 1136 + i, i % 11);
	if (n < cap)
		n += (size_t)snprintf(buf + n, cap - n, "Dictionary memory allocated %lu\n", dict_size);
	return n;
}

}  // namespace innodb

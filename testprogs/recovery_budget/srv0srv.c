/*
 * recovery_budget (MDEV-21826): srv0srv.c
 * Server configuration (storage/innobase/srv/srv0srv.cc).
 */
#include "recovery_budget.h"

/* Configuration, as in MariaDB. */
ulint srv_buf_pool_instances = 1;

/*
 * cascade_delete (MDEV-13498): srv0srv.cpp
 * Configuration and counters (storage/innobase/srv/srv0srv.cc).
 */
#include "cascade_delete.h"

namespace innodb {

/* Galera replication (wsrep) is off: this server is not in a cluster. */
bool wsrep_on = false;
unsigned long srv_n_rows_deleted;

}  // namespace innodb

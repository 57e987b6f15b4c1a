/*
 * lru_scan (MDEV-23399): srv0srv.c
 * Configuration and monitor counters (storage/innobase/srv/srv0srv.cc).
 */
#include "lru_scan.h"

/* Configuration: how many pages the workload touches. */
ulint srv_data_pages = 800;
int srv_LRU_flush_size = 1;         /* pages flushed when no block can be freed (10.5.5: 1) */
ulint srv_LRU_scanned_total;        /* monitor counter, like MONITOR_LRU_BATCH_SCANNED */
ulint srv_n_pages_read;
ulint srv_n_pages_flushed;

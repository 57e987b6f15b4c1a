/*
 * killpg_poll (HTTPD-54852): mpm_common.c
 * MPM configuration (server/mpm_common.c).
 */
#include "killpg_poll.h"

/* Configuration: 0 means unlimited (MaxConnectionsPerChild). */
int ap_max_requests_per_child;

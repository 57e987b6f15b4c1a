/*
 * vhost_lookup (HTTPD-64066): vhost.c
 * The virtual hosts (server/vhost.c).
 */
#include "vhost_lookup.h"

server_rec *vhosts;

/*
 * vhost_lookup (HTTPD-64066): mod_authz_core.c
 * mod_authz_core's directives (modules/aaa/mod_authz_core.c).
 */
#include "vhost_lookup.h"

const command_rec authz_cmds[] = {
	C("Require", store_args), C("<RequireAll", store_args), C("<RequireAny", store_args), { NULL, NULL, NULL } };

/*
 * vhost_lookup (HTTPD-64066): mod_headers.c
 * mod_headers's directives (modules/metadata/mod_headers.c).
 */
#include "vhost_lookup.h"

static const char *add_header(cmd_parms *cmd, void *mconfig, const char *args)
{
	(void)mconfig;
	(void)args;
	cmd->server->nheaders++;
	return NULL;
}

const command_rec headers_cmds[] = {
	C("Header", add_header), C("RequestHeader", store_args), { NULL, NULL, NULL } };

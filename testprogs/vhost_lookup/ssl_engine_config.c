/*
 * vhost_lookup (HTTPD-64066): ssl_engine_config.c
 * mod_ssl's directive handlers (modules/ssl/ssl_engine_config.c).
 */
#include "vhost_lookup.h"

const char *set_cert_file(cmd_parms *cmd, void *mconfig, const char *args)
{
	(void)mconfig;
	ssl_load_certificate(args, cmd->server->cert_digest);
	return NULL;
}

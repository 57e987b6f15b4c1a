/*
 * vhost_lookup (HTTPD-64066): mod_rewrite.c
 * mod_rewrite's directives (modules/mappers/mod_rewrite.c).
 */
#include "vhost_lookup.h"

static const char *add_rewrite_rule(cmd_parms *cmd, void *mconfig, const char *args)
{
	unsigned char *conf = mconfig;
	for (const char *p = args; *p; p++)
		conf[(p - args) % MODULE_CONF_SIZE] ^= (unsigned char)*p;
	cmd->server->nrules++;
	return NULL;
}

const command_rec rewrite_cmds[] = {
	C("RewriteEngine", store_args), C("RewriteRule", add_rewrite_rule), C("RewriteCond", store_args),
	C("RewriteBase", store_args), C("RewriteOptions", store_args), C("RewriteMap", store_args), { NULL, NULL, NULL } };

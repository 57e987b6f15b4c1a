/*
 * vhost_lookup (HTTPD-64066): core.c
 * Core directives (server/core.c).
 */
#include "vhost_lookup.h"

static const char *set_server_name(cmd_parms *cmd, void *mconfig, const char *args)
{
	(void)mconfig;
	snprintf(cmd->server->server_name, sizeof cmd->server->server_name, "%s", args);
	return NULL;
}

static const char *set_document_root(cmd_parms *cmd, void *mconfig, const char *args)
{
	(void)mconfig;
	snprintf(cmd->server->document_root, sizeof cmd->server->document_root, "%s", args);
	return NULL;
}

/* <IfModule [!]name>: the section's contents count only if the module is
 * loaded (not loaded, with '!'); otherwise they are skipped unread. */
static const char *start_ifmod(cmd_parms *cmd, void *mconfig, const char *args)
{
	char name[64];
	int negate = args[0] == '!';
	size_t n = strcspn(args + negate, ">");
	if (n == 0 || n >= sizeof name)
		return "<IfModule> takes one module name";
	memcpy(name, args + negate, n);
	name[n] = 0;
	(void)mconfig;
	if ((ap_find_linked_module(name) != NULL) != negate)
		return NULL;	/* read on: the contents belong to the enclosing section */
	return ap_soak_end_container(cmd);
}

/* The sections come first in httpd's table, as here. */
const command_rec core_cmds[] = {
	C("<Directory", store_args), C("<IfModule", start_ifmod),
	C("ServerName", set_server_name), C("ServerAlias", store_args), C("DocumentRoot", set_document_root),
	C("ErrorLog", store_args), C("LogLevel", store_args), C("Options", store_args),
	C("AllowOverride", store_args), C("ServerAdmin", store_args), C("KeepAlive", store_args),
	C("Timeout", store_args), C("Listen", store_args), C("LoadModule", store_args),
	C("Include", store_args), C("User", store_args), C("Group", store_args),
	C("UseCanonicalName", store_args), { NULL, NULL, NULL } };

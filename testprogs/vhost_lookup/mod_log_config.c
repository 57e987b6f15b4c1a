/*
 * vhost_lookup (HTTPD-64066): mod_log_config.c
 * mod_log_config's directives (modules/loggers/mod_log_config.c).
 */
#include "vhost_lookup.h"

const command_rec log_cmds[] = {
	C("CustomLog", store_args), C("LogFormat", store_args), C("TransferLog", store_args),
	C("BufferedLogs", store_args), { NULL, NULL, NULL } };

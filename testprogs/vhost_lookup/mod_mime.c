/*
 * vhost_lookup (HTTPD-64066): mod_mime.c
 * mod_mime's directives (modules/http/mod_mime.c).
 */
#include "vhost_lookup.h"

const command_rec mime_cmds[] = {
	C("AddType", store_args), C("AddEncoding", store_args), C("AddCharset", store_args),
	C("AddLanguage", store_args), C("AddHandler", store_args), C("TypesConfig", store_args),
	C("DefaultLanguage", store_args), C("RemoveType", store_args), C("RemoveHandler", store_args),
	{ NULL, NULL, NULL } };

/*
 * vhost_lookup (HTTPD-64066): modules.c
 * The loaded modules (modules.c, generated at build time).
 */
#include "vhost_lookup.h"

module modules[N_MODULES];

/* The other loaded modules, each with its own directives. */
const char *const other_module_cmds[][8] = {
	{ "proxy_module", "ProxyPass", "ProxyPassReverse", "ProxyPreserveHost", "ProxyRequests", "ProxyTimeout", "ProxyVia", NULL },
	{ "cache_module", "CacheEnable", "CacheDisable", "CacheDefaultExpire", "CacheIgnoreHeaders", "CacheLock", NULL },
	{ "deflate_module", "DeflateCompressionLevel", "DeflateBufferSize", "DeflateMemLevel", "DeflateWindowSize", NULL },
	{ "expires_module", "ExpiresActive", "ExpiresByType", "ExpiresDefault", NULL },
	{ "alias_module", "Alias", "AliasMatch", "Redirect", "RedirectMatch", "ScriptAlias", "RedirectPermanent", NULL },
	{ "dav_module", "Dav", "DavDepthInfinity", "DavMinTimeout", "DavLockDB", NULL },
	{ "lua_module", "LuaHookFixups", "LuaHookTranslateName", "LuaPackagePath", "LuaScope", "LuaRoot", NULL },
	{ "session_module", "Session", "SessionMaxAge", "SessionEnv", "SessionHeader", "SessionInclude", NULL },
	{ "auth_basic_module", "AuthType", "AuthName", "AuthBasicProvider", "AuthBasicAuthoritative", NULL },
	{ "authn_file_module", "AuthUserFile", "AuthGroupFile", NULL },
	{ "ldap_module", "AuthLDAPURL", "AuthLDAPBindDN", "AuthLDAPBindPassword", "LDAPTrustedGlobalCert", NULL },
	{ "status_module", "ExtendedStatus", "SeeRequestTail", NULL },
	{ "env_module", "SetEnv", "UnsetEnv", "PassEnv", NULL },
	{ "setenvif_module", "SetEnvIf", "SetEnvIfNoCase", "BrowserMatch", "BrowserMatchNoCase", NULL },
	{ "remoteip_module", "RemoteIPHeader", "RemoteIPTrustedProxy", "RemoteIPInternalProxy", NULL },
	{ "reqtimeout_module", "RequestReadTimeout", NULL },
	{ "filter_module", "FilterDeclare", "FilterProvider", "FilterChain", "FilterProtocol", "FilterTrace", NULL },
	{ "dir_module", "DirectoryIndex", "DirectorySlash", "FallbackResource", "DirectoryCheckHandler", NULL },
	{ "negotiation_module", "CacheNegotiatedDocs", "ForceLanguagePriority", "LanguagePriority", NULL },
	{ "autoindex_module", "IndexOptions", "IndexIgnore", "IndexOrderDefault", "AddIcon", "AddDescription", "HeaderName", NULL },
	{ "mpm_event_module", "StartServers", "MinSpareThreads", "MaxSpareThreads", "ThreadsPerChild", "MaxRequestWorkers", "ServerLimit", NULL },
	{ "http2_module", "Protocols", "H2Direct", "H2Push", "H2MaxSessionStreams", "H2StreamMaxMemSize", NULL },
	{ "security2_module", "SecRuleEngine", "SecRequestBodyAccess", "SecResponseBodyAccess", "SecRule", "SecAction", "SecDefaultAction", NULL },
	{ "socache_shmcb_module", NULL },
	{ "unixd_module", "ChrootDir", "Suexec", NULL },
	{ "access_compat_module", "Order", "Allow", "Deny", "Satisfy", NULL },
	{ "userdir_module", "UserDir", NULL },
	{ "include_module", "SSILegacyExprParser", "XBitHack", "SSIErrorMsg", "SSITimeFormat", NULL },
	{ "suexec_module", "SuexecUserGroup", NULL },
};
command_rec other_cmds[N_MODULES][10];
char other_names[N_MODULES][10][48];

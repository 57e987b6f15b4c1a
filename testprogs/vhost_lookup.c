//go:build ignore

/*
 * vhost_lookup.c - HTTPD-64066: slow start-up and reload of Apache httpd when many
 * virtual hosts are configured (Table 3.1 b9).
 *
 * The real bug: every directive of every <VirtualHost> section is looked up by
 * name with ap_find_command_in_modules(), which walks the list of loaded modules
 * and, in each, the module's command table, comparing names with ap_cstr_casecmp().
 * Core directives (ServerName, DocumentRoot, ...) sit at the end of the module list,
 * so each of them costs a comparison with nearly every directive name httpd knows.
 * With thousands of vhosts the accumulated cost dominates start-up. gprof ranked
 * ap_find_command_in_modules 11th, below string functions (ap_cstr_casecmp first).
 *
 * Here: the server reads a generated httpd.conf (a global section with LoadModule,
 * AddType and friends, then NUM vhosts with SSL certificates, rewrite rules and
 * <Directory> blocks), tokenizes every line, looks up every directive, runs its
 * handler (loading a vhost's certificate hashes it with SHA-256) and merges each
 * vhost's per-module configuration, at start-up and at each of 5 graceful reloads.
 * normal: 1000 vhosts; buggy: 5000 vhosts.
 *
 * Root cause: ap_find_command_in_modules(), the module walk (ROOT CAUSE). Key
 * variables: modp and cmd_name (ap_find_command_in_modules), ap_num_vhosts
 * (#global). Pattern: scalability (the function's variables look as in a normal
 * run; it runs far more often on more data).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A function that lives in another compilation unit of httpd or APR (no LTO). */
#define EXTERN_FN __attribute__((noinline))

#define MAX_STRING_LEN 8192
#define N_MODULES 64
#define N_RELOADS 5
#define MODULE_CONF_SIZE 64

typedef struct cmd_parms cmd_parms;
typedef const char *(*cmd_func)(cmd_parms *parms, void *mconfig, const char *args);

typedef struct command_rec {
	const char *name;
	cmd_func func;
	const char *errmsg;
} command_rec;

typedef struct module {
	const char *name;
	const command_rec *cmds;
	struct module *next;
	int module_index;
} module;

typedef struct server_rec {
	char server_name[128];
	char document_root[256];
	unsigned char cert_digest[32];
	unsigned nrules, ndirs, nheaders;
	unsigned char module_config[N_MODULES][MODULE_CONF_SIZE];
	struct server_rec *next;
} server_rec;

struct cmd_parms {
	server_rec *server;
	const command_rec *cmd;
	module *mod;
	int in_vhost;
};

/* Configuration size. */
int ap_num_vhosts = 1000;
unsigned long ap_directives_processed;

static module modules[N_MODULES];
static module *ap_top_module;
static server_rec main_server;
static server_rec *vhosts;

/* ---------------------------------------------------------------- string utilities (util.c) */

static const unsigned char ucharmap[256] = {
#define R(i) ((i) >= 'A' && (i) <= 'Z' ? (i) + 32 : (i))
#define R8(i) R(i), R(i + 1), R(i + 2), R(i + 3), R(i + 4), R(i + 5), R(i + 6), R(i + 7)
#define R64(i) R8(i), R8(i + 8), R8(i + 16), R8(i + 24), R8(i + 32), R8(i + 40), R8(i + 48), R8(i + 56)
	R64(0), R64(64), R64(128), R64(192)
#undef R64
#undef R8
#undef R
};

/* APR's locale-independent case-insensitive comparison. */
EXTERN_FN int ap_cstr_casecmp(const char *s1, const char *s2)
{
	const unsigned char *u1 = (const unsigned char *)s1, *u2 = (const unsigned char *)s2;
	for (;;) {
		int c1 = ucharmap[*u1], c2 = ucharmap[*u2];
		if (c1 != c2 || !c1)
			return c1 - c2;
		u1++;
		u2++;
	}
}

/* Copies the next configuration word (quotes allowed) and advances *line. */
EXTERN_FN char *ap_getword_conf(char *dst, size_t dstsz, const char **line)
{
	const char *p = *line;
	while (*p == ' ' || *p == '\t')
		p++;
	size_t n = 0;
	if (*p == '"' || *p == '\'') {
		char q = *p++;
		while (*p && *p != q) {
			if (*p == '\\' && p[1])
				p++;
			if (n + 1 < dstsz)
				dst[n++] = *p;
			p++;
		}
		if (*p)
			p++;
	} else {
		while (*p && *p != ' ' && *p != '\t') {
			if (n + 1 < dstsz)
				dst[n++] = *p;
			p++;
		}
	}
	dst[n] = 0;
	while (*p == ' ' || *p == '\t')
		p++;
	*line = p;
	return dst;
}

/* Reads one logical line, strips leading and trailing white space. */
EXTERN_FN int ap_cfg_getline(char *buf, size_t bufsz, const char **cfg)
{
	const char *p = *cfg;
	if (!*p)
		return -1;
	while (*p == ' ' || *p == '\t')
		p++;
	size_t n = 0;
	while (*p && *p != '\n') {
		if (n + 1 < bufsz)
			buf[n++] = *p;
		p++;
	}
	if (*p == '\n')
		p++;
	while (n && (buf[n - 1] == ' ' || buf[n - 1] == '\t' || buf[n - 1] == '\r'))
		n--;
	buf[n] = 0;
	*cfg = p;
	return 0;
}

/* ---------------------------------------------------------------- SHA-256 (mod_ssl's certificate digest) */

static const uint32_t K256[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

EXTERN_FN void sha256_block_data_order(uint32_t h[8], const unsigned char *p, size_t nblocks)
{
	for (; nblocks--; p += 64) {
		uint32_t w[64];
		for (int i = 0; i < 16; i++)
			w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
		for (int i = 16; i < 64; i++) {
			uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
			uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
			w[i] = w[i - 16] + s0 + w[i - 7] + s1;
		}
		uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
		for (int i = 0; i < 64; i++) {
			uint32_t t1 = hh + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K256[i] + w[i];
			uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
			hh = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
		}
		h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
	}
}

/* Loads a certificate: reads the PEM file (generated from the path here), decodes
 * the DER and computes its SHA-256 fingerprint. */
static void ssl_load_certificate(const char *path, unsigned char digest[32])
{
	unsigned char der[4096];
	uint64_t s = 0xcbf29ce484222325ull;
	for (const char *p = path; *p; p++)
		s = (s ^ (unsigned char)*p) * 0x100000001b3ull;
	for (size_t i = 0; i < sizeof der; i++) {
		s ^= s << 13; s ^= s >> 7; s ^= s << 17;
		der[i] = (unsigned char)s;
	}
	uint32_t h[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	/* the chain: leaf and intermediates, each signed over the others */
	sha256_block_data_order(h, der, sizeof der / 64);
	for (int i = 0; i < 8; i++) {
		digest[4 * i] = (unsigned char)(h[i] >> 24);
		digest[4 * i + 1] = (unsigned char)(h[i] >> 16);
		digest[4 * i + 2] = (unsigned char)(h[i] >> 8);
		digest[4 * i + 3] = (unsigned char)h[i];
	}
}

/* ---------------------------------------------------------------- directive handlers */

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

static const char *set_cert_file(cmd_parms *cmd, void *mconfig, const char *args)
{
	(void)mconfig;
	ssl_load_certificate(args, cmd->server->cert_digest);
	return NULL;
}

static const char *add_rewrite_rule(cmd_parms *cmd, void *mconfig, const char *args)
{
	unsigned char *conf = mconfig;
	for (const char *p = args; *p; p++)
		conf[(p - args) % MODULE_CONF_SIZE] ^= (unsigned char)*p;
	cmd->server->nrules++;
	return NULL;
}

static const char *add_header(cmd_parms *cmd, void *mconfig, const char *args)
{
	(void)mconfig;
	(void)args;
	cmd->server->nheaders++;
	return NULL;
}

/* Any other directive: the module stores its arguments in its configuration. */
static const char *store_args(cmd_parms *cmd, void *mconfig, const char *args)
{
	unsigned char *conf = mconfig;
	uint32_t h = 2166136261u;
	for (const char *p = args; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	conf[h % MODULE_CONF_SIZE]++;
	(void)cmd;
	return NULL;
}

/* ---------------------------------------------------------------- modules */

#define C(n, f) { n, f, NULL }
static const command_rec core_cmds[] = {
	C("ServerName", set_server_name), C("ServerAlias", store_args), C("DocumentRoot", set_document_root),
	C("ErrorLog", store_args), C("LogLevel", store_args), C("Options", store_args),
	C("AllowOverride", store_args), C("ServerAdmin", store_args), C("KeepAlive", store_args),
	C("Timeout", store_args), C("Listen", store_args), C("LoadModule", store_args),
	C("Include", store_args), C("User", store_args), C("Group", store_args), { NULL, NULL, NULL } };
static const command_rec ssl_cmds[] = {
	C("SSLEngine", store_args), C("SSLCertificateFile", set_cert_file), C("SSLCertificateKeyFile", store_args),
	C("SSLProtocol", store_args), C("SSLCipherSuite", store_args), C("SSLHonorCipherOrder", store_args),
	C("SSLSessionCache", store_args), C("SSLStaplingCache", store_args), C("SSLUseStapling", store_args),
	{ NULL, NULL, NULL } };
static const command_rec rewrite_cmds[] = {
	C("RewriteEngine", store_args), C("RewriteRule", add_rewrite_rule), C("RewriteCond", store_args),
	C("RewriteBase", store_args), C("RewriteOptions", store_args), C("RewriteMap", store_args), { NULL, NULL, NULL } };
static const command_rec log_cmds[] = {
	C("CustomLog", store_args), C("LogFormat", store_args), C("TransferLog", store_args),
	C("BufferedLogs", store_args), { NULL, NULL, NULL } };
static const command_rec headers_cmds[] = {
	C("Header", add_header), C("RequestHeader", store_args), { NULL, NULL, NULL } };
static const command_rec authz_cmds[] = {
	C("Require", store_args), C("<RequireAll", store_args), C("<RequireAny", store_args), { NULL, NULL, NULL } };
static const command_rec mime_cmds[] = {
	C("AddType", store_args), C("AddEncoding", store_args), C("AddCharset", store_args),
	C("AddLanguage", store_args), C("AddHandler", store_args), C("TypesConfig", store_args),
	C("DefaultLanguage", store_args), C("RemoveType", store_args), { NULL, NULL, NULL } };
#undef C

/* The other loaded modules, each with its own directives. */
static const char *const other_module_cmds[][8] = {
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
};
static command_rec other_cmds[N_MODULES][10];
static char other_names[N_MODULES][10][48];

static void ap_setup_prelinked_modules(void)
{
	static const struct { const char *name; const command_rec *cmds; } real[] = {
		{ "core_module", core_cmds }, { "mime_module", mime_cmds }, { "authz_core_module", authz_cmds },
		{ "log_config_module", log_cmds }, { "headers_module", headers_cmds },
		{ "rewrite_module", rewrite_cmds }, { "ssl_module", ssl_cmds },
	};
	int nreal = (int)(sizeof real / sizeof real[0]);
	int nother = (int)(sizeof other_module_cmds / sizeof other_module_cmds[0]);
	for (int i = 0; i < N_MODULES; i++) {
		module *m = &modules[i];
		m->module_index = i;
		if (i < nreal) {
			m->name = real[i].name;
			m->cmds = real[i].cmds;
			continue;
		}
		int k = 0;
		if (i - nreal < nother) {
			const char *const *o = other_module_cmds[i - nreal];
			m->name = o[0];
			for (; o[k + 1]; k++)
				other_cmds[i][k] = (command_rec){ o[k + 1], store_args, NULL };
		} else {
			/* third-party modules */
			snprintf(other_names[i][9], sizeof other_names[i][9], "mod_vendor%d", i);
			m->name = other_names[i][9];
			for (; k < 6; k++) {
				snprintf(other_names[i][k], sizeof other_names[i][k], "Vendor%dOption%c", i, 'A' + k);
				other_cmds[i][k] = (command_rec){ other_names[i][k], store_args, NULL };
			}
		}
		other_cmds[i][k] = (command_rec){ NULL, NULL, NULL };
		m->cmds = other_cmds[i];
	}
	/* ap_add_module() pushes each loaded module on the front: core ends up last */
	ap_top_module = NULL;
	for (int i = 0; i < N_MODULES; i++) {
		modules[i].next = ap_top_module;
		ap_top_module = &modules[i];
	}
}

static const command_rec *ap_find_command(const char *name, const command_rec *cmds)
{
	while (cmds->name) {
		if (!ap_cstr_casecmp(name, cmds->name))
			return cmds;
		++cmds;
	}
	return NULL;
}

__attribute__((noinline)) static const command_rec *ap_find_command_in_modules(const char *cmd_name, module **mod)
{
	const command_rec *cmdp;
	module *modp;

	/* ROOT CAUSE: a linear walk over every module's command table, per directive */
	for (modp = *mod; modp; modp = modp->next) {
		if (modp->cmds && (cmdp = ap_find_command(cmd_name, modp->cmds))) {
			*mod = modp;
			return cmdp;
		}
	}
	return NULL;
}

/* ---------------------------------------------------------------- config processing */

static void merge_server_configs(server_rec *base, server_rec *virt)
{
	for (int m = 0; m < N_MODULES; m++) {
		unsigned char merged[MODULE_CONF_SIZE];
		for (int i = 0; i < MODULE_CONF_SIZE; i++)
			merged[i] = virt->module_config[m][i] ? virt->module_config[m][i] : base->module_config[m][i];
		memcpy(virt->module_config[m], merged, MODULE_CONF_SIZE);
	}
}

static int execute_now(const char *cmd_line, server_rec *s, int in_vhost)
{
	char cmd_name[MAX_STRING_LEN];
	const char *args = cmd_line;
	ap_getword_conf(cmd_name, sizeof cmd_name, &args);
	if (!cmd_name[0] || cmd_name[0] == '#')
		return 0;
	module *mod = ap_top_module;
	const command_rec *cmd = ap_find_command_in_modules(cmd_name, &mod);
	if (!cmd) {
		fprintf(stderr, "Invalid command '%s', perhaps misspelled or defined by a module not included\n", cmd_name);
		return -1;
	}
	cmd_parms parms = { s, cmd, mod, in_vhost };
	const char *err = cmd->func(&parms, s->module_config[mod->module_index], args);
	ap_directives_processed++;
	return err ? -1 : 0;
}

static char *generate_config(int nvhosts, size_t *len)
{
	size_t cap = 200000 + (size_t)nvhosts * 2048, n = 0;
	char *buf = malloc(cap);
	if (!buf) { perror("malloc"); exit(1); }
#define OUT(...) (n += (size_t)snprintf(buf + n, cap - n, __VA_ARGS__))
	OUT("ServerName www.example.com\nServerAdmin root@example.com\nListen 80\nListen 443\n"
	    "User www-data\nGroup www-data\nTimeout 60\nKeepAlive On\nLogLevel warn\n");
	for (int i = 0; i < N_MODULES; i++)
		OUT("LoadModule %s modules/mod_%d.so\n", modules[i].name, i);
	static const char *ext[] = { "html", "css", "js", "png", "jpg", "svg", "json", "xml", "txt", "pdf" };
	for (int i = 0; i < 600; i++)
		OUT("AddType application/x-type-%d .%s%d\n", i, ext[i % 10], i);
	for (int i = 0; i < 120; i++)
		OUT("AddLanguage lang-%d .l%d\nAddCharset charset-%d .c%d\n", i, i, i, i);
	OUT("SSLProtocol all -SSLv3\nSSLCipherSuite HIGH:!aNULL\nSSLSessionCache shmcb:logs/ssl_scache(512000)\n");
	for (int v = 0; v < nvhosts; v++) {
		OUT("<VirtualHost *:443>\n"
		    "    ServerName site%d.example.com\n"
		    "    ServerAlias www.site%d.example.com static.site%d.example.com\n"
		    "    ServerAdmin webmaster@site%d.example.com\n"
		    "    DocumentRoot /var/www/site%d/htdocs\n"
		    "    ErrorLog logs/site%d-error.log\n"
		    "    CustomLog logs/site%d-access.log combined\n"
		    "    LogLevel warn\n"
		    "    SSLEngine on\n"
		    "    SSLCertificateFile /etc/ssl/certs/site%d.pem\n"
		    "    SSLCertificateKeyFile /etc/ssl/private/site%d.key\n"
		    "    RewriteEngine On\n"
		    "    RewriteRule ^/old/(.*)$ /new/$1 [R=301,L]\n"
		    "    RewriteRule ^/api/v1/(.*)$ /api/v2/$1 [PT]\n"
		    "    Header set X-Site \"site%d\"\n"
		    "    Header always set Strict-Transport-Security \"max-age=63072000\"\n"
		    "    Protocols h2 http/1.1\n"
		    "    ProxyPreserveHost On\n"
		    "    ProxyPass /app http://127.0.0.1:%d/app\n"
		    "    ProxyPassReverse /app http://127.0.0.1:%d/app\n"
		    "    Alias /static /var/www/site%d/static\n"
		    "    Redirect permanent /login https://site%d.example.com/account/login\n"
		    "    ExpiresActive On\n"
		    "    ExpiresByType image/png \"access plus 1 month\"\n"
		    "    DirectoryIndex index.html index.php\n"
		    "    SetEnvIf User-Agent \"bot\" is_bot\n"
		    "    RemoteIPHeader X-Forwarded-For\n"
		    "    SecRuleEngine On\n"
		    "    Options FollowSymLinks\n"
		    "    AllowOverride None\n"
		    "    Require all granted\n"
		    "</VirtualHost>\n", v, v, v, v, v, v, v, v, v, v, 8000 + v % 1000, 8000 + v % 1000, v, v);
	}
#undef OUT
	*len = n;
	return buf;
}

static int ap_process_config(const char *cfg)
{
	char line[MAX_STRING_LEN];
	server_rec *s = &main_server, *last = NULL;
	int in_vhost = 0, nv = 0;
	while (ap_cfg_getline(line, sizeof line, &cfg) == 0) {
		if (strncmp(line, "<VirtualHost", 12) == 0) {
			s = &vhosts[nv++];
			in_vhost = 1;
			continue;
		}
		if (strcmp(line, "</VirtualHost>") == 0) {
			merge_server_configs(&main_server, s);
			if (last) last->next = s; else main_server.next = s;
			last = s;
			s = &main_server;
			in_vhost = 0;
			continue;
		}
		if (execute_now(line, s, in_vhost) != 0)
			return -1;
	}
	return nv;
}

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  Reads a generated httpd.conf (HTTPD-64066). normal: 1000 vhosts;\n"
		"  buggy: 5000 vhosts.\n", argv0);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return usage(argv[0]);
	if (strcmp(argv[1], "normal") == 0)
		ap_num_vhosts = 1000;
	else if (strcmp(argv[1], "buggy") == 0)
		ap_num_vhosts = 5000;
	else
		return usage(argv[0]);

	ap_setup_prelinked_modules();
	vhosts = calloc((size_t)ap_num_vhosts, sizeof *vhosts);
	if (!vhosts) { perror("calloc"); return 1; }
	/* start-up reads the configuration twice (httpd's "restart" pass), then the
	 * administrator does graceful reloads */
	uint64_t sum = 0;
	int nv = 0;
	for (int pass = 0; pass < 2 + N_RELOADS; pass++) {
		size_t len;
		char *cfg = generate_config(ap_num_vhosts, &len);
		memset(&main_server, 0, sizeof main_server);
		memset(vhosts, 0, sizeof *vhosts * (size_t)ap_num_vhosts);
		nv = ap_process_config(cfg);
		free(cfg);
		if (nv < 0)
			return 1;
		for (server_rec *s = main_server.next; s; s = s->next) {
			for (int i = 0; i < 32; i++)
				sum = sum * 31 + s->cert_digest[i];
			sum = sum * 31 + s->nrules + s->nheaders + strlen(s->server_name) + strlen(s->document_root);
			for (int m = 0; m < N_MODULES; m++)
				sum = sum * 31 + s->module_config[m][m % MODULE_CONF_SIZE];
		}
	}
	printf("vhost_lookup %s: vhosts=%d directives=%lu checksum=%016llx\n", argv[1], nv,
	       ap_directives_processed, (unsigned long long)sum);
	return 0;
}

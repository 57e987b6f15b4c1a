/*
 * vhost_lookup - HTTPD-64066: slow start-up and reload of Apache httpd when many
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
 *
 * Files, as in Apache httpd 2.4 and OpenSSL: config.c (directive look-up and
 * config processing: the root cause), util.c (string and config-file
 * utilities), core.c (core directives), modules.c (the loaded modules), vhost.c
 * (the virtual hosts), mod_ssl.c, ssl_engine_config.c, ssl_engine_init.c
 * (modules/ssl), mod_rewrite.c, mod_headers.c, mod_log_config.c,
 * mod_authz_core.c, mod_mime.c (the other modules' directives), sha256.c
 * (OpenSSL's SHA-256), vhost_lookup.h (shared declarations); main.c (this
 * driver: writes httpd.conf, start-up and reloads).
 */
#include "vhost_lookup.h"

/* Configuration size. */
int ap_num_vhosts = 1000;

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

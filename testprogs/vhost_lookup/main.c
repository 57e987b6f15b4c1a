/*
 * vhost_lookup - HTTPD-64066: slow start-up and reload of Apache httpd when many
 * virtual hosts are configured (Table 3.1 b9).
 *
 * The real bug (https://bz.apache.org/bugzilla/show_bug.cgi?id=64066, httpd 2.4.41,
 * January 2020): with 5k vhosts start-up and graceful restart take about 45 s. Every
 * directive is looked up by name with ap_find_command_in_modules(), which walks the
 * list of loaded modules and, in each, the module's command table, comparing names
 * with ap_cstr_casecmp(). Core directives sit in the last module of the list, so each
 * costs a comparison with nearly every directive name httpd knows. The report: the
 * look-up "was most of the startup time"; a hash of the directives "reduces the
 * startup time by at least an order of magnitude" for configurations with many
 * directives. gprof ranked ap_find_command_in_modules 11th, below string functions
 * (ap_cstr_casecmp first; the vProf thesis).
 *
 * The workload, from the report. Its analysis and patch are cPanel's (the same patch,
 * same words, is in cPanel's httpd, ea-apache2, 2019-12-12). Its companion of the
 * next day says what those configurations hold: ap_find_linked_module() "was not
 * performing well when there a lot of IfModule statements in httpd.conf"; hashing it
 * cut start-up from 3 s to 1.5 s on a large configuration. So the configuration is a
 * hosting panel's generated httpd.conf, shaped as cPanel's vhost templates
 * (ea-apache2-config, vhost.default and ssl_vhost.default) write it: each site has a
 * plain vhost on :80 and an SSL vhost on :443, only the latter with a certificate;
 * most lines are <IfModule> sections, core directives (each a walk of every module's
 * table), some for modules that are not loaded, whose contents are skipped unread.
 * An earlier version gave every vhost a certificate and 30 directives of which 8 were
 * core's: certificate loading then took 45% of the slow run and the look-up 39%
 * (perf), the look-up carried 40% of the slow run's extra time and ranked 4th-6th
 * (plain profile 4th) in all 18 program-trials of the six recording sets: not the
 * report's bug. Now (perf, slow run) the look-up takes 45%, certificate loading 29%,
 * the merge of each vhost's configuration 8%, <IfModule>'s module walk 6%; the
 * look-up carries 46% of the extra time: the largest part, short of the report's
 * "most" (nine tenths, by the fix's gain). Left as they were, for the report says
 * nothing of them: the numbers of vhosts, the 64 modules and their command tables,
 * what a certificate costs to load.
 *
 * Here: the server reads a generated httpd.conf (a global section with LoadModule,
 * AddType and friends, then NUM vhosts as above), tokenizes every line, looks up every
 * directive, runs its handler (<IfModule> looks the module up by name; loading a
 * certificate hashes it with SHA-256) and merges each vhost's per-module
 * configuration, at start-up and at each of 5 graceful reloads.
 * normal: 1000 vhosts (500 sites); buggy: 5000 vhosts (2500 sites).
 *
 * Root cause: ap_find_command_in_modules(), the module walk (ROOT CAUSE). Key
 * variables: modp and cmd_name (ap_find_command_in_modules), ap_num_vhosts
 * (#global). Pattern: scalability (the function's variables look as in a normal
 * run; it runs far more often on more data).
 *
 * Files, as in Apache httpd 2.4 and OpenSSL: config.c (directive and module
 * look-up, config processing: the root cause), util.c (string and config-file
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
	size_t cap = 200000 + (size_t)nvhosts * 3072, n = 0;
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
	/* one site per two vhosts: a plain one on :80 and an SSL one on :443 with
	 * the site's certificate (the shape of a hosting panel's generated vhosts,
	 * see the header) */
	for (int v = 0; v < nvhosts; v++) {
		int site = v / 2, ssl = v % 2;
		if (cap - n < 4096) { fprintf(stderr, "configuration larger than its buffer\n"); exit(1); }
		OUT("<VirtualHost 203.0.113.%d:%d>\n"
		    "  ServerName site%d.example.com\n", site % 250 + 1, ssl ? 443 : 80, site);
		if (!ssl)
			OUT("  <IfModule rewrite_module>\n"
			    "    RewriteEngine On\n"
			    "    RewriteCond %%{HTTPS} !=on\n"
			    "    RewriteRule ^ https://%%{HTTP_HOST}%%{REQUEST_URI} [L,R=301]\n"
			    "  </IfModule>\n");
		OUT("  ServerAlias www.site%d.example.com mail.site%d.example.com\n"
		    "  DocumentRoot /home/user%d/public_html\n"
		    "  ServerAdmin webmaster@site%d.example.com\n"
		    "  UseCanonicalName Off\n"
		    "  Options -ExecCGI -Includes\n"
		    "  RemoveHandler cgi-script .cgi .pl .plx .ppl .perl\n"
		    "  CustomLog logs/domlogs/site%d.example.com%s combined\n"
		    "  <IfModule log_config_module>\n"
		    "    <IfModule logio_module>\n"
		    "      CustomLog logs/domlogs/site%d.example.com-bytes_log bytes\n"
		    "    </IfModule>\n"
		    "  </IfModule>\n"
		    "  <IfModule userdir_module>\n"
		    "    <IfModule !mpm_itk_module>\n"
		    "      <IfModule !ruid2_module>\n"
		    "        UserDir enabled user%d\n"
		    "      </IfModule>\n"
		    "    </IfModule>\n"
		    "  </IfModule>\n"
		    "  <IfModule include_module>\n"
		    "    <Directory \"/home/user%d/public_html\">\n"
		    "      SSILegacyExprParser On\n"
		    "    </Directory>\n"
		    "  </IfModule>\n"
		    "  <IfModule suphp_module>\n"
		    "    suPHP_UserGroup user%d user%d\n"
		    "  </IfModule>\n"
		    "  <IfModule suexec_module>\n"
		    "    <IfModule !ruid2_module>\n"
		    "      SuexecUserGroup user%d user%d\n"
		    "    </IfModule>\n"
		    "  </IfModule>\n"
		    "  <IfModule ruid2_module>\n"
		    "    RMode config\n"
		    "    RUidGid user%d user%d\n"
		    "  </IfModule>\n"
		    "  <IfModule mpm_itk_module>\n"
		    "    AssignUserID user%d user%d\n"
		    "  </IfModule>\n"
		    "  <IfModule alias_module>\n"
		    "    ScriptAlias /cgi-bin/ /home/user%d/public_html/cgi-bin/\n"
		    "  </IfModule>\n",
		    site, site, site, site, site, ssl ? "-ssl_log" : "", site, site, site,
		    site, site, site, site, site, site, site, site, site);
		if (ssl)
			OUT("  <IfModule ssl_module>\n"
			    "    SSLEngine on\n"
			    "    SSLCertificateFile /var/cpanel/ssl/installed/certs/site%d.crt\n"
			    "    SSLCertificateKeyFile /var/cpanel/ssl/installed/keys/site%d.key\n"
			    "    SSLUseStapling off\n"
			    "    SetEnvIf User-Agent \".*MSIE.*\" nokeepalive ssl-unclean-shutdown\n"
			    "    <Directory \"/home/user%d/public_html/cgi-bin\">\n"
			    "      SSLOptions +StdEnvVars\n"
			    "    </Directory>\n"
			    "  </IfModule>\n", site, site, site);
		OUT("</VirtualHost>\n");
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

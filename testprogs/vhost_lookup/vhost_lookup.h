/*
 * vhost_lookup (HTTPD-64066): vhost_lookup.h - the declarations the files of this program share
 * (httpd.h, http_config.h ... in httpd). The program is described in main.c.
 */
#ifndef VHOST_LOOKUP_H
#define VHOST_LOOKUP_H

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
	const char **config_file;	/* the reader's position: a section handler may read on */
};

/* A command table entry (the AP_INIT_* macros of http_config.h) */
#define C(n, f) { n, f, NULL }

/* main.c: the configuration's size */
extern int ap_num_vhosts;

/* config.c */
extern unsigned long ap_directives_processed;
extern server_rec main_server;
const char *store_args(cmd_parms *cmd, void *mconfig, const char *args);
void ap_setup_prelinked_modules(void);
int ap_process_config(const char *cfg);
EXTERN_FN module *ap_find_linked_module(const char *name);
const char *ap_soak_end_container(cmd_parms *cmd);

/* vhost.c */
extern server_rec *vhosts;

/* modules.c: the loaded modules */
extern module modules[N_MODULES];
extern const char *const other_module_cmds[29][8];
extern command_rec other_cmds[N_MODULES][10];
extern char other_names[N_MODULES][10][48];

/* the modules' command tables: core.c, mod_*.c */
extern const command_rec core_cmds[], ssl_cmds[], rewrite_cmds[], log_cmds[],
	headers_cmds[], authz_cmds[], mime_cmds[];

/* util.c */
EXTERN_FN int ap_cstr_casecmp(const char *s1, const char *s2);
EXTERN_FN char *ap_getword_conf(char *dst, size_t dstsz, const char **line);
EXTERN_FN int ap_cfg_getline(char *buf, size_t bufsz, const char **cfg);

/* sha256.c, ssl_engine_init.c, ssl_engine_config.c */
EXTERN_FN void sha256_block_data_order(uint32_t h[8], const unsigned char *p, size_t nblocks);
void ssl_load_certificate(const char *path, unsigned char digest[32]);
const char *set_cert_file(cmd_parms *cmd, void *mconfig, const char *args);

#endif

/*
 * vhost_lookup (HTTPD-64066): config.c
 * Directive look-up and configuration processing (server/config.c), with the
 * root cause ap_find_command_in_modules().
 */
#include "vhost_lookup.h"

unsigned long ap_directives_processed;

static module *ap_top_module;
server_rec main_server;

/* Any other directive: the module stores its arguments in its configuration
 * (like ap_set_string_slot()). */
const char *store_args(cmd_parms *cmd, void *mconfig, const char *args)
{
	unsigned char *conf = mconfig;
	uint32_t h = 2166136261u;
	for (const char *p = args; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	conf[h % MODULE_CONF_SIZE]++;
	(void)cmd;
	return NULL;
}

void ap_setup_prelinked_modules(void)
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

static void merge_server_configs(server_rec *base, server_rec *virt)
{
	for (int m = 0; m < N_MODULES; m++) {
		unsigned char merged[MODULE_CONF_SIZE];
		for (int i = 0; i < MODULE_CONF_SIZE; i++)
			merged[i] = virt->module_config[m][i] ? virt->module_config[m][i] : base->module_config[m][i];
		memcpy(virt->module_config[m], merged, MODULE_CONF_SIZE);
	}
}

static int execute_now(const char *cmd_line, server_rec *s, int in_vhost, const char **cfg)
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
	cmd_parms parms = { s, cmd, mod, in_vhost, cfg };
	const char *err = cmd->func(&parms, s->module_config[mod->module_index], args);
	ap_directives_processed++;
	if (err)
		fprintf(stderr, "%s: %s\n", cmd_name, err);
	return err ? -1 : 0;
}

int ap_process_config(const char *cfg)
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
		/* the end of a section whose contents were read as they came: matched
		 * by name, not looked up (httpd's ap_build_cont_config) */
		if (line[0] == '<' && line[1] == '/')
			continue;
		if (execute_now(line, s, in_vhost, &cfg) != 0)
			return -1;
	}
	return nv;
}

/* ap_find_linked_module(): the loaded module of that name, by a walk of the
 * module list (what <IfModule> asks). */
EXTERN_FN module *ap_find_linked_module(const char *name)
{
	for (module *modp = ap_top_module; modp; modp = modp->next)
		if (strcmp(modp->name, name) == 0)
			return modp;
	return NULL;
}

/* Skips a section whose contents do not apply, nested sections included, up
 * to its end: the lines are read, not looked up. */
const char *ap_soak_end_container(cmd_parms *cmd)
{
	char line[MAX_STRING_LEN];
	int depth = 1;
	while (ap_cfg_getline(line, sizeof line, cmd->config_file) == 0) {
		if (line[0] != '<')
			continue;
		if (line[1] != '/')
			depth++;
		else if (--depth == 0)
			return NULL;
	}
	return "section not closed before the end of the file";
}

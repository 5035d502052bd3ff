// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* config.c - the client's configuration file: the coordinator, keys, timeout and BPF
 * directory as "KEY = VALUE" lines (lib/base/conf.h), so that a lab admin's bpflab
 * reaches bpflabd without flags or environment. The first that exists of
 * $BPFLAB_CONFIG (which must), $XDG_CONFIG_HOME/bpflab/config (~/.config/bpflab/config)
 * and /etc/bpflab/client.conf is read, once, by main() before the environment and the
 * flags, which override it (docs/deploy.md, "Configuration files").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "base/conf.h"
#include "base/util.h"

/* the global options a file may set: those that say where and how to connect */
static const char *const file_keys[] = {
	"coordinator", "key", "server-key", "plaintext", "timeout", "bpf-dir",
};

/* kept to exit: cli's fields point into it */
static struct conf *cli_conf;

/* The file to read into PATH, or "" when none exists ($BPFLAB_CONFIG is taken as it is:
 * reading it says when it does not exist). */
static void config_path(char *path, size_t len)
{
	const char *env = getenv("BPFLAB_CONFIG"), *home;

	if (env && *env) {
		snprintf(path, len, "%s", env);
		return;
	}
	home = getenv("XDG_CONFIG_HOME");
	if (home && *home)
		snprintf(path, len, "%s/bpflab/config", home);
	else if ((home = getenv("HOME")) && *home)
		snprintf(path, len, "%s/.config/bpflab/config", home);
	else
		path[0] = '\0';
	if (path[0] && !access(path, F_OK))
		return;
	snprintf(path, len, "/etc/bpflab/client.conf");
	if (access(path, F_OK))
		path[0] = '\0';
}

int cli_config_load(void)
{
	struct option keys[ARRAY_SIZE(file_keys) + 1];
	const struct option *o;
	char path[4096];
	struct err why;
	size_t n = 0, i;
	int err;

	for (o = cli_global_longopts; o->name; o++)
		for (i = 0; i < ARRAY_SIZE(file_keys); i++)
			if (!strcmp(o->name, file_keys[i]))
				keys[n++] = *o;
	keys[n] = (struct option){ NULL, 0, NULL, 0 };
	config_path(path, sizeof(path));
	if (!path[0])
		return 0;
	err = conf_load(path, keys, &cli_conf, &why);
	if (err)
		return cli_usage_error(NULL, "%s", err_text(&why, err));
	for (i = 0; i < cli_conf->n; i++) {
		const struct conf_entry *e = &cli_conf->e[i];
		long long v;

		if (e->opt->val == CLI_OPT_TIMEOUT &&
		    (util_parse_int(e->value, &v) || v < 1 || v > 86400))
			return cli_usage_error(NULL, "%s:%d: invalid timeout '%s': expected "
					       "seconds from 1 to 86400", cli_conf->path, e->line,
					       e->value);
		err = cli_global_opt(e->opt->val, e->value);
		if (err)
			return err;
	}
	return 0;
}

// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* conf.c - "KEY = VALUE" configuration files checked against a getopt table (conf.h).
 * No state; any thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/conf.h"
#include "base/util.h"

static const struct option *find_key(const struct option *keys, const char *name, size_t len)
{
	for (; keys->name; keys++)
		if (strlen(keys->name) == len && !strncmp(keys->name, name, len))
			return keys;
	return NULL;
}

static int is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r';
}

/* One line [s, e) of line number LINE into C; 0 or -EINVAL with ERR. */
static int parse_line(struct conf *c, const char *s, const char *e, int line,
		      const struct option *keys, struct err *err)
{
	const char *k, *ke, *v, *ve;
	const struct option *opt;
	struct conf_entry *grown;

	while (s < e && is_blank(*s))
		s++;
	if (s == e || *s == '#')
		return 0;
	if (memchr(s, '\0', (size_t)(e - s))) {
		err_at(err, c->path, line, 0, "a NUL byte");
		return -EINVAL;
	}
	k = s;
	while (s < e && !is_blank(*s) && *s != '=')
		s++;
	ke = s;
	while (s < e && is_blank(*s))
		s++;
	if (s == e || *s != '=') {
		err_at(err, c->path, line, 0, "expected 'KEY = VALUE', got '%.*s'",
			 (int)(e - k > 60 ? 60 : e - k), k);
		return -EINVAL;
	}
	v = s + 1;
	while (v < e && is_blank(*v))
		v++;
	ve = e;
	while (ve > v && is_blank(ve[-1]))
		ve--;
	opt = find_key(keys, k, (size_t)(ke - k));
	if (!opt) {
		err_at(err, c->path, line, 0, "unknown key '%.*s'",
			 (int)(ke - k > 60 ? 60 : ke - k), k);
		return -EINVAL;
	}
	if (opt->has_arg == no_argument) {
		if (ve - v == 2 && !strncmp(v, "no", 2))
			return 0;
		if (ve - v != 3 || strncmp(v, "yes", 3)) {
			err_at(err, c->path, line, 0, "'%s' takes yes or no, not '%.*s'",
			       opt->name, (int)(ve - v > 60 ? 60 : ve - v), v);
			return -EINVAL;
		}
	} else if (v == ve) {
		err_at(err, c->path, line, 0, "'%s' needs a value", opt->name);
		return -EINVAL;
	}
	grown = realloc(c->e, (c->n + 1) * sizeof(*c->e));
	if (!grown)
		return -ENOMEM;
	c->e = grown;
	c->e[c->n].opt = opt;
	c->e[c->n].line = line;
	c->e[c->n].value = NULL;
	if (opt->has_arg != no_argument) {
		c->e[c->n].value = strndup(v, (size_t)(ve - v));
		if (!c->e[c->n].value)
			return -ENOMEM;
	}
	c->n++;
	return 0;
}

int conf_parse(const char *path, const char *text, size_t len, const struct option *keys,
	       struct conf **out, struct err *e)
{
	const char *s = text, *end = text + len, *nl;
	struct conf *c;
	int line = 1, ret = 0;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c || !(c->path = strdup(path))) {
		free(c);
		err_set(e, "out of memory");
		return -ENOMEM;
	}
	for (; s < end && !ret; s = nl + 1, line++) {
		nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl)
			nl = end;
		ret = parse_line(c, s, nl, line, keys, e);
	}
	if (ret) {
		if (ret == -ENOMEM)
			err_set(e, "out of memory");
		conf_destroy(&c);
		return ret;
	}
	*out = c;
	return 0;
}

int conf_load(const char *path, const struct option *keys, struct conf **out,
	      struct err *e)
{
	size_t len;
	char *text;
	int ret;

	*out = NULL;
	ret = util_read_file(path, CONF_MAX_BYTES, &text, &len);
	if (ret) {
		err_set(e, "cannot read configuration '%s': %s", path, util_strerror(ret));
		return ret;
	}
	ret = conf_parse(path, text, len, keys, out, e);
	free(text);
	return ret;
}

int conf_argv(const struct conf *c, int argc, char **argv, int *argc_out, char ***argv_out)
{
	size_t bytes = 0, n = (size_t)argc + c->n + 1, i;
	char **av, *p;

	for (i = 0; i < c->n; i++)
		bytes += strlen(c->e[i].opt->name) + 4 +
			 (c->e[i].value ? strlen(c->e[i].value) : 0);
	av = malloc(n * sizeof(*av) + bytes);
	if (!av)
		return -ENOMEM;
	p = (char *)(av + n);
	av[0] = argv[0];
	for (i = 0; i < c->n; i++) {
		av[i + 1] = p;
		p += sprintf(p, "--%s%s%s", c->e[i].opt->name, c->e[i].value ? "=" : "",
			     c->e[i].value ? c->e[i].value : "") + 1;
	}
	for (i = 1; i < (size_t)argc; i++)
		av[c->n + i] = argv[i];
	av[c->n + (size_t)argc] = NULL;
	*argc_out = (int)c->n + argc;
	*argv_out = av;
	return 0;
}

int conf_apply_args(int *argcp, char ***argvp, const struct option *longopts,
		    struct conf **cp, char ***blockp, struct err *e)
{
	char **argv = *argvp;
	const char *path = NULL;
	struct conf *c = NULL;
	int i, err;
	size_t k;

	*cp = NULL;
	*blockp = NULL;
	for (i = 1; i < *argcp && strcmp(argv[i], "--"); i++) {
		if (!strncmp(argv[i], "--config=", 9))
			path = argv[i] + 9;
		else if (!strcmp(argv[i], "--config") && i + 1 < *argcp)
			path = argv[++i];
	}
	if (!path)
		return 0;
	err = conf_load(path, longopts, &c, e);
	if (err)
		return err;
	for (k = 0; k < c->n; k++) {
		if (strcmp(c->e[k].opt->name, "config") && strcmp(c->e[k].opt->name, "help"))
			continue;
		err_at(e, c->path, c->e[k].line, 0, "'%s' cannot be set in a file",
		       c->e[k].opt->name);
		conf_destroy(&c);
		return -EINVAL;
	}
	err = conf_argv(c, *argcp, argv, argcp, blockp);
	if (err) {
		err_set(e, "out of memory");
		conf_destroy(&c);
		return err;
	}
	*argvp = *blockp;
	*cp = c;
	return 0;
}

void conf_destroy(struct conf **cp)
{
	struct conf *c = cp ? *cp : NULL;
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++)
		free(c->e[i].value);
	free(c->e);
	free(c->path);
	free(c);
	*cp = NULL;
}

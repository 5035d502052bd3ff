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

/* One line [s, e) of line number LINE into C; 0 or -EINVAL with WHY. */
static int parse_line(struct conf *c, const char *s, const char *e, int line,
		      const struct option *keys, char *why, size_t why_len)
{
	const char *k, *ke, *v, *ve;
	const struct option *opt;
	struct conf_entry *grown;

	while (s < e && is_blank(*s))
		s++;
	if (s == e || *s == '#')
		return 0;
	if (memchr(s, '\0', (size_t)(e - s))) {
		snprintf(why, why_len, "%s:%d: a NUL byte", c->path, line);
		return -EINVAL;
	}
	k = s;
	while (s < e && !is_blank(*s) && *s != '=')
		s++;
	ke = s;
	while (s < e && is_blank(*s))
		s++;
	if (s == e || *s != '=') {
		snprintf(why, why_len, "%s:%d: expected 'KEY = VALUE', got '%.*s'", c->path, line,
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
		snprintf(why, why_len, "%s:%d: unknown key '%.*s'", c->path, line,
			 (int)(ke - k > 60 ? 60 : ke - k), k);
		return -EINVAL;
	}
	if (opt->has_arg == no_argument) {
		if (ve - v == 2 && !strncmp(v, "no", 2))
			return 0;
		if (ve - v != 3 || strncmp(v, "yes", 3)) {
			snprintf(why, why_len, "%s:%d: '%s' takes yes or no, not '%.*s'", c->path,
				 line, opt->name, (int)(ve - v > 60 ? 60 : ve - v), v);
			return -EINVAL;
		}
	} else if (v == ve) {
		snprintf(why, why_len, "%s:%d: '%s' needs a value", c->path, line, opt->name);
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
	       struct conf **out, char *why, size_t why_len)
{
	const char *s = text, *end = text + len, *nl;
	struct conf *c;
	int line = 1, err = 0;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c || !(c->path = strdup(path))) {
		free(c);
		snprintf(why, why_len, "out of memory");
		return -ENOMEM;
	}
	for (; s < end && !err; s = nl + 1, line++) {
		nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl)
			nl = end;
		err = parse_line(c, s, nl, line, keys, why, why_len);
	}
	if (err) {
		if (err == -ENOMEM)
			snprintf(why, why_len, "out of memory");
		conf_destroy(&c);
		return err;
	}
	*out = c;
	return 0;
}

int conf_load(const char *path, const struct option *keys, struct conf **out, char *why,
	      size_t why_len)
{
	size_t len;
	char *text;
	int err;

	*out = NULL;
	err = util_read_file(path, CONF_MAX_BYTES, &text, &len);
	if (err) {
		snprintf(why, why_len, "cannot read configuration '%s': %s", path,
			 util_strerror(err));
		return err;
	}
	err = conf_parse(path, text, len, keys, out, why, why_len);
	free(text);
	return err;
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
		    struct conf **cp, char ***blockp, char *why, size_t why_len)
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
	err = conf_load(path, longopts, &c, why, why_len);
	if (err)
		return err;
	for (k = 0; k < c->n; k++) {
		if (strcmp(c->e[k].opt->name, "config") && strcmp(c->e[k].opt->name, "help"))
			continue;
		snprintf(why, why_len, "%s:%d: '%s' cannot be set in a file", c->path,
			 c->e[k].line, c->e[k].opt->name);
		conf_destroy(&c);
		return -EINVAL;
	}
	err = conf_argv(c, *argcp, argv, argcp, blockp);
	if (err) {
		snprintf(why, why_len, "out of memory");
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

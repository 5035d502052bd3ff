// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* fuzz_conf.c - libFuzzer target for the configuration files of bpflabd and the client
 * (conf_parse() in lib/base/conf.c, docs/deploy.md).
 *
 * The input is the file's text. Checked beyond "no crash" (and no leak):
 *  - an accepted file gives entries of known keys, in line order, each with a value
 *    without blanks around it (none for an option without a value), no NUL, no newline;
 *  - conf_argv() of it gives "--KEY=VALUE" words that name the same keys;
 *  - a refusal is "fuzz.conf:LINE: message" (or out of memory).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct option keys[] = {
	{ "agents", required_argument, NULL, 'a' },
	{ "db", required_argument, NULL, 'd' },
	{ "http-host", required_argument, NULL, 'N' },
	{ "plaintext", no_argument, NULL, 'P' },
	{ NULL, 0, NULL, 0 },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv0[] = { "bpflabd", "--db", "x", NULL }, **av = NULL;
	struct conf *c = NULL;
	struct err why = { 0 };
	int err, ac = 0, last = 0;
	size_t i, n;

	err = conf_parse("fuzz.conf", (const char *)data, size, keys, &c, &why);
	if (err) {
		if (c || (err != -ENOMEM && (strncmp(why.msg, "fuzz.conf:", 10) ||
					     strspn(why.msg + 10, "0123456789") == 0)))
			abort();
		return 0;
	}
	for (i = 0; i < c->n; i++) {
		const struct conf_entry *e = &c->e[i];

		if (e->line <= last - 1 || e->line < 1)
			abort();
		last = e->line;
		if ((e->opt->has_arg == no_argument) != !e->value)
			abort();
		if (e->value) {
			n = strlen(e->value);
			if (!n || strchr(e->value, '\n') || strchr(" \t\r", e->value[0]) ||
			    strchr(" \t\r", e->value[n - 1]))
				abort();
		}
	}
	if (conf_argv(c, 3, argv0, &ac, &av) == 0) {
		if (ac != (int)c->n + 3 || av[ac] || strcmp(av[ac - 1], "x"))
			abort();
		for (i = 0; i < c->n; i++) {
			n = strlen(c->e[i].opt->name);
			if (strncmp(av[i + 1], "--", 2) || strncmp(av[i + 1] + 2, c->e[i].opt->name, n))
				abort();
		}
		free(av);
	}
	conf_destroy(&c);
	return 0;
}

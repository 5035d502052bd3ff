/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* conf.h - the configuration files of bpflabd (--config, /etc/bpflab/bpflabd.conf) and
 * of the bpflab client (~/.config/bpflab/config, /etc/bpflab/client.conf): lines
 * "KEY = VALUE", '#' comments and blank lines, KEY a long option of the program
 * (docs/deploy.md, "Configuration files"). A file is read whole and checked before any
 * of it is used; errors name FILE:LINE. Flags override the file: bpflabd puts the
 * file's options before its command line (conf_argv), the client sets them first.
 *
 * Ownership: a struct conf owns its strings; conf_destroy() frees it (NULL is fine).
 */
#ifndef BPFLAB_CONF_H
#define BPFLAB_CONF_H

#include <getopt.h>
#include <stddef.h>

#include "base/err.h"

#define CONF_MAX_BYTES (64 * 1024)

struct conf_entry {
	const struct option *opt;	/* the long option KEY names (in the caller's table) */
	char *value;			/* its value; NULL for a no_argument option set "yes" */
	int line;			/* 1-based line of FILE */
};

struct conf {
	char *path;
	struct conf_entry *e;
	size_t n;
};

/* Parse TEXT (LEN bytes) read from PATH. A KEY must name an option of KEYS (a getopt
 * table ending with a NULL name); a required_argument option needs a non-empty VALUE, a
 * no_argument one takes "yes" (set) or "no" (left out). VALUE runs to the end of the line
 * with the blanks around it dropped; "#" starts a comment only at the start of a line.
 * Returns 0 and *out, or -EINVAL with "PATH:LINE: what is wrong" in ERR (input;
 * -ENOMEM). */
int conf_parse(const char *path, const char *text, size_t len, const struct option *keys,
	       struct conf **out, struct err *err);

/* conf_parse() of the file PATH (a regular file of at most CONF_MAX_BYTES). -ENOENT
 * when it does not exist (ERR says so too), other -errno when it cannot be read. */
int conf_load(const char *path, const struct option *keys, struct conf **out,
	      struct err *err);

/* A new argv: ARGV[0], then "--KEY=VALUE" (or "--KEY") for each entry of C in file
 * order, then ARGV[1..ARGC-1], so that getopt reads the file first and a flag given
 * later overrides it (a repeatable option adds up). *argv_out is one heap block (free
 * it, not its strings, which stay C's and ARGV's); NULL terminated. Returns 0 or -ENOMEM. */
int conf_argv(const struct conf *c, int argc, char **argv, int *argc_out, char ***argv_out);

/* For a daemon's main(): when *ARGVP holds "--config FILE" (or "--config=FILE") before
 * a "--", load FILE with LONGOPTS as its keys ("config" and "help" excepted) and replace
 * *ARGCP and *ARGVP by conf_argv()'s; *CP keeps the file (conf_destroy) and *BLOCKP the
 * new argv (free), both NULL when there is no --config. LONGOPTS must list "config" as
 * a required_argument option that getopt then skips. Returns 0, or -errno with ERR
 * (input, FILE:LINE, for what the file holds). */
int conf_apply_args(int *argcp, char ***argvp, const struct option *longopts,
		    struct conf **cp, char ***blockp, struct err *err);

void conf_destroy(struct conf **c);

#endif

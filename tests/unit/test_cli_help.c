// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_cli_help.c - the help texts of bpflab, bpflabd and bpflab-agent against their
 * behaviour and against docs/cli.md, so that the CLI reference stays true:
 *
 * - every command that `bpflab --help` lists prints its help with --help (exit 0), also
 *   after other arguments, and refuses an unknown option with exit 2 (129 for `bisect
 *   run`, which git bisect run must read as "stop") and a message naming the command,
 *   in text and in JSON;
 * - every option a command's help shows (its usage grammar and its option lines) is in
 *   that command's section of docs/cli.md, and every option the section's synopsis
 *   shows is one the command's help shows, or a global one;
 * - the global options, bpflabd's and bpflab-agent's options: the same sets in their
 *   --help and in the tables of docs/cli.md.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "helpers.h"

#define BPFLAB BPFLAB_BUILDDIR "/bin/bpflab"
#define BPFLABD BPFLAB_BUILDDIR "/bin/bpflabd"
#define AGENT BPFLAB_BUILDDIR "/bin/bpflab-agent"
#define CLI_MD BPFLAB_SRCDIR "/docs/cli.md"

#define MAX_OPTS 64
#define MAX_CMDS 64

static char tmpdir[] = "/tmp/bpflab-test-cli-help-XXXXXX";

/* Run PROG with ARGS (NULL-terminated, without argv[0]); capture stdout and stderr. */
static void run_prog(struct prog_out *o, const char *prog, const char *const *args)
{
	const char *argv[32] = { prog };
	int i;

	for (i = 0; args[i] && i < 30; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	prog_run(o, argv, tmpdir);
}

/* A set of option names ("--wait"), each at most 31 characters. */
struct opts {
	int n;
	char name[MAX_OPTS][32];
};

static bool opts_has(const struct opts *s, const char *name)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->name[i], name))
			return true;
	return false;
}

/* Add every long option ("--name") in TEXT[0..LEN) to S. */
static void opts_scan(struct opts *s, const char *text, size_t len)
{
	size_t i, k;

	for (i = 0; i + 2 < len; i++) {
		if (text[i] != '-' || text[i + 1] != '-' || !islower((unsigned char)text[i + 2]) ||
		    (i > 0 && (isalnum((unsigned char)text[i - 1]) || text[i - 1] == '-')))
			continue;
		for (k = i + 2; k < len && (islower((unsigned char)text[k]) || text[k] == '-'); k++)
			;
		if (k - i < sizeof(s->name[0]) && s->n < MAX_OPTS) {
			char name[32];

			snprintf(name, sizeof(name), "%.*s", (int)(k - i), text + i);
			if (!opts_has(s, name))
				snprintf(s->name[s->n++], sizeof(s->name[0]), "%s", name);
		}
		i = k;
	}
}

/* The options of a help text: its usage grammar (up to the first empty line) and its
 * option lines (those starting with "  -"), not the OPTIONS := block nor the prose. */
static void help_opts(const char *help, struct opts *s)
{
	const char *end = strstr(help, "\n\n"), *line;

	memset(s, 0, sizeof(*s));
	assert_non_null(end);
	opts_scan(s, help, end - help);
	for (line = end; line && *line; line = strchr(line, '\n')) {
		size_t len;

		line++;
		len = strcspn(line, "\n");
		if (!strncmp(line, "  -", 3)) {
			/* the option column only: up to two spaces after it */
			const char *gap = strstr(line + 2, "  ");

			opts_scan(s, line, gap && gap < line + len ? (size_t)(gap - line) : len);
		}
	}
}

/* The section of docs/cli.md (its whole text, TEXT) whose "## " heading contains
 * TITLE; NULL when there is none. *LEN gets its length (up to the next "## "). */
static const char *doc_section(const char *text, const char *title, size_t *len)
{
	const char *p = text, *next;

	while ((p = strstr(p, "\n## "))) {
		size_t hl = strcspn(p + 1, "\n");
		char heading[256];

		snprintf(heading, sizeof(heading), "%.*s", (int)hl, p + 1);
		p++;
		if (!strstr(heading, title))
			continue;
		next = strstr(p, "\n## ");
		*len = next ? (size_t)(next - p) : strlen(p);
		return p;
	}
	return NULL;
}

/* The options of the rows of the tables in TEXT[0..LEN) (lines "| `..."), first
 * column only. */
static void table_opts(const char *text, size_t len, struct opts *s)
{
	const char *line = text, *end = text + len;

	memset(s, 0, sizeof(*s));
	while (line < end) {
		size_t l = strcspn(line, "\n");

		if (!strncmp(line, "| `", 3)) {
			const char *bar = memchr(line + 1, '|', l - 1);

			/* "\|" inside a cell is not a column end */
			while (bar && bar[-1] == '\\')
				bar = memchr(bar + 1, '|', line + l - bar - 1);
			opts_scan(s, line, bar ? (size_t)(bar - line) : l);
		}
		line += l + 1;
	}
}

/* Each option of WANT that is not in GOT, printed naming WHAT; returns how many. */
static int missing_opts(const struct opts *want, const struct opts *got, const char *what)
{
	int i, n = 0;

	for (i = 0; i < want->n; i++) {
		if (opts_has(got, want->name[i]))
			continue;
		print_error("%s: '%s' is missing\n", what, want->name[i]);
		n++;
	}
	return n;
}

/* A command of bpflab: "run submit" (OBJ "run", CMD "submit"), or "keygen" (no OBJ). */
struct cmd {
	char obj[32], cmd[32];
};

/* The commands `bpflab --help` lists under "Commands:". Returns how many. */
static int list_commands(struct cmd *cmds, int max)
{
	const char *p, *line;
	struct prog_out o;
	int n = 0;

	run_prog(&o, BPFLAB, (const char *[]){ "--help", NULL });
	assert_int_equal(o.status, 0);
	p = strstr(o.out, "Commands:\n");
	assert_non_null(p);
	for (line = strchr(p, '\n') + 1; *line && *line != '\n'; line = strchr(line, '\n') + 1) {
		char a[32], b[32];

		int k = sscanf(line, "       bpflab %31[a-z] %31[a-z]", a, b);

		if (k < 1 || n == max)
			continue;
		/* "bpflab keygen [--out DIR]": a command without an object */
		snprintf(cmds[n].obj, sizeof(cmds[n].obj), "%s", k == 2 ? a : "");
		snprintf(cmds[n].cmd, sizeof(cmds[n].cmd), "%s", k == 2 ? b : a);
		n++;
	}
	prog_out_free(&o);
	return n;
}

/* "run submit" or "keygen". */
static const char *cmd_name(const struct cmd *c, char *out, size_t len)
{
	snprintf(out, len, "%.31s%s%.31s", c->obj, *c->obj ? " " : "", c->cmd);
	return out;
}

/* Run `bpflab [PRE] CMD ARGS...` (PRE may be NULL; ARGS NULL-terminated, up to 4). */
static void run_cmd(struct prog_out *o, const struct cmd *c, const char *pre,
		    const char *const *args)
{
	const char *argv[12];
	int n = 0, i;

	if (pre)
		argv[n++] = pre;
	if (*c->obj)
		argv[n++] = c->obj;
	argv[n++] = c->cmd;
	for (i = 0; args[i] && i < 4; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	run_prog(o, BPFLAB, argv);
}

/* Every command: --help exits 0 with its usage, also after an argument; an unknown
 * option is bad usage naming the command, in text and as JSON. */
static void test_cli_help_every_command(void **state)
{
	struct cmd cmds[MAX_CMDS];
	int n = list_commands(cmds, MAX_CMDS), i;

	(void)state;
	assert_true(n >= 23);
	for (i = 0; i < n; i++) {
		char name[80], want[256];
		int usage_status;
		struct prog_out o;
		json_t *j;

		cmd_name(&cmds[i], name, sizeof(name));
		usage_status = !strcmp(name, "bisect run") ? 129 : 2;

		run_cmd(&o, &cmds[i], NULL, (const char *[]){ "--help", NULL });
		snprintf(want, sizeof(want), "Usage: bpflab %s", name);
		if (o.status || strncmp(o.out, want, strlen(want)))
			fail_msg("'bpflab %s --help': status %d, output '%.80s'", name, o.status,
				 o.out);
		prog_out_free(&o);

		run_cmd(&o, &cmds[i], NULL, (const char *[]){ "x", "--help", NULL });
		if (o.status || strncmp(o.out, want, strlen(want)))
			fail_msg("'bpflab %s x --help': status %d", name, o.status);
		prog_out_free(&o);

		run_cmd(&o, &cmds[i], NULL, (const char *[]){ "--frob", NULL });
		snprintf(want, sizeof(want), "bpflab: unknown option '--frob' for '%s'\n"
			 "see 'bpflab %s --help'\n", name, name);
		if (o.status != usage_status)
			fail_msg("'bpflab %s --frob': status %d, not %d", name, o.status,
				 usage_status);
		assert_text(o.err, want);
		assert_text(o.out, "");
		prog_out_free(&o);

		run_cmd(&o, &cmds[i], "-j", (const char *[]){ "--frob", NULL });
		assert_int_equal(o.status, usage_status);
		j = json_of(o.out);
		snprintf(want, sizeof(want), "unknown option '--frob' for '%s'", name);
		assert_string_equal(json_string_value(json_object_get(j, "error")), want);
		json_decref(j);
		prog_out_free(&o);
	}
}

/* The synopsis lines of command NAME in SECTION[0..LEN): code lines "    bpflab ..."
 * naming it, with their continuation lines (indented deeper); their options into S. */
static void synopsis_opts(const char *section, size_t len, const char *name, struct opts *s)
{
	const char *line = section, *end = section + len;
	char needle[96];
	bool in = false;

	memset(s, 0, sizeof(*s));
	snprintf(needle, sizeof(needle), " %s", name);
	while (line < end) {
		size_t l = strcspn(line, "\n");

		if (!strncmp(line, "    bpflab ", 11))
			in = memmem(line, l, needle, strlen(needle)) != NULL;
		else if (strncmp(line, "     ", 5))
			in = false;
		if (in)
			opts_scan(s, line, l);
		line += l + 1;
	}
}

/* The options of each command's --help are in its section of docs/cli.md, and the
 * options of the section's synopsis are in its --help (or global). */
static void test_cli_help_matches_docs(void **state)
{
	char *doc = file_slurp(CLI_MD);
	struct cmd cmds[MAX_CMDS];
	struct opts global, help, docs, syn;
	int n = list_commands(cmds, MAX_CMDS), i, missing = 0;
	const char *sec;
	size_t len;
	struct prog_out o;

	(void)state;
	/* the global options: bpflab --help's option lines <-> the table */
	run_prog(&o, BPFLAB, (const char *[]){ "--help", NULL });
	help_opts(strstr(o.out, "\nOptions:\n") + 1, &global);
	prog_out_free(&o);
	sec = doc_section(doc, "Global options", &len);
	assert_non_null(sec);
	table_opts(sec, len, &docs);
	assert_true(global.n >= 12);
	missing += missing_opts(&global, &docs, "docs/cli.md, Global options");
	missing += missing_opts(&docs, &global, "bpflab --help, Options");

	for (i = 0; i < n; i++) {
		char name[80], what[160];

		cmd_name(&cmds[i], name, sizeof(name));
		run_cmd(&o, &cmds[i], NULL, (const char *[]){ "--help", NULL });
		help_opts(o.out, &help);
		prog_out_free(&o);
		sec = doc_section(doc, name, &len);
		if (!sec)	/* "## bisect" holds all its commands */
			sec = doc_section(doc, cmds[i].obj, &len);
		if (!sec)
			fail_msg("docs/cli.md has no section for '%s'", name);
		memset(&docs, 0, sizeof(docs));
		opts_scan(&docs, sec, len);
		snprintf(what, sizeof(what), "docs/cli.md, section of '%s'", name);
		missing += missing_opts(&help, &docs, what);

		synopsis_opts(sec, len, name, &syn);
		if (!syn.n && strstr(sec, "    bpflab ") == NULL)
			fail_msg("docs/cli.md: no synopsis for '%s'", name);
		{
			struct opts both = help;
			int k;

			for (k = 0; k < global.n; k++)
				if (!opts_has(&both, global.name[k]) && both.n < MAX_OPTS)
					snprintf(both.name[both.n++], sizeof(both.name[0]), "%s",
						 global.name[k]);
			snprintf(what, sizeof(what), "'bpflab %s --help' (docs/cli.md synopsis)",
				 name);
			missing += missing_opts(&syn, &both, what);
		}
	}
	free(doc);
	if (missing)
		fail_msg("%d options missing (above)", missing);
}

/* PROG --help exits 0 and its options are those of docs/cli.md's table under TITLE;
 * an unknown option exits 2 naming it. */
static void daemon_matches_docs(const char *prog, const char *title)
{
	char *doc = file_slurp(CLI_MD), what[128];
	struct opts help, docs;
	const char *sec;
	int missing;
	size_t len;
	struct prog_out o;

	run_prog(&o, prog, (const char *[]){ "--help", NULL });
	assert_int_equal(o.status, 0);
	assert_string_equal(o.err, "");
	help_opts(o.out, &help);
	prog_out_free(&o);
	sec = doc_section(doc, title, &len);
	if (!sec)
		fail_msg("docs/cli.md has no section '%s'", title);
	table_opts(sec, len, &docs);
	assert_true(help.n >= 9);
	snprintf(what, sizeof(what), "docs/cli.md, %s", title);
	missing = missing_opts(&help, &docs, what);
	snprintf(what, sizeof(what), "%s --help", title);
	missing += missing_opts(&docs, &help, what);
	if (missing)
		fail_msg("%d options missing (above)", missing);

	run_prog(&o, prog, (const char *[]){ "--frob", NULL });
	assert_int_equal(o.status, 2);
	assert_contains(o.err, "'--frob'");
	assert_string_equal(o.out, "");
	prog_out_free(&o);
	free(doc);
}

static void test_cli_help_bpflabd(void **state)
{
	(void)state;
	daemon_matches_docs(BPFLABD, "## bpflabd");
}

static void test_cli_help_agent(void **state)
{
	(void)state;
	daemon_matches_docs(AGENT, "## bpflab-agent");
}

static int setup(void **state)
{
	char ep[300];

	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	/* never reach a real lab by accident */
	snprintf(ep, sizeof(ep), "ipc://%s/default.sock", tmpdir);
	setenv("BPFLAB_COORDINATOR", ep, 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return tmpdir_remove(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cli_help_every_command),
		cmocka_unit_test(test_cli_help_matches_docs),
		cmocka_unit_test(test_cli_help_bpflabd),
		cmocka_unit_test(test_cli_help_agent),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

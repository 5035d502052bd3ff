// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* common.c - the plumbing every bpflab command uses: the global options, command
 * dispatch with exact matching and --help at each level, option parsing, error output in
 * text or JSON, JSON printing. See cli.h (tables: lib/base/texttable.h).
 */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/names.h"
#include "base/util.h"

struct cli_opts cli = {
	.coordinator = CLI_DEFAULT_COORDINATOR,
	.timeout_s = CLI_DEFAULT_TIMEOUT_S,
};

const char cli_options_grammar[] =
	"       OPTIONS := { {-j|--json} [{-p|--pretty}] | {-c|--coordinator} ENDPOINT |\n"
	"                    --db FILE | --bpf-dir DIR | --timeout SECONDS |\n"
	"                    --key FILE | --server-key FILE|Z85 | --plaintext |\n"
	"                    --ascii | {-v|--verbose} }\n";

const struct option cli_global_longopts[] = {
	{ "coordinator", required_argument, NULL, 'c' },
	{ "db", required_argument, NULL, CLI_OPT_DB },
	{ "json", no_argument, NULL, 'j' },
	{ "pretty", no_argument, NULL, 'p' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "bpf-dir", required_argument, NULL, CLI_OPT_BPF_DIR },
	{ "timeout", required_argument, NULL, CLI_OPT_TIMEOUT },
	{ "key", required_argument, NULL, CLI_OPT_KEY },
	{ "server-key", required_argument, NULL, CLI_OPT_SERVER_KEY },
	{ "plaintext", no_argument, NULL, CLI_OPT_PLAINTEXT },
	{ "ascii", no_argument, NULL, CLI_OPT_ASCII },
	{ NULL, 0, NULL, 0 },
};

const char cli_global_shortopts[] = "c:jpv";

/* "run submit" while a command runs: usage errors without a hint point at its help. */
static char cmd_path[64];

static void json_error_out(const char *msg)
{
	json_t *e = json_pack("{s:s}", "error", msg);

	if (e)
		cli_print_json(e);
	json_decref(e);
}

int cli_usage_error(const char *hint, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!hint && *cmd_path)
		hint = cmd_path;
	if (cli.json) {
		json_error_out(msg);
	} else {
		fflush(stdout);		/* after what was printed before it */
		fprintf(stderr, "bpflab: %s\n", msg);
		fprintf(stderr, "see 'bpflab %s%s--help'\n", hint ? hint : "", hint ? " " : "");
	}
	return CLI_EXIT_USAGE;
}

int cli_error(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (cli.json) {
		json_error_out(msg);
	} else {
		fflush(stdout);		/* after what was printed before it */
		fprintf(stderr, "bpflab: %s\n", msg);
	}
	return CLI_EXIT_FAIL;
}

int cli_fail(int rc, const struct err *err)
{
	json_t *e;

	if (!err || !err->input)
		return cli_error("%s", err_text(err, rc));
	if (!*err->file) {		/* input without a place: said as any other error */
		cli_error("%s", err->msg);
		return CLI_EXIT_USAGE;
	}
	if (!cli.json) {
		fprintf(stderr, "%s\n", err->msg);
		return CLI_EXIT_USAGE;
	}
	e = json_pack("{s:s, s:b, s:s, s:i, s:i}", "file", err->file, "ok", 0, "error",
		      err->msg, "line", err->line, "column", err->col);
	if (e)
		cli_print_json(e);
	json_decref(e);
	return CLI_EXIT_USAGE;
}

int cli_print_json(const json_t *obj)
{
	/* 15 significant digits: 35.9 rather than 35.899999999999999 */
	size_t flags = (cli.pretty ? JSON_INDENT(2) : JSON_COMPACT) | JSON_REAL_PRECISION(15);

	if (json_dumpf(obj, stdout, flags | JSON_ENCODE_ANY) || fputc('\n', stdout) == EOF) {
		fprintf(stderr, "bpflab: cannot write JSON output\n");
		return CLI_EXIT_FAIL;
	}
	return 0;
}

int cli_global_opt(int opt, const char *arg)
{
	long long v;

	switch (opt) {
	case 'c':
		cli.coordinator = arg;
		return 0;
	case CLI_OPT_DB:
		cli.db = arg;
		return 0;
	case 'j':
		cli.json = true;
		return 0;
	case CLI_OPT_ASCII:
		return cli_ascii_stdout(&cli.json) ? cli_error("--ascii: cannot wrap the output")
						   : 0;
	case 'p':
		cli.pretty = cli.json = true;
		return 0;
	case 'v':
		cli.verbose++;
		log_set_level(cli.verbose >= LOG_DEBUG ? LOG_DEBUG : (enum log_level)cli.verbose);
		return 0;
	case CLI_OPT_BPF_DIR:
		cli.bpf_dir = arg;
		return 0;
	case CLI_OPT_TIMEOUT:
		if (util_parse_int(arg, &v) || v < 1 || v > 86400)
			return cli_usage_error(NULL, "invalid timeout '%s': expected seconds "
					       "from 1 to 86400", arg);
		cli.timeout_s = (int)v;
		return 0;
	case CLI_OPT_KEY:
		cli.key_file = arg;
		return 0;
	case CLI_OPT_SERVER_KEY:
		cli.server_key = arg;
		return 0;
	case CLI_OPT_PLAINTEXT:
		cli.plaintext = true;
		return 0;
	}
	return 1;
}

/* The option as the user wrote it, for messages: "-x" or "--name" (without "=VALUE"). */
static void option_text(char **argv, int opt, char *out, size_t len)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";

	if (opt > 0 && opt < 256 && (!arg || strncmp(arg, "--", 2))) {
		snprintf(out, len, "-%c", opt);
		return;
	}
	snprintf(out, len, "%.*s", (int)strcspn(arg, "="), arg);
}

int cli_parse_opts(int argc, char **argv, const char *path, const char *shortopts,
		   const struct option *longopts, cli_opt_fn fn, void *ctx, int *first)
{
	struct option all[64];
	char shorts[128];
	size_t n = 0, i;
	int opt, err;

	for (i = 0; cli_global_longopts[i].name; i++)
		all[n++] = cli_global_longopts[i];
	for (i = 0; longopts && longopts[i].name && n < ARRAY_SIZE(all) - 1; i++)
		all[n++] = longopts[i];
	all[n] = (struct option){ NULL, 0, NULL, 0 };
	snprintf(shorts, sizeof(shorts), ":%s%s", cli_global_shortopts, shortopts ? shortopts : "");

	opterr = 0;
	optind = 0;			/* glibc: start over, permutation included */
	while ((opt = getopt_long(argc, argv, shorts, all, NULL)) != -1) {
		char text[128];

		if (opt == '?') {
			option_text(argv, optopt, text, sizeof(text));
			return cli_usage_error(path, "unknown option '%s' for '%s'", text, path);
		}
		if (opt == ':') {
			option_text(argv, optopt, text, sizeof(text));
			return cli_usage_error(path, "option '%s' needs a value", text);
		}
		err = cli_global_opt(opt, optarg);
		if (err == 1)
			err = fn ? fn(opt, optarg, ctx) : CLI_EXIT_USAGE;
		if (err)
			return err;
	}
	*first = optind;
	return 0;
}

/* The command of OBJ that NAME means (names_match: a name or an unambiguous prefix);
 * NULL after printing the usage error (ambiguous: the candidates; unknown: what it may
 * be a slip of), *STATUS its exit status. */
static const struct cli_cmd *find_cmd(const struct cli_object *obj, const char *name,
				      int *status)
{
	const char *names[64];
	char cand[256];
	size_t n = 0;
	int k;

	while (obj->cmds[n].name && n < ARRAY_SIZE(names)) {
		names[n] = obj->cmds[n].name;
		n++;
	}
	k = names_match(names, n, name);
	if (k >= 0)
		return &obj->cmds[k];
	if (k == NAMES_AMBIGUOUS) {
		names_candidates(names, n, name, cand, sizeof(cand));
		*status = cli_usage_error(obj->name, "ambiguous command '%s' for '%s': %s", name,
					  obj->name, cand);
	} else if (names_candidates(names, n, name, cand, sizeof(cand))) {
		*status = cli_usage_error(obj->name, "unknown command '%s' for '%s' (did you "
					  "mean %s?)", name, obj->name, cand);
	} else {
		*status = cli_usage_error(obj->name, "unknown command '%s' for '%s'", name,
					  obj->name);
	}
	return NULL;
}

/* Depth of [ { ( nesting just before TEXT[I] (within TEXT[0..I)). */
static int grammar_depth(const char *text, size_t i)
{
	int depth = 0;
	size_t k;

	for (k = 0; k < i; k++) {
		if (strchr("[{(", text[k]))
			depth++;
		else if (strchr("]})", text[k]) && depth > 0)
			depth--;
	}
	return depth;
}

/* Whether the line may break at the space TEXT[I] of a grammar at nesting LEVEL: at that
 * depth and not between an option and its value ("--plan NAME"). */
static bool grammar_breaks_at(const char *text, size_t len, size_t i, int level)
{
	size_t w = i;

	if (text[i] != ' ' || grammar_depth(text, i) > level)
		return false;
	while (w > 0 && text[w - 1] != ' ')
		w--;
	return !(text[w] == '-' && i + 1 < len && !strchr("-[{", text[i + 1]));
}

/*
 * Print TEXT[0..LEN) (words separated by single spaces) from column *COL, breaking lines
 * only where grammar_breaks_at() allows at nesting LEVEL; a piece too long even for a fresh
 * line is broken one level deeper. Continuation lines start at column CLI_USAGE_INDENT;
 * *FRESH says the line has no word yet.
 */
static void print_grammar_level(FILE *out, const char *text, size_t len, int level,
				size_t *col, bool *fresh)
{
	size_t start = 0;

	while (start < len) {
		size_t end = start, n;

		while (end < len && !grammar_breaks_at(text, len, end, level))
			end++;
		n = end - start;
		if (*col + !*fresh + n <= CLI_USAGE_WIDTH) {
			/* fits on this line */
		} else if (CLI_USAGE_INDENT + n > CLI_USAGE_WIDTH &&
			   memchr(text + start, ' ', n) && level < 8) {
			print_grammar_level(out, text + start, n, level + 1, col, fresh);
			start = end + 1;
			continue;
		} else if (!*fresh) {
			fprintf(out, "\n%*s", CLI_USAGE_INDENT, "");
			*col = CLI_USAGE_INDENT;
			*fresh = true;
		}
		if (!*fresh) {
			fputc(' ', out);
			(*col)++;
		}
		fwrite(text + start, 1, n, out);
		*col += n;
		*fresh = false;
		start = end + 1;
	}
}

void cli_print_grammar(FILE *out, const char *lead, const char *args)
{
	size_t col = strlen(lead);
	bool fresh = false;

	fputs(lead, out);
	print_grammar_level(out, args, strlen(args), 0, &col, &fresh);
	fputc('\n', out);
}

void cli_object_usage(const struct cli_object *obj, FILE *out)
{
	const struct cli_cmd *c;
	bool first = true;
	char lead[128];

	for (c = obj->cmds; c->name; c++) {
		snprintf(lead, sizeof(lead), "%s bpflab %s %s", first ? "Usage:" : "      ",
			 obj->name, c->name);
		cli_print_grammar(out, lead, c->args);
		first = false;
	}
	fprintf(out, "       bpflab %s help\n\n", obj->name);
	if (obj->help)
		fputs(obj->help, out);
	fputs(cli_options_grammar, out);
}

static void cmd_usage(const struct cli_object *obj, const struct cli_cmd *c, FILE *out)
{
	char lead[128];

	snprintf(lead, sizeof(lead), "Usage: bpflab %s %s", obj->name, c->name);
	cli_print_grammar(out, lead, c->args);
	fputc('\n', out);
	if (c->help)
		fprintf(out, "%s\n", c->help);
	fputs(cli_options_grammar, out);
}

static bool wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return false;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return true;
	}
	return false;
}

int cli_object_dispatch(const struct cli_object *obj, int argc, char **argv)
{
	const struct cli_cmd *c;
	int status;

	if (argc == 0 || (argv[0][0] == '-' && strcmp(argv[0], "-h") &&
			  strcmp(argv[0], "--help"))) {
		/* "bpflab run" and "bpflab run -j" mean "bpflab run list" */
		char *args[argc + 2];
		int i;

		if (!obj->default_cmd)
			return argc ? cli_usage_error(obj->name, "missing command before '%s' "
						      "for '%s'", argv[0], obj->name)
				    : cli_usage_error(obj->name, "missing command for '%s'",
						      obj->name);
		args[0] = (char *)obj->default_cmd;
		for (i = 0; i < argc; i++)
			args[i + 1] = argv[i];
		args[argc + 1] = NULL;
		return cli_object_dispatch(obj, argc + 1, args);
	}
	if (!strcmp(argv[0], "help") || !strcmp(argv[0], "-h") || !strcmp(argv[0], "--help")) {
		cli_object_usage(obj, stdout);
		return CLI_EXIT_OK;
	}
	c = find_cmd(obj, argv[0], &status);
	if (!c)
		return status;
	if (wants_help(argc, argv)) {
		cmd_usage(obj, c, stdout);
		return CLI_EXIT_OK;
	}
	snprintf(cmd_path, sizeof(cmd_path), "%s %s", obj->name, c->name);
	return c->fn(argc, argv);
}

int cli_parse_run_id(const char *arg, const char *hint, long long *id)
{
	if (util_parse_int(arg, id) || *id < 1)
		return cli_usage_error(hint, "invalid run id '%s': expected a number from 1",
				       arg);
	return 0;
}

const char *cli_time(long long wall_ms, char *out, size_t len)
{
	if (wall_ms <= 0)
		snprintf(out, len, "-");
	else
		util_format_time(wall_ms, out, len);
	return out;
}

const char *cli_point_text(const json_t *point, char *out, size_t len)
{
	const char *key;
	json_t *v;
	size_t used = 0;

	snprintf(out, len, "-");
	if (!json_is_object(point))
		return out;
	json_object_foreach((json_t *)point, key, v) {
		char *s = json_is_string(v) ? NULL : json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		int n = snprintf(out + used, len - used, "%s%s=%s", used ? " " : "", key,
				 s ? s : json_string_value(v) ? json_string_value(v) : "?");

		free(s);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += n;
	}
	return out;
}

bool cli_wants_help(int argc, char **argv)
{
	int i;

	if (argc > 1 && !strcmp(argv[1], "help"))
		return true;
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}

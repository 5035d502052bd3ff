// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* bisect_opts.c - the options of the bisect commands (one table that says which command
 * takes each, bisect_parse) and where their human-readable lines go (bisect_text_out).
 * Below every other cli/bisect*.c file (bisect_int.h).
 */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bisect_int.h"
#include "base/util.h"

/* Where the human-readable lines go: stdout, or stderr with -j, where stdout carries
 * only the JSON the command ends with. */
FILE *bisect_text_out(void)
{
	return cli.json ? stderr : stdout;
}

static int bopt(int opt, const char *arg, void *ctx)
{
	struct bopts *o = ctx;
	char *end;

	switch (opt) {
	case 's':
		if (!strchr(arg, '=') || arg[0] == '=')
			return cli_usage_error(NULL, "invalid override '%s': expected KEY=VALUE",
					       arg);
		if (!o->overrides)
			o->overrides = json_array();
		if (!o->overrides || json_array_append_new(o->overrides, json_string(arg)))
			return cli_error("out of memory");
		return 0;
	case OPT_PROVIDER: o->provider = arg; return 0;
	case OPT_SKIP: o->skip = true; return 0;
	case OPT_STRICT: o->strict = true; return 0;
	case OPT_HOST: o->host = arg; return 0;
	case OPT_TIMING:
		if (strcmp(arg, "wall") && strcmp(arg, "icount"))
			return cli_usage_error(NULL, "invalid timing '%s' (wall or icount)", arg);
		o->timing = arg;
		return 0;
	case OPT_PLAN: o->plan = arg; return 0;
	case OPT_METRIC: o->metric = arg; return 0;
	case OPT_GOOD: o->good = arg; return 0;
	case OPT_BAD: o->bad = arg; return 0;
	case OPT_VARIANT: o->variant = arg; return 0;
	case OPT_SUBJECT: o->subject = arg; return 0;
	case OPT_KERNELS: o->kernels = arg; return 0;
	case OPT_KERNEL: o->kernel = arg; return 0;
	case OPT_REPS:
	case OPT_MAX_REPS: {
		unsigned long v = strtoul(arg, &end, 10);

		if (*end || !v || v > 100 || *arg == '-')
			return cli_usage_error(NULL, "invalid repetitions '%s' (1..100)", arg);
		*(opt == OPT_REPS ? &o->reps : &o->max_reps) = (unsigned int)v;
		return 0;
	}
	case OPT_REBASELINE: o->rebaseline = 1; return 0;
	case OPT_NO_REBASELINE: o->rebaseline = -1; return 0;
	case OPT_THRESHOLD:
		o->threshold = strtod(arg, &end) / 100;
		if ((*end && strcmp(end, "%")) || !(o->threshold > 0) || o->threshold >= 10)
			return cli_usage_error(NULL, "invalid threshold '%s' (a percentage, e.g. "
					       "5%%)", arg);
		return 0;
	case OPT_BASELINE:
		return cli_parse_run_id(arg, NULL, &o->baseline);
	case OPT_SESSION:
		o->session = strtoll(arg, &end, 10);
		if (*end || o->session < 1 || *arg < '1' || *arg > '9')
			return cli_usage_error(NULL, "invalid session '%s' (a positive integer)",
					       arg);
		return 0;
	case OPT_DIRECTION:
		if (!strcmp(arg, "higher"))
			o->dir = COMPARE_DIR_HIGHER;
		else if (!strcmp(arg, "lower"))
			o->dir = COMPARE_DIR_LOWER;
		else
			return cli_usage_error(NULL, "invalid direction '%s' (higher or lower "
					       "is better)", arg);
		return 0;
	}
	return CLI_EXIT_USAGE;
}

/* Every option of the bisect commands, with the commands that take it (BISECT_OPTS_*):
 * an option of another command is unknown (exit 2). */
static const struct {
	struct option opt;
	unsigned int cmds;
} bisect_options[] = {
	{ { "plan", required_argument, NULL, OPT_PLAN }, BISECT_OPTS_START | BISECT_OPTS_RUN },
	{ { "session", required_argument, NULL, OPT_SESSION }, BISECT_OPTS_SHOW },
	{ { "metric", required_argument, NULL, OPT_METRIC }, BISECT_OPTS_START | BISECT_OPTS_RUN },
	{ { "good", required_argument, NULL, OPT_GOOD }, BISECT_OPTS_START },
	{ { "bad", required_argument, NULL, OPT_BAD }, BISECT_OPTS_START },
	{ { "variant", required_argument, NULL, OPT_VARIANT }, BISECT_OPTS_START | BISECT_OPTS_RUN },
	{ { "subject", required_argument, NULL, OPT_SUBJECT }, BISECT_OPTS_START | BISECT_OPTS_RUN },
	{ { "kernels", required_argument, NULL, OPT_KERNELS }, BISECT_OPTS_START },
	{ { "reps", required_argument, NULL, OPT_REPS }, BISECT_OPTS_START | BISECT_OPTS_RUN },
	{ { "max-reps", required_argument, NULL, OPT_MAX_REPS }, BISECT_OPTS_START | BISECT_OPTS_RUN },
	{ { "threshold", required_argument, NULL, OPT_THRESHOLD }, BISECT_OPTS_START | BISECT_OPTS_RUN },
	{ { "timing", required_argument, NULL, OPT_TIMING }, BISECT_OPTS_START },
	{ { "set", required_argument, NULL, 's' }, BISECT_OPTS_START | BISECT_OPTS_RUN },
	{ { "skip", no_argument, NULL, OPT_SKIP }, BISECT_OPTS_STEP },
	{ { "strict", no_argument, NULL, OPT_STRICT }, BISECT_OPTS_STEP | BISECT_OPTS_RUN },
	{ { "provider", required_argument, NULL, OPT_PROVIDER }, BISECT_OPTS_STEP },
	{ { "baseline", required_argument, NULL, OPT_BASELINE }, BISECT_OPTS_RUN },
	{ { "kernel", required_argument, NULL, OPT_KERNEL }, BISECT_OPTS_RUN },
	{ { "host", required_argument, NULL, OPT_HOST }, BISECT_OPTS_RUN },
	{ { "rebaseline", no_argument, NULL, OPT_REBASELINE }, BISECT_OPTS_RUN },
	{ { "no-rebaseline", no_argument, NULL, OPT_NO_REBASELINE }, BISECT_OPTS_RUN },
	{ { "direction", required_argument, NULL, OPT_DIRECTION }, BISECT_OPTS_RUN },
};

/* Parse the options of command PATH, those of bisect_options[] that CMD (BISECT_OPTS_*;
 * 0: none) takes, into O; no positional argument is taken. Returns 0 or the exit status
 * of a usage error. */
int bisect_parse(int argc, char **argv, const char *path, unsigned int cmd, struct bopts *o)
{
	struct option longopts[ARRAY_SIZE(bisect_options) + 1];
	const char *shortopts = "";
	int first, ret;
	size_t i, n = 0;

	for (i = 0; i < ARRAY_SIZE(bisect_options); i++) {
		if (!(bisect_options[i].cmds & cmd))
			continue;
		longopts[n++] = bisect_options[i].opt;
		if (bisect_options[i].opt.val == 's')
			shortopts = "s:";
	}
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };
	ret = cli_parse_opts(argc, argv, path, shortopts, longopts, bopt, o, &first);
	if (ret)
		return ret;
	if (first < argc)
		return cli_usage_error(path, "unexpected argument '%s'", argv[first]);
	return 0;
}

/* result.c - `bpflab result show`: a run's results as the tables kernel developers post
 * (lib/report.c), as the JSON report with the same numbers, or as CSV, one sample a line.
 */
#include "cli.h"

#include <errno.h>
#include <string.h>

#include "report.h"

enum { OPT_CSV = CLI_OPT_FIRST_LOCAL };

static int show_opt(int opt, const char *arg, void *ctx)
{
	bool *csv = ctx;

	(void)arg;
	if (opt != OPT_CSV)
		return CLI_EXIT_USAGE;
	*csv = true;
	return 0;
}

static int do_show(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "csv", no_argument, NULL, OPT_CSV },
		{ NULL, 0, NULL, 0 },
	};
	json_t *result = NULL, *report = NULL;
	bool csv = false;
	long long id;
	int first, ret, err;

	ret = cli_parse_opts(argc, argv, "result show", "", longopts, show_opt, &csv, &first);
	if (ret)
		return ret;
	if (first >= argc)
		return cli_usage_error("result show", "missing RUN");
	if (first + 1 < argc)
		return cli_usage_error("result show", "unexpected argument '%s'", argv[first + 1]);
	if (csv && cli.json)
		return cli_usage_error("result show", "--csv and --json exclude each other");
	ret = cli_parse_run_id(argv[first], "result show", &id);
	if (ret)
		return ret;
	ret = cli_query("result_show", id, &result);
	if (ret)
		return ret;
	if (csv) {
		err = report_print_csv(result, stdout);
		if (err)
			ret = cli_error("cannot write CSV: %s", strerror(-err));
		goto out;
	}
	report = report_build(result);
	if (!report) {
		ret = cli_error("cannot build the report of run %lld: %s", id, strerror(errno));
		goto out;
	}
	if (cli.json) {
		ret = cli_print_json(report);
		goto out;
	}
	err = report_print_text(report, stdout);
	if (err)
		ret = cli_error("cannot write the report: %s", strerror(-err));
out:
	json_decref(report);
	json_decref(result);
	return ret;
}

static const struct cli_cmd result_cmds[] = {
	{ "show", do_show, "RUN [--csv]",
	  "Print the results of run RUN as tables: per host and matrix point, one table\n"
	  "per metric, a row per variant and subject (port or program), a column per\n"
	  "repetition and mean ± spread (spread = half the range); for prog.ns_per_run\n"
	  "the total over a variant's programs. With --json, the report object with the\n"
	  "same numbers.\n"
	  "\n"
	  "  --csv   one line per sample instead:\n"
	  "          run,job,host,variant,rep,point,metric,subject,window,value,unit\n" },
	{ NULL, NULL, NULL, NULL },
};

const struct cli_object cli_result_object = {
	.name = "result",
	.cmds = result_cmds,
	.default_cmd = NULL,
	.help = "       RUN := a run id, as 'run submit' and 'run list' print it\n",
};

// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* result.c - `bpflab result show`: a run's results as the tables kernel developers post
 * (lib/report/report_*.c), as the JSON report with the same numbers, or as CSV, one sample a line;
 * `--form grid|columns|cpumap|drivers` picks one of the other forms of report_form_build().
 */
#include "cli.h"

#include <errno.h>
#include <string.h>

#include "report/report.h"
#include "result_analysis.h"

enum { OPT_CSV = CLI_OPT_FIRST_LOCAL, OPT_FORM, OPT_METRIC, OPT_SUBJECT, OPT_ALL_ROWS,
       OPT_TRIALS, OPT_SECONDS, OPT_WIDE };

struct show_opts {
	bool csv;
	const char *form;	/* NULL or "table": the default tables */
	const char *metric;
	const char *subject;
	bool all_rows;		/* the tables' zero rate rows too */
	bool trials;		/* a search's trials instead (report_print_trials) */
	bool seconds;		/* the per-second values instead (report_print_seconds) */
	bool wide;		/* a column per repetition, however many */
};

static int show_opt(int opt, const char *arg, void *ctx)
{
	struct show_opts *o = ctx;

	switch (opt) {
	case OPT_CSV:
		o->csv = true;
		return 0;
	case OPT_FORM:
		if (strcmp(arg, "table") && strcmp(arg, "grid") && strcmp(arg, "columns") &&
		    strcmp(arg, "cpumap") && strcmp(arg, "drivers"))
			return cli_usage_error("result show",
					       "unknown form '%s' (expected table, grid, columns, cpumap or drivers)",
					       arg);
		o->form = strcmp(arg, "table") ? arg : NULL;
		return 0;
	case OPT_METRIC:
		o->metric = arg;
		return 0;
	case OPT_SUBJECT:
		o->subject = arg;
		return 0;
	case OPT_ALL_ROWS:
		o->all_rows = true;
		return 0;
	case OPT_TRIALS:
		o->trials = true;
		return 0;
	case OPT_SECONDS:
		o->seconds = true;
		return 0;
	case OPT_WIDE:
		o->wide = true;
		return 0;
	}
	return CLI_EXIT_USAGE;
}

/* `result show --trials`: RESULT's trials (taken) as a table, or with --json as
 * {"run", "trials"}. */
static int show_trials(json_t *result, long long id)
{
	json_t *obj;
	int ret = 0, err;

	if (cli.json) {
		obj = json_pack("{s:I, s:O}", "run", (json_int_t)id, "trials",
				json_object_get(result, "trials") ?: json_array());
		ret = obj ? cli_print_json(obj) : cli_error("out of memory");
		json_decref(obj);
	} else if ((err = report_print_trials(result, stdout))) {
		ret = cli_error("cannot write the trials: %s", strerror(-err));
	}
	json_decref(result);
	return ret;
}

/* `result show --seconds`: run ID's per-second values of METRIC and SUBJECT (NULL: any)
 * as tables, or with --json as {"run", "plan", "series"}. */
static int show_seconds(long long id, const char *metric, const char *subject)
{
	json_t *seconds = NULL, *list = NULL, *obj = NULL;
	int ret, err;

	ret = cli_query("result_seconds", id, &seconds);
	if (ret)
		return ret;
	list = report_seconds_select(seconds, metric, subject);
	if (!list) {
		ret = cli_error("out of memory");
	} else if (!json_array_size(list) && (metric || subject)) {
		ret = cli_error("run %lld has no per-second values of metric '%s', subject '%s'",
				id, metric ? metric : "(any)", subject ? subject : "(any)");
	} else if (cli.json) {
		obj = json_pack("{s:O, s:O, s:O}", "run", json_object_get(seconds, "run"), "plan",
				json_object_get(seconds, "plan"), "series", list);
		ret = obj ? cli_print_json(obj) : cli_error("out of memory");
	} else if ((err = report_print_seconds(seconds, list, stdout))) {
		ret = cli_error("cannot write the seconds: %s", strerror(-err));
	}
	json_decref(obj);
	json_decref(list);
	json_decref(seconds);
	return ret;
}

static int do_show(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "csv", no_argument, NULL, OPT_CSV },
		{ "form", required_argument, NULL, OPT_FORM },
		{ "metric", required_argument, NULL, OPT_METRIC },
		{ "subject", required_argument, NULL, OPT_SUBJECT },
		{ "all-rows", no_argument, NULL, OPT_ALL_ROWS },
		{ "trials", no_argument, NULL, OPT_TRIALS },
		{ "seconds", no_argument, NULL, OPT_SECONDS },
		{ "wide", no_argument, NULL, OPT_WIDE },
		{ NULL, 0, NULL, 0 },
	};
	json_t *result = NULL, *report = NULL, *form = NULL, *noise = NULL;
	struct show_opts o = { .csv = false };
	bool csv;
	struct err e;
	long long id;
	int first, ret, err;

	ret = cli_parse_opts(argc, argv, "result show", "", longopts, show_opt, &o, &first);
	if (ret)
		return ret;
	if (first >= argc)
		return cli_usage_error("result show", "missing RUN");
	if (first + 1 < argc)
		return cli_usage_error("result show", "unexpected argument '%s'", argv[first + 1]);
	csv = o.csv;
	if (csv && cli.json)
		return cli_usage_error("result show", "--csv and --json exclude each other");
	if (csv && o.form)
		return cli_usage_error("result show", "--csv and --form exclude each other");
	if (!o.form && !o.seconds && (o.metric || o.subject))
		return cli_usage_error("result show", "--metric and --subject go with --form or "
				       "--seconds");
	if (o.seconds && (csv || o.form || o.all_rows || o.trials || o.wide))
		return cli_usage_error("result show", "--seconds goes with no other option but "
				       "--metric, --subject and --json");
	if (o.trials && (csv || o.form || o.all_rows || o.wide))
		return cli_usage_error("result show", "--trials goes with no other option but --json");
	ret = cli_parse_run_id(argv[first], "result show", &id);
	if (ret)
		return ret;
	if (o.seconds)
		return show_seconds(id, o.metric, o.subject);
	ret = cli_query("result_show", id, &result);
	if (ret)
		return ret;
	if (o.trials)
		return show_trials(result, id);
	if (!csv && !o.form) {
		/* the hosts' noise floors, printed beside the spreads (report_build) */
		ret = cli_noise_rows(&noise);
		if (ret)
			goto out;
		if (noise && json_object_set_new(result, "noise", noise)) {
			ret = cli_error("out of memory");
			goto out;
		}
	}
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
	if (o.form) {
		form = report_form_build(report, o.form, o.metric, o.subject, &e);
		if (!form) {
			ret = cli_error("run %lld%s%s", id,
					strncmp(e.msg, "no metric ", 10) ? ": " : " has ", e.msg);
			goto out;
		}
		if (cli.json)
			ret = cli_print_json(form);
		else if ((err = report_form_print_text(form, stdout)))
			ret = cli_error("cannot write the report: %s", strerror(-err));
		goto out;
	}
	if (cli.json) {
		ret = cli_print_json(report);
		goto out;
	}
	{
		REPORT_TEXT_OPTS(text_opts, .all_rows = o.all_rows, .wide = o.wide);

		err = report_print_text_opts(report, &text_opts, stdout);
	}
	if (err)
		ret = cli_error("cannot write the report: %s", strerror(-err));
out:
	json_decref(form);
	json_decref(report);
	json_decref(result);
	return ret;
}

static const struct cli_cmd result_cmds[] = {
	{ "show", do_show,
	  "RUN [--csv | --form FORM [--metric METRIC] [--subject SUBJECT] | --trials |"
	  " --seconds [--metric METRIC] [--subject SUBJECT]] [--all-rows] [--wide]",
	  "Print the results of run RUN as tables: per host and matrix point, one table\n"
	  "per metric, a row per variant and subject (port or program), a column per\n"
	  "repetition and mean ± spread (spread = half the range); for prog.ns_per_run\n"
	  "the total over a variant's programs. Under a host that ran tc programs, a\n"
	  "line per port says how they were attached (tcx or clsact). With --json, the\n"
	  "report object with the same numbers.\n"
	  "\n"
	  "Verdicts are marked beside the numbers (# debug-kernel, ^ generator-bound,\n"
	  "* unstable, ! errors, & disturbed, o outlier-seconds, ~ not-settled) and\n"
	  "explained under the table. A rate row that is zero at the table's precision\n"
	  "(a port that receives nothing by design) is left out and named under the\n"
	  "table, unless its variant has no other row; so are the agent's records\n"
	  "(cpu.others, rx.cpu, medians, warm-up rounds), counted under the tables.\n"
	  "The ports' driver counters (ethtool -S, nic.*) are one table per host and\n"
	  "point, printed up to 8 rows, else counted with the records; a nic.NAME the\n"
	  "plan lists has a table of its own.\n"
	  "A run with a search (plan 'search') ends with its NDR/PDR table: per job and\n"
	  "goal the lower bound, conditional throughput, upper bound, trials and trial\n"
	  "time, ^ where generator-bound.\n"
	  "\n"
	  "  --all-rows          the zero rows and the records too (--json, --csv and the\n"
	  "                      other forms always have every row)\n"
	  "  --wide              a column per repetition however many (above 5: n, min,\n"
	  "                      median and max stand for them, so a table fits 100\n"
	  "                      columns), and names over 24 columns whole (else elided\n"
	  "                      with a key under the table)\n"
	  "  --csv               one line per sample instead: run,job,host,variant,rep,\n"
	  "                      point,metric,subject,window,value,unit\n"
	  "  --form FORM         table (default), or\n"
	  "                      grid: Version | Test | a column per variant\n"
	  "                      (rates as 9.1M)\n"
	  "                      columns: a row per variant, a column per subject of METRIC\n"
	  "                      cpumap: rx on source CPU | dropped | rx on destination CPU\n"
	  "                      drivers: a row per NIC driver and variant, a column per\n"
	  "                      kernel, mean ± spread and the XDP mode used (n, g)\n"
	  "  --metric METRIC     the metric of the form (default counter.pps, else\n"
	  "                      port.rx_pps; drivers: rx.ns_per_frame, else\n"
	  "                      prog.ns_per_run)\n"
	  "  --subject SUBJECT   grid, drivers: the subject (default: the metric's only\n"
	  "                      one; drivers of prog.ns_per_run: each variant's first\n"
	  "                      XDP program)\n"
	  "  --trials            a search's trials in order instead: seq, duration, load,\n"
	  "                      offered, forwarded, loss ratio, valid (or why not)\n"
	  "  --seconds           the per-second values instead: a table per metric,\n"
	  "                      host, variant, point and subject, a row per second of\n"
	  "                      the window, a column per repetition (warm-up, drift);\n"
	  "                      --metric and --subject narrow it\n" },
	{ "compare", cli_result_compare, CLI_RESULT_COMPARE_ARGS, CLI_RESULT_COMPARE_HELP },
	{ "history", cli_result_history, CLI_RESULT_HISTORY_ARGS, CLI_RESULT_HISTORY_HELP },
	{ "export", cli_result_export, CLI_RESULT_EXPORT_ARGS, CLI_RESULT_EXPORT_HELP },
	{ "import", cli_result_import, CLI_RESULT_IMPORT_ARGS, CLI_RESULT_IMPORT_HELP },
	{ "verifier", cli_result_verifier, CLI_RESULT_VERIFIER_ARGS, CLI_RESULT_VERIFIER_HELP },
	{ NULL, NULL, NULL, NULL },
};

const struct cli_object cli_result_object = {
	.name = "result",
	.cmds = result_cmds,
	.default_cmd = NULL,
	.help = "       RUN := a run id, as 'run submit' and 'run list' print it\n",
};

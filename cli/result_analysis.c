// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* result_analysis.c - `bpflab result compare`, `history`, `export` and `import`.
 *
 * The values come from store_query_values: straight from the database file with --db,
 * else through the coordinator's `query` request, which calls the same function, so both
 * give the same JSON. lib/analysis/ files build the reports, lib/report/report_compare.c and
 * lib/report/report_history.c print them, lib/report/plot.c draws them, lib/report/export.c
 * and lib/report/import.c convert (an export of one run, checked against the hosts and
 * kernels it has, with the database's id). An import writes
 * into the --db file directly (opened read-write), else goes to the coordinator as an
 * `import` request (coordinator/query.c) that calls store_import.
 */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/runspread.h"
#include "report/export.h"
#include "plan/plan.h"
#include "report/import.h"
#include "report/plot.h"
#include "proto/proto.h"
#include "report/report_compare.h"
#include "result_analysis.h"
#include "store/store.h"
#include "base/util.h"

enum {
	OPT_PLAN = CLI_OPT_FIRST_LOCAL + 40, OPT_METRIC, OPT_BY, OPT_BASELINE, OPT_CANDIDATE,
	OPT_VARIANT, OPT_SUBJECT, OPT_WINDOW, OPT_HOST, OPT_FLAGGED, OPT_MIN_EFFECT, OPT_ALPHA,
	OPT_FORM, OPT_CSV, OPT_PLOT, OPT_FORMAT, OPT_ORIGIN, OPT_BEFORE, OPT_AFTER, OPT_UNIT,
	OPT_ALL, OPT_STRICT, OPT_KERNEL, OPT_KERNEL_VERSION, OPT_BUILD_ID, OPT_ALL_ROWS,
	OPT_RUN_SPREAD,
};

/* bpftool snapshot pairs of one import: a repetition each */
#define MAX_PAIRS 64

struct an_opts {
	const char *cmd;
	const char *plan, *metric, *by, *baseline, *candidate, *variant, *subject, *window;
	const char *host, *form, *plot, *format, *origin, *unit, *kernel, *kernel_version;
	const char *build_id;
	const char *before[MAX_PAIRS], *after[MAX_PAIRS];
	int n_before, n_after;
	bool include_flagged, all, csv, strict, all_rows;
	double min_effect, alpha;
	double run_spread;		/* --run-spread, fraction; 0: the default, < 0: none */
};

static int an_opt(int opt, const char *arg, void *ctx)
{
	struct an_opts *o = ctx;
	char *end;

	switch (opt) {
	case OPT_PLAN: o->plan = arg; return 0;
	case OPT_METRIC: o->metric = arg; return 0;
	case OPT_BY:
		if (!store_values_by_known(arg))
			return cli_usage_error(o->cmd, "cannot group by '%s' (the fields are %s)", arg,
					       store_values_by_fields());
		o->by = arg;
		return 0;
	case OPT_BASELINE: o->baseline = arg; return 0;
	case OPT_CANDIDATE: o->candidate = arg; return 0;
	case OPT_VARIANT: o->variant = arg; return 0;
	case OPT_SUBJECT: o->subject = arg; return 0;
	case OPT_WINDOW:
		if (strcmp(arg, "rate") && strcmp(arg, "cost"))
			return cli_usage_error(o->cmd, "unknown window '%s' (expected rate or cost)",
					       arg);
		o->window = arg;
		return 0;
	case OPT_HOST: o->host = arg; return 0;
	case OPT_FLAGGED: o->include_flagged = true; return 0;
	case OPT_ALL: o->all = true; return 0;
	case OPT_ALL_ROWS: o->all_rows = true; return 0;
	case OPT_STRICT: o->strict = true; return 0;
	case OPT_MIN_EFFECT:
		o->min_effect = strtod(arg, &end);
		if (*end || !(o->min_effect > 0 && o->min_effect < 1000))
			return cli_usage_error(o->cmd, "--min-effect '%s' is not a percentage "
					       "above 0", arg);
		return 0;
	case OPT_RUN_SPREAD:
		if (runspread_parse_pct(arg, &o->run_spread))
			return cli_usage_error(o->cmd, "--run-spread '%s' is not a percentage from 0 "
					       "to 1000", arg);
		return 0;
	case OPT_ALPHA:
		o->alpha = strtod(arg, &end);
		if (*end || !(o->alpha > 0 && o->alpha < 0.5))
			return cli_usage_error(o->cmd, "--alpha '%s' is not in (0, 0.5)", arg);
		return 0;
	case OPT_FORM:
		if (strcmp(arg, "table") && strcmp(arg, "patch") && strcmp(arg, "grid"))
			return cli_usage_error(o->cmd, "unknown form '%s' (expected table, patch "
					       "or grid)", arg);
		o->form = arg;
		return 0;
	case OPT_CSV: o->csv = true; return 0;
	case OPT_PLOT: o->plot = arg; return 0;
	case OPT_FORMAT:
		if (strcmp(arg, "kcidb") && strcmp(arg, "bmf"))
			return cli_usage_error(o->cmd, "unknown format '%s' (expected kcidb or bmf)",
					       arg);
		o->format = arg;
		return 0;
	case OPT_ORIGIN:
		if (!export_origin_valid(arg))
			return cli_usage_error(o->cmd, "--origin '%s' is not a KCIDB origin "
					       "(lowercase letters, digits and '_')", arg);
		o->origin = arg;
		return 0;
	case OPT_BEFORE:
	case OPT_AFTER:
		if ((opt == OPT_BEFORE ? o->n_before : o->n_after) == MAX_PAIRS)
			return cli_usage_error(o->cmd, "at most %d snapshot pairs", MAX_PAIRS);
		if (opt == OPT_BEFORE)
			o->before[o->n_before++] = arg;
		else
			o->after[o->n_after++] = arg;
		return 0;
	case OPT_KERNEL:
		if (!*arg || strlen(arg) > STORE_KERNEL_NAME_MAX)
			return cli_usage_error(o->cmd, "--kernel '%s' is not a kernel release (1 to "
					       "%d bytes)", arg, STORE_KERNEL_NAME_MAX);
		o->kernel = arg;
		return 0;
	case OPT_KERNEL_VERSION:
		if (!*arg || strlen(arg) > STORE_KERNEL_NAME_MAX)
			return cli_usage_error(o->cmd, "--kernel-version '%s' is not a kernel version "
					       "string (1 to %d bytes)", arg,
					       STORE_KERNEL_NAME_MAX);
		o->kernel_version = arg;
		return 0;
	case OPT_BUILD_ID:
		if (!export_id_valid(arg))
			return cli_usage_error(o->cmd, "--build-id '%s' is not a KCIDB id "
					       "(ORIGIN:ID, ORIGIN of [a-z0-9_])", arg);
		o->build_id = arg;
		return 0;
	case OPT_UNIT: o->unit = arg; return 0;
	}
	return CLI_EXIT_USAGE;
}

/* Each command's own options: an option of another command is unknown here (exit 2),
 * not silently ignored. */
static const struct option compare_longopts[] = {
	{ "plan", required_argument, NULL, OPT_PLAN },
	{ "by", required_argument, NULL, OPT_BY },
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "candidate", required_argument, NULL, OPT_CANDIDATE },
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "variant", required_argument, NULL, OPT_VARIANT },
	{ "subject", required_argument, NULL, OPT_SUBJECT },
	{ "window", required_argument, NULL, OPT_WINDOW },
	{ "host", required_argument, NULL, OPT_HOST },
	{ "include-flagged", no_argument, NULL, OPT_FLAGGED },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "min-effect", required_argument, NULL, OPT_MIN_EFFECT },
	{ "alpha", required_argument, NULL, OPT_ALPHA },
	{ "run-spread", required_argument, NULL, OPT_RUN_SPREAD },
	{ "form", required_argument, NULL, OPT_FORM },
	{ "csv", no_argument, NULL, OPT_CSV },
	{ "plot", required_argument, NULL, OPT_PLOT },
	{ NULL, 0, NULL, 0 },
};

static const struct option history_longopts[] = {
	{ "plan", required_argument, NULL, OPT_PLAN },
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "by", required_argument, NULL, OPT_BY },
	{ "variant", required_argument, NULL, OPT_VARIANT },
	{ "subject", required_argument, NULL, OPT_SUBJECT },
	{ "window", required_argument, NULL, OPT_WINDOW },
	{ "host", required_argument, NULL, OPT_HOST },
	{ "include-flagged", no_argument, NULL, OPT_FLAGGED },
	{ "csv", no_argument, NULL, OPT_CSV },
	{ "plot", required_argument, NULL, OPT_PLOT },
	{ NULL, 0, NULL, 0 },
};

static const struct option export_longopts[] = {
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "host", required_argument, NULL, OPT_HOST },
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "origin", required_argument, NULL, OPT_ORIGIN },
	{ "build-id", required_argument, NULL, OPT_BUILD_ID },
	{ "include-flagged", no_argument, NULL, OPT_FLAGGED },
	{ "all-rows", no_argument, NULL, OPT_ALL_ROWS },
	{ NULL, 0, NULL, 0 },
};

static const struct option import_longopts[] = {
	{ "plan", required_argument, NULL, OPT_PLAN },
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "unit", required_argument, NULL, OPT_UNIT },
	{ "host", required_argument, NULL, OPT_HOST },
	{ "before", required_argument, NULL, OPT_BEFORE },
	{ "after", required_argument, NULL, OPT_AFTER },
	{ "variant", required_argument, NULL, OPT_VARIANT },
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "kernel-version", required_argument, NULL, OPT_KERNEL_VERSION },
	{ NULL, 0, NULL, 0 },
};

/* The value rows for FILTER from --db FILE or the coordinator. Returns 0 with *ROWS and,
 * when DB_ID is not NULL, the database's id in it ("" from a coordinator that gives none),
 * or an exit status after the error. */
static int fetch_values_id(const json_t *filter, json_t **rows, char *db_id)
{
	json_t *req = NULL, *reply = NULL;
	struct store *st;
	struct err err;
	int ret;

	*rows = NULL;
	if (db_id)
		*db_id = '\0';
	if (!filter)
		return cli_error("out of memory");
	if (cli.db) {
		st = store_open(cli.db, true, &err);
		if (!st && *err.msg && strstr(err.msg, cli.db))
			return cli_error("%s", err.msg);
		if (!st)
			return cli_error("cannot open database '%s': %s", cli.db,
					 *err.msg ? err.msg : strerror(errno));
		*rows = store_query_values(st, filter);
		ret = *rows ? 0 : cli_fail(-errno, store_err(st));
		if (!ret && db_id && (ret = store_db_id(st, db_id)))
			ret = cli_fail(ret, store_err(st));
		store_close(&st);
		return ret;
	}
	req = proto_msg_new("query");
	if (!req || json_object_set(req, "filter", (json_t *)filter)) {
		json_decref(req);
		return cli_error("out of memory");
	}
	ret = cli_request_array(req, "values", "values", rows, &reply);
	json_decref(req);
	if (!ret && db_id)
		snprintf(db_id, STORE_DB_ID_LEN, "%s", jget_str(reply, "db_id", ""));
	json_decref(reply);
	return ret;
}

/* See result_analysis.h. */
int cli_fetch_values(const json_t *filter, json_t **rows)
{
	return fetch_values_id(filter, rows, NULL);
}

/* The filter of the options (strings left out when not given). */
static json_t *make_filter(const struct an_opts *o, const char *by)
{
	json_t *f = json_object();

	if (!f)
		return NULL;
	if (o->plan)
		json_object_set_new(f, "plan", json_string(o->plan));
	if (o->metric)
		json_object_set_new(f, "metric", json_string(o->metric));
	if (o->window)
		json_object_set_new(f, "window", json_string(o->window));
	if (o->variant)
		json_object_set_new(f, "variant", json_string(o->variant));
	if (o->subject)
		json_object_set_new(f, "subject", json_string(o->subject));
	if (o->host)
		json_object_set_new(f, "host", json_string(o->host));
	if (by)
		json_object_set_new(f, "by", json_string(by));
	return f;
}

static int unknown_metric(const char *plan, const char *metric);
static int compare_runs_check(const json_t *rows, long long ra, long long rb,
			      const char *metric);

int cli_result_compare(int argc, char **argv)
{
	struct an_opts o = { .cmd = "result compare" };
	json_t *filter = NULL, *rows = NULL, *report = NULL, *spread = NULL;
	const char *by, *baseline, *candidate;
	char msg[1024], a[32], b[32];
	struct err e;
	long long ra = 0, rb = 0;
	int first, ret, err;

	ret = cli_parse_opts(argc, argv, o.cmd, "", compare_longopts, an_opt, &o, &first);
	if (ret)
		return ret;
	if (o.csv && (cli.json || o.form))
		return cli_usage_error(o.cmd, "--csv excludes --json and --form");
	if (first < argc) {
		if (argc - first != 2)
			return cli_usage_error(o.cmd, "expected two runs, RUN_A RUN_B");
		if (o.by && strcmp(o.by, "run"))
			return cli_usage_error(o.cmd, "RUN_A RUN_B compares by run; --by goes "
					       "without runs");
		ret = cli_parse_run_id(argv[first], o.cmd, &ra);
		if (!ret)
			ret = cli_parse_run_id(argv[first + 1], o.cmd, &rb);
		if (ret)
			return ret;
		if (ra == rb)
			return cli_usage_error(o.cmd, "RUN_A and RUN_B are the same run");
		if (o.baseline || o.candidate)
			return cli_usage_error(o.cmd, "--baseline and --candidate go with --by; "
					       "RUN_A is the baseline, RUN_B the candidate");
		snprintf(a, sizeof(a), "%lld", ra);
		snprintf(b, sizeof(b), "%lld", rb);
		by = "run";
		baseline = a;
		candidate = b;
	} else {
		if (!o.plan || !o.by)
			return cli_usage_error(o.cmd, "give RUN_A RUN_B, or --plan and --by");
		by = o.by;
		baseline = o.baseline;
		candidate = o.candidate;
	}
	/* before anything runs: gnuplot would print the plot on our stdout instead */
	if (o.plot && plot_check_output(o.plot, &e))
		return cli_error("--plot: %s", e.msg);
	filter = make_filter(&o, by);
	if (filter && ra)
		json_object_set_new(filter, "runs", json_pack("[I, I]", (json_int_t)ra,
							      (json_int_t)rb));
	if (!filter) {
		ret = cli_error("out of memory");
		goto out;
	}
	ret = cli_fetch_values(filter, &rows);
	if (!ret && ra)
		ret = compare_runs_check(rows, ra, rb, o.metric);
	else if (!ret && !json_array_size(rows) && o.metric)
		ret = unknown_metric(o.plan, o.metric);
	if (ret)
		goto out;
	/* runs compared as wholes: their run-to-run spread (docs/analysis.md) */
	if (!strcmp(by, "run"))
		ret = cli_fetch_run_spread(filter, rows, o.include_flagged || o.all, &spread);
	if (ret)
		goto out;
	{
		ANALYSIS_OPTS(aopts, .include_flagged = o.include_flagged || o.all, .all = o.all,
			      .min_effect = o.min_effect / 100, .alpha = o.alpha, .strict = o.strict,
			      .run_spread = spread, .run_spread_assumed = o.run_spread);

		report = analysis_compare(rows, by, baseline, candidate, &aopts, &e);
	}
	if (!report) {
		ret = cli_error("%s", e.msg);
		goto out;
	}
	/* the smallest change each row's n can resolve (lib/report/report_compare.h) */
	if (report_compare_add_min_detectable(report)) {
		ret = cli_error("out of memory");
		goto out;
	}
	if (o.strict && report_compare_plans_differ(report, msg, sizeof(msg))) {
		ret = cli_error("%s; --strict refuses to compare runs of different plans", msg);
		goto out;
	}
	if (o.plot && (err = plot_compare(report, o.plot, &e))) {
		ret = cli_error("cannot plot to '%s': %s", o.plot, e.msg);
		goto out;
	}
	if (cli.json)
		ret = cli_print_json(report);
	else if (o.csv)
		ret = report_compare_print_csv(report, stdout) ? cli_error("cannot write CSV") : 0;
	else if ((err = report_compare_print_text(report, o.form, stdout)))
		ret = cli_error("cannot print the comparison: %s", strerror(-err));
out:
	json_decref(report);
	json_decref(spread);
	json_decref(rows);
	json_decref(filter);
	return ret;
}

/* When METRIC is not a metric of the values FILTER keeps (WHAT names them: "plan 'P'",
 * "run 3", "runs 1 and 3"): the one error for an unknown metric, with the metrics there
 * are (first measured first; records left out), returned as an exit status; else 0. */
static int unknown_metric_in(json_t *filter, const char *what, const char *metric)
{
	json_t *rows = NULL, *seen, *r;
	const char *m;
	char *list = NULL;
	size_t len = 0, i;
	FILE *f;
	int ret;

	if (!filter)
		return cli_error("out of memory");
	ret = cli_fetch_values(filter, &rows);
	json_decref(filter);
	if (ret)
		return ret;
	if (!metric) {
		json_decref(rows);
		return 0;
	}
	seen = json_object();
	f = open_memstream(&list, &len);
	json_array_foreach(rows, i, r) {
		m = json_string_value(json_object_get(r, "metric"));
		if (!m || !seen || !f || json_object_get(seen, m) || analysis_row_is_record(r))
			continue;
		fprintf(f, "%s%s", json_object_size(seen) ? ", " : "", m);
		json_object_set_new(seen, m, json_true());
	}
	if (!f || fclose(f) || !seen)
		ret = cli_error("out of memory");
	else if (!json_object_size(seen))
		ret = cli_error("%s %s no results", what, strncmp(what, "runs ", 5) ? "has" : "have");
	else if (!json_object_get(seen, metric))
		ret = cli_error("%s %s no metric '%s' (%s metrics: %s)", what,
				strncmp(what, "runs ", 5) ? "has" : "have", metric,
				strncmp(what, "runs ", 5) ? "its" : "their", list);
	free(list);
	json_decref(seen);
	json_decref(rows);
	return ret;
}

static int unknown_metric(const char *plan, const char *metric)
{
	char what[300];

	snprintf(what, sizeof(what), "plan '%s'", plan);
	return unknown_metric_in(json_pack("{s:s}", "plan", plan), what, metric);
}

/* Before comparing runs RA and RB whose values ROWS (with the command's filters) are:
 * the one wording of an unknown run ("unknown run 99", as `result show`) and of a
 * metric neither has (their metrics listed). Returns 0 or the exit status. */
static int compare_runs_check(const json_t *rows, long long ra, long long rb,
			      const char *metric)
{
	long long ids[2] = { ra, rb };
	const json_t *r;
	json_t *run;
	char what[64];
	size_t i;
	int k, ret;

	for (k = 0; k < 2; k++) {
		json_array_foreach(rows, i, r)
			if (json_integer_value(json_object_get(r, "run")) == ids[k])
				break;
		if (i < json_array_size(rows))
			continue;
		ret = cli_query("run_show", ids[k], &run);	/* "unknown run N" */
		json_decref(run);
		if (ret)
			return ret;
	}
	if (json_array_size(rows) || !metric)
		return 0;
	snprintf(what, sizeof(what), "runs %lld and %lld", ra, rb);
	return unknown_metric_in(json_pack("{s:[I, I]}", "runs", (json_int_t)ra, (json_int_t)rb),
				 what, metric);
}

/* BY without its "host" fields into REST (REST_LEN bytes; "kernel.release" when nothing
 * is left); whether it had one. */
static bool by_without_host(const char *by, char *rest, size_t rest_len)
{
	const char *p = by, *e;
	size_t used = 0;
	bool host = false;

	rest[0] = '\0';
	while (*p) {
		e = p + strcspn(p, ",");
		if ((size_t)(e - p) == 4 && !strncmp(p, "host", 4))
			host = true;
		else if (used < rest_len)
			used += snprintf(rest + used, rest_len - used, "%s%.*s", used ? "," : "",
					 (int)(e - p), p);
		p = *e ? e + 1 : e;
	}
	if (!*rest)
		snprintf(rest, rest_len, "kernel.release");
	return host;
}

/* The history of ROWS by BY, with its figures: a new report or NULL after printing the
 * error (*RET its exit status). */
static json_t *history_of(const json_t *rows, const char *by, const struct an_opts *o,
			  int *ret)
{
	json_t *report;
	struct err e;
	ANALYSIS_OPTS(aopts, .include_flagged = o->include_flagged);

	report = analysis_history(rows, by, &aopts, &e);
	if (!report && !json_array_size(rows) && (*ret = unknown_metric(o->plan, o->metric)))
		return NULL;
	if (!report) {
		*ret = cli_error("plan '%s', metric '%s': %s", o->plan, o->metric, e.msg);
		return NULL;
	}
	if (report_history_add_min_detectable(report)) {
		json_decref(report);
		*ret = cli_error("out of memory");
		return NULL;
	}
	return report;
}

/* `--by host[,FIELD...]`: a history per host of ROWS (first measured first), by the
 * other fields BY: "host h1" and its history, then the next; JSON {"by", "histories":
 * [{"host", ...history}]}. */
static int history_per_host(const json_t *rows, const char *by, const struct an_opts *o)
{
	json_t *hosts = json_array(), *out = json_pack("{s:s, s:[]}", "by", o->by, "histories");
	const json_t *r, *h;
	size_t i, k;
	int ret = 0, err;

	if (!hosts || !out) {
		ret = cli_error("out of memory");
		goto out;
	}
	json_array_foreach(rows, i, r) {
		json_array_foreach(hosts, k, h)
			if (json_equal(h, json_object_get(r, "host")))
				break;
		if (k == json_array_size(hosts) && json_object_get(r, "host"))
			json_array_append(hosts, json_object_get(r, "host"));
	}
	if (!json_array_size(hosts)) {
		ret = unknown_metric(o->plan, o->metric);
		if (!ret)
			ret = cli_error("plan '%s', metric '%s': no values", o->plan, o->metric);
		goto out;
	}
	json_array_foreach(hosts, k, h) {
		json_t *mine = json_array(), *report;

		json_array_foreach(rows, i, r)
			if (mine && json_equal(h, json_object_get(r, "host")))
				json_array_append((json_t *)mine, (json_t *)r);
		report = mine ? history_of(mine, by, o, &ret) : NULL;
		json_decref(mine);
		if (!report) {
			ret = ret ? ret : cli_error("out of memory");
			goto out;
		}
		json_object_set(report, "host", (json_t *)h);
		json_array_append_new(json_object_get(out, "histories"), report);
		if (cli.json)
			continue;
		printf("host %s\n\n", json_string_value(h));
		if ((err = report_history_print_text(report, stdout))) {
			ret = cli_error("cannot print the history: %s", strerror(-err));
			goto out;
		}
	}
	if (cli.json)
		ret = cli_print_json(out);
out:
	json_decref(hosts);
	json_decref(out);
	return ret;
}

int cli_result_history(int argc, char **argv)
{
	struct an_opts o = { .cmd = "result history" };
	json_t *filter = NULL, *rows = NULL, *report = NULL;
	char by[128];
	struct err e;
	int first, ret, err;
	bool per_host;

	ret = cli_parse_opts(argc, argv, o.cmd, "", history_longopts, an_opt, &o, &first);
	if (ret)
		return ret;
	if (first < argc)
		return cli_usage_error(o.cmd, "unexpected argument '%s'", argv[first]);
	if (!o.plan || !o.metric)
		return cli_usage_error(o.cmd, "--plan and --metric are needed");
	if (!o.by)
		o.by = "kernel.release";
	per_host = by_without_host(o.by, by, sizeof(by));
	if (!store_history_by_known(by))
		return cli_usage_error(o.cmd, "a history goes by host (one per host), %s, not "
				       "'%s'", store_history_by_fields(), o.by);
	if (o.csv && cli.json)
		return cli_usage_error(o.cmd, "--csv and --json exclude each other");
	if (per_host && (o.csv || o.plot))
		return cli_usage_error(o.cmd, "--by host goes without --csv and --plot (one "
				       "history per host: --host H for one)");
	if (o.plot && plot_check_output(o.plot, &e))
		return cli_error("--plot: %s", e.msg);
	filter = make_filter(&o, by);
	if (!filter)
		return cli_error("out of memory");
	ret = cli_fetch_values(filter, &rows);
	if (ret)
		goto out;
	if (per_host) {
		ret = history_per_host(rows, by, &o);
		goto out;
	}
	report = history_of(rows, by, &o, &ret);
	if (!report)
		goto out;
	if (o.plot && (err = plot_history(report, o.plot, &e))) {
		ret = cli_error("cannot plot to '%s': %s", o.plot, e.msg);
		goto out;
	}
	if (cli.json)
		ret = cli_print_json(report);
	else if (o.csv)
		ret = report_history_print_csv(report, stdout) ? cli_error("cannot write CSV") : 0;
	else if ((err = report_history_print_text(report, stdout)))
		ret = cli_error("cannot print the history: %s", strerror(-err));
out:
	json_decref(report);
	json_decref(rows);
	json_decref(filter);
	return ret;
}

int cli_result_export(int argc, char **argv)
{
	struct an_opts o = { .cmd = "result export" };
	json_t *filter = NULL, *rows = NULL, *out = NULL;
	char db_id[STORE_DB_ID_LEN];
	struct err e;
	size_t n_flagged, n_zero = 0;
	long long run;
	int first, ret;

	ret = cli_parse_opts(argc, argv, o.cmd, "", export_longopts, an_opt, &o, &first);
	if (ret)
		return ret;
	if (argc - first != 1)
		return cli_usage_error(o.cmd, "expected one RUN");
	if (!o.format)
		return cli_usage_error(o.cmd, "--format kcidb or --format bmf is needed");
	if ((o.origin || o.build_id) && strcmp(o.format, "kcidb"))
		return cli_usage_error(o.cmd, "--origin and --build-id go with --format kcidb");
	ret = cli_parse_run_id(argv[first], o.cmd, &run);
	if (ret)
		return ret;
	filter = json_pack("{s:[I]}", "runs", (json_int_t)run);
	if (!filter)
		return cli_error("out of memory");
	ret = fetch_values_id(filter, &rows, db_id);
	if (!ret && !json_array_size(rows)) {
		json_t *r = NULL;

		ret = cli_query("run_show", run, &r);	/* "unknown run N", as everywhere */
		json_decref(r);
	}
	if (ret)
		goto out;
	if (!strcmp(o.format, "kcidb") && !*db_id) {
		ret = cli_error("the coordinator at '%s' gave no database id (it is older than "
				"this bpflab)", cli.coordinator);
		goto out;
	}
	/* one code path with the dashboard's download (lib/report/export_run.c) */
	out = export_run(rows, run, &(struct export_run_opts){
		.format = o.format, .host = o.host,
		.kernel = o.kernel, .include_flagged = o.include_flagged, .origin = o.origin,
		.db_id = db_id, .build_id = o.build_id, .all_rows = o.all_rows,
		.kernel_cache = export_kernel_cache(), .n_zero = &n_zero },
		&n_flagged, &e);
	/* the formats have no room for it: say so on stderr, JSON or not */
	if (out && n_flagged)
		fprintf(stderr, "bpflab: result export: left out %zu flagged result%s of run %lld "
			"(--include-flagged to include them)\n", n_flagged,
			n_flagged == 1 ? "" : "s", run);
	if (out && n_zero)
		fprintf(stderr, "bpflab: result export: left out %zu rate%s of run %lld that are "
			"zero by design (--all-rows to include them)\n", n_zero,
			n_zero == 1 ? "" : "s", run);
	ret = out ? cli_print_json(out) : cli_error("%s", e.msg);
out:
	json_decref(out);
	json_decref(rows);
	json_decref(filter);
	return ret;
}

/* Read and parse JSON file PATH (a regular file of UTF-8 text without NUL bytes). */
static json_t *load_json(const char *path, struct err *err)
{
	json_error_t e;
	json_t *j = NULL;
	char *text = NULL;
	size_t n = 0;
	int ret = util_read_file(path, 64u << 20, &text, &n);

	if (ret)
		err_set(err, "'%s': %s", path, util_strerror(ret));
	else if (!util_text_check(text, n, path, err) &&
		 !(j = json_loadb(text, n, JSON_DECODE_ANY, &e)))
		err_at(err, path, e.line, e.column, "%s", e.text);
	free(text);
	return j;
}

/* The import object of O's bpftool snapshot pairs into *IMP: pair I is repetition I + 1
 * of the variant. Returns 0, or an exit status after the error. */
static int import_pairs(const struct an_opts *o, json_t **imp)
{
	json_t *before = NULL, *after = NULL, *one = NULL, *job;
	char source[2048];
	struct err e;
	int i, ret = 0;

	*imp = NULL;
	for (i = 0; !ret && i < o->n_before; i++) {
		before = load_json(o->before[i], &e);
		after = before ? load_json(o->after[i], &e) : NULL;
		snprintf(source, sizeof(source), "%s..%s%s", o->before[i], o->after[i],
			 i == 0 && o->n_before > 1 ? " and more pairs" : "");
		one = after ? import_bpftool(before, after, o->plan, o->variant, source, &e) :
			      NULL;
		job = json_array_get(json_object_get(one, "jobs"), 0);
		if (!after)
			ret = cli_error("cannot read snapshot: %s", e.msg);
		else if (!one)
			ret = cli_error("%s", e.msg);
		else if (json_object_set_new(job, "rep", json_integer(i + 1)) ||
			 (*imp && json_array_append(json_object_get(*imp, "jobs"), job)))
			ret = cli_error("out of memory");
		else if (!*imp)
			*imp = json_incref(one);
		json_decref(before);
		json_decref(after);
		json_decref(one);
		before = after = one = NULL;
	}
	if (ret) {
		json_decref(*imp);
		*imp = NULL;
	}
	return ret;
}

int cli_result_import(int argc, char **argv)
{
	struct an_opts o = { .cmd = "result import" };
	json_t *imp = NULL, *req = NULL, *reply = NULL;
	struct err msg;
	char *text = NULL;
	struct err e;
	int64_t run_id = 0;
	int first, ret, err;

	ret = cli_parse_opts(argc, argv, o.cmd, "", import_longopts, an_opt, &o, &first);
	if (ret)
		return ret;
	if (!o.plan)
		return cli_usage_error(o.cmd, "--plan NAME is needed");
	/* not echoed: a name that fails may be long, markup or not UTF-8 */
	if (!plan_name_valid(o.plan) || (o.host && !plan_name_valid(o.host)))
		return cli_usage_error(o.cmd, "--%s: expected a name of 1 to %d letters, digits, "
				       "'.', '_' and '-'", plan_name_valid(o.plan) ? "host" :
				       "plan", PLAN_MAX_NAME);
	if (o.kernel_version && !o.kernel)
		return cli_usage_error(o.cmd, "--kernel-version goes with --kernel");
	if (o.n_before || o.n_after) {
		if (!o.n_before || !o.n_after || !o.variant || first < argc)
			return cli_usage_error(o.cmd, "bpftool snapshots need --before, --after "
					       "and --variant, and no FILE");
		if (o.n_before != o.n_after)
			return cli_usage_error(o.cmd, "%d --before for %d --after: give them in "
					       "pairs", o.n_before, o.n_after);
		if (o.metric || o.unit)
			return cli_usage_error(o.cmd, "--metric and --unit go with a CSV file "
					       "(snapshots give prog.ns_per_run in ns)");
		ret = import_pairs(&o, &imp);
		if (ret)
			goto out;
	} else {
		size_t len;

		if (argc - first != 1)
			return cli_usage_error(o.cmd, "expected one FILE (CSV), or --before and "
					       "--after");
		if (o.variant)
			return cli_usage_error(o.cmd, "--variant goes with --before and --after "
					       "(a CSV names the variant on each line)");
		err = util_read_file(argv[first], 64u << 20, &text, &len);
		if (err) {
			ret = cli_error("cannot read '%s': %s", argv[first], util_strerror(err));
			goto out;
		}
		imp = import_csv(text, len, o.plan, o.metric, o.unit, argv[first], &e);
	}
	if (!imp) {
		ret = cli_error("%s", e.msg);
		goto out;
	}
	if (o.host)
		json_object_set_new(imp, "host", json_string(o.host));
	if (o.kernel && json_object_set_new(imp, "kernel", json_pack("{s:s}", "release",
									    o.kernel)))
		ret = cli_error("out of memory");
	if (!ret && o.kernel_version)
		json_object_set_new(json_object_get(imp, "kernel"), "version",
				    json_string(o.kernel_version));
	if (ret)
		goto out;
	if (cli.db) {
		struct store *st = store_open(cli.db, false, &msg);

		if (!st) {
			ret = cli_error("%s", msg.msg);
			goto out;
		}
		err = store_import(st, imp, util_wall_ms(), &run_id);
		if (err)
			ret = cli_fail(err, store_err(st));
		store_close(&st);
		if (err)
			goto out;
	} else {
		req = proto_msg_new("import");
		if (!req || json_object_set(req, "import", imp)) {
			ret = cli_error("out of memory");
			goto out;
		}
		/* bpflabd writes an import in parts between its other work: a second more
		 * to wait per CLI_IMPORT_JOBS_PER_S jobs (160,000 jobs: 3 s on a busy
		 * 2-CPU machine, bench/README.md "big runs") */
		cli.timeout_s += (int)(json_array_size(json_object_get(imp, "jobs")) /
				       CLI_IMPORT_JOBS_PER_S);
		ret = cli_request(req, "imported", &reply);
		if (ret)
			goto out;
		run_id = json_integer_value(json_object_get(reply, "run"));
	}
	if (cli.json) {
		json_t *r = json_pack("{s:I, s:I}", "run", (json_int_t)run_id, "jobs",
				      (json_int_t)json_array_size(json_object_get(imp, "jobs")));

		ret = r ? cli_print_json(r) : cli_error("out of memory");
		json_decref(r);
	} else {
		printf("imported run %lld: %zu job%s of plan '%s'\n", (long long)run_id,
		       json_array_size(json_object_get(imp, "jobs")),
		       json_array_size(json_object_get(imp, "jobs")) == 1 ? "" : "s", o.plan);
	}
out:
	free(text);
	json_decref(imp);
	json_decref(req);
	json_decref(reply);
	return ret;
}

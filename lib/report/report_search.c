// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* report_search.c - the NDR/PDR table of `result show` (issue 13) and its trials.
 *
 * A job that ran an MLRsearch (agent/job_search.c, docs/agent.md "Search") stores per
 * goal GOAL.lower, GOAL.conditional and GOAL.upper, and search.trials, search.time_s,
 * search.ceiling_pps (after generator-bound trials) as whole-window samples; its trials
 * come as the result's "trials" rows (store_query_result). report_search_add() gathers
 * the former into the report's "searches" (a row per job and subject, its goals in the
 * order the agent recorded them); report_search_print() prints them as one table under
 * the per-metric ones; report_print_trials() prints the trials. A goal without an upper
 * bound in a search with a ceiling is generator-bound: the generator could not offer the
 * loads above the ceiling (mlrsearch_report_invalid), so the goal's lower bound is the
 * highest load it reached without too much loss, not the device's limit.
 *
 * Called by report_build.c and report_text.c (report_int.h) and cli/result.c (report.h);
 * pure functions over jansson values.
 */
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"
#include "base/texttable.h"
#include "base/util.h"

static const char *const goal_parts[] = { "lower", "conditional", "upper" };

/* Which part of a goal METRIC ("ndr.lower") names, into *PART (index in goal_parts) and
 * the goal's name into NAME (upper case, LEN bytes); false when it names none. */
static bool goal_metric(const char *metric, size_t *part, char *name, size_t len)
{
	const char *dot = strrchr(metric, '.');
	size_t n, i;

	if (!dot || dot == metric || !strncmp(metric, "search.", 7) ||
	    !strncmp(metric, "trial.", 6))
		return false;
	for (i = 0; i < ARRAY_SIZE(goal_parts); i++)
		if (!strcmp(dot + 1, goal_parts[i]))
			break;
	n = (size_t)(dot - metric);
	if (i == ARRAY_SIZE(goal_parts) || n >= len)
		return false;
	for (size_t k = 0; k < n; k++)
		name[k] = (char)(metric[k] >= 'a' && metric[k] <= 'z' ? metric[k] - 32 : metric[k]);
	name[n] = '\0';
	*part = i;
	return true;
}

/* The search row of sample S's job and subject in SEARCHES, made when new; NULL on
 * ENOMEM. */
static json_t *search_row(json_t *searches, const json_t *s)
{
	json_t *row;
	size_t i;

	json_array_foreach(searches, i, row)
		if (json_equal(json_object_get(row, "job"), json_object_get(s, "job")) &&
		    !strcmp_null(jget_str(row, "subject", NULL), jget_str(s, "subject", NULL)))
			return row;
	row = json_pack("{s:O?, s:O?, s:O?, s:O?, s:O?, s:O?, s:[]}",
			"job", json_object_get(s, "job"), "host", json_object_get(s, "host"),
			"variant", json_object_get(s, "variant"), "rep", json_object_get(s, "rep"),
			"point", json_object_get(s, "point"), "subject", json_object_get(s, "subject"),
			"goals");
	if (!row || json_array_append_new(searches, row))
		return NULL;
	return row;
}

/* Goal NAME of ROW, made when new; NULL on ENOMEM. */
static json_t *goal_of(json_t *row, const char *name)
{
	json_t *goals = json_object_get(row, "goals"), *g;
	size_t i;

	json_array_foreach(goals, i, g)
		if (!strcmp(jget_str(g, "goal", NULL), name))
			return g;
	g = json_pack("{s:s}", "goal", name);
	if (!g || json_array_append_new(goals, g))
		return NULL;
	return g;
}

/* The samples of a search job: goal parts, search.*. */
static int file_search_sample(json_t *searches, const json_t *s)
{
	const char *metric = jget_str(s, "metric", NULL);
	const json_t *v = json_object_get(s, "value");
	json_t *row, *g;
	char name[64];
	size_t part;

	if (!json_is_number(v) || strcmp_null(jget_str(s, "window", NULL), "rate"))
		return 0;
	if (!strcmp(metric, "search.trials") || !strcmp(metric, "search.time_s") ||
	    !strcmp(metric, "search.ceiling_pps")) {
		row = search_row(searches, s);
		return row && !json_object_set(row, metric + 7, (json_t *)v) ? 0 : -ENOMEM;
	}
	if (!goal_metric(metric, &part, name, sizeof(name)) || strcmp_null(jget_str(s, "unit", NULL), "pps"))
		return 0;
	row = search_row(searches, s);
	g = row ? goal_of(row, name) : NULL;
	return g && !json_object_set(g, goal_parts[part], (json_t *)v) ? 0 : -ENOMEM;
}

int report_search_add(json_t *report, const json_t *result)
{
	json_t *searches = json_array(), *row, *s, *g;
	size_t i, j;
	int err = 0;

	if (!searches)
		return -ENOMEM;
	json_array_foreach(json_object_get(result, "samples"), i, s)
		if (jget_str(s, "metric", NULL) && (err = file_search_sample(searches, s)))
			goto out;
	/* a row is a search only with its search.trials (GOAL.lower alone may be anything),
	 * and goal results or a ceiling (none: no trial below the ceiling was valid) */
	for (i = json_array_size(searches); i-- > 0;) {
		row = json_array_get(searches, i);
		if (!json_object_get(row, "trials") ||
		    (!json_array_size(json_object_get(row, "goals")) &&
		     !json_object_get(row, "ceiling_pps"))) {
			json_array_remove(searches, i);
			continue;
		}
		json_array_foreach(json_object_get(row, "goals"), j, g)
			if (json_object_set_new(g, "generator_bound",
						json_boolean(json_object_get(row, "ceiling_pps") &&
							     !json_object_get(g, "upper")))) {
				err = -ENOMEM;
				goto out;
			}
	}
	if (json_array_size(searches) && json_object_set(report, "searches", searches))
		err = -ENOMEM;
out:
	json_decref(searches);
	return err;
}

/* V (a number or NULL) as F formats it, with MARK after it when set. */
static void num_cell(char *buf, size_t len, const json_t *v, const struct num_fmt *f, char mark)
{
	report_fmt_num(buf, len, v, f);
	if (mark && json_is_number(v))
		snprintf(buf + strlen(buf), len - strlen(buf), "%c", mark);
}

/* The largest lower, conditional or upper bound of SEARCHES, for the rate format. */
static double searches_max(const json_t *searches)
{
	const json_t *row, *g;
	double m = 0;
	size_t i, j, k;

	json_array_foreach(searches, i, row)
		json_array_foreach(json_object_get(row, "goals"), j, g)
			for (k = 0; k < ARRAY_SIZE(goal_parts); k++)
				m = fmax(m, fabs(json_number_value(json_object_get(g, goal_parts[k]))));
	return m;
}

int report_search_print(const json_t *report, FILE *out)
{
	static const char *const head[] = { "host", "point", "variant", "rep", "goal", ">lower",
					    ">conditional", ">upper", "trials", "time" };
	const json_t *searches = json_object_get(report, "searches"), *row, *g;
	struct tt_table t = { 0 };
	struct num_fmt f;
	bool bound = false;
	size_t i, j;
	int err = 0;

	if (!json_array_size(searches))
		return 0;
	if (tt_table_init(&t, ARRAY_SIZE(head), head))
		return -ENOMEM;
	t.trim = true;
	f = report_fmt_for(NUM_RATE, searches_max(searches));
	json_array_foreach(searches, i, row) {
		char *point = report_point_text(json_object_get(row, "point"));
		char rep[24], trials[24], time[32];

		if (!point) {
			err = -ENOMEM;
			break;
		}
		snprintf(rep, sizeof(rep), "%lld", (long long)json_integer_value(json_object_get(row, "rep")));
		snprintf(trials, sizeof(trials), "%.0f", json_number_value(json_object_get(row, "trials")));
		snprintf(time, sizeof(time), "%.2f s", json_number_value(json_object_get(row, "time_s")));
		if (!json_array_size(json_object_get(row, "goals"))) {
			/* generator-bound before any valid trial: no goal has a bound */
			const char *line[ARRAY_SIZE(head)] = {
				jget_str(row, "host", NULL), *point ? point : "-", jget_str(row, "variant", NULL),
				rep, "-", "-^", "-", "-", trials, time,
			};

			bound = true;
			err = tt_table_add(&t, line) ? -ENOMEM : 0;
		}
		json_array_foreach(json_object_get(row, "goals"), j, g) {
			char cells[3][CELL];
			bool gb = json_is_true(json_object_get(g, "generator_bound"));
			const char *line[ARRAY_SIZE(head)] = {
				j ? "" : jget_str(row, "host", NULL), j ? "" : (*point ? point : "-"),
				j ? "" : jget_str(row, "variant", NULL), j ? "" : rep, jget_str(g, "goal", NULL),
				cells[0], cells[1], cells[2], j ? "" : trials, j ? "" : time,
			};

			num_cell(cells[0], CELL, json_object_get(g, "lower"), &f, gb ? '^' : 0);
			num_cell(cells[1], CELL, json_object_get(g, "conditional"), &f, 0);
			num_cell(cells[2], CELL, json_object_get(g, "upper"), &f, 0);
			bound |= gb;
			if (tt_table_add(&t, line)) {
				err = -ENOMEM;
				break;
			}
		}
		free(point);
		if (err)
			break;
	}
	if (!err) {
		fputs("\nNDR/PDR (MLRsearch, RFC 9971): frames/s; the trials: result show --trials\n", out);
		tt_table_print(&t, out);
		if (bound)
			fputs("^ generator-bound: the generator could not offer the loads above this lower bound (no upper bound; --trials shows the invalid trials)\n",
			      out);
	}
	tt_table_release(&t);
	return err;
}

int report_print_trials(const json_t *result, FILE *out)
{
	static const char *const head[] = { "host", "point", "variant", "rep", ">seq",
					    ">duration", ">load", ">offered", ">forwarded",
					    ">loss", "valid" };
	const json_t *trials = json_object_get(result, "trials"), *tr;
	struct tt_table t = { 0 };
	size_t i;
	int err = 0;

	report_print_run_line(result, out);
	if (!json_array_size(trials)) {
		fputs("no trials (the run has no search)\n", out);
		return ferror(out) ? -EIO : 0;
	}
	if (tt_table_init(&t, ARRAY_SIZE(head), head))
		return -ENOMEM;
	t.trim = true;
	json_array_foreach(trials, i, tr) {
		char *point = report_point_text(json_object_get(tr, "point"));
		char c[7][CELL], why[160];
		const json_t *valid = json_object_get(tr, "valid");
		double load = json_number_value(json_object_get(tr, "load_pps"));
		double offered = json_number_value(json_object_get(tr, "offered_pps"));
		const char *line[ARRAY_SIZE(head)];

		if (!point) {
			err = -ENOMEM;
			break;
		}
		snprintf(c[0], CELL, "%lld", (long long)json_integer_value(json_object_get(tr, "rep")));
		snprintf(c[1], CELL, "%lld", (long long)json_integer_value(json_object_get(tr, "seq")));
		snprintf(c[2], CELL, "%.3f s", json_number_value(json_object_get(tr, "duration_s")));
		snprintf(c[3], CELL, "%.0f", load);
		snprintf(c[4], CELL, "%.0f", offered);
		if (json_is_number(json_object_get(tr, "forwarded_pps")))
			snprintf(c[5], CELL, "%.0f",
				 json_number_value(json_object_get(tr, "forwarded_pps")));
		else
			snprintf(c[5], CELL, "-");
		snprintf(c[6], CELL, "%.4f %%",
			 100 * json_number_value(json_object_get(tr, "loss_ratio")));
		if (!valid)
			snprintf(why, sizeof(why), "-");
		else if (json_integer_value(valid))
			snprintf(why, sizeof(why), "yes");
		else
			snprintf(why, sizeof(why), "no: generator-bound: offered %.0f of %.0f pps",
				 offered, load);
		line[0] = jget_str(tr, "host", NULL);
		line[1] = *point ? point : "-";
		line[2] = jget_str(tr, "variant", NULL);
		line[3] = c[0];
		for (size_t k = 1; k < 7; k++)
			line[3 + k] = c[k];
		line[10] = why;
		err = tt_table_add(&t, line) ? -ENOMEM : 0;
		free(point);
		if (err)
			break;
	}
	if (!err)
		tt_table_print(&t, out);
	tt_table_release(&t);
	return err ?: (ferror(out) ? -EIO : 0);
}

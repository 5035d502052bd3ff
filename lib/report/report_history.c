// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* report_history.c - the history report of lib/analysis/analysis_history.c (analysis_history) as
 * `bpflab result history` prints it (report_compare.h): per series a table of its
 * groups with n, mean ± stddev, spread and delta % from the first, its change points and
 * the smallest change two of its groups can resolve; or one CSV line per group.
 */
#include "report/report_compare.h"
#include "report/report.h"
#include "report/report_int.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_compare_int.h"
#include "analysis/stats.h"
#include "base/texttable.h"
#include "base/util.h"

/* The figures of a history series S: its CV (pooled stddev of the groups with two
 * values or more / |mean of the first of them|, in %), the smallest such group's n and
 * the change two groups of that n can resolve (in %); NAN when fewer than two groups
 * have two values. */
static double series_mde_pct(const json_t *s, double *cv_pct, long long *n_min)
{
	double ss = 0, df = 0, base = NAN, cv;
	const json_t *p;
	size_t i;
	int groups = 0;

	*cv_pct = NAN;
	*n_min = 0;
	json_array_foreach(json_object_get(s, "points"), i, p) {
		long long n = json_integer_value(json_object_get(p, "n"));
		double sd = json_number_value(json_object_get(p, "stddev"));

		if (n < 2 || !json_is_number(json_object_get(p, "stddev")) || !isfinite(sd))
			continue;
		if (!groups++)
			base = json_number_value(json_object_get(p, "mean"));
		ss += (double)(n - 1) * sd * sd;
		df += (double)(n - 1);
		if (!*n_min || n < *n_min)
			*n_min = n;
	}
	if (groups < 2 || !(fabs(base) > 0) || !(df > 0))
		return NAN;
	cv = sqrt(ss / df) / fabs(base);
	*cv_pct = 100 * cv;
	return 100 * stats_min_detectable_effect((size_t)*n_min, (size_t)*n_min, cv, 0.05,
						 MDE_POWER);
}

int report_history_add_min_detectable(json_t *report)
{
	double cv, mde;
	long long n;
	json_t *s;
	size_t i;

	json_array_foreach(json_object_get(report, "series"), i, s) {
		mde = series_mde_pct(s, &cv, &n);
		if (isfinite(mde) &&
		    (json_object_set_new(s, "min_detectable_pct", json_real(mde)) ||
		     json_object_set_new(s, "cv_pct", json_real(cv)) ||
		     json_object_set_new(s, "min_detectable_n", json_integer(n))))
			return -ENOMEM;
	}
	return 0;
}

/* The table of series S: a row per group with n, mean ± stddev, spread and the delta
 * from the first group. Returns 0 or -ENOMEM. */
static int print_series_table(const json_t *report, const json_t *s, FILE *out)
{
	const char *head[] = { json_string_value(json_object_get(report, "by")) ?
			       json_string_value(json_object_get(report, "by")) : "group",
			       ">n", ">mean ± stddev", ">spread", ">delta" };
	char m[96], sp[24], d[24], n[16];
	const char *cells[5];
	struct num_fmt f;
	struct tt_table t;
	json_t *p;
	size_t j;
	int err;

	err = tt_table_init(&t, 5, head);
	json_array_foreach(json_object_get(s, "points"), j, p) {
		if (err)
			break;
		snprintf(n, sizeof(n), "%lld", (long long)json_integer_value(json_object_get(p, "n")));
		report_num_pm(jget_num(p, "mean", NAN), jget_num(p, "stddev", NAN), m, sizeof(m));
		/* the spread in the mean's format, as the stddev */
		f = report_fmt_si(fabs(jget_num(p, "spread", NAN)) > fabs(jget_num(p, "mean", NAN)) ?
				  jget_num(p, "spread", NAN) : jget_num(p, "mean", NAN));
		report_fmt_show_spread(&f, fabs(jget_num(p, "spread", NAN)));
		cells[0] = jget_str(p, "group", "");
		cells[1] = n;
		cells[2] = m;
		cells[3] = report_num_fmt(jget_num(p, "spread", NAN), &f, sp, sizeof(sp));
		cells[4] = j ? report_compare_pct(jget_num(p, "delta_pct", NAN), d, sizeof(d)) : "base";
		err = tt_table_add(&t, cells);
	}
	if (!err)
		tt_table_print(&t, out);
	tt_table_release(&t);
	return err;
}

/* The change points of series S, a line each, or "no change point". */
static void print_change_points(const json_t *s, FILE *out)
{
	json_t *c;
	size_t j;

	if (!json_array_size(json_object_get(s, "changes")))
		fprintf(out, "no change point\n");
	json_array_foreach(json_object_get(s, "changes"), j, c) {
		if (json_is_true(json_object_get(c, "within")))
			fprintf(out, "change point within %s (value %lld), p = %.3g\n",
				jget_str(c, "before", ""),
				(long long)json_integer_value(json_object_get(c, "index")),
				jget_num(c, "p", NAN));
		else
			fprintf(out, "change point between %s and %s, p = %.3g\n",
				jget_str(c, "before", ""), jget_str(c, "after", ""), jget_num(c, "p", NAN));
	}
}

/* Whether group G pools what its name does not say: several hosts, or several kernel
 * builds when the history is not by build (BY); the JSON's groups[].hosts and builds
 * say the same. */
static bool group_pools(const json_t *g, const char *by)
{
	return json_array_size(json_object_get(g, "hosts")) > 1 ||
	       (json_array_size(json_object_get(g, "builds")) > 1 && !strstr(by, "kernel.build"));
}

/* Under the series: a note per group that pools several hosts or builds. */
static void print_pooled(const json_t *report, FILE *out)
{
	const char *by = jget_str(report, "by", "");
	char h[256], b[512], text[1024];
	const json_t *g;
	size_t i, nh, nb;

	json_array_foreach(json_object_get(report, "groups"), i, g) {
		if (!group_pools(g, by))
			continue;
		nh = json_array_size(json_object_get(g, "hosts"));
		nb = json_array_size(json_object_get(g, "builds"));
		snprintf(text, sizeof(text), "note: %s '%s' holds values of %zu host%s (%s) and "
			 "%zu kernel build%s (%s); its figures pool them (--by host gives a "
			 "history per host, --host keeps one)", by, jget_str(g, "group", ""), nh,
			 nh == 1 ? "" : "s", report_list_text(json_object_get(g, "hosts"), h, sizeof(h)),
			 nb, nb == 1 ? "" : "s", report_list_text(json_object_get(g, "builds"), b,
							     sizeof(b)));
		tt_wrap(out, text, REPORT_NOTE_COLS, "  ");
	}
}

int report_history_print_text(const json_t *report, FILE *out)
{
	json_t *s;
	double cv, mde;
	long long nmin;
	size_t i;
	int err = 0;

	json_array_foreach(json_object_get(report, "series"), i, s) {
		fprintf(out, "%s%s%s%s%s%s%s (%s; %s)\n", jget_str(s, "metric", ""),
			*jget_str(s, "variant", "") ? " " : "", jget_str(s, "variant", ""),
			*jget_str(s, "subject", "") ? " " : "", jget_str(s, "subject", ""),
			*jget_str(s, "point", "") ? " @ " : "", jget_str(s, "point", ""),
			*jget_str(s, "unit", "") ? jget_str(s, "unit", "") : "no unit",
			report_compare_kind_text(jget_str(s, "kind", "")));
		if ((err = print_series_table(report, s, out)))
			break;
		print_change_points(s, out);
		mde = series_mde_pct(s, &cv, &nmin);
		if (isfinite(mde))
			report_compare_mde_sentence(out, "", nmin, nmin, cv, mde,
						    "\n  between two groups");
		fputc('\n', out);
	}
	if (!err)
		print_pooled(report, out);
	if (!err)
		report_compare_print_left_out(json_object_get(report, "excluded"), out);
	if (!err && (fflush(out) || ferror(out)))
		err = -EIO;
	return err;
}

int report_history_print_csv(const json_t *report, FILE *out)
{
	static const struct report_csv_col cols[] = {
		{ false, "group", CSV_STR }, { true, "metric", CSV_STR },
		{ true, "point", CSV_STR }, { true, "variant", CSV_STR },
		{ true, "subject", CSV_STR }, { true, "unit", CSV_STR }, { false, "n", CSV_INT },
		{ false, "mean", CSV_NUM }, { false, "stddev", CSV_NUM },
		{ false, "spread", CSV_NUM }, { false, "min", CSV_NUM }, { false, "max", CSV_NUM },
		{ false, "delta_pct", CSV_NUM },
	};

	return report_compare_csv(out, "group,metric,point,variant,subject,unit,n,mean,stddev,"
				  "spread,min,max,delta_pct\n",
				  json_object_get(report, "series"), "points", cols,
				  ARRAY_SIZE(cols));
}

// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* report_compare.c - see report_compare.h. Prints compare reports (text forms table,
 * patch and grid; CSV) and holds the helpers report_history.c shares
 * (report_compare_int.h): numbers, percents, the minimum-detectable-change sentence,
 * the left-out lines and the table-driven CSV writer.
 *
 * A table of lib/base/texttable.h collects the cells of one section, measures the columns
 * and prints them with two spaces between (" | " for the grid, which is how the
 * Version x Test tables are posted). Called by cli/result_analysis.c and the tests.
 */
#include "report/report_compare.h"
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_compare_int.h"
#include "analysis/analysis.h"
#include "analysis/stats.h"
#include "base/texttable.h"
#include "base/util.h"

#define GRID_MAX_COLS 16		/* Version, Test and 14 variants */

const char *report_compare_num(double v, char *out, size_t len)
{
	return report_num(v, out, len);
}

const char *report_compare_pct(double v, char *out, size_t len)
{
	return report_pct(v, out, len);
}

/* "11.52M ± 0.35M" from the row's mean and stddev of SIDE ('a' or 'b'). */
static const char *mean_sd(const json_t *row, char side, char *out, size_t len)
{
	char km[16] = "mean_a", ks[16] = "stddev_a";

	km[5] = ks[7] = side;
	return report_num_pm(jget_num(row, km, NAN), jget_num(row, ks, NAN), out, len);
}

/* Was ROW compared exactly: both sides without variance (QEMU icount), no test. */
static bool row_exact(const json_t *row)
{
	return json_is_true(json_object_get(row, "exact"));
}

/* SAME, DIFFERENT worse, UNKNOWN +3 reps; "(exact)" after an exact comparison, where
 * the texts of a test would give its p. */
static const char *verdict_text(const json_t *row, char *out, size_t len)
{
	const char *v = jget_str(row, "verdict", ""), *c = jget_str(row, "change", "");
	long long more = json_integer_value(json_object_get(row, "more_reps"));

	if (row_exact(row))
		snprintf(out, len, "%s%s%s (exact)", v, *c ? " " : "", c);
	else if (!strcmp(v, "DIFFERENT") && *c)
		snprintf(out, len, "%s %s", v, c);
	else if (!strcmp(v, "UNKNOWN") && more)
		snprintf(out, len, "%s %s%lld rep%s", v,
			 json_is_true(json_object_get(row, "more_reps_capped")) ? ">" : "+", more,
			 more == 1 ? "" : "s");
	else
		snprintf(out, len, "%s", v);
	return out;
}

const char *report_compare_kind_text(const char *kind)
{
	if (!strcmp(kind, "rate"))
		return "mean, higher is better";
	if (!strcmp(kind, "time"))
		return "arithmetic mean, lower is better";
	return "arithmetic mean";
}

/* --- the smallest change the data can resolve (docs/analysis.md, "Noise floor") --- */

/* Pooled stddev of two sides, sqrt(((n_a - 1) s_a^2 + (n_b - 1) s_b^2) / (n_a + n_b - 2));
 * NAN below two values on a side. */
static double pooled_sd(double n_a, double sd_a, double n_b, double sd_b)
{
	if (n_a < 2 || n_b < 2 || !isfinite(sd_a) || !isfinite(sd_b))
		return NAN;
	return sqrt(((n_a - 1) * sd_a * sd_a + (n_b - 1) * sd_b * sd_b) / (n_a + n_b - 2));
}

/* Whether ROW was decided by the rank test at sizes where it cannot reach ALPHA at all
 * (3 + 3 values: its smallest p is 0.1): no change, however large, could be shown, and
 * the normal formula's figure would promise one. */
static bool row_rank_test_blind(const json_t *row, double alpha)
{
	json_int_t n_a = json_integer_value(json_object_get(row, "n_a"));
	json_int_t n_b = json_integer_value(json_object_get(row, "n_b"));

	return !strcmp(jget_str(row, "test", ""), "mann-whitney") && n_a > 0 && n_b > 0 &&
	       stats_mw_min_p((size_t)n_a, (size_t)n_b) >= (alpha > 0 && alpha < 1 ? alpha : 0.05);
}

/* The minimum detectable change of ROW in % of the baseline mean, with its CV (pooled
 * stddev / |baseline mean|, in %) in *CV_PCT; NAN when the row cannot say (fewer than
 * two values a side, a zero baseline, an exact comparison). */
static double row_mde_pct(const json_t *row, double alpha, double *cv_pct)
{
	double n_a = (double)json_integer_value(json_object_get(row, "n_a"));
	double n_b = (double)json_integer_value(json_object_get(row, "n_b"));
	double mean_a = json_number_value(json_object_get(row, "mean_a"));
	double sd = pooled_sd(n_a, json_number_value(json_object_get(row, "stddev_a")), n_b,
			      json_number_value(json_object_get(row, "stddev_b")));
	bool assumed;
	double rs = report_compare_run_spread(row, &assumed), mde, z;

	*cv_pct = NAN;
	if (!isfinite(sd) || !(fabs(mean_a) > 0) ||
	    json_is_true(json_object_get(row, "exact")) || row_rank_test_blind(row, alpha))
		return NAN;
	*cv_pct = 100 * sd / fabs(mean_a);
	alpha = alpha > 0 && alpha < 1 ? alpha : 0.05;
	mde = stats_min_detectable_effect((size_t)n_a, (size_t)n_b, sd / fabs(mean_a), alpha,
					  MDE_POWER);
	/* the run-to-run part of the difference (two runs' offsets) does not shrink with
	 * n: z sqrt(cv^2 (1/n_a + 1/n_b) + 2 sigma_b^2) */
	if (isfinite(rs) && rs > 0) {
		z = stats_norm_quantile(1 - alpha / 2) + stats_norm_quantile(MDE_POWER);
		mde = sqrt(mde * mde + 2 * z * z * (rs / 100) * (rs / 100));
	}
	return 100 * mde;
}

/* The alpha of REPORT (0.05 when it has none). */
static double report_alpha(const json_t *report)
{
	double a = json_number_value(json_object_get(report, "alpha"));

	return a > 0 && a < 1 ? a : 0.05;
}

int report_compare_add_min_detectable(json_t *report)
{
	double alpha = report_alpha(report), cv, mde;
	json_t *cmp, *r;
	size_t i, k;

	json_array_foreach(json_object_get(report, "comparisons"), i, cmp)
		json_array_foreach(json_object_get(cmp, "rows"), k, r) {
			mde = row_mde_pct(r, alpha, &cv);
			if (isfinite(mde) &&
			    json_object_set_new(r, "min_detectable_pct", json_real(mde)))
				return -ENOMEM;
		}
	return 0;
}

/* "with 5 + 5 values at 12 % CV the smallest change this can see is about 21 %" after
 * LEAD ("tx b: "), on a line of its own (indented) when both do not fit in 80 columns;
 * then SUFFIX and a newline. */
void report_compare_mde_sentence(FILE *out, const char *lead, long long n_a, long long n_b,
			 double cv_pct, double mde_pct, const char *suffix)
{
	size_t l = strlen(lead);
	char text[160];
	bool wrap;

	snprintf(text, sizeof(text), "with %lld + %lld values at %.2g %% CV the smallest change "
		 "this can see is about %.2g %%%s", n_a, n_b, cv_pct, mde_pct, suffix);
	wrap = l + strcspn(text, "\n") > 80;

	/* a wrapped lead loses its trailing space */
	fprintf(out, "%.*s%s", (int)(wrap && l && lead[l - 1] == ' ' ? l - 1 : l), lead,
		wrap ? "\n  " : "");
	/* the sentence itself past 80 columns (a CV of 86 % and a change of 110 %) */
	if (wrap && strlen(text) + 2 > 80)
		tt_wrap(out, text, 78, "  ");
	else
		fprintf(out, "%s\n", text);
}

/* Under a compare table: one line per UNKNOWN row of SECT that can say how small a
 * change its n resolves. */
static void print_unknown_mde(const json_t *sect, double alpha, FILE *out)
{
	double cv, mde;
	const json_t *r;
	char lead[160];
	size_t i;

	json_array_foreach(sect, i, r) {
		if (strcmp(jget_str(r, "verdict", ""), "UNKNOWN"))
			continue;
		mde = row_mde_pct(r, alpha, &cv);
		snprintf(lead, sizeof(lead), "%s%s%s: ", jget_str(r, "variant", ""),
			 *jget_str(r, "variant", "") ? " " : "", *jget_str(r, "candidate_subject", "") ?
			 jget_str(r, "candidate_subject", "") : *jget_str(r, "subject", "") ? jget_str(r, "subject", "") :
			 "-");
		if (report_compare_run_limited(r, lead, out))
			continue;
		if (row_rank_test_blind(r, alpha)) {
			char line[320];

			snprintf(line, sizeof(line), "%swith %lld + %lld values a rank test cannot "
				 "show any change (smallest p %.2g)", lead,
				 (long long)json_integer_value(json_object_get(r, "n_a")),
				 (long long)json_integer_value(json_object_get(r, "n_b")),
				 stats_mw_min_p((size_t)json_integer_value(json_object_get(r, "n_a")),
						(size_t)json_integer_value(json_object_get(r, "n_b"))));
			tt_wrap(out, line, REPORT_NOTE_COLS, "  ");
			continue;
		}
		if (!isfinite(mde))
			continue;
		report_compare_mde_sentence(out, lead, json_integer_value(json_object_get(r, "n_a")),
			     json_integer_value(json_object_get(r, "n_b")), cv, mde, "");
	}
}

/* Does any row of ROWS have a non-empty MEMBER. */
static bool any(const json_t *rows, const char *member)
{
	json_t *r;
	size_t i;

	json_array_foreach(rows, i, r)
		if (*jget_str(r, member, ""))
			return true;
	return false;
}

/* "a, b" of the strings (or integers) of array A, "-" for none. */
const char *report_list_text(const json_t *a, char *out, size_t len)
{
	size_t i, off = 0;
	json_t *v;

	out[0] = '\0';
	json_array_foreach(a, i, v) {
		if (off >= len)
			break;
		if (json_is_string(v))
			off += snprintf(out + off, len - off, "%s%s", i ? ", " : "",
					json_string_value(v));
		else if (json_is_integer(v))
			off += snprintf(out + off, len - off, "%s%lld", i ? ", " : "",
					(long long)json_integer_value(v));
	}
	if (!off)
		snprintf(out, len, "-");
	return out;
}

/* A note when the sides attached their tc programs differently (tcx on one kernel, the
 * clsact fallback on an older one: docs/agent.md): their costs include that difference. */
static void tc_attach_note(const json_t *report, FILE *out)
{
	const json_t *sides = json_object_get(report, "sides"), *first = NULL, *side;
	char a[64], b[64];
	size_t i;

	json_array_foreach(sides, i, side) {
		const json_t *t = json_object_get(side, "tc_attach");

		if (!first) {
			first = t;
		} else if (!json_equal(first, t)) {
			fprintf(out, "note: tc programs attached differently: baseline through %s, "
				"%s through %s;\n  the figures include the attach method\n",
				report_list_text(first, a, sizeof(a)), jget_str(side, "group", ""),
				report_list_text(t, b, sizeof(b)));
		}
	}
}

/* A note per side that holds values of several hosts or kernel builds (the report's
 * "pooled", lib/analysis/analysis.h): its means pool them. */
static void pooled_note(const json_t *report, FILE *out)
{
	const json_t *p;
	char text[1024];
	size_t i;

	json_array_foreach(json_object_get(report, "pooled"), i, p) {
		char line[1200];

		snprintf(line, sizeof(line), "note: %s; its figures pool them (--by host or "
			 "kernel.build, or --host, splits them; --strict refuses)",
			 analysis_pooled_text(p, jget_str(report, "by", ""), text, sizeof(text)));
		tt_wrap(out, line, REPORT_NOTE_COLS, "  ");
	}
}

/* The short hashes of the plans of SIDE. */
static const char *hashes_text(const json_t *side, char *out, size_t len)
{
	json_t *a = json_object_get(side, "plan_sha256"), *v;
	size_t i, off = 0;

	out[0] = '\0';
	json_array_foreach(a, i, v)
		if (off < len)
			off += snprintf(out + off, len - off, "%s%.12s", i ? ", " : "",
					json_string_value(v) ? json_string_value(v) : "?");
	if (!off)
		snprintf(out, len, "-");
	return out;
}

/* "N far-out values left out ...; --all to use them" (lib/analysis/analysis.h). */
static void print_outliers_left_out(const json_t *x, FILE *out)
{
	long long n = json_integer_value(json_object_get(x, "outliers"));

	if (n)
		fprintf(out, "%lld far-out value%s left out (beyond Tukey's fences, k 3); "
			"--all to use them\n", n, n == 1 ? "" : "s");
}

/* "N results left out (disturbed 2, ...); --include-flagged to use them", the hint on
 * a line of its own when both do not fit in 80 columns. */
void report_compare_print_left_out(const json_t *x, FILE *out)
{
	size_t n = (size_t)json_integer_value(json_object_get(x, "results")), i = 0;
	char line[512];
	int off;
	const char *k;
	json_t *v;

	print_outliers_left_out(x, out);
	if (!n)
		return;
	off = snprintf(line, sizeof(line), "%zu result%s left out (", n, n == 1 ? "" : "s");
	json_object_foreach(json_object_get(x, "by_flag"), k, v)
		if (off < (int)sizeof(line))
			off += snprintf(line + off, sizeof(line) - off, "%s%s %lld", i++ ? ", " : "",
					k, (long long)json_integer_value(v));
	fprintf(out, "%s);%s--include-flagged to use them\n", line,
		strlen(line) + 32 > 80 ? "\n  " : " ");
}

/* Does a row of any comparison of REPORT have an exact comparison. */
static bool any_exact(const json_t *report)
{
	const json_t *cmp, *r;
	size_t i, k;

	json_array_foreach(json_object_get(report, "comparisons"), i, cmp)
		json_array_foreach(json_object_get(cmp, "rows"), k, r)
			if (row_exact(r))
				return true;
	return false;
}

/* The footer: one paragraph per side, the verdict rules, then what was left out. */
static void print_footer(const json_t *report, FILE *out)
{
	const json_t *x = json_object_get(report, "excluded"), *side;
	const char *by = jget_str(report, "by", "");
	char runs[256], kernels[256], hosts[256], cpus[256], gov[128], plans[256], hs[256];
	size_t i;

	json_array_foreach(json_object_get(report, "sides"), i, side) {
		if (!strcmp(by, "run"))
			runs[0] = '\0';
		else
			snprintf(runs, sizeof(runs), "runs %s, ", report_list_text(json_object_get(side, "runs"),
								       hs, sizeof(hs)));
		fprintf(out, "%s %s %s: %s%lld result%s%s\n",
			i ? "candidate" : "baseline ", by, jget_str(side, "group", ""), runs,
			(long long)json_integer_value(json_object_get(side, "results")),
			json_integer_value(json_object_get(side, "results")) == 1 ? "" : "s",
			json_is_true(json_object_get(side, "imported")) ? " (imported)" : "");
		/* builds by their labels: a short hash where two share a release */
		fprintf(out, "  kernel %s, host %s\n",
			report_list_text(json_object_get(side, json_array_size(json_object_get(side,
				  "builds")) ? "builds" : "kernels"), kernels, sizeof(kernels)),
			report_list_text(json_object_get(side, "hosts"), hosts, sizeof(hosts)));
		fprintf(out, "  cpu %s, governor %s\n",
			report_list_text(json_object_get(side, "cpus"), cpus, sizeof(cpus)),
			report_list_text(json_object_get(side, "governors"), gov, sizeof(gov)));
		fprintf(out, "  plan %s, sha256 %s\n",
			report_list_text(json_object_get(side, "plans"), plans, sizeof(plans)),
			hashes_text(side, hs, sizeof(hs)));
		if (json_array_size(json_object_get(side, "tc_attach")))
			fprintf(out, "  tc programs attached through %s\n",
				report_list_text(json_object_get(side, "tc_attach"), hs, sizeof(hs)));
	}
	tc_attach_note(report, out);
	pooled_note(report, out);
	report_compare_run_notes(report, out);
	fprintf(out, "verdicts: Welch's t (Mann-Whitney U below 5 values or when skewed), "
		"alpha %g,\n  minimum effect %g %%; UNKNOWN +N: repetitions per side to settle\n",
		jget_num(report, "alpha", NAN), 100 * jget_num(report, "min_effect", NAN));
	if (any_exact(report))
		fprintf(out, "exact: both sides repeat one value (costs under QEMU icount, a "
			"zero rate):\n  no test was run, the delta decides\n");
	report_compare_print_left_out(x, out);
}

/* The (metric, point) sections of ROWS, in order of first appearance: calls FN for
 * each with the rows of that section. */
static int sections(const json_t *rows, int (*fn)(const json_t *sect, void *ctx), void *ctx)
{
	json_t *done = json_object(), *r, *r2, *sect;
	char key[512];
	size_t i, k;
	int err = 0;

	if (!done)
		return -ENOMEM;
	json_array_foreach(rows, i, r) {
		snprintf(key, sizeof(key), "%s\n%s", jget_str(r, "metric", ""), jget_str(r, "point", ""));
		if (json_object_get(done, key))
			continue;
		json_object_set_new(done, key, json_true());
		sect = json_array();
		if (!sect) {
			err = -ENOMEM;
			break;
		}
		json_array_foreach(rows, k, r2)
			if (!strcmp(jget_str(r2, "metric", ""), jget_str(r, "metric", "")) &&
			    !strcmp(jget_str(r2, "point", ""), jget_str(r, "point", "")))
				json_array_append(sect, r2);
		err = fn(sect, ctx);
		json_decref(sect);
		if (err)
			break;
	}
	json_decref(done);
	return err;
}

struct print_ctx {
	FILE *out;
	const json_t *cmp;
	const char *form;
	double alpha;
};

static void section_head(const json_t *sect, FILE *out)
{
	const json_t *r = json_array_get(sect, 0);

	fprintf(out, "%s%s%s (%s%s%s)\n", jget_str(r, "metric", ""), *jget_str(r, "point", "") ? " @ " : "",
		jget_str(r, "point", ""), *jget_str(r, "unit", "") ? jget_str(r, "unit", "") : "no unit",
		*jget_str(r, "unit", "") ? "; " : ", ", report_compare_kind_text(jget_str(r, "kind", "")));
}

static int print_table_section(const json_t *sect, void *vctx)
{
	struct print_ctx *ctx = vctx;
	bool patch = !strcmp(ctx->form, "patch");
	bool var = any(sect, "variant");
	char n[32], a[48], b[48], d[24], v[48], subj[256];
	const char *head[7], *cells[7];
	bool renamed = false;
	struct tt_table t;
	json_t *r;
	size_t i;
	int nc = 0, err = 0;

	section_head(sect, ctx->out);
	if (var)
		head[nc++] = "variant";
	head[nc++] = "subject";
	if (patch) {
		head[nc++] = ">without patch";
		head[nc++] = ">with patch";
		head[nc++] = ">improvement";
		head[nc++] = "verdict";
	} else {
		head[nc++] = ">n";
		head[nc++] = ">baseline";
		head[nc++] = ">candidate";
		head[nc++] = ">delta";
		head[nc++] = "verdict";
	}
	err = tt_table_init(&t, nc, head);
	json_array_foreach(sect, i, r) {
		int c = 0;

		if (err)
			break;
		if (var)
			cells[c++] = jget_str(r, "variant", "");
		if (*jget_str(r, "candidate_subject", "")) {
			/* a renamed program: the candidate's name, the baseline's below */
			snprintf(subj, sizeof(subj), "%s", jget_str(r, "candidate_subject", ""));
			cells[c++] = subj;
			renamed = true;
		} else {
			cells[c++] = *jget_str(r, "subject", "") ? jget_str(r, "subject", "") : "-";
		}
		if (patch) {
			cells[c++] = report_compare_num(jget_num(r, "mean_a", NAN), a, sizeof(a));
			cells[c++] = report_compare_num(jget_num(r, "mean_b", NAN), b, sizeof(b));
			cells[c++] = report_compare_pct(isfinite(jget_num(r, "improvement_pct", NAN)) ?
					 jget_num(r, "improvement_pct", NAN) : jget_num(r, "delta_pct", NAN),
					 d, sizeof(d));
		} else {
			snprintf(n, sizeof(n), "%lld/%lld",
				 (long long)json_integer_value(json_object_get(r, "n_a")),
				 (long long)json_integer_value(json_object_get(r, "n_b")));
			cells[c++] = n;
			cells[c++] = mean_sd(r, 'a', a, sizeof(a));
			cells[c++] = mean_sd(r, 'b', b, sizeof(b));
			cells[c++] = report_compare_pct(jget_num(r, "delta_pct", NAN), d, sizeof(d));
		}
		cells[c++] = verdict_text(r, v, sizeof(v));
		err = tt_table_add(&t, cells);
	}
	if (!err)
		tt_table_print(&t, ctx->out);
	tt_table_release(&t);
	json_array_foreach(sect, i, r) {
		if (renamed && *jget_str(r, "candidate_subject", ""))
			fprintf(ctx->out, "%s: was %s in the baseline\n", jget_str(r, "candidate_subject", ""),
				jget_str(r, "baseline_subject", ""));
		if (*jget_str(r, "mixed", "")) {	/* verdict MIXED: two populations (analysis.h) */
			char line[1024];

			snprintf(line, sizeof(line), "%s%s%s: %s", jget_str(r, "variant", ""),
				 *jget_str(r, "variant", "") ? " " : "", jget_str(r, "subject", ""), jget_str(r, "mixed", ""));
			tt_wrap(ctx->out, line, REPORT_NOTE_COLS, "  ");
		}
	}
	if (!err)
		print_unknown_mde(sect, ctx->alpha, ctx->out);
	fputc('\n', ctx->out);
	return err;
}

/* "only in 3: port.rx_pps pass a, ...", wrapped at REPORT_NOTE_COLS. */
static void print_only(const json_t *cmp, const char *member, const char *group, FILE *out)
{
	json_t *a = json_object_get(cmp, member), *r;
	char *text = NULL;
	size_t i, len = 0;
	FILE *f;

	if (!json_array_size(a))
		return;
	f = open_memstream(&text, &len);
	if (!f)
		return;
	fprintf(f, "only in %s:", group);
	json_array_foreach(a, i, r)
		fprintf(f, "%s %s%s%s%s%s", i ? "," : "", jget_str(r, "metric", ""),
			*jget_str(r, "variant", "") ? " " : "", jget_str(r, "variant", ""),
			*jget_str(r, "subject", "") ? " " : "", jget_str(r, "subject", ""));
	if (!fclose(f))
		tt_wrap(out, text, REPORT_NOTE_COLS, "  ");
	free(text);
}

/* "METRIC SUBJECT[ POINT]", the test of row R in the grid, into OUT (LEN bytes). */
static void grid_test(const json_t *r, char *out, size_t len)
{
	snprintf(out, len, "%s %s%s%s", jget_str(r, "metric", ""), jget_str(r, "subject", ""),
		 *jget_str(r, "point", "") ? " " : "", jget_str(r, "point", ""));
}

/* Append V (not stolen) to ARR unless a value equal to it is there. */
static void append_unique(json_t *arr, json_t *v)
{
	size_t i;

	for (i = 0; i < json_array_size(arr); i++)
		if (json_equal(json_array_get(arr, i), v))
			return;
	json_array_append(arr, v);
}

/* The variants and the tests of the rows of comparisons CMPS, each once, in order of
 * first appearance: the grid's columns and rows. */
static void grid_axes(const json_t *cmps, json_t *variants, json_t *tests)
{
	const json_t *cmp, *r;
	char test[256];
	json_t *t;
	size_t i, k;

	json_array_foreach(cmps, i, cmp)
		json_array_foreach(json_object_get(cmp, "rows"), k, r) {
			append_unique(variants, json_object_get(r, "variant"));
			grid_test(r, test, sizeof(test));
			t = json_string(test);
			append_unique(tests, t);
			json_decref(t);
		}
}

/* The grid cell of VARIANT for TEST in comparison CMP, in BUF (LEN bytes): the
 * baseline's mean or, for the CANDIDATE, its mean with delta % and a mark; "-" when CMP
 * has no such row. */
static const char *grid_cell(const json_t *cmp, const char *test, const json_t *variant,
			     bool candidate, char *buf, size_t len)
{
	const char *cell = "-";
	char t[256], m[24], d[24];
	const json_t *r;
	size_t k;

	json_array_foreach(json_object_get(cmp, "rows"), k, r) {
		grid_test(r, t, sizeof(t));
		if (strcmp(t, test) || !json_equal(json_object_get(r, "variant"), variant))
			continue;
		if (!candidate)
			report_compare_num(jget_num(r, "mean_a", NAN), buf, len);
		else
			snprintf(buf, len, "%s (%s)%s",
				 report_compare_num(jget_num(r, "mean_b", NAN), m, sizeof(m)),
				 report_compare_pct(jget_num(r, "delta_pct", NAN), d, sizeof(d)),
				 !strcmp(jget_str(r, "verdict", ""), "DIFFERENT") ? "*" :
				 !strcmp(jget_str(r, "verdict", ""), "UNKNOWN") ? "?" : "");
		cell = buf;
	}
	return cell;
}

/* The grid: Version | Test | a column per variant; the baseline's means, then each
 * candidate's with delta % and a mark (* DIFFERENT, ? UNKNOWN). */
static int print_grid(const json_t *report, FILE *out)
{
	json_t *cmps = json_object_get(report, "comparisons"), *cmp, *variants, *tests, *t;
	const char *head[GRID_MAX_COLS], *cells[GRID_MAX_COLS];
	char buf[GRID_MAX_COLS][64];
	struct tt_table tb;
	size_t i, ti, vi, n_var;
	int err = 0;

	variants = json_array();
	tests = json_array();
	if (!variants || !tests) {
		err = -ENOMEM;
		goto out;
	}
	grid_axes(cmps, variants, tests);
	n_var = json_array_size(variants);
	if (n_var + 2 > GRID_MAX_COLS) {
		err = -E2BIG;
		goto out;
	}
	head[0] = "Version";
	head[1] = "Test";
	for (vi = 0; vi < n_var; vi++)
		head[2 + vi] = *json_string_value(json_array_get(variants, vi)) ?
			       json_string_value(json_array_get(variants, vi)) : "value";
	err = tt_table_init(&tb, (int)n_var + 2, head);
	json_array_foreach(tests, ti, t) {
		/* the baseline row, then one per candidate */
		for (i = 0; !err && i <= json_array_size(cmps); i++) {
			cmp = json_array_get(cmps, i ? i - 1 : 0);
			cells[0] = i ? jget_str(cmp, "candidate", "") : jget_str(cmp, "baseline", "");
			cells[1] = json_string_value(t);
			for (vi = 0; vi < n_var; vi++)
				cells[2 + vi] = grid_cell(cmp, json_string_value(t),
							  json_array_get(variants, vi), i > 0, buf[vi],
							  sizeof(buf[vi]));
			err = tt_table_add(&tb, cells);
		}
	}
	for (vi = 2; vi < (size_t)tb.n_cols; vi++)
		tb.right[vi] = true;
	tb.sep = " | ";
	if (!err)
		tt_table_print(&tb, out);
	tt_table_release(&tb);
	fprintf(out, "\nfirst %s: baseline; (delta %% from it), * DIFFERENT, ? UNKNOWN\n\n",
		jget_str(report, "by", ""));
out:
	json_decref(variants);
	json_decref(tests);
	return err;
}

/* "plan 'a'" or "plans 'a', 'b'" of the names in LIST into OUT (LEN bytes). */
static const char *list_quoted(const json_t *list, char *out, size_t len)
{
	size_t i, used;
	json_t *v;

	used = (size_t)snprintf(out, len, "plan%s ", json_array_size(list) == 1 ? "" : "s");
	json_array_foreach(list, i, v)
		if (used < len)
			used += snprintf(out + used, len - used, "%s'%s'", i ? ", " : "",
					 json_string_value(v) ? json_string_value(v) : "?");
	return out;
}

/* "baseline run '1' is of plan 'calibrate', candidate run '3' of plan 'quickstart'"
 * from the sides of REPORT into TEXT (LEN bytes). */
static void plans_sentence(const json_t *report, char *text, size_t len)
{
	const json_t *side;
	size_t i, used = 0;
	char names[256];

	text[0] = '\0';
	json_array_foreach(json_object_get(report, "sides"), i, side) {
		list_quoted(json_object_get(side, "plans"), names, sizeof(names));
		if (used < len)
			used += snprintf(text + used, len - used, "%s%s %s '%s' %s %s",
					 i ? ", " : "", i ? "candidate" : "baseline",
					 jget_str(report, "by", ""), jget_str(side, "group", ""), i ? "of" : "is of",
					 names);
	}
}

bool report_compare_plans_differ(const json_t *report, char *text, size_t len)
{
	const json_t *sides = json_object_get(report, "sides"), *side, *first, *p, *q;
	size_t i, j, k;
	bool differ = false;

	if (len)
		text[0] = '\0';
	if (strstr(jget_str(report, "by", ""), "plan"))
		return false;
	first = json_object_get(json_array_get(sides, 0), "plans");
	json_array_foreach(sides, i, side) {
		json_array_foreach(json_object_get(side, "plans"), j, p) {
			json_array_foreach(first, k, q)
				if (json_equal(p, q))
					break;
			differ = differ || k == json_array_size(first);
		}
		differ = differ || json_array_size(json_object_get(side, "plans")) !=
				   json_array_size(first);
	}
	if (differ && len)
		plans_sentence(report, text, len);
	return differ;
}

int report_compare_print_text(const json_t *report, const char *form, FILE *out)
{
	struct print_ctx ctx = { .out = out, .form = form ? form : "table",
				 .alpha = report_alpha(report) };
	json_t *cmp;
	size_t i;
	int err = 0;

	if (strcmp(ctx.form, "table") && strcmp(ctx.form, "patch") && strcmp(ctx.form, "grid"))
		return -EINVAL;
	/* first of all: the sides are not runs of one plan */
	if (report_compare_plans_differ(report, NULL, 0)) {
		char text[768], line[1024];

		plans_sentence(report, text, sizeof(text));
		snprintf(line, sizeof(line), "note: %s; rows pair by metric, point, variant and "
			 "subject (--strict refuses)", text);
		tt_wrap(out, line, REPORT_NOTE_COLS, "  ");
		fputc('\n', out);
	}
	if (!strcmp(ctx.form, "grid")) {
		err = print_grid(report, out);
	} else {
		json_array_foreach(json_object_get(report, "comparisons"), i, cmp) {
			fprintf(out, "%s %s -> %s\n\n", jget_str(report, "by", ""), jget_str(cmp, "baseline", ""),
				jget_str(cmp, "candidate", ""));
			ctx.cmp = cmp;
			err = sections(json_object_get(cmp, "rows"), print_table_section, &ctx);
			if (err)
				break;
			print_only(cmp, "only_baseline", jget_str(cmp, "baseline", ""), out);
			print_only(cmp, "only_candidate", jget_str(cmp, "candidate", ""), out);
		}
	}
	if (!err)
		print_footer(report, out);
	if (!err && (fflush(out) || ferror(out)))
		err = -EIO;
	return err;
}

/* One field of a CSV line: COL's member of OBJ as its kind says. */
static void csv_col(FILE *out, const json_t *obj, const struct report_csv_col *col)
{
	double v;

	switch (col->kind) {
	case CSV_STR:
		tt_csv_field(out, jget_str(obj, col->key, ""));
		break;
	case CSV_WORD:
		fputs(jget_str(obj, col->key, ""), out);
		break;
	case CSV_INT:
		fprintf(out, "%lld", (long long)json_integer_value(json_object_get(obj, col->key)));
		break;
	case CSV_INT_OPT:
		if (json_is_integer(json_object_get(obj, col->key)))
			fprintf(out, "%lld",
				(long long)json_integer_value(json_object_get(obj, col->key)));
		break;
	case CSV_BOOL:
		fputs(json_is_true(json_object_get(obj, col->key)) ? "true" : "false", out);
		break;
	case CSV_NUM:
		v = jget_num(obj, col->key, NAN);
		if (isfinite(v))
			fprintf(out, "%.17g", v);
		break;
	}
}

int report_compare_csv(FILE *out, const char *head, const json_t *outer, const char *rows,
		       const struct report_csv_col *cols, size_t n_cols)
{
	const json_t *o, *r;
	size_t i, k, c;

	fputs(head, out);
	json_array_foreach(outer, i, o)
		json_array_foreach(json_object_get(o, rows), k, r)
			for (c = 0; c < n_cols; c++) {
				csv_col(out, cols[c].outer ? o : r, &cols[c]);
				fputc(c + 1 < n_cols ? ',' : '\n', out);
			}
	return fflush(out) || ferror(out) ? -EIO : 0;
}

int report_compare_print_csv(const json_t *report, FILE *out)
{
	static const struct report_csv_col cols[] = {
		{ true, "baseline", CSV_STR }, { true, "candidate", CSV_STR },
		{ false, "metric", CSV_STR }, { false, "point", CSV_STR },
		{ false, "variant", CSV_STR }, { false, "subject", CSV_STR },
		{ false, "unit", CSV_STR }, { false, "n_a", CSV_INT }, { false, "n_b", CSV_INT },
		{ false, "mean_a", CSV_NUM }, { false, "mean_b", CSV_NUM },
		{ false, "stddev_a", CSV_NUM }, { false, "stddev_b", CSV_NUM },
		{ false, "delta_pct", CSV_NUM }, { false, "test", CSV_WORD },
		{ false, "p", CSV_NUM }, { false, "verdict", CSV_WORD },
		{ false, "change", CSV_WORD }, { false, "more_reps", CSV_INT },
		/* the run-to-run spread, as in JSON (docs/analysis.md): empty when unknown
		 * or when the sides are not whole runs */
		{ false, "run_spread_pct", CSV_NUM }, { false, "run_spread_runs", CSV_INT_OPT },
		{ false, "run_spread_df", CSV_NUM }, { false, "run_spread_note", CSV_STR },
		{ false, "run_limited", CSV_BOOL }, { false, "run_spread_assumed_pct", CSV_NUM },
	};

	return report_compare_csv(out, "baseline,candidate,metric,point,variant,subject,unit,"
				  "n_a,n_b,mean_a,mean_b,stddev_a,stddev_b,delta_pct,test,p,"
				  "verdict,change,more_reps,run_spread_pct,run_spread_runs,"
				  "run_spread_df,run_spread_note,run_limited,"
				  "run_spread_assumed_pct\n",
				  json_object_get(report, "comparisons"), "rows", cols,
				  ARRAY_SIZE(cols));
}

const char *report_compare_verdict_text(const json_t *row, char *out, size_t len)
{
	return verdict_text(row, out, len);
}

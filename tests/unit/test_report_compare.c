// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_report_compare.c - lib/report/report_compare.c: the exact text of each form of the
 * compare report (table, patch, grid), the CSV, the history text, number formatting,
 * and lib/report/plot.c: the gnuplot script and a real SVG rendered by gnuplot, parsed by
 * xmllint and rendered to PNG by rsvg-convert (the checks of history --plot). The fixed
 * rows (runs 7 -> 8) hold a renamed program, a slowed variant, 3 + 3 noisy values and
 * flagged results. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "report/plot.h"
#include "report/report.h"
#include "report/report_compare.h"
#include "report/report_compare_int.h"
#include "helpers.h"

/* Value rows as store_query_values gives them: runs 7 -> 8, quickstart-like values. */
static json_t *fixed_rows(void)
{
	static const double ns_a[] = { 25.1, 24.8, 25.3, 24.9, 25.0 };
	static const double ns_b[] = { 25.2, 24.9, 25.1, 25.0, 24.8 };
	static const double slow_b[] = { 310.5, 309.8, 311.2, 310.1, 310.4 };
	static const double pps_a[] = { 12.5e6, 12.4e6, 12.6e6, 12.5e6, 12.45e6 };
	static const double pps_b[] = { 4.1e6, 4.12e6, 4.09e6, 4.11e6, 4.1e6 };
	static const double few_a[] = { 11.0e6, 12.0e6, 10.5e6 };
	/* the same 33.5 M frames in 3 windows on both sides: 11.17 M each, +0.0 % (the
	 * harmonic means said 11.1 M and -0.5 %) */
	static const double few_b[] = { 10.0e6, 12.5e6, 11.0e6 };
	json_t *rows = json_array();
	json_int_t job = 1;
	size_t i;

#define ADD(run, var, subj, metric, unit, v, flag)                                       \
	json_array_append_new(rows, json_pack("{s:I, s:I, s:s, s:s, s:s, s:s, s:s, s:f, "  \
		"s:s, s:[], s:{}, s:[], s:s, s:s, s:s, s:s, s:s}", "run", (json_int_t)(run),  \
		"job", job++, "group", #run, "variant", var, "subject", subj, "metric",     \
		metric, "unit", unit, "value", v, "kernel_release", "6.18.44", "flags",     \
		"point", "debug_options", "host", "h1", "plan", "quickstart", "plan_sha256",   \
		run == 7 ? "3f2a9c1e0b7d55aa" : "9c0ffee12345678a", "cpu", "Xeon @ 2.80GHz",  \
		"governor", "performance"));                                                \
	if (flag)                                                                         \
		json_array_append_new(json_object_get(json_array_get(rows,                  \
			json_array_size(rows) - 1), "flags"), json_string(flag))

	for (i = 0; i < 5; i++) {
		ADD(7, "drop", "xdp_drop", "prog.ns_per_run", "ns", ns_a[i], NULL);
		ADD(7, "probe", "xdp_drop", "prog.ns_per_run", "ns", ns_a[i], NULL);
		ADD(7, "probe", "b", "port.rx_pps", "pps", pps_a[i], NULL);
		ADD(8, "drop", "xdp_drop", "prog.ns_per_run", "ns", ns_b[i], NULL);
		ADD(8, "probe", "xdp_drop_slow", "prog.ns_per_run", "ns", slow_b[i], NULL);
		ADD(8, "probe", "b", "port.rx_pps", "pps", pps_b[i], NULL);
	}
	for (i = 0; i < 3; i++) {
		ADD(7, "tx", "b", "port.rx_pps", "pps", few_a[i], NULL);
		ADD(8, "tx", "b", "port.rx_pps", "pps", few_b[i], NULL);
	}
	ADD(8, "drop", "xdp_drop", "prog.ns_per_run", "ns", 99.0, "disturbed");
	ADD(8, "tx", "b", "port.rx_pps", "pps", 1e6, "generator-bound");
	ADD(7, "tx", "b", "port.rx_pps", "pps", 1e6, "disturbed");
#undef ADD
	return rows;
}

/* What the table and patch forms print first, between their two metrics, and what
 * every form prints last: the runs, the verdict rules and the results left out. */
#define HEAD_7_8 \
	"run 7 -> 8\n" \
	"\n" \
	"prog.ns_per_run (ns; arithmetic mean, lower is better)\n"
#define RENAMED_RX_PPS \
	"xdp_drop_slow: was xdp_drop in the baseline\n" \
	"\n" \
	"port.rx_pps (pps; mean, higher is better)\n"
#define RUNS_7_8 \
	"baseline  run 7: 18 results\n" \
	"  kernel 6.18.44, host h1\n" \
	"  cpu Xeon @ 2.80GHz, governor performance\n" \
	"  plan quickstart, sha256 3f2a9c1e0b7d\n" \
	"candidate run 8: 18 results\n" \
	"  kernel 6.18.44, host h1\n" \
	"  cpu Xeon @ 2.80GHz, governor performance\n" \
	"  plan quickstart, sha256 9c0ffee12345\n" \
	"verdicts: Welch's t (Mann-Whitney U below 5 values or when skewed), alpha 0.05,\n" \
	"  minimum effect 2 %; UNKNOWN +N: repetitions per side to settle\n" \
	"3 results left out (disturbed 2, generator-bound 1);\n" \
	"  --include-flagged to use them\n"

static const char table_text[] =
	HEAD_7_8
	"variant  subject          n      baseline     candidate    delta  verdict\n"
	"drop     xdp_drop       5/5  25.02 ± 0.19  25.00 ± 0.16   -0.1 %  SAME\n"
	"probe    xdp_drop_slow  5/5  25.02 ± 0.19   310.4 ± 0.5  +1141 %  DIFFERENT worse\n"
	RENAMED_RX_PPS
	"variant  subject    n        baseline        candidate    delta  verdict\n"
	"probe    b        5/5  12.49M ± 0.07M  4.104M ± 0.011M  -67.1 %  DIFFERENT worse\n"
	"tx       b        3/3  11.17M ± 0.76M   11.17M ± 1.26M   +0.0 %  UNKNOWN >100 reps\n"
	"tx b: with 3 + 3 values a rank test cannot show any change (smallest p 0.1)\n"
	"\n"
	RUNS_7_8;

static const char patch_text[] =
	HEAD_7_8
	"variant  subject        without patch  with patch  improvement  verdict\n"
	"drop     xdp_drop               25.02       25.00       +0.1 %  SAME\n"
	"probe    xdp_drop_slow          25.02       310.4      -1141 %  DIFFERENT worse\n"
	RENAMED_RX_PPS
	"variant  subject  without patch  with patch  improvement  verdict\n"
	"probe    b               12.49M      4.104M      -67.1 %  DIFFERENT worse\n"
	"tx       b               11.17M      11.17M       +0.0 %  UNKNOWN >100 reps\n"
	"tx b: with 3 + 3 values a rank test cannot show any change (smallest p 0.1)\n"
	"\n"
	RUNS_7_8;

static const char grid_text[] =
	"Version | Test                                   |           drop |             probe |               tx\n"
	"7       | prog.ns_per_run xdp_drop               |          25.02 |                 - |                -\n"
	"8       | prog.ns_per_run xdp_drop               | 25.00 (-0.1 %) |                 - |                -\n"
	"7       | prog.ns_per_run xdp_drop>xdp_drop_slow |              - |             25.02 |                -\n"
	"8       | prog.ns_per_run xdp_drop>xdp_drop_slow |              - |  310.4 (+1141 %)* |                -\n"
	"7       | port.rx_pps b                          |              - |            12.49M |           11.17M\n"
	"8       | port.rx_pps b                          |              - | 4.104M (-67.1 %)* | 11.17M (+0.0 %)?\n"
	"\n"
	"first run: baseline; (delta % from it), * DIFFERENT, ? UNKNOWN\n"
	"\n"
	RUNS_7_8;

/* FN's output for REPORT and FORM as a heap string. */
static char *text_of(const json_t *report, const char *form, int csv)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (csv)
		assert_int_equal(report_compare_print_csv(report, f), 0);
	else
		assert_int_equal(report_compare_print_text(report, form, f), 0);
	fclose(f);
	return buf;
}

static json_t *fixed_report(void)
{
	json_t *rows = fixed_rows(), *rep;
	struct err err;

	rep = analysis_compare(rows, "run", "7", "8", NULL, &err);
	json_decref(rows);
	assert_non_null(rep);
	return rep;
}

/* No line of TEXT over MAX columns (the ± counts one). */
static void assert_lines_fit(const char *text, size_t max)
{
	const char *line;

	for (line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		size_t n = strcspn(line, "\n"), w = 0, i;

		for (i = 0; i < n; i++)
			w += ((unsigned char)line[i] & 0xc0) != 0x80;
		assert_true(w <= max);
	}
}

static void test_report_compare_table(void **state)
{
	json_t *rep = fixed_report();
	char *t = text_of(rep, NULL, 0);

	assert_string_equal(t, table_text);
	/* a mail: no line over 100 columns, none of the patch form (the netdev-mail
	 * form, docs/cli.md) over 80 */
	assert_lines_fit(t, 100);
	free(t);
	t = text_of(rep, "patch", 0);
	assert_lines_fit(t, 80);
	free(t);
	json_decref(rep);
}

/* Results whose tc programs were attached through different methods (clsact on one
 * side, tcx on the other) say so per side and in a note; the same method on both sides
 * gives the per-side lines and no note. */
static void test_report_compare_tc_attach(void **state)
{
	static const char *const how[2][2] = { { "clsact", "tcx" }, { "tcx", "tcx" } };
	int c;

	(void)state;
	for (c = 0; c < 2; c++) {
		json_t *rows = fixed_rows(), *row, *rep;
		struct err err;
		char *t;
		size_t i;

		json_array_foreach(rows, i, row)
			json_object_set_new(row, "tc_attach", json_string(
				how[c][json_integer_value(json_object_get(row, "run")) == 8]));
		rep = analysis_compare(rows, "run", "7", "8", NULL, &err);
		assert_non_null(rep);
		t = text_of(rep, NULL, 0);
		assert_contains(t, c ? "  plan quickstart, sha256 3f2a9c1e0b7d\n"
				       "  tc programs attached through tcx\n"
				     : "  plan quickstart, sha256 3f2a9c1e0b7d\n"
				       "  tc programs attached through clsact\n");
		assert_contains(t, "  plan quickstart, sha256 9c0ffee12345\n"
				   "  tc programs attached through tcx\n");
		if (c)
			assert_null(strstr(t, "note: tc programs"));	/* same method */
		else
			assert_contains(t, "note: tc programs attached differently: baseline "
					   "through clsact, 8 through tcx;\n  the figures "
					   "include the attach method\n");
		free(t);
		json_decref(rep);
		json_decref(rows);
	}
}

/* Per-program cost under QEMU icount (docs/analysis.md "Which test"): "drop" repeats one
 * value on both sides and is the SAME exactly, "probe" repeats two different ones and is
 * DIFFERENT exactly, "half" is constant on the baseline side only and gets a test. */
static void icount_add(json_t *rows, int run, json_int_t job, const char *variant, double v)
{
	json_t *r = json_pack("{s:I, s:I, s:s, s:s, s:s, s:s, s:s, s:f, s:[], s:{}, s:[], s:s}",
			      "run", (json_int_t)run, "job", job, "group", run == 7 ? "7" : "8",
			      "variant", variant, "subject", "prog", "metric", "prog.ns_per_run",
			      "unit", "ns", "value", v, "flags", "point", "debug_options",
			      "timing", "icount");

	assert_non_null(r);
	assert_int_equal(json_array_append_new(rows, r), 0);
}

static json_t *icount_report(void)
{
	static const double half_b[] = { 1010, 1012, 1009, 1011, 1010.5 };
	json_t *rows = json_array(), *rep;
	json_int_t job = 1;
	struct err err;
	int run, i;

	for (run = 7; run <= 8; run++)
		for (i = 0; i < 5; i++) {
			icount_add(rows, run, job++, "drop", 1000);
			icount_add(rows, run, job++, "probe", run == 7 ? 1000 : 1100);
			icount_add(rows, run, job++, "half", run == 7 ? 1000 : half_b[i]);
		}
	rep = analysis_compare(rows, "run", "7", "8", NULL, &err);
	json_decref(rows);
	assert_non_null(rep);
	return rep;
}

/* The JSON row of VARIANT in the first comparison of REPORT. */
static const json_t *row_of(const json_t *report, const char *variant)
{
	const json_t *cmp = json_array_get(json_object_get(report, "comparisons"), 0), *r;
	size_t i;

	json_array_foreach(json_object_get(cmp, "rows"), i, r)
		if (!strcmp(json_string_value(json_object_get(r, "variant")), variant))
			return r;
	fail_msg("no row of variant '%s'", variant);
	return NULL;
}

/* Both sides without variance: the text says "exact" where a test's p would go (the
 * verdict column, and a footer line saying what it means), the JSON has "exact": true
 * with p 1 (equal) or 0 (not); one constant side is an ordinary test, not exact. */
static void test_report_compare_exact(void **state)
{
	static const char want[] =
		"run 7 -> 8\n"
		"\n"
		"prog.ns_per_run @ timing=icount (ns; arithmetic mean, lower is better)\n"
		"variant  subject    n  baseline  candidate    delta  verdict\n"
		"drop     prog     5/5  1000 ± 0   1000 ± 0   +0.0 %  SAME (exact)\n"
		"probe    prog     5/5  1000 ± 0   1100 ± 0  +10.0 %  DIFFERENT worse (exact)\n"
		"half     prog     5/5  1000 ± 0   1011 ± 1   +1.1 %  SAME\n";
	json_t *rep = icount_report(), *fixed = fixed_report(), *r;
	char *t;
	size_t i;

	(void)state;
	t = text_of(rep, NULL, 0);
	assert_contains(t, want);
	assert_contains(t, "\nexact: both sides repeat one value (costs under QEMU icount, a "
			   "zero rate):\n  no test was run, the delta decides\n");
	free(t);
	t = text_of(rep, "patch", 0);
	assert_contains(t, "DIFFERENT worse (exact)\n");
	free(t);
	/* the CSV keeps its columns: the test is "constant", p 1 or 0 */
	t = text_of(rep, NULL, 1);
	assert_contains(t, ",drop,prog,ns,5,5,1000,1000,0,0,0,constant,1,SAME,,0,,,,,false,\n");
	assert_contains(t, ",probe,prog,ns,5,5,1000,1100,0,0,10,constant,0,DIFFERENT,worse,0,,,,,"
			   "false,\n");
	free(t);

	r = (json_t *)row_of(rep, "drop");
	assert_true(json_is_true(json_object_get(r, "exact")));
	assert_string_equal(json_string_value(json_object_get(r, "test")), "constant");
	assert_near(json_number_value(json_object_get(r, "p")), 1, 0);
	assert_string_equal(json_string_value(json_object_get(r, "verdict")), "SAME");
	r = (json_t *)row_of(rep, "probe");
	assert_true(json_is_true(json_object_get(r, "exact")));
	assert_near(json_number_value(json_object_get(r, "p")), 0, 0);
	assert_near(json_number_value(json_object_get(r, "delta_pct")), 10, 1e-12);
	assert_string_equal(json_string_value(json_object_get(r, "verdict")), "DIFFERENT");
	r = (json_t *)row_of(rep, "half");
	assert_true(json_is_false(json_object_get(r, "exact")));
	assert_string_equal(json_string_value(json_object_get(r, "test")), "welch");
	assert_true(json_number_value(json_object_get(r, "p")) > 0);

	/* noisy values: every row has "exact": false, no footer line */
	json_array_foreach(json_object_get(json_array_get(json_object_get(fixed, "comparisons"),
							  0), "rows"), i, r)
		assert_true(json_is_false(json_object_get(r, "exact")));
	t = text_of(fixed, NULL, 0);
	assert_null(strstr(t, "exact"));
	free(t);
	json_decref(fixed);
	json_decref(rep);
}

static void test_report_compare_patch(void **state)
{
	json_t *rep = fixed_report();
	char *t = text_of(rep, "patch", 0);

	assert_string_equal(t, patch_text);
	free(t);
	json_decref(rep);
}

static void test_report_compare_grid(void **state)
{
	json_t *rep = fixed_report();
	char *t = text_of(rep, "grid", 0);

	assert_string_equal(t, grid_text);
	free(t);
	assert_int_equal(report_compare_print_text(rep, "pie", stdout), -EINVAL);
	json_decref(rep);
}

static void test_report_compare_csv(void **state)
{
	json_t *rep = fixed_report();
	char *t = text_of(rep, NULL, 1);

	assert_non_null(strstr(t, "baseline,candidate,metric,point,variant,subject,unit,n_a,"
			       "n_b,mean_a,mean_b,stddev_a,stddev_b,delta_pct,test,p,verdict,"
			       "change,more_reps,run_spread_pct,run_spread_runs,run_spread_df,"
			       "run_spread_note,run_limited,run_spread_assumed_pct\n"));
	assert_non_null(strstr(t, "\n7,8,prog.ns_per_run,,drop,xdp_drop,ns,5,5,25.02,25,"));
	/* no run-to-run spread asked for: its columns empty, not run-limited */
	assert_non_null(strstr(t, ",mann-whitney,1,UNKNOWN,,100,,,,,false,\n"));
	free(t);
	json_decref(rep);
}

static void test_report_compare_num(void **state)
{
	char b[32];

	/* the one formatter: SI prefixes from 10000 on, four significant digits */
	assert_string_equal(report_compare_num(9.1e6, b, sizeof(b)), "9.100M");
	assert_string_equal(report_compare_num(12.53e6, b, sizeof(b)), "12.53M");
	assert_string_equal(report_compare_num(2.05e9, b, sizeof(b)), "2.050G");
	assert_string_equal(report_compare_num(74161.98, b, sizeof(b)), "74.16k");
	assert_string_equal(report_compare_num(764000, b, sizeof(b)), "764.0k");
	assert_string_equal(report_compare_num(-764000, b, sizeof(b)), "-764.0k");
	assert_string_equal(report_compare_num(1234, b, sizeof(b)), "1234");
	assert_string_equal(report_compare_num(310.4, b, sizeof(b)), "310.4");
	assert_string_equal(report_compare_num(25.02, b, sizeof(b)), "25.02");
	assert_string_equal(report_compare_num(2.502, b, sizeof(b)), "2.502");
	assert_string_equal(report_compare_num(0.0355, b, sizeof(b)), "0.036");
	assert_string_equal(report_compare_num(0, b, sizeof(b)), "0");
	assert_string_equal(report_compare_num(0.0 / 0.0, b, sizeof(b)), "-");
	/* mean ± spread in the mean's format; percentages one way */
	assert_string_equal(report_num_pm(12.49e6, 74161.98, b, sizeof(b)), "12.49M ± 0.07M");
	assert_string_equal(report_num_pm(4.104e6, 11400, b, sizeof(b)), "4.104M ± 0.011M");
	assert_string_equal(report_num_pm(1000, 0, b, sizeof(b)), "1000 ± 0");
	assert_string_equal(report_num_pm(25.02, 0.0 / 0.0, b, sizeof(b)), "25.02");
	assert_string_equal(report_pct(12.34, b, sizeof(b)), "+12.3 %");
	assert_string_equal(report_pct(-0.04, b, sizeof(b)), "+0.0 %");
	assert_string_equal(report_pct(1141.2, b, sizeof(b)), "+1141 %");
}

static json_t *history_report(void)
{
	static const double noise[] = { 0.2, -0.1, 0.15, -0.2, 0.05 };
	static const char *const kernels[] = { "6.1.0-47-amd64", "6.6.0", "6.12.0", "6.18.0" };
	static const double level[] = { 25, 25, 31, 31 };
	json_t *rows = json_array(), *rep;
	json_int_t job = 1;
	struct err err;
	size_t k, i;

	for (k = 0; k < 4; k++)
		for (i = 0; i < 5; i++)
			json_array_append_new(rows, json_pack("{s:I, s:I, s:s, s:s, s:s, s:s, s:s, "
				"s:f, s:[], s:{}, s:[]}", "run", (json_int_t)1, "job", job++,
				"group", kernels[k], "variant", "drop", "subject", "xdp_drop",
				"metric", "prog.ns_per_run", "unit", "ns",
				"value", level[k] + noise[i], "flags", "point", "debug_options"));
	rep = analysis_history(rows, "kernel.release", NULL, &err);
	json_decref(rows);
	assert_non_null(rep);
	return rep;
}

static void test_report_history_text(void **state)
{
	static const char want[] =
		"prog.ns_per_run drop xdp_drop (ns; arithmetic mean, lower is better)\n"
		"kernel.release  n  mean ± stddev  spread    delta\n"
		"6.1.0-47-amd64  5   25.02 ± 0.17    0.20     base\n"
		"6.6.0           5   25.02 ± 0.17    0.20   +0.0 %\n"
		"6.12.0          5   31.02 ± 0.17    0.20  +24.0 %\n"
		"6.18.0          5   31.02 ± 0.17    0.20  +24.0 %\n"
		"change point between 6.6.0 and 6.12.0, p = 0.002\n";
	json_t *rep = history_report();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(report_history_print_text(rep, f), 0);
	fclose(f);
	if (strncmp(buf, want, sizeof(want) - 1))
		fprintf(stderr, "--- got\n%s", buf);
	assert_memory_equal(buf, want, sizeof(want) - 1);
	free(buf);
	json_decref(rep);
}

/* The smallest change a row's n resolves, from its own data, on every row with two
 * values a side (the JSON), not on an exact one, nor on tx b: its 3 + 3 values went to
 * the rank test, whose smallest p (0.1) is above alpha, so no change could be shown
 * (the normal formula would have promised 21 %); a history series gets it for two
 * groups. */
static void test_report_compare_min_detectable(void **state)
{
	json_t *rep = fixed_report(), *cmp, *r, *h;
	size_t i;
	int with = 0;

	assert_int_equal(report_compare_add_min_detectable(rep), 0);
	cmp = json_array_get(json_object_get(rep, "comparisons"), 0);
	json_array_foreach(json_object_get(cmp, "rows"), i, r) {
		json_t *m = json_object_get(r, "min_detectable_pct");

		with += m != NULL;
		if (!strcmp(json_string_value(json_object_get(r, "variant")), "tx"))
			assert_null(m);
	}
	assert_int_equal(with, (int)json_array_size(json_object_get(cmp, "rows")) - 1);

	/* 5 + 5 values at 12 % (sd 12 around 100 on both sides): 21.26 % (test_stats.c) */
	r = json_pack("{s:s, s:s, s:i, s:i, s:f, s:f, s:f, s:f, s:s}", "variant", "v",
		      "subject", "s", "n_a", 5, "n_b", 5, "mean_a", 100.0, "mean_b", 101.0,
		      "stddev_a", 12.0, "stddev_b", 12.0, "verdict", "UNKNOWN");
	json_decref(rep);
	rep = json_pack("{s:f, s:[{s:[O]}]}", "alpha", 0.05, "comparisons", "rows", r);
	assert_int_equal(report_compare_add_min_detectable(rep), 0);
	assert_float_equal(json_real_value(json_object_get(r, "min_detectable_pct")), 21.2626,
			   1e-3);
	/* an exact row (two constant sides) has none */
	json_object_del(r, "min_detectable_pct");
	json_object_set_new(r, "exact", json_true());
	assert_int_equal(report_compare_add_min_detectable(rep), 0);
	assert_null(json_object_get(r, "min_detectable_pct"));
	json_decref(r);
	json_decref(rep);

	/* history: groups of 5 with stddev 0.17 around 25: CV 0.68 %, 2.801585 * 0.0068 *
	 * sqrt(2/5) = 1.2 % */
	h = history_report();
	assert_int_equal(report_history_add_min_detectable(h), 0);
	r = json_array_get(json_object_get(h, "series"), 0);
	assert_int_equal(json_integer_value(json_object_get(r, "min_detectable_n")), 5);
	assert_float_equal(json_real_value(json_object_get(r, "cv_pct")), 0.68, 0.01);
	assert_float_equal(json_real_value(json_object_get(r, "min_detectable_pct")), 1.2, 0.02);
	json_decref(h);
}

/* SVG is well-formed XML (xmllint), the shell command CHECK about it succeeds, and
 * rsvg-convert renders it into PNG, a file that starts as a PNG does; both are removed. */
static void assert_svg_renders(const char *svg, const char *png, const char *check)
{
	char cmd[512], head[8];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "xmllint --noout '%s'", svg);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(system(check), 0);
	snprintf(cmd, sizeof(cmd), "rsvg-convert -o '%s' '%s'", png, svg);
	assert_int_equal(system(cmd), 0);
	f = fopen(png, "rb");
	assert_non_null(f);
	assert_int_equal(fread(head, 1, 8, f), 8);
	fclose(f);
	assert_memory_equal(head, "\x89PNG\r\n\x1a\n", 8);
	unlink(svg);
	unlink(png);
}

static void test_report_history_plot(void **state)
{
	char dir[] = "/tmp/bpflab-test-plot-XXXXXX", svg[128], png[128], cmd[512], *script = NULL;
	json_t *rep = history_report();
	struct err err;

	assert_int_equal(plot_history_script(rep, "x.svg", &script, &err), 0);
	assert_non_null(strstr(script, "set terminal svg"));
	assert_non_null(strstr(script, "$s0 << EOD\n0 \"6.1.0-47-amd64\" "));
	assert_non_null(strstr(script, "with yerrorlines"));
	assert_non_null(strstr(script, "set format y '%.1s%c'\n"));	/* 14.0M, not 1.4e+07 */
	assert_non_null(strstr(script, "set arrow from first 1.5"));	/* the change point */
	free(script);
	assert_int_equal(plot_history_script(rep, "x.pdf", &script, &err), -EINVAL);

	tmpdir_make(dir);
	snprintf(svg, sizeof(svg), "%s/h.svg", dir);
	snprintf(png, sizeof(png), "%s/h.png", dir);
	assert_int_equal(plot_history(rep, svg, &err), 0);
	/* the series drawn */
	snprintf(cmd, sizeof(cmd), "grep -q '<path' '%s' && grep -q 'drop xdp_drop' '%s'", svg, svg);
	assert_svg_renders(svg, png, cmd);
	/* gnuplot's own png terminal as the second renderer */
	assert_int_equal(plot_history(rep, png, &err), 0);
	assert_int_equal(access(png, R_OK), 0);
	unlink(png);
	rmdir(dir);
	json_decref(rep);
}

/* gnuplot's stderr goes through bpflab's words: a failure's error carries gnuplot's line,
 * a warning (gnuplot mends an empty range itself) reaches nobody's terminal. */
static void test_report_plot_gnuplot_words(void **state)
{
	struct err err;
	char dir[] = "/tmp/bpflab-test-gwords-XXXXXX", path[128], script[512];
	int saved, fd;
	FILE *f;
	long size;

	(void)state;
	tmpdir_make(dir);
	snprintf(path, sizeof(path), "%s/stderr", dir);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(saved >= 0 && fd >= 0);
	dup2(fd, STDERR_FILENO);
	close(fd);

	assert_int_equal(plot_run_gnuplot("set foo\n", &err), -EIO);
	assert_string_equal(err.msg, "gnuplot failed (status 1): line 0: unrecognized option - see "
			    "'help set'.");
	snprintf(script, sizeof(script), "set terminal svg\nset output '%s/w.svg'\n"
		 "set xrange [0:1]\nplot 0\n", dir);
	assert_int_equal(plot_run_gnuplot(script, &err), 0);

	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	f = fopen(path, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fclose(f);
	assert_int_equal(size, 0);
	unlink(path);
	snprintf(path, sizeof(path), "%s/w.svg", dir);
	unlink(path);
	rmdir(dir);
}

/* compare --plot: one panel per metric compared (prog.ns_per_run, then port.rx_pps), each
 * with its own datablock, title and unit, stacked by multiplot; a real SVG that parses
 * and renders, with both panels' titles and every bar group's label in it. */
static void test_report_compare_plot(void **state)
{
	char dir[] = "/tmp/bpflab-test-cplot-XXXXXX", svg[64], png[64], cmd[1024];
	struct err err;
	char *script = NULL;
	json_t *rep = fixed_report();
	const char *p0, *p1;

	assert_int_equal(plot_compare_script(rep, "x.svg", &script, &err), 0);
	assert_non_null(strstr(script, "set terminal svg size 900,760"));
	assert_non_null(strstr(script, "set multiplot layout 2,1\n"));
	p0 = strstr(script, "$d0 << EOD\n\"drop xdp_drop\" ");
	p1 = strstr(script, "$d1 << EOD\n\"probe b\" ");
	assert_non_null(p0);
	assert_non_null(p1);
	assert_true(p0 < p1);
	assert_non_null(strstr(script, "set title 'prog.ns_per_run by run (mean ± stddev)'\n"
				       "set ylabel 'ns'\nplot $d0 using 2:3:xtic(1) title '7', "
				       "'' using 4:5 title '8'\n"));
	assert_non_null(strstr(script, "set title 'port.rx_pps by run (mean ± stddev)'\n"
				       "set ylabel 'pps'\nplot $d1 "));
	assert_non_null(strstr(script, "\"tx b\" "));
	assert_non_null(strstr(script, "unset multiplot\n"));
	free(script);

	tmpdir_make(dir);
	snprintf(svg, sizeof(svg), "%s/c.svg", dir);
	snprintf(png, sizeof(png), "%s/c.png", dir);
	assert_int_equal(plot_compare(rep, svg, &err), 0);
	/* both panels drawn: both titles, the labels of both metrics' groups, bars as paths */
	snprintf(cmd, sizeof(cmd), "grep -q 'prog.ns_per_run by run' '%s' && "
		 "grep -q 'port.rx_pps by run' '%s' && grep -q 'probe xdp_drop.xdp_drop_slow' '%s' && "
		 "grep -q 'tx b' '%s' && [ $(grep -c '<path' '%s') -ge 8 ]", svg, svg, svg, svg,
		 svg);
	assert_svg_renders(svg, png, cmd);
	rmdir(dir);
	json_decref(rep);
}

/* A summary row of store_query_run_spread for the drop row of fixed_rows. */
static json_t *spread_row(int run, const char *sha, double mean)
{
	return json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:n, s:s, s:s, s:s, s:i, s:f, "
			 "s:f}", "run", run, "plan_sha256", sha, "host", "h1", "kernel_release",
			 "6.18.44", "kernel_version", "#1", "config_sha256", "", "metric",
			 "prog.ns_per_run", "point", "timing", "wall", "variant", "drop", "subject",
			 "xdp_drop", "n", 5, "mean", mean, "var", 0.04);
}

/* Runs compared with their run-to-run spread: the drop row carries it (three runs of
 * run 7's plan and one of run 8's, pooled), the other rows have no summaries and say
 * so; under the table each note once, numbered; the smallest visible change grows by
 * the spread. */
static void test_report_compare_run_spread(void **state)
{
	json_t *rows = fixed_rows(), *spread = json_array(), *rep, *plain, *r;
	ANALYSIS_OPTS(o, .run_spread = spread);
	struct err err;
	char *t;

	(void)state;
	json_array_append_new(spread, spread_row(5, "3f2a9c1e0b7d55aa", 25.0));
	json_array_append_new(spread, spread_row(6, "3f2a9c1e0b7d55aa", 26.5));
	json_array_append_new(spread, spread_row(7, "3f2a9c1e0b7d55aa", 25.02));
	json_array_append_new(spread, spread_row(8, "9c0ffee12345678a", 25.0));
	rep = analysis_compare(rows, "run", "7", "8", &o, &err);
	plain = analysis_compare(rows, "run", "7", "8", NULL, &err);
	assert_non_null(rep);
	assert_non_null(plain);
	assert_int_equal(report_compare_add_min_detectable(rep), 0);
	assert_int_equal(report_compare_add_min_detectable(plain), 0);
	r = json_array_get(json_object_get(json_array_get(json_object_get(rep, "comparisons"),
							  0), "rows"), 0);
	assert_string_equal(json_string_value(json_object_get(r, "variant")), "drop");
	assert_int_equal(json_integer_value(json_object_get(r, "run_spread_runs")), 4);
	assert_true(json_number_value(json_object_get(r, "run_spread_pct")) > 2);
	assert_true(json_number_value(json_object_get(r, "min_detectable_pct")) >
		    json_number_value(json_object_get(json_array_get(json_object_get(
			    json_array_get(json_object_get(plain, "comparisons"), 0), "rows"), 0),
			    "min_detectable_pct")) + 5);
	t = text_of(rep, NULL, 0);
	assert_non_null(strstr(t, "(1) run-to-run spread unknown: no summary of a side's run"));
	assert_null(strstr(strstr(t, "(1) run-to-run") + 1, "(1) run-to-run"));
	assert_non_null(strstr(t, "(2) run-to-run spread "));
	assert_non_null(strstr(t, "is in each test"));
	assert_lines_fit(t, 100);
	free(t);
	/* without summaries: no run-to-run line at all */
	t = text_of(plain, NULL, 0);
	assert_null(strstr(t, "run-to-run"));
	free(t);
	json_decref(rep);
	json_decref(plain);
	json_decref(spread);
	json_decref(rows);
}

/* The smallest-change sentence under a noisy row stays within 80 columns even when its
 * numbers are long (86 % CV, a change of 110 % printed as 1.1e+02). */
static void test_report_compare_mde_wraps(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	report_compare_mde_sentence(f, "probe b: ", 10, 10, 86, 110, "");
	report_compare_mde_sentence(f, "a-long-variant-name with-a-long-subject-name: ", 10, 10,
				    86, 110, "");
	fclose(f);
	assert_lines_fit(buf, 80);
	assert_non_null(strstr(buf, "1.1e+02 %"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_compare_table),
		cmocka_unit_test(test_report_compare_tc_attach),
		cmocka_unit_test(test_report_compare_run_spread),
		cmocka_unit_test(test_report_compare_mde_wraps),
		cmocka_unit_test(test_report_compare_exact),
		cmocka_unit_test(test_report_compare_patch),
		cmocka_unit_test(test_report_compare_grid),
		cmocka_unit_test(test_report_compare_csv),
		cmocka_unit_test(test_report_compare_num),
		cmocka_unit_test(test_report_history_text),
		cmocka_unit_test(test_report_compare_min_detectable),
		cmocka_unit_test(test_report_history_plot),
		cmocka_unit_test(test_report_compare_plot),
		cmocka_unit_test(test_report_plot_gnuplot_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

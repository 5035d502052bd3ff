// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_analysis.c - lib/analysis/analysis.c on fixed rows and through the store: grouping by a
 * field, the baseline against every other group, flagged results left out and counted
 * (and used with include_flagged), a renamed program paired across subjects, history
 * with a change point between two kernels, and the store round trip of an import
 * (SQLite in memory: store_import, store_query_values with "by"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "base/util.h"
#include "store/store.h"
#include "helpers.h"

/* A value row as store_query_values gives it (the members analysis uses). */
static json_t *row(json_int_t job, const char *group, const char *variant, const char *subject,
		   const char *metric, const char *unit, double value, const char *flag)
{
	json_t *r = json_pack("{s:I, s:I, s:s, s:s, s:s, s:s, s:s, s:f, s:s, s:[], s:{}, s:[],"
			      " s:s, s:s, s:s}",
			      "run", (json_int_t)1, "job", job, "group", group, "variant", variant,
			      "subject", subject, "metric", metric, "unit", unit, "value", value,
			      "kernel_release", group, "flags", "point", "debug_options",
			      "host", "h1", "plan", "p", "plan_sha256", "0123456789abcdef");

	assert_non_null(r);
	if (flag)
		json_array_append_new(json_object_get(r, "flags"), json_string(flag));
	return r;
}

static json_t *kernels_rows(void)
{
	static const double base[] = { 100, 101, 99, 100.5, 99.5 };
	json_t *rows = json_array();
	json_int_t job = 1;
	size_t i;

	for (i = 0; i < 5; i++) {
		json_array_append_new(rows, row(job++, "6.1", "drop", "xdp_drop", "prog.ns_per_run",
						"ns", base[i], NULL));
		json_array_append_new(rows, row(job++, "6.12", "drop", "xdp_drop", "prog.ns_per_run",
						"ns", base[i] * 1.2, NULL));
		json_array_append_new(rows, row(job++, "6.18", "drop", "xdp_drop", "prog.ns_per_run",
						"ns", base[i] * 1.001, NULL));
	}
	/* flagged: would make 6.18 look very different */
	json_array_append_new(rows, row(job++, "6.18", "drop", "xdp_drop", "prog.ns_per_run", "ns",
					900, "debug-kernel"));
	json_array_append_new(rows, row(job++, "6.18", "drop", "xdp_drop", "prog.ns_per_run", "ns",
					800, "disturbed"));
	json_array_append_new(rows, row(job++, "6.12", "drop", "xdp_drop", "prog.ns_per_run", "ns",
					700, "disturbed"));
	return rows;
}

static const json_t *find_cmp(const json_t *report, const char *candidate)
{
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(report, "comparisons"), i, c)
		if (!strcmp(json_string_value(json_object_get(c, "candidate")), candidate))
			return c;
	fail_msg("no comparison with '%s'", candidate);
	return NULL;
}

static const char *verdict_of(const json_t *cmp)
{
	return json_string_value(json_object_get(json_array_get(json_object_get(cmp, "rows"), 0),
						 "verdict"));
}

static void test_analysis_groups_and_exclusion(void **state)
{
	json_t *rows = kernels_rows(), *rep, *x, *row0;
	struct err err;

	rep = analysis_compare(rows, "kernel.release", "6.1", NULL, NULL, &err);
	assert_non_null(rep);
	assert_int_equal(json_array_size(json_object_get(rep, "comparisons")), 2);
	assert_string_equal(verdict_of(find_cmp(rep, "6.12")), "DIFFERENT");
	assert_string_equal(verdict_of(find_cmp(rep, "6.18")), "SAME");
	row0 = json_array_get(json_object_get(find_cmp(rep, "6.12"), "rows"), 0);
	assert_int_equal(json_integer_value(json_object_get(row0, "n_a")), 5);
	assert_int_equal(json_integer_value(json_object_get(row0, "n_b")), 5);
	assert_string_equal(json_string_value(json_object_get(row0, "change")), "worse");
	assert_true(json_real_value(json_object_get(row0, "delta_pct")) > 19.9 &&
		    json_real_value(json_object_get(row0, "delta_pct")) < 20.1);
	x = json_object_get(rep, "excluded");
	assert_int_equal(json_integer_value(json_object_get(x, "results")), 3);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(x, "by_flag"),
							    "disturbed")), 2);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(x, "by_flag"),
							    "debug-kernel")), 1);
	/* the sides: baseline first, with its result count */
	assert_string_equal(json_string_value(json_object_get(
		json_array_get(json_object_get(rep, "sides"), 0), "group")), "6.1");
	assert_int_equal(json_integer_value(json_object_get(
		json_array_get(json_object_get(rep, "sides"), 0), "results")), 5);
	json_decref(rep);

	/* with the flagged results, 6.18 is no longer the same */
	{
		ANALYSIS_OPTS(o, .include_flagged = true);

		rep = analysis_compare(rows, "kernel.release", "6.1", "6.18", &o, &err);
		assert_non_null(rep);
		assert_int_equal(json_array_size(json_object_get(rep, "comparisons")), 1);
		assert_string_not_equal(verdict_of(find_cmp(rep, "6.18")), "SAME");
		assert_int_equal(json_integer_value(json_object_get(json_object_get(rep, "excluded"),
								    "results")), 0);
		json_decref(rep);
	}
	json_decref(rows);
}

/* Tukey's fences against values worked out by hand (quartiles of R's type 7). */
static void test_analysis_tukey_fences(void **state)
{
	/* 1 2 3 4 100: Q1 = 2, Q3 = 4 (h = 1 and 3, on order statistics), IQR 2 */
	static const double v[] = { 4, 100, 2, 1, 3 };
	/* 10 11 12 13 14 15: h = 1.25 -> 11.25, h = 3.75 -> 13.75, IQR 2.5 */
	static const double w[] = { 15, 10, 14, 11, 13, 12 };
	double lo, hi;

	(void)state;
	assert_int_equal(analysis_tukey_fences(v, 5, 1.5, &lo, &hi), 0);
	assert_float_equal(lo, -1.0, 1e-12);
	assert_float_equal(hi, 7.0, 1e-12);
	assert_int_equal(analysis_tukey_fences(v, 5, 3, &lo, &hi), 0);
	assert_float_equal(lo, -4.0, 1e-12);
	assert_float_equal(hi, 10.0, 1e-12);
	assert_int_equal(analysis_tukey_fences(w, 6, 1.5, &lo, &hi), 0);
	assert_float_equal(lo, 7.5, 1e-12);
	assert_float_equal(hi, 17.5, 1e-12);
	/* a constant series: every other value is outside */
	assert_int_equal(analysis_tukey_fences((const double[]){ 7, 7, 7, 7 }, 4, 1.5, &lo, &hi), 0);
	assert_float_equal(lo, 7.0, 0);
	assert_float_equal(hi, 7.0, 0);
	assert_int_equal(analysis_tukey_fences(v, 3, 1.5, &lo, &hi), -EINVAL);
	assert_true(analysis_is_record("rx.cpu") && analysis_is_record("cpu.others") &&
		    analysis_is_record("port.rx_pps.median") &&
		    analysis_is_record("warmup.ns_per_run"));
	assert_false(analysis_is_record("port.rx_pps") || analysis_is_record("cpu.busy"));
	/* driver counters: records, unless the job's metrics list them (the store's
	 * "listed") */
	{
		json_t *rec = json_pack("{s:s}", "metric", "nic.rx_queue_0_xdp_drops");
		json_t *listed = json_pack("{s:s, s:b}", "metric", "nic.rx_queue_0_xdp_drops",
					   "listed", 1);
		json_t *plain = json_pack("{s:s, s:b}", "metric", "port.rx_pps", "listed", 1);
		json_t *median = json_pack("{s:s, s:b}", "metric", "rx.cpu", "listed", 1);

		assert_true(analysis_is_record("nic.rx_queue_0_xdp_drops"));
		assert_true(analysis_row_is_record(rec));
		assert_false(analysis_row_is_record(listed));
		assert_false(analysis_row_is_record(plain));
		/* "listed" counts on nic.* rows only */
		assert_true(analysis_row_is_record(median));
		json_decref(rec);
		json_decref(listed);
		json_decref(plain);
		json_decref(median);
	}
	/* rx.ns_per_frame's denominators and fit are records, the two metrics are not */
	assert_true(analysis_is_record("rx.frames") && analysis_is_record("rx.polls") &&
		    analysis_is_record("rx.fit_ns_per_frame") &&
		    analysis_is_record("rx.ns_per_frame.median"));
	assert_false(analysis_is_record("rx.ns_per_frame") ||
		     analysis_is_record("rx.softirq_ns_per_frame"));
}

/* The exclusion rule: disturbed left out, unstable used; a far-out value left out and
 * counted unless all; the records (rx.cpu, *.median) never become rows. */
static void test_analysis_exclusion_rule(void **state)
{
	static const double a[] = { 50, 51, 49, 50.5, 49.5, 50 };
	static const double b[] = { 60, 61, 59, 60.5, 59.5, 300 };
	json_t *rows = json_array(), *rep, *x, *r0;
	json_int_t job = 1;
	struct err err;
	size_t i;

	(void)state;
	for (i = 0; i < 6; i++) {
		json_array_append_new(rows, row(job, "A", "drop", "xdp_drop", "prog.ns_per_run",
						"ns", a[i], i == 2 ? "unstable" : NULL));
		json_array_append_new(rows, row(job++, "A", "drop", "xdp_drop",
						"prog.ns_per_run.median", "ns", a[i], NULL));
		json_array_append_new(rows, row(job++, "B", "drop", "xdp_drop", "prog.ns_per_run",
						"ns", b[i], NULL));
	}
	json_array_append_new(rows, row(job++, "B", "drop", "xdp_drop", "prog.ns_per_run", "ns",
					10, "disturbed"));
	json_array_append_new(rows, row(1, "A", "drop", "b", "rx.cpu", "cpu", 0, NULL));
	rep = analysis_compare(rows, "kernel.release", "A", "B", NULL, &err);
	assert_non_null(rep);
	assert_int_equal(json_array_size(json_object_get(find_cmp(rep, "B"), "rows")), 1);
	r0 = json_array_get(json_object_get(find_cmp(rep, "B"), "rows"), 0);
	assert_string_equal(json_string_value(json_object_get(r0, "metric")), "prog.ns_per_run");
	/* the unstable value is used; 300 is far out (B: Q1 59.625, Q3 60.875, hi 64.625) */
	assert_int_equal(json_integer_value(json_object_get(r0, "n_a")), 6);
	assert_int_equal(json_integer_value(json_object_get(r0, "n_b")), 5);
	assert_int_equal(json_integer_value(json_object_get(r0, "outliers_b")), 1);
	assert_string_equal(json_string_value(json_object_get(r0, "verdict")), "DIFFERENT");
	x = json_object_get(rep, "excluded");
	assert_int_equal(json_integer_value(json_object_get(x, "results")), 1);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(x, "by_flag"),
							    "disturbed")), 1);
	assert_null(json_object_get(json_object_get(x, "by_flag"), "unstable"));
	assert_int_equal(json_integer_value(json_object_get(x, "outliers")), 1);
	json_decref(rep);
	{
		ANALYSIS_OPTS(o, .include_flagged = true, .all = true);

		rep = analysis_compare(rows, "kernel.release", "A", "B", &o, &err);
		assert_non_null(rep);
		r0 = json_array_get(json_object_get(find_cmp(rep, "B"), "rows"), 0);
		assert_int_equal(json_integer_value(json_object_get(r0, "n_b")), 7);
		assert_int_equal(json_integer_value(json_object_get(
			json_object_get(rep, "excluded"), "outliers")), 0);
		json_decref(rep);
	}
	json_decref(rows);
}

/* Two populations on one side, told apart by where the receive softirq ran: MIXED. */
static void test_analysis_mixed(void **state)
{
	static const double a[] = { 1.6e6, 1.7e6, 3.2e6, 1.65e6, 3.3e6 };
	static const int cpu[] = { 0, 0, 1, 0, 1 };
	json_t *rows = json_array(), *rep, *r0;
	json_int_t job = 1;
	struct err err;
	size_t i;

	(void)state;
	for (i = 0; i < 5; i++, job += 2) {
		json_array_append_new(rows, row(job, "A", "pass", "b", "port.rx_pps", "pps", a[i],
						NULL));
		json_array_append_new(rows, row(job, "A", "pass", "b", "rx.cpu", "cpu", cpu[i],
						NULL));
		json_array_append_new(rows, row(job + 1, "B", "pass", "b", "port.rx_pps", "pps",
						a[i] * 1.01, NULL));
		json_array_append_new(rows, row(job + 1, "B", "pass", "b", "rx.cpu", "cpu", 0,
						NULL));
	}
	rep = analysis_compare(rows, "kernel.release", "A", "B", NULL, &err);
	assert_non_null(rep);
	r0 = json_array_get(json_object_get(find_cmp(rep, "B"), "rows"), 0);
	assert_string_equal(json_string_value(json_object_get(r0, "verdict")), "MIXED");
	/* each population's mean: (1.6 + 1.7 + 1.65) / 3 = 1.65 M, (3.2 + 3.3) / 2 = 3.25 M */
	assert_non_null(strstr(json_string_value(json_object_get(r0, "mixed")),
			       "baseline cpu0 3 at 1.65e+06, cpu1 2 at 3.25e+06"));
	json_decref(rep);
	json_decref(rows);
}

static void test_analysis_errors(void **state)
{
	json_t *rows = kernels_rows(), *none = json_array();
	struct err err;

	assert_null(analysis_compare(rows, "kernel.release", "5.10", NULL, NULL, &err));
	assert_int_equal(errno, ENOENT);
	assert_string_equal(err.msg, "no results for baseline kernel.release '5.10' "
			    "(there are '6.1', '6.12', '6.18')");
	assert_null(analysis_compare(rows, "kernel.release", "6.1", "4.19", NULL, &err));
	assert_int_equal(errno, ENOENT);
	assert_null(analysis_compare(none, "run", NULL, NULL, NULL, &err));
	assert_string_equal(err.msg, "no results to compare");
	json_decref(rows);
	json_decref(none);
}

static void test_analysis_rename_pairs(void **state)
{
	json_t *rows = json_array(), *rep, *r;
	struct err err;
	int i;

	for (i = 0; i < 5; i++) {
		json_array_append_new(rows, row(10 + i, "1", "probe", "xdp_drop", "prog.ns_per_run",
						"ns", 25 + i * 0.1, NULL));
		json_array_append_new(rows, row(20 + i, "2", "probe", "xdp_drop_slow",
						"prog.ns_per_run", "ns", 300 + i, NULL));
	}
	rep = analysis_compare(rows, "run", "1", "2", NULL, &err);
	assert_non_null(rep);
	r = json_array_get(json_object_get(find_cmp(rep, "2"), "rows"), 0);
	assert_non_null(r);
	assert_string_equal(json_string_value(json_object_get(r, "subject")),
			    "xdp_drop>xdp_drop_slow");
	assert_string_equal(json_string_value(json_object_get(r, "verdict")), "DIFFERENT");
	assert_int_equal(json_array_size(json_object_get(find_cmp(rep, "2"), "only_candidate")), 0);
	json_decref(rep);
	json_decref(rows);
}

static void test_analysis_rates_mean(void **state)
{
	json_t *rows = json_array(), *rep, *r;
	struct err err;
	int i;

	/* 40 and 60 Mpps over windows of equal time: 100 M frames in 2 s, 50 Mpps (not
	 * the harmonic 48, which holds for windows of equal frames) */
	for (i = 0; i < 2; i++) {
		json_array_append_new(rows, row(1 + i, "a", "v", "b", "port.rx_pps", "pps",
						i ? 60e6 : 40e6, NULL));
		json_array_append_new(rows, row(5 + i, "b", "v", "b", "port.rx_pps", "pps",
						i ? 60e6 : 40e6, NULL));
	}
	rep = analysis_compare(rows, "run", "a", "b", NULL, &err);
	assert_non_null(rep);
	r = json_array_get(json_object_get(find_cmp(rep, "b"), "rows"), 0);
	assert_true(json_real_value(json_object_get(r, "mean_a")) > 49.9999e6 &&
		    json_real_value(json_object_get(r, "mean_a")) < 50.0001e6);
	assert_string_equal(json_string_value(json_object_get(r, "kind")), "rate");
	json_decref(rep);
	json_decref(rows);
}

static void test_analysis_history_change(void **state)
{
	static const double noise[] = { 0.2, -0.1, 0.15, -0.2, 0.05 };
	static const char *const kernels[] = { "6.1", "6.6", "6.12", "6.18" };
	static const double level[] = { 10, 10, 12, 12 };
	json_t *rows = json_array(), *rep, *s, *c;
	json_int_t job = 1;
	struct err err;
	size_t k, i;

	for (k = 0; k < 4; k++)
		for (i = 0; i < 5; i++)
			json_array_append_new(rows, row(job++, kernels[k], "drop", "xdp_drop",
							"prog.ns_per_run", "ns", level[k] + noise[i],
							NULL));
	rep = analysis_history(rows, "kernel.release", NULL, &err);
	assert_non_null(rep);
	s = json_array_get(json_object_get(rep, "series"), 0);
	assert_int_equal(json_array_size(json_object_get(s, "points")), 4);
	assert_string_equal(json_string_value(json_object_get(
		json_array_get(json_object_get(s, "points"), 2), "group")), "6.12");
	assert_int_equal(json_array_size(json_object_get(s, "changes")), 1);
	c = json_array_get(json_object_get(s, "changes"), 0);
	assert_string_equal(json_string_value(json_object_get(c, "before")), "6.6");
	assert_string_equal(json_string_value(json_object_get(c, "after")), "6.12");
	assert_false(json_is_true(json_object_get(c, "within")));
	json_decref(rep);
	json_decref(rows);
}

/* Imported plan and host names follow the plan-name rule: markup, 100,000 characters and
 * invalid UTF-8 were stored (or became "imported" or "out of memory"). */
static void test_analysis_store_import_names(void **state)
{
	static const char *const bad[] = { "<b>x</b>", "a b", "caf\xc3\xa9", "x;y" };
	struct err err;
	char *huge = calloc(1, 100001);
	struct store *st = store_open(":memory:", false, &err);
	json_t *imp;
	int64_t run = 0;
	size_t i;

	(void)state;
	assert_non_null(st);
	assert_non_null(huge);
	memset(huge, 'p', 100000);
	imp = json_pack("{s:s, s:s, s:s, s:[{s:s, s:i, s:[{s:s, s:s, s:f, s:s}]}]}",
			"plan", "hand", "host", "lab-h1.x", "source", "hand.csv", "jobs",
			"variant", "base", "rep", 1, "samples", "metric", "prog.ns_per_run",
			"subject", "p", "value", 30.0, "unit", "ns");
	assert_non_null(imp);
	assert_int_equal(store_import(st, imp, 1700000000000LL, &run), 0);
	for (i = 0; i <= ARRAY_SIZE(bad); i++) {
		const char *name = i < ARRAY_SIZE(bad) ? bad[i] : huge;

		json_object_set_new(imp, "plan", json_string(name));
		json_object_set_new(imp, "host", json_string("h1"));
		assert_int_equal(store_import(st, imp, 1700000000000LL, &run), -EINVAL);
		assert_string_equal(store_err(st)->msg, "cannot import 'hand.csv': 'plan' must be a name of 1 to 128 "
				    "letters, digits, '.', '_' and '-'");
		json_object_set_new(imp, "plan", json_string("hand"));
		json_object_set_new(imp, "host", json_string(name));
		assert_int_equal(store_import(st, imp, 1700000000000LL, &run), -EINVAL);
		assert_string_equal(store_err(st)->msg, "cannot import 'hand.csv': 'host' must be a name of 1 to 128 "
				    "letters, digits, '.', '_' and '-'");
	}
	json_decref(imp);
	free(huge);
	store_close(&st);
}

static void test_analysis_store_import_query(void **state)
{
	struct err err;
	struct store *st = store_open(":memory:", false, &err);
	json_t *imp, *filter, *rows, *rep, *r;
	int64_t run = 0;

	assert_non_null(st);
	imp = json_pack("{s:s, s:s, s:["
			"{s:s, s:i, s:[{s:s, s:s, s:f, s:s}]},"
			"{s:s, s:i, s:[{s:s, s:s, s:f, s:s}]},"
			"{s:s, s:i, s:[{s:s, s:s, s:f, s:s}]},"
			"{s:s, s:i, s:[{s:s, s:s, s:f, s:s}]}]}",
			"plan", "hand", "source", "hand.csv", "jobs",
			"variant", "base", "rep", 1, "samples", "metric", "prog.ns_per_run",
			"subject", "p", "value", 30.0, "unit", "ns",
			"variant", "base", "rep", 2, "samples", "metric", "prog.ns_per_run",
			"subject", "p", "value", 30.2, "unit", "ns",
			"variant", "patch", "rep", 1, "samples", "metric", "prog.ns_per_run",
			"subject", "p", "value", 36.0, "unit", "ns",
			"variant", "patch", "rep", 2, "samples", "metric", "prog.ns_per_run",
			"subject", "p", "value", 36.1, "unit", "ns");
	assert_non_null(imp);
	assert_int_equal(store_import(st, imp, 1700000000000LL, &run), 0);
	assert_true(run > 0);

	filter = json_pack("{s:s, s:s, s:s}", "plan", "hand", "by", "variant", "metric",
			   "prog.ns_per_run");
	rows = store_query_values(st, filter);
	assert_non_null(rows);
	assert_int_equal(json_array_size(rows), 4);
	r = json_array_get(rows, 0);
	assert_string_equal(json_string_value(json_object_get(r, "group")), "base");
	assert_string_equal(json_string_value(json_object_get(r, "host")), "imported");
	assert_string_equal(json_string_value(json_object_get(r, "window")), "cost");
	assert_string_equal(json_string_value(json_object_get(r, "day")), "2023-11-14");
	assert_true(json_is_true(json_object_get(r, "imported")));
	assert_int_equal(json_integer_value(json_object_get(r, "run")), run);
	/* plan order: base is the import's first variant, patch its second; one point */
	assert_int_equal(json_integer_value(json_object_get(r, "variant_idx")), 0);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(rows, 3),
							    "variant_idx")), 1);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(rows, 3),
							    "point_seq")), 0);

	rep = analysis_compare(rows, "variant", "base", NULL, NULL, &err);
	assert_non_null(rep);
	r = json_array_get(json_object_get(find_cmp(rep, "patch"), "rows"), 0);
	assert_int_equal(json_integer_value(json_object_get(r, "n_a")), 2);
	/* 2 + 2 values: no test can reach alpha; UNKNOWN with a repetition estimate */
	assert_string_equal(json_string_value(json_object_get(r, "verdict")), "UNKNOWN");
	assert_true(json_integer_value(json_object_get(r, "more_reps")) >= 1);
	json_decref(rep);
	json_decref(rows);

	/* a bad "by" and a bad run list are refused, the store stays usable */
	json_object_set_new(filter, "by", json_string("colour"));
	assert_null(store_query_values(st, filter));
	assert_int_equal(errno, EINVAL);
	json_object_set_new(filter, "by", json_string("run"));
	json_object_set_new(filter, "runs", json_pack("[s]", "one"));
	assert_null(store_query_values(st, filter));
	json_object_set_new(filter, "runs", json_pack("[I]", (json_int_t)run));
	rows = store_query_values(st, filter);
	assert_non_null(rows);
	assert_int_equal(json_array_size(rows), 4);
	json_decref(rows);

	/* a malformed import stores nothing */
	json_object_set_new(imp, "jobs", json_pack("[{s:s, s:[{s:s}]}]", "variant", "x",
						   "samples", "metric", "m"));
	assert_int_equal(store_import(st, imp, 1700000000000LL, &run), -EINVAL);
	/* a second value of one job and series: named, not SQLite's UNIQUE failure */
	json_object_set_new(imp, "jobs", json_pack("[{s:s, s:[{s:s, s:s, s:f, s:s}, "
						   "{s:s, s:s, s:f, s:s}]}]", "variant", "x",
						   "samples", "metric", "prog.ns_per_run",
						   "subject", "p", "value", 1.0, "unit", "ns",
						   "metric", "prog.ns_per_run", "subject", "p",
						   "value", 2.0, "unit", "ns"));
	assert_int_equal(store_import(st, imp, 1700000000000LL, &run), -EINVAL);
	assert_contains(store_err(st)->msg, "jobs[0].samples[1]: 'prog.ns_per_run' of 'p' is "
			"there already (samples[0]): one value per job and subject");
	assert_null(strstr(store_err(st)->msg, "UNIQUE"));
	/* a negative time */
	json_object_set_new(imp, "jobs", json_pack("[{s:s, s:[{s:s, s:s, s:f, s:s}]}]",
						   "variant", "x", "samples", "metric",
						   "prog.ns_per_run", "subject", "p", "value", -2.5,
						   "unit", "ns"));
	assert_int_equal(store_import(st, imp, 1700000000000LL, &run), -EINVAL);
	assert_contains(store_err(st)->msg, "jobs[0].samples[0]: 'value' -2.5 of "
			"'prog.ns_per_run' is negative (a time in ns cannot be)");
	json_object_del(filter, "runs");
	json_object_del(filter, "metric");
	rows = store_query_values(st, filter);
	assert_int_equal(json_array_size(rows), 4);
	json_decref(rows);

	json_decref(filter);
	json_decref(imp);
	store_close(&st);
}

/* Compare rows come in plan order (per metric: points, then variants), whatever order
 * the values were measured in: here pass before drop and packet size 1500 before 64. */
static void test_analysis_plan_order(void **state)
{
	static const struct {
		const char *variant, *size;
		int vidx, pseq;
	} order[] = {	/* first measured first */
		{ "pass", "1500", 1, 2 }, { "drop", "1500", 0, 2 },
		{ "pass", "64", 1, 0 }, { "drop", "64", 0, 0 },
	};
	static const char *const want[][2] = {
		{ "drop", "64" }, { "pass", "64" }, { "drop", "1500" }, { "pass", "1500" },
	};
	json_t *rows = json_array(), *rep, *r;
	json_int_t job = 1;
	struct err err;
	char point[64];
	size_t i, k;

	(void)state;
	for (k = 0; k < 3; k++)
		for (i = 0; i < 2 * ARRAY_SIZE(order); i++) {
			r = row(job++, i < ARRAY_SIZE(order) ? "6.1" : "6.12",
				order[i % ARRAY_SIZE(order)].variant, "b", "port.rx_pps", "pps",
				1e6 + (double)(k * 1000 + i), NULL);
			json_object_set_new(r, "point", json_pack("{s:s}", "traffic.packet.size",
								  order[i % ARRAY_SIZE(order)].size));
			json_object_set_new(r, "variant_idx",
					    json_integer(order[i % ARRAY_SIZE(order)].vidx));
			json_object_set_new(r, "point_seq",
					    json_integer(order[i % ARRAY_SIZE(order)].pseq));
			json_array_append_new(rows, r);
		}
	rep = analysis_compare(rows, "kernel.release", "6.1", NULL, NULL, &err);
	assert_non_null(rep);
	r = json_object_get(find_cmp(rep, "6.12"), "rows");
	assert_int_equal(json_array_size(r), 4);
	for (i = 0; i < 4; i++) {
		snprintf(point, sizeof(point), "traffic.packet.size=%s", want[i][1]);
		assert_string_equal(json_string_value(json_object_get(json_array_get(r, i),
								      "variant")), want[i][0]);
		assert_string_equal(json_string_value(json_object_get(json_array_get(r, i),
								      "point")), point);
	}
	json_decref(rep);

	/* rows without plan order (an older coordinator): as first measured */
	json_array_foreach(rows, i, r) {
		json_object_del(r, "variant_idx");
		json_object_del(r, "point_seq");
	}
	rep = analysis_compare(rows, "kernel.release", "6.1", NULL, NULL, &err);
	assert_non_null(rep);
	r = json_object_get(find_cmp(rep, "6.12"), "rows");
	assert_string_equal(json_string_value(json_object_get(json_array_get(r, 0), "variant")),
			    "pass");
	json_decref(rep);
	json_decref(rows);
}

/* Timing modes: a kernel measured on wall time and one measured under icount (guest
 * instructions) share no timing mode, so compare refuses them with a message naming
 * both; once the icount kernel also has wall values, the two compare over those only
 * (the icount values are a series of their own, point "timing=icount"). */
static void test_analysis_timing_apart(void **state)
{
	static const double v[] = { 100, 101, 99, 100.5, 99.5 };
	json_t *rows = json_array(), *rep, *c, *r;
	struct err err;
	json_int_t job = 1;
	size_t i;
	int wall_rows = 0;

	for (i = 0; i < 5; i++) {
		json_array_append_new(rows, row(job++, "6.1", "drop", "xdp_drop", "prog.ns_per_run",
						"ns", v[i], NULL));
		r = row(job++, "6.12", "drop", "xdp_drop", "prog.ns_per_run", "insns", v[i] / 2,
			NULL);
		json_object_set_new(r, "timing", json_string("icount"));
		json_array_append_new(rows, r);
	}
	assert_null(analysis_compare(rows, "kernel.release", "6.1", NULL, NULL, &err));
	assert_int_equal(errno, EINVAL);
	assert_string_equal(err.msg, "cannot compare kernel.release '6.1' with '6.12': measured with "
			    "'wall' timing against 'icount' timing (guest instructions are not "
			    "time; docs/kernels.md, Timing modes)");
	/* the other way round too */
	assert_null(analysis_compare(rows, "kernel.release", "6.12", "6.1", NULL, &err));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.msg, "'icount' timing against 'wall' timing"));

	/* 6.12 measured on wall time as well, 20 % slower: compared on wall values only
	 * (the rows say "wall" as the store's do) */
	json_array_foreach(rows, i, r)
		if (!json_object_get(r, "timing"))
			json_object_set_new(r, "timing", json_string("wall"));
	for (i = 0; i < 5; i++) {
		r = row(job++, "6.12", "drop", "xdp_drop", "prog.ns_per_run", "ns", v[i] * 1.2,
			NULL);
		json_object_set_new(r, "timing", json_string("wall"));
		json_array_append_new(rows, r);
	}
	rep = analysis_compare(rows, "kernel.release", "6.1", NULL, NULL, &err);
	if (!rep)
		fail_msg("%s", err.msg);
	c = (json_t *)find_cmp(rep, "6.12");
	json_array_foreach(json_object_get(c, "rows"), i, r) {
		const char *point = json_string_value(json_object_get(r, "point"));

		/* no row mixes the two: the icount series has no baseline side */
		assert_true(point == NULL || strstr(point, "timing=icount") == NULL);
		assert_int_equal(json_integer_value(json_object_get(r, "n_b")), 5);
		assert_string_equal(json_string_value(json_object_get(r, "verdict")), "DIFFERENT");
		assert_true(json_real_value(json_object_get(r, "delta_pct")) > 19.9 &&
			    json_real_value(json_object_get(r, "delta_pct")) < 20.1);
		wall_rows++;
	}
	assert_int_equal(wall_rows, 1);
	json_decref(rep);
	json_decref(rows);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_analysis_groups_and_exclusion),
		cmocka_unit_test(test_analysis_tukey_fences),
		cmocka_unit_test(test_analysis_exclusion_rule),
		cmocka_unit_test(test_analysis_mixed),
		cmocka_unit_test(test_analysis_errors),
		cmocka_unit_test(test_analysis_rename_pairs),
		cmocka_unit_test(test_analysis_rates_mean),
		cmocka_unit_test(test_analysis_history_change),
		cmocka_unit_test(test_analysis_store_import_query),
		cmocka_unit_test(test_analysis_store_import_names),
		cmocka_unit_test(test_analysis_plan_order),
		cmocka_unit_test(test_analysis_timing_apart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

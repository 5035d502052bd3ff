// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_analysis_spread.c - the run-to-run spread through the store (SQLite in memory):
 * four imported runs of one plan and kernel whose levels differ from run to run,
 * store_query_run_spread's per-run n, mean and variance (two passes, flagged left out),
 * no runs after the newer compared one, and analysis_compare by run: a note while fewer
 * than 3 runs are known, then run_spread_pct in the row and the test widened; a comparison
 * by variant is left as it was. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/runspread.h"
#include "base/err.h"
#include "report/report_compare.h"
#include "store/store.h"
#include "helpers.h"

/* Run levels: 7 % apart from run to run, repetitions within 0.2 %. */
static const double level[] = { 100, 107, 99, 106 };
static const double wiggle[] = { -0.2, 0.1, 0, 0.1, 0 };

/* Import run I (0-3) of plan "spread" into ST; returns its id. */
static int64_t import_run(struct store *st, int i)
{
	json_t *imp, *jobs = json_array();
	int64_t run = 0;
	size_t k;

	for (k = 0; k < ARRAY_LEN(wiggle); k++)
		json_array_append_new(jobs, json_pack("{s:s, s:i, s:[{s:s, s:s, s:f, s:s}]}",
				"variant", "loop", "rep", (int)k + 1, "samples", "metric",
				"prog.ns_per_run", "subject", "xdp_loop", "value",
				level[i] + wiggle[k], "unit", "ns"));
	imp = json_pack("{s:s, s:s, s:{s:s, s:s}, s:o}", "plan", "spread", "source",
			"spread.csv", "kernel", "release", "6.1.0", "version", "#1", "jobs", jobs);
	assert_non_null(imp);
	assert_int_equal(store_import(st, imp, 1700000000000LL + i * 1000, &run), 0);
	json_decref(imp);
	return run;
}

/* analysis_compare of runs RA and RB of ST, by run, with their spread (where not known,
 * ASSUMED: analysis_opts.run_spread_assumed): the row. */
static json_t *compare_runs(struct store *st, int64_t ra, int64_t rb, double assumed,
			    json_t **rep)
{
	json_t *f = json_pack("{s:s, s:s, s:[I, I]}", "metric", "prog.ns_per_run", "by", "run",
			      "runs", (json_int_t)ra, (json_int_t)rb);
	json_t *sf = json_pack("{s:s, s:[I, I]}", "metric", "prog.ns_per_run", "runs",
			       (json_int_t)ra, (json_int_t)rb);
	json_t *rows = store_query_values(st, f), *spread = store_query_run_spread(st, sf);
	char a[32], b[32];
	struct err err;
	ANALYSIS_OPTS(o, .min_effect = 0.03, .run_spread = spread, .run_spread_assumed = assumed);

	assert_non_null(rows);
	assert_non_null(spread);
	snprintf(a, sizeof(a), "%lld", (long long)ra);
	snprintf(b, sizeof(b), "%lld", (long long)rb);
	*rep = analysis_compare(rows, "run", a, b, &o, &err);
	assert_non_null(*rep);
	json_decref(rows);
	json_decref(spread);
	json_decref(f);
	json_decref(sf);
	return json_array_get(json_object_get(json_array_get(json_object_get(*rep,
						"comparisons"), 0), "rows"), 0);
}

static void test_analysis_spread_store(void **state)
{
	struct err err;
	struct store *st = store_open(":memory:", false, &err);
	json_t *f, *s, *r, *rep;
	int64_t run[4];
	int i;

	(void)state;
	assert_non_null(st);
	for (i = 0; i < 4; i++)
		run[i] = import_run(st, i);

	/* runs 1 and 2 named: the summaries of runs 1 and 2 only (no future data) */
	f = json_pack("{s:[I, I]}", "runs", (json_int_t)run[0], (json_int_t)run[1]);
	s = store_query_run_spread(st, f);
	assert_non_null(s);
	assert_int_equal(json_array_size(s), 2);
	r = json_array_get(s, 1);
	assert_int_equal(json_integer_value(json_object_get(r, "run")), run[1]);
	assert_int_equal(json_integer_value(json_object_get(r, "n")), 5);
	assert_near(json_number_value(json_object_get(r, "mean")), 107, 1e-12);
	/* wiggle: mean 0, squares 0.04 + 0.01 + 0.01 = 0.06, over 4 */
	assert_near(json_number_value(json_object_get(r, "var")), 0.015, 1e-12);
	assert_string_equal(json_string_value(json_object_get(r, "kernel_release")), "6.1.0");
	json_decref(s);
	/* the newest named is run 4: all four */
	json_array_append_new(json_object_get(f, "runs"), json_integer(run[3]));
	s = store_query_run_spread(st, f);
	assert_int_equal(json_array_size(s), 4);
	json_decref(s);
	/* a bad run list is refused */
	json_object_set_new(f, "runs", json_array());
	assert_null(store_query_run_spread(st, f));
	assert_int_equal(errno, EINVAL);
	json_decref(f);

	/* 1 against 2: two runs known, not enough; the spread assumed (7 %, runspread.h):
	 * their 7 % apart is not DIFFERENT, and repetitions cannot settle 3 % */
	r = compare_runs(st, run[0], run[1], 0, &rep);
	assert_string_equal(json_string_value(json_object_get(r, "verdict")), "UNKNOWN");
	assert_true(json_is_true(json_object_get(r, "run_limited")));
	assert_true(json_is_null(json_object_get(r, "run_spread_pct")));
	assert_near(json_number_value(json_object_get(r, "run_spread_assumed_pct")), 7, 1e-9);
	assert_int_equal(json_integer_value(json_object_get(r, "run_spread_runs")), 2);
	assert_string_equal(json_string_value(json_object_get(r, "run_spread_note")),
			    "run-to-run spread unknown (2 runs of the plan on this host and "
			    "kernel; 3 needed): 7 % assumed (--run-spread)");
	{
		char *text = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&text, &len);

		assert_non_null(mem);
		assert_int_equal(report_compare_print_text(rep, NULL, mem), 0);
		fclose(mem);
		assert_contains_unwrapped(text, "run-to-run spread assumed 7 % (2 runs known, 3 "
					  "needed): more repetitions cannot settle it");
		assert_contains_unwrapped(text, "(1) run-to-run spread unknown (2 runs of the "
					  "plan on this host and kernel; 3 needed): 7 % assumed");
		free(text);
	}
	json_decref(rep);
	/* ... 1 % assumed: DIFFERENT again */
	r = compare_runs(st, run[0], run[1], 0.01, &rep);
	assert_string_equal(json_string_value(json_object_get(r, "verdict")), "DIFFERENT");
	assert_near(json_number_value(json_object_get(r, "run_spread_assumed_pct")), 1, 1e-9);
	json_decref(rep);
	/* ... none (--run-spread 0): the repetitions taken as independent, as before */
	r = compare_runs(st, run[0], run[1], -1, &rep);
	assert_string_equal(json_string_value(json_object_get(r, "verdict")), "DIFFERENT");
	assert_null(json_object_get(r, "run_spread_assumed_pct"));
	assert_non_null(strstr(json_string_value(json_object_get(r, "run_spread_note")),
			       "3 needed): repetitions taken as independent (--run-spread 0)"));
	json_decref(rep);

	/* 3 against 4: four runs, about 4 % spread of run means: not DIFFERENT, and no
	 * number of repetitions settles 3 % */
	r = compare_runs(st, run[2], run[3], 0, &rep);
	assert_int_equal(json_integer_value(json_object_get(r, "run_spread_runs")), 4);
	assert_true(json_number_value(json_object_get(r, "run_spread_pct")) > 3);
	assert_true(json_number_value(json_object_get(r, "run_spread_pct")) < 5);
	assert_string_equal(json_string_value(json_object_get(r, "verdict")), "UNKNOWN");
	assert_true(json_is_true(json_object_get(r, "run_limited")));
	assert_null(json_object_get(r, "run_spread_note"));
	/* --csv carries the same: spread %, runs, df, no note, run-limited */
	{
		char *csv = NULL, want[128];
		size_t len = 0;
		FILE *mem = open_memstream(&csv, &len);

		assert_non_null(mem);
		assert_int_equal(report_compare_print_csv(rep, mem), 0);
		fclose(mem);
		assert_non_null(strstr(csv, ",more_reps,run_spread_pct,run_spread_runs,"
				       "run_spread_df,run_spread_note,run_limited,"
				       "run_spread_assumed_pct\n"));
		snprintf(want, sizeof(want), ",%.17g,4,%.17g,,true,\n",
			 json_number_value(json_object_get(r, "run_spread_pct")),
			 json_number_value(json_object_get(r, "run_spread_df")));
		assert_non_null(strstr(csv, want));
		free(csv);
	}
	json_decref(rep);
	store_close(&st);
}

/* runspread_parse_pct, `--run-spread` and the dashboard's run_spread: a percentage from
 * 0 to under 1000; 0 is -1 (nothing assumed) */
static void test_analysis_spread_parse(void **state)
{
	static const char *const bad[] = { "", "x", "7%", "-1", "1000", "nan", "7 ", NULL };
	double v = 0;
	size_t i;

	(void)state;
	assert_int_equal(runspread_parse_pct("7", &v), 0);
	assert_true(fabs(v - 0.07) < 1e-12);
	assert_int_equal(runspread_parse_pct("2.5", &v), 0);
	assert_true(fabs(v - 0.025) < 1e-12);
	assert_int_equal(runspread_parse_pct("0", &v), 0);
	assert_true(v == -1);
	assert_int_equal(runspread_parse_pct("999.9", &v), 0);
	for (i = 0; bad[i]; i++) {
		v = 42;
		if (runspread_parse_pct(bad[i], &v) != -EINVAL || v != 42)
			fail_msg("'%s' taken (%g)", bad[i], v);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_analysis_spread_store),
		cmocka_unit_test(test_analysis_spread_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

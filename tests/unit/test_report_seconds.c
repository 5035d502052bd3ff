// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_report_seconds.c - `result show --seconds`: store_query_seconds on a real SQLite
 * file (the per-second samples of each job and series, seconds in order; no whole-window
 * values, trials or warm-up rounds), report_print_seconds's tables (a row per second, a
 * column per repetition, ten a block) and the CLI on the file (--db): text, -j, the
 * filters and its errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "store/store.h"
#include "helpers.h"

#define BPFLAB BPFLAB_BUILDDIR "/bin/bpflab"

static char dir[] = "/tmp/bpflab-test-seconds.XXXXXX";
static char db[128];

/* Run 1: variant drop, 11 repetitions (jobs 1..11) of prog.ns_per_run (no seconds); job
 * 1 has rx 10, 11, 12 Mpps on port b in seconds 0..2 (stored out of order), job 2 9 and
 * 13 in seconds 0 and 2 (second 1 missing), jobs 3..11 1 pps in second 0; job 1 also a
 * whole-window value, a trial and a warm-up round, none of them seconds. */
static int setup(void **state)
{
	struct err err;
	char sql[512];
	json_t *imp = json_pack("{s:s, s:s, s:[]}", "plan", "secs", "source", "s.csv", "jobs");
	struct store *st;
	int64_t run;
	int i;

	(void)state;
	tmpdir_make(dir);
	snprintf(db, sizeof(db), "%s/s.db", dir);
	for (i = 1; i <= 11; i++)
		json_array_append_new(json_object_get(imp, "jobs"), json_pack(
			"{s:s, s:i, s:[{s:s, s:s, s:f, s:s}]}", "variant", "drop", "rep", i,
			"samples", "metric", "prog.ns_per_run", "subject", "xdp_drop", "value",
			30.0 + i, "unit", "ns"));
	st = store_open(db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_import(st, imp, 1700000000000LL, &run), 0);
	assert_int_equal(run, 1);
	store_close(&st);
	json_decref(imp);
	db_file_exec(db, "INSERT INTO samples (job_id, metric, subject, value, unit, window, seq) "
		     "VALUES (1, 'port.rx_pps', 'b', 12e6, 'pps', 'rate', 2), "
		     "(1, 'port.rx_pps', 'b', 10e6, 'pps', 'rate', 0), "
		     "(1, 'port.rx_pps', 'b', 11e6, 'pps', 'rate', 1), "
		     "(1, 'port.rx_pps', 'b', 11e6, 'pps', 'rate', NULL), "
		     "(1, 'trial.load_pps', 'b', 5e6, 'pps', 'rate', 0), "
		     "(1, 'warmup.ns_per_run', 'xdp_drop', 40, 'ns', 'cost', 0), "
		     "(2, 'port.rx_pps', 'b', 9e6, 'pps', 'rate', 0), "
		     "(2, 'port.rx_pps', 'b', 13e6, 'pps', 'rate', 2)");
	for (i = 3; i <= 11; i++) {
		snprintf(sql, sizeof(sql), "INSERT INTO samples (job_id, metric, subject, value, "
			 "unit, window, seq) VALUES (%d, 'port.rx_pps', 'b', 1, 'pps', 'rate', 0)",
			 i);
		db_file_exec(db, sql);
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return tmpdir_remove(dir);
}

static void test_report_seconds_query(void **state)
{
	struct err err;
	struct store *st = store_open(db, true, &err);
	json_t *s, *series, *one;

	(void)state;
	assert_non_null(st);
	s = store_query_seconds(st, 1, 0);
	assert_non_null(s);
	series = json_object_get(s, "series");
	assert_int_equal(json_array_size(series), 11);
	one = json_array_get(series, 0);
	assert_int_equal(json_integer_value(json_object_get(one, "job")), 1);
	assert_string_equal(json_string_value(json_object_get(one, "metric")), "port.rx_pps");
	assert_string_equal(json_string_value(json_object_get(one, "host")), "imported");
	assert_int_equal(json_integer_value(json_object_get(one, "rep")), 1);
	assert_true(json_equal(json_object_get(one, "seconds"), json_pack("[i, i, i]", 0, 1, 2)));
	assert_true(json_equal(json_object_get(one, "values"),
			       json_pack("[f, f, f]", 10e6, 11e6, 12e6)));
	one = json_array_get(series, 1);
	assert_true(json_equal(json_object_get(one, "seconds"), json_pack("[i, i]", 0, 2)));
	json_decref(s);
	/* one job's: the dashboard's trace of a clicked repetition */
	s = store_query_seconds(st, 1, 2);
	assert_int_equal(json_array_size(json_object_get(s, "series")), 1);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(
		s, "series"), 0), "job")), 2);
	json_decref(s);
	s = store_query_seconds(st, 1, 99);
	assert_int_equal(json_array_size(json_object_get(s, "series")), 0);
	json_decref(s);
	errno = 0;
	assert_null(store_query_seconds(st, 9, 0));
	assert_int_equal(errno, ENOENT);
	store_close(&st);
}

static void test_report_seconds_text(void **state)
{
	struct err err;
	char *text = NULL;
	size_t len = 0;
	struct store *st = store_open(db, true, &err);
	json_t *s = store_query_seconds(st, 1, 0), *list = report_seconds_select(s, NULL, NULL);
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_int_equal(report_print_seconds(s, list, f), 0);
	fclose(f);
	/* numbers as result show formats the table (lib/report/report_format.c) */
	assert_text(text,
		    "run 1  secs  per second (second 0 is the window's first)\n"
		    "\n"
		    "port.rx_pps (pps)  host imported  variant drop  subject b\n"
		    "second   rep 1   rep 2  rep 3  rep 4  rep 5  rep 6  rep 7  rep 8  rep 9  "
		    "rep 10\n"
		    "     0  10.00M   9.00M  0.00M  0.00M  0.00M  0.00M  0.00M  0.00M  0.00M   "
		    "0.00M\n"
		    "     1  11.00M       -      -      -      -      -      -      -      -       "
		    "-\n"
		    "     2  12.00M  13.00M      -      -      -      -      -      -      -       "
		    "-\n"
		    "second  rep 11\n"
		    "     0   0.00M\n"
		    "     1       -\n"
		    "     2       -\n");
	free(text);
	json_decref(list);
	list = report_seconds_select(s, "prog.ns_per_run", NULL);
	assert_int_equal(json_array_size(list), 0);
	json_decref(list);
	json_decref(s);
	store_close(&st);
}

static void test_report_seconds_cli(void **state)
{
	struct prog_out o;
	json_t *j;

	(void)state;
	prog_run(&o, (const char *[]){ BPFLAB, "--db", db, "result", "show", "1", "--seconds",
				       "-j", NULL }, dir);
	assert_int_equal(o.status, 0);
	j = json_of(o.out);
	assert_int_equal(json_array_size(json_object_get(j, "series")), 11);
	assert_int_equal(json_integer_value(json_object_get(j, "run")), 1);
	json_decref(j);
	prog_out_free(&o);

	prog_run(&o, (const char *[]){ BPFLAB, "--db", db, "result", "show", "1", "--seconds",
				       "--metric", "port.rx_pps", "--subject", "b", NULL }, dir);
	assert_int_equal(o.status, 0);
	assert_contains(o.out, "port.rx_pps (pps)  host imported  variant drop  subject b\n");
	prog_out_free(&o);

	prog_run(&o, (const char *[]){ BPFLAB, "--db", db, "result", "show", "1", "--seconds",
				       "--metric", "nope", NULL }, dir);
	assert_int_equal(o.status, 1);
	assert_text(o.err, "bpflab: run 1 has no per-second values of metric 'nope', subject "
		    "'(any)'\n");
	prog_out_free(&o);

	prog_run(&o, (const char *[]){ BPFLAB, "--db", db, "result", "show", "1", "--seconds",
				       "--csv", NULL }, dir);
	assert_int_equal(o.status, 2);
	assert_contains(o.err, "--seconds goes with no other option");
	prog_out_free(&o);

	prog_run(&o, (const char *[]){ BPFLAB, "--db", db, "result", "show", "7", "--seconds",
				       NULL }, dir);
	assert_int_equal(o.status, 1);
	assert_contains(o.err, "unknown run 7");
	prog_out_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_seconds_query),
		cmocka_unit_test(test_report_seconds_text),
		cmocka_unit_test(test_report_seconds_cli),
	};

	return cmocka_run_group_tests_name("report_seconds", tests, setup, teardown);
}

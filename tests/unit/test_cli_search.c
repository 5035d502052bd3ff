// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_cli_search.c - a search's results through the CLI (issue 13, item 5), by running
 * build/bin/bpflab on a database file:
 *
 * - `result show`: the NDR/PDR table (lib/report/report_search.c) in text and JSON, a
 *   generator-bound goal marked;
 * - `result show --trials`: every trial in order, an invalid one with its reason;
 * - `result compare` and `history` on ndr.lower: a rate, higher is better; the trials
 *   (samples with seq) are not values there;
 * - `result export`: ndr.lower and pdr.lower are exported, trial.* are not.
 *
 * The database is made by `bpflab result import` (runs 1 and 2 of plan 'hand', variant
 * police, jobs 1-3 and 4-6 its repetitions 1-3); the search records are put on the jobs
 * with SQL through the samples view, as the ingest of an agent's result stores them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#include "base/util.h"
#include "helpers.h"

#define BPFLAB BPFLAB_BUILDDIR "/bin/bpflab"

static char tmpdir[] = "/tmp/bpflab-test-cli-search-XXXXXX";
static char db[300];

static const char csv[] =
	"variant,prog,set,value\n"
	"police,xdp_police,1,35.9\n"
	"police,xdp_police,2,35.6\n"
	"police,xdp_police,3,35.5\n";

static void run_cli(struct prog_out *o, const char *const *args)
{
	prog_run_args(o, BPFLAB, args, tmpdir);
}

static void sql(const char *stmt)
{
	db_file_exec(db, stmt);
}

/* A whole-window record of JOB (subject b, window rate). */
static void record(int job, const char *metric, double value, const char *unit)
{
	char stmt[512];

	snprintf(stmt, sizeof(stmt),
		 "INSERT INTO samples (job_id, metric, subject, value, unit, window, seq) "
		 "VALUES (%d, '%s', 'b', %.17g, '%s', 'rate', NULL)", job, metric, value, unit);
	sql(stmt);
}

/* Trial SEQ of JOB, as agent/job_search.c records it. */
static void trial(int job, int seq, double d, double load, double offered, double fwd,
		  double loss, int valid)
{
	static const char *const m[] = { "duration_s", "load_pps", "offered_pps",
					 "forwarded_pps", "loss_ratio", "valid" };
	static const char *const u[] = { "s", "pps", "pps", "pps", "ratio", "bool" };
	double v[] = { d, load, offered, fwd, loss, valid };
	char stmt[512];

	for (size_t i = 0; i < ARRAY_SIZE(m); i++) {
		snprintf(stmt, sizeof(stmt),
			 "INSERT INTO samples (job_id, metric, subject, value, unit, window, seq) "
			 "VALUES (%d, 'trial.%s', 'b', %.17g, '%s', 'rate', %d)", job, m[i], v[i],
			 u[i], seq);
		sql(stmt);
	}
}

/* JOB's goal records: NDR's lower (conditional the same), upper (0: none), PDR's. */
static void goals(int job, double ndr, double ndr_up, double pdr, double pdr_cond,
		  double pdr_up)
{
	record(job, "ndr.lower", ndr, "pps");
	record(job, "ndr.conditional", ndr, "pps");
	if (ndr_up > 0)
		record(job, "ndr.upper", ndr_up, "pps");
	record(job, "pdr.lower", pdr, "pps");
	record(job, "pdr.conditional", pdr_cond, "pps");
	record(job, "pdr.upper", pdr_up, "pps");
	record(job, "search.trials", 2, "count");
	record(job, "search.time_s", 1.25, "s");
}

static int setup(void **state)
{
	char file[300];
	struct prog_out o;
	int run;

	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	unsetenv("BPFLAB_COORDINATOR");
	snprintf(db, sizeof(db), "%s/lab.db", tmpdir);
	snprintf(file, sizeof(file), "%s/hand.csv", tmpdir);
	file_put(file, csv);
	for (run = 0; run < 3; run++) {
		run_cli(&o, (const char *[]){ "--db", db, "result", "import", file, "--plan",
					      "hand", NULL });
		if (o.status) {
			fprintf(stderr, "import failed: %s", o.err);
			prog_out_free(&o);
			return -1;
		}
		prog_out_free(&o);
	}
	/* run 1: NDR 99.8, 99.9, 100 kpps */
	goals(1, 99800, 100200, 100200, 99950, 100700);
	goals(2, 99900, 100300, 100300, 100000, 100800);
	goals(3, 100000, 100400, 100400, 100050, 100900);
	trial(1, 0, 0.25, 400000, 399712, 100213, 0.74928148617004251, 1);
	trial(1, 1, 1, 99800, 99790, 99790, 0, 1);
	/* run 2: NDR 89.9 to 90.1 kpps; job 4 generator-bound (ceiling 91 kpps, no NDR
	 * upper bound), a trial at 2 Mpps offered 1.5 */
	goals(4, 90000, 0, 90500, 90400, 90900);
	record(4, "search.ceiling_pps", 91000, "pps");
	goals(5, 90100, 90500, 90500, 90400, 90900);
	goals(6, 89900, 90300, 90300, 90200, 90700);
	trial(4, 0, 0.25, 2000000, 1500000, 90000, 0.94, 0);
	trial(4, 1, 1, 90000, 90000, 90000, 0, 1);
	/* run 3, job 7: no valid trial below the ceiling, no goal result */
	record(7, "search.trials", 2, "count");
	record(7, "search.time_s", 0.5, "s");
	record(7, "search.ceiling_pps", 15000, "pps");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return tmpdir_remove(tmpdir);
}

/* The table: a row per job and goal, the largest value 100.9k gives one decimal of k;
 * trials and time on each job's first row. */
static void test_cli_search_table(void **state)
{
	struct prog_out o;
	json_t *j, *s, *g;

	(void)state;
	run_cli(&o, (const char *[]){ "--db", db, "result", "show", "1", NULL });
	assert_int_equal(o.status, 0);
	assert_contains(o.out,
		"\nNDR/PDR (MLRsearch, RFC 9971): frames/s; the trials: result show --trials\n"
		"host      point  variant  rep  goal   lower  conditional   upper  trials  time\n"
		"imported  -      police   1    NDR    99.8k        99.8k  100.2k  2       1.25 s\n"
		"                               PDR   100.2k       100.0k  100.7k\n"
		"imported  -      police   2    NDR    99.9k        99.9k  100.3k  2       1.25 s\n");
	assert_null(strstr(o.out, "generator-bound"));
	/* search.* are records: counted, not printed as tables */
	assert_null(strstr(o.out, "search.trials  ("));
	prog_out_free(&o);

	run_cli(&o, (const char *[]){ "--db", db, "result", "show", "2", NULL });
	assert_int_equal(o.status, 0);
	assert_contains(o.out, "police   1    NDR   90.00k^       90.00k       -  2       1.25 s\n"
			"                               PDR    90.50k       90.40k  90.90k\n");
	assert_contains(o.out, "\n^ generator-bound: the generator could not offer the loads "
			"above this lower bound");
	prog_out_free(&o);

	run_cli(&o, (const char *[]){ "--db", db, "result", "show", "3", NULL });
	assert_int_equal(o.status, 0);
	assert_contains(o.out, "imported  -      police   1    -        -^            -      -  2       0.50 s\n");
	prog_out_free(&o);

	run_cli(&o, (const char *[]){ "--db", db, "result", "show", "2", "-j", NULL });
	assert_int_equal(o.status, 0);
	j = json_loads(o.out, 0, NULL);
	assert_non_null(j);
	s = json_array_get(json_object_get(j, "searches"), 0);
	assert_int_equal(json_array_size(json_object_get(j, "searches")), 3);
	assert_int_equal(json_integer_value(json_object_get(s, "job")), 4);
	assert_true(json_number_value(json_object_get(s, "ceiling_pps")) == 91000);
	assert_true(json_number_value(json_object_get(s, "trials")) == 2);
	g = json_array_get(json_object_get(s, "goals"), 0);
	assert_string_equal(json_string_value(json_object_get(g, "goal")), "NDR");
	assert_true(json_number_value(json_object_get(g, "lower")) == 90000);
	assert_null(json_object_get(g, "upper"));
	assert_true(json_is_true(json_object_get(g, "generator_bound")));
	g = json_array_get(json_object_get(s, "goals"), 1);
	assert_true(json_number_value(json_object_get(g, "conditional")) == 90400);
	assert_true(json_is_false(json_object_get(g, "generator_bound")));
	json_decref(j);
	prog_out_free(&o);
}

/* The trials in order; the invalid one says why. */
static void test_cli_search_trials(void **state)
{
	struct prog_out o;
	json_t *j, *t;

	(void)state;
	run_cli(&o, (const char *[]){ "--db", db, "result", "show", "1", "--trials", NULL });
	assert_int_equal(o.status, 0);
	assert_contains(o.out,
		"host      point  variant  rep  seq  duration    load  offered  forwarded       loss  valid\n"
		"imported  -      police   1      0   0.250 s  400000   399712     100213  74.9281 %  yes\n"
		"imported  -      police   1      1   1.000 s   99800    99790      99790   0.0000 %  yes\n");
	prog_out_free(&o);
	run_cli(&o, (const char *[]){ "--db", db, "result", "show", "2", "--trials", NULL });
	assert_int_equal(o.status, 0);
	assert_contains(o.out, "  0   0.250 s  2000000  1500000      90000  94.0000 %  no: "
			"generator-bound: offered 1500000 of 2000000 pps\n");
	prog_out_free(&o);
	run_cli(&o, (const char *[]){ "--db", db, "result", "show", "2", "--trials", "-j", NULL });
	assert_int_equal(o.status, 0);
	j = json_loads(o.out, 0, NULL);
	assert_non_null(j);
	assert_int_equal(json_array_size(json_object_get(j, "trials")), 2);
	t = json_array_get(json_object_get(j, "trials"), 0);
	assert_int_equal(json_integer_value(json_object_get(t, "seq")), 0);
	assert_int_equal(json_integer_value(json_object_get(t, "valid")), 0);
	assert_true(json_number_value(json_object_get(t, "offered_pps")) == 1500000);
	json_decref(j);
	prog_out_free(&o);
	run_cli(&o, (const char *[]){ "--db", db, "result", "show", "2", "--trials", "--csv",
				      NULL });
	assert_int_equal(o.status, 2);
	prog_out_free(&o);
}

/* compare: run 2's NDR (means (99800 + 99900 + 100000) / 3 = 99900 -> (90000 + 90100 +
 * 89900) / 3 = 90000 pps, -9.91 %) is a rate: higher is better, so the change is an
 * improvement of -9.91 % (3 against 3 values:
 * Mann-Whitney, p 0.1, UNKNOWN); history has both runs; the trials are no values of
 * either, nor exported. */
static void test_cli_search_compare(void **state)
{
	struct prog_out o;
	json_t *j;

	(void)state;
	run_cli(&o, (const char *[]){ "--db", db, "result", "compare", "1", "2", "--metric",
				      "ndr.lower", "-j", NULL });
	assert_int_equal(o.status, 0);
	assert_contains(o.out, "\"metric\":\"ndr.lower\"");
	assert_contains(o.out, "\"kind\":\"rate\"");
	assert_contains(o.out, "\"mean_a\":99900.0");
	assert_contains(o.out, "\"mean_b\":90000.0");
	assert_contains(o.out, "\"improvement_pct\":-9.909");
	prog_out_free(&o);
	run_cli(&o, (const char *[]){ "--db", db, "result", "compare", "1", "2", "--metric",
				      "trial.load_pps", NULL });
	assert_int_not_equal(o.status, 0);
	prog_out_free(&o);
	run_cli(&o, (const char *[]){ "--db", db, "result", "history", "--plan", "hand",
				      "--metric", "pdr.lower", "-j", NULL });
	assert_int_equal(o.status, 0);
	/* one group (imported runs have no kernel): the mean of the six, (100200 + 100300 +
	 * 100400 + 90500 + 90500 + 90300) / 6 = 95366.67 (the harmonic mean said 95111.38) */
	assert_contains(o.out, "\"n\":6,\"mean\":95366.66");
	assert_contains(o.out, "\"min\":90300.0,\"max\":100400.0");
	prog_out_free(&o);
	run_cli(&o, (const char *[]){ "--db", db, "result", "export", "1", "--format", "bmf",
				      NULL });
	assert_int_equal(o.status, 0);
	j = json_loads(o.out, 0, NULL);
	assert_non_null(j);
	assert_contains(o.out, "\"ndr.lower\"");
	assert_contains(o.out, "\"pdr.lower\"");
	assert_null(strstr(o.out, "trial."));
	json_decref(j);
	prog_out_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cli_search_table),
		cmocka_unit_test(test_cli_search_trials),
		cmocka_unit_test(test_cli_search_compare),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

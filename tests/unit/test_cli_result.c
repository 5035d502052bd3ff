// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_cli_result.c - the result commands' smaller promises, checked by running
 * build/bin/bpflab on a database file (issue 12, item 5 and the verdict details):
 *
 * - `result show`: the agent's verdict details (jobs.verdict_details) in the legend
 *   under the table and in the JSON report;
 * - `result history --plot` / `compare --plot` with a file that cannot be written:
 *   refused before anything runs, nothing on stdout but the JSON error;
 * - `result import`: a CSV with a second value of a program in one set, or a negative
 *   value in ns: refused naming file and line, nothing stored;
 * - `result history` with a metric the plan does not have: the plan's metrics listed;
 * - `result export`: flagged results left out are counted on stderr;
 * - `link list -j` and `host list -j`: both the array of their objects.
 *
 * The database is made by `bpflab result import` itself; verdicts are put on its jobs
 * with SQL, as the ingest of an agent's result stores them (jobs.verdicts,
 * jobs.verdict_details).
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
#include <sys/stat.h>
#include <unistd.h>


#include "base/util.h"
#include "report/plot.h"
#include "store/store.h"
#include "store/store_link.h"
#include "helpers.h"

#define BPFLAB BPFLAB_BUILDDIR "/bin/bpflab"

static char tmpdir[] = "/tmp/bpflab-test-cli-result-XXXXXX";
static char db[300];

/* Jobs 1-3: drop reps 1-3, jobs 4-6: pass reps 1-3 (store_import numbers them so). */
static const char csv[] =
	"variant,prog,set,value\n"
	"drop,xdp_drop,1,35.9\n"
	"drop,xdp_drop,2,35.6\n"
	"drop,xdp_drop,3,35.5\n"
	"pass,xdp_pass,1,20.1\n"
	"pass,xdp_pass,2,20.3\n"
	"pass,xdp_pass,3,20.0\n";

static const char detail[] = "prog.ns_per_run of 'xdp_drop' varied 8.1 % (bound 5 %)";

/* Run bpflab with ARGS (NULL-terminated, without argv[0]); never a coordinator. */
static void run_cli(struct prog_out *o, const char *const *args)
{
	prog_run_args(o, BPFLAB, args, tmpdir);
}

static void sql(const char *stmt)
{
	db_file_exec(db, stmt);
}

/* TMPDIR/NAME into OUT (LEN bytes). */
static const char *tmp_path(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", tmpdir, name);
	return out;
}

/* How many runs the database holds. */
static size_t runs_stored(void)
{
	struct prog_out o;
	json_t *j;
	size_t n;

	run_cli(&o, (const char *[]){ "--db", db, "run", "list", "-j", NULL });
	assert_int_equal(o.status, 0);
	j = json_loads(o.out, 0, NULL);
	assert_true(json_is_array(j));
	n = json_array_size(j);
	json_decref(j);
	prog_out_free(&o);
	return n;
}

/* Run 1 of plan 'hand' from the CSV above: job 2 unstable with the agent's detail, job
 * 6 generator-bound without one (a verdict that leaves it out of compare and export). */
static int setup(void **state)
{
	char file[300];
	struct prog_out o;

	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	unsetenv("BPFLAB_COORDINATOR");
	snprintf(db, sizeof(db), "%s/lab.db", tmpdir);
	file_put(tmp_path(file, sizeof(file), "hand.csv"), csv);
	run_cli(&o, (const char *[]){ "--db", db, "result", "import", file, "--plan", "hand",
				      NULL });
	if (o.status) {
		fprintf(stderr, "import failed: %s", o.err);
		prog_out_free(&o);
		return -1;
	}
	prog_out_free(&o);
	sql("UPDATE jobs SET verdicts = '[\"unstable\"]', verdict_details = "
	    "'{\"unstable\": \"prog.ns_per_run of ''xdp_drop'' varied 8.1 % (bound 5 %)\"}' "
	    "WHERE id = 2");
	sql("UPDATE jobs SET verdicts = '[\"generator-bound\"]' WHERE id = 6");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return tmpdir_remove(tmpdir);
}

/* The details the agent stored reach the legend under the table and the JSON report;
 * a verdict without a detail is explained by its meaning. */
static void test_cli_result_verdict_details(void **state)
{
	struct prog_out o;
	json_t *j;

	(void)state;
	run_cli(&o, (const char *[]){ "--db", db, "result", "show", "1", NULL });
	assert_int_equal(o.status, 0);
	assert_contains(o.out, "drop     xdp_drop       35.9    35.6*1      35.5");
	assert_contains(o.out, "pass     xdp_pass       20.1      20.3     20.0^");
	assert_contains(o.out, "\n*1 unstable: prog.ns_per_run of 'xdp_drop' varied 8.1 % (bound 5 %)\n"
			"^ generator-bound: the receiver got all the generator sent "
			"with CPU to spare: the rate is the generator's\n");
	prog_out_free(&o);

	run_cli(&o, (const char *[]){ "--db", db, "result", "show", "1", "-j", NULL });
	assert_int_equal(o.status, 0);
	j = json_loads(o.out, 0, NULL);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j,
		"verdict_details"), "unstable")), detail);
	assert_int_equal(json_object_size(json_object_get(j, "verdict_details")), 1);
	json_decref(j);
	prog_out_free(&o);

	/* the other forms carry them too */
	run_cli(&o, (const char *[]){ "--db", db, "result", "show", "1", "--form", "columns",
				      "--metric", "prog.ns_per_run", NULL });
	assert_int_equal(o.status, 0);
	assert_contains(o.out, "*1 unstable: prog.ns_per_run of 'xdp_drop' varied 8.1 % "
			"(bound 5 %)\n");
	prog_out_free(&o);
}

/* --form drivers from the database: prog.ns_per_run without rx.ns_per_frame, each
 * variant's program; the drivers of an import are unknown ('-'). Exit 1 for a metric
 * the run has not, 2 for an unknown form. */
static void test_cli_result_form_drivers(void **state)
{
	struct prog_out o;

	(void)state;
	run_cli(&o, (const char *[]){ "--db", db, "result", "show", "1", "--form", "drivers",
				      NULL });
	assert_int_equal(o.status, 0);
	assert_contains(o.out, "\nprog.ns_per_run  (ns per program run, bpf_stats on; mean of 3 "
			"repetitions, ± spread)\ndriver  variant");
	assert_contains(o.out, "\nprograms: drop xdp_drop, pass xdp_pass\n");
	prog_out_free(&o);

	run_cli(&o, (const char *[]){ "--db", db, "result", "show", "1", "--form", "drivers",
				      "--metric", "rx.ns_per_frame", NULL });
	assert_int_equal(o.status, 1);
	assert_contains(o.err, "run 1 has no metric 'rx.ns_per_frame' (its metrics: prog.ns_per_run)");
	prog_out_free(&o);

	run_cli(&o, (const char *[]){ "--db", db, "result", "show", "1", "--form", "pie", NULL });
	assert_int_equal(o.status, 2);
	assert_contains(o.err, "unknown form 'pie' (expected table, grid, columns, cpumap or drivers)");
	prog_out_free(&o);
}

/* A plot file that cannot be written is refused before the query and before gnuplot:
 * the JSON error is all there is on stdout, exit 1. */
static void test_cli_result_plot_unwritable(void **state)
{
	struct err msg;
	char nodir[300], isdir[300], under_file[300];
	struct prog_out o;
	json_t *j;

	(void)state;
	tmp_path(nodir, sizeof(nodir), "no-such-dir/h.svg");
	tmp_path(isdir, sizeof(isdir), "dir.svg");
	tmp_path(under_file, sizeof(under_file), "hand.csv/h.png");
	assert_int_equal(mkdir(isdir, 0755), 0);

	run_cli(&o, (const char *[]){ "--db", db, "result", "history", "--plan", "hand",
				      "--metric", "prog.ns_per_run", "--plot", nodir, "-j", NULL });
	assert_int_equal(o.status, 1);
	j = json_loads(o.out, 0, NULL);
	assert_non_null(j);	/* one JSON document: no SVG before or after it */
	snprintf(msg.msg, sizeof(msg.msg), "--plot: cannot write '%s': No such file or directory", nodir);
	assert_string_equal(json_string_value(json_object_get(j, "error")), msg.msg);
	assert_int_equal(json_object_size(j), 1);
	json_decref(j);
	prog_out_free(&o);

	run_cli(&o, (const char *[]){ "--db", db, "result", "compare", "--plan", "hand", "--by",
				      "variant", "--plot", isdir, NULL });
	assert_int_equal(o.status, 1);
	assert_string_equal(o.out, "");
	snprintf(msg.msg, sizeof(msg.msg), "bpflab: --plot: cannot write '%s': Is a directory\n", isdir);
	assert_string_equal(o.err, msg.msg);
	prog_out_free(&o);

	run_cli(&o, (const char *[]){ "--db", db, "result", "history", "--plan", "hand",
				      "--metric", "prog.ns_per_run", "--plot", under_file, NULL });
	assert_int_equal(o.status, 1);
	assert_string_equal(o.out, "");
	assert_contains(o.err, "Not a directory");
	prog_out_free(&o);

	/* the check itself: a new file is not left behind, an existing one is kept */
	tmp_path(nodir, sizeof(nodir), "new.svg");
	assert_int_equal(plot_check_output(nodir, &msg), 0);
	assert_int_equal(access(nodir, F_OK), -1);
	tmp_path(nodir, sizeof(nodir), "hand.csv");
	assert_int_equal(plot_check_output(nodir, &msg), -EINVAL);
	assert_contains(msg.msg, "expected a name ending in .svg or .png");
	file_put(tmp_path(nodir, sizeof(nodir), "old.svg"), "<svg/>");
	assert_int_equal(plot_check_output(nodir, &msg), 0);
	{
		char *text = file_slurp(nodir);

		assert_string_equal(text, "<svg/>");
		free(text);
	}
}

/* Refused CSVs name file and line and store nothing. */
static void test_cli_result_import_refused(void **state)
{
	static const struct {
		const char *name, *text, *why;	/* WHY after "bpflab: FILE:" */
	} cases[] = {
		{ "dup.csv", "variant,prog,set,value\ndrop,xdp_drop,1,35.9\ndrop,xdp_drop,1,36.0\n",
		  "3: program 'xdp_drop' of variant 'drop' has a value in set '1' already "
		  "(line 2)\n" },
		{ "neg.csv", "drop,xdp_drop,1,35.9\ndrop,xdp_drop,2,-3.5\n",
		  "2: value '-3.5' is negative\n" },
	};
	char file[300], want[600];
	struct prog_out o;
	size_t before = runs_stored(), i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		file_put(tmp_path(file, sizeof(file), cases[i].name), cases[i].text);
		run_cli(&o, (const char *[]){ "--db", db, "result", "import", file, "--plan",
					      "hand", NULL });
		assert_int_equal(o.status, 1);
		snprintf(want, sizeof(want), "bpflab: %s:%s", file, cases[i].why);
		assert_string_equal(o.err, want);
		prog_out_free(&o);
	}
	assert_int_equal(runs_stored(), before);
}

/* A mistyped metric: the plan's metrics are listed; an unknown plan says so. */
static void test_cli_result_history_metrics(void **state)
{
	struct prog_out o;

	(void)state;
	run_cli(&o, (const char *[]){ "--db", db, "result", "history", "--plan", "hand",
				      "--metric", "prog.ns_per_rn", NULL });
	assert_int_equal(o.status, 1);
	assert_string_equal(o.err, "bpflab: plan 'hand' has no metric 'prog.ns_per_rn' "
			    "(its metrics: prog.ns_per_run)\n");
	prog_out_free(&o);

	run_cli(&o, (const char *[]){ "--db", db, "result", "history", "--plan", "hnad",
				      "--metric", "prog.ns_per_run", "-j", NULL });
	assert_int_equal(o.status, 1);
	assert_contains(o.out, "plan 'hnad' has no results");
	prog_out_free(&o);

	/* the metric is there: the history as before */
	run_cli(&o, (const char *[]){ "--db", db, "result", "history", "--plan", "hand",
				      "--metric", "prog.ns_per_run", NULL });
	assert_int_equal(o.status, 0);
	assert_string_equal(o.err, "");
	prog_out_free(&o);
}

/* Export says how many flagged results it left out, on stderr (the formats have no
 * member for it); none with --include-flagged. */
static void test_cli_result_export_flagged(void **state)
{
	struct prog_out o;
	json_t *j;

	(void)state;
	run_cli(&o, (const char *[]){ "--db", db, "result", "export", "1", "--format", "bmf",
				      NULL });
	assert_int_equal(o.status, 0);
	assert_string_equal(o.err, "bpflab: result export: left out 1 flagged result of run 1 "
			    "(--include-flagged to include them)\n");
	j = json_loads(o.out, 0, NULL);
	assert_non_null(j);
	json_decref(j);
	prog_out_free(&o);

	run_cli(&o, (const char *[]){ "--db", db, "result", "export", "1", "--format", "kcidb",
				      "--include-flagged", NULL });
	assert_int_equal(o.status, 0);
	assert_string_equal(o.err, "");
	prog_out_free(&o);
}

/* `link list -j` is the array of links, as `host list -j` is the array of hosts; each
 * link keeps its members. */
static void test_cli_result_list_shapes(void **state)
{
	struct store_link l = { .host_a = 0, .port_a = "x", .port_b = "y" };
	struct err err;
	struct store *st;
	struct prog_out o;
	json_t *j, *inv, *link, *want;
	int64_t h1, h2;

	(void)state;
	st = store_open(db, false, &err);
	assert_non_null(st);
	inv = json_pack("{s:{s:s}}", "kernel", "release", "6.1.0");
	assert_int_equal(store_host_hello(st, "h1", "0.1.0", inv, 1000, &h1, NULL), 0);
	assert_int_equal(store_host_hello(st, "h2", "0.1.0", inv, 1000, &h2, NULL), 0);
	json_decref(inv);
	l.host_a = h1;
	l.host_b = h2;
	assert_int_equal(store_links_replace(st, &l, 1, 5000), 0);
	store_close(&st);

	run_cli(&o, (const char *[]){ "--db", db, "link", "list", "-j", NULL });
	assert_int_equal(o.status, 0);
	j = json_loads(o.out, 0, NULL);
	assert_true(json_is_array(j));
	assert_int_equal(json_array_size(j), 1);
	link = json_array_get(j, 0);
	/* every member the object form had, as before */
	want = json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:i}", "host_a", "h1", "port_a", "x",
			 "host_b", "h2", "port_b", "y", "host_a_id", (json_int_t)h1,
			 "host_b_id", (json_int_t)h2, "discovered_ms", 5000);
	assert_non_null(json_object_get(link, "id"));
	json_object_del(link, "id");
	assert_true(json_equal(link, want));
	json_decref(want);
	json_decref(j);
	prog_out_free(&o);

	run_cli(&o, (const char *[]){ "--db", db, "host", "list", "-j", NULL });
	assert_int_equal(o.status, 0);
	j = json_loads(o.out, 0, NULL);
	assert_true(json_is_array(j));
	assert_true(json_array_size(j) >= 2);
	json_decref(j);
	prog_out_free(&o);

	/* the table as before */
	run_cli(&o, (const char *[]){ "--db", db, "link", NULL });
	assert_int_equal(o.status, 0);
	assert_contains(o.out, "h1    x     h2    y");
	prog_out_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cli_result_verdict_details),
		cmocka_unit_test(test_cli_result_form_drivers),
		cmocka_unit_test(test_cli_result_plot_unwritable),
		cmocka_unit_test(test_cli_result_import_refused),
		cmocka_unit_test(test_cli_result_history_metrics),
		cmocka_unit_test(test_cli_result_export_flagged),
		cmocka_unit_test(test_cli_result_list_shapes),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

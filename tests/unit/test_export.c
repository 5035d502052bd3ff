// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_export.c - lib/report/export.c (KCIDB v4.4 checkouts, builds and tests, Bencher Metric
 * Format) and lib/report/import.c (bpftool before/after snapshots, the variant,prog,set,value
 * CSV) on fixed data: field names and values, the arithmetic mean for rates (windows of equal time), errors with
 * FILE:LINE. Exports of a real store over several hosts and kernels: test_export_store.c;
 * the formats' rules: export_schema.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "report/export.h"
#include "base/util.h"
#include "report/import.h"
#include "export_schema.h"

/* import_csv() of the NUL-terminated TEXT */
static json_t *csv_import(const char *text, const char *plan, const char *metric,
			  const char *unit, const char *source, struct err *err)
{
	return import_csv(text, strlen(text), plan, metric, unit, source, err);
}

static json_t *rows(void)
{
	json_t *r = json_array();
	int i;

	for (i = 0; i < 2; i++) {
		json_array_append_new(r, json_pack("{s:I, s:I, s:s, s:s, s:s, s:s, s:s, s:f, s:s, "
			"s:s, s:s, s:s, s:[], s:{s:s}, s:I, s:s}", "run", (json_int_t)4,
			"job", (json_int_t)(10 + i), "plan", "quickstart", "variant", "drop",
			"subject", "b", "metric", "port.rx_pps", "unit", "pps",
			"value", i ? 60e6 : 40e6, "host", "h1", "kernel_release", "6.18.0",
			"plan_sha256", "abc", "window", "rate", "flags",
			"point", "traffic.packet.size", "64", "time_ms", (json_int_t)1700000000000LL,
			"cpu", "Xeon"));
		/* the jobs' real starts: the earliest is the test's start_time */
		json_object_set_new(json_array_get(r, json_array_size(r) - 1), "started_ms",
				    json_integer(i ? 1699999990500LL : 1699999995000LL));
		json_array_append_new(r, json_pack("{s:I, s:I, s:s, s:s, s:s, s:s, s:s, s:f, s:s, "
			"s:s, s:s, s:[], s:{}, s:I}", "run", (json_int_t)4,
			"job", (json_int_t)(10 + i), "plan", "quickstart", "variant", "drop",
			"subject", "xdp_drop", "metric", "prog.ns_per_run", "unit", "ns",
			"value", i ? 26.0 : 24.0, "host", "h1", "kernel_release", "6.18.0",
			"window", "cost", "flags", "point", "time_ms", (json_int_t)1700000000000LL));
	}
	return r;
}

/* KCIDB data for ROWS from database "0123456789abcdef" (ORIGIN NULL: bpflab). */
static json_t *kcidb(const json_t *rows, const char *origin)
{
	return export_kcidb(rows, &(struct export_kcidb_opts){
		.origin = origin,
		.db_id = "0123456789abcdef" });
}

/* kbuild.h's identity of 6.18.0 without version and config: printf '6.18.0\n\n' | sha256sum */
#define ID_6180 "96b5f8f47e845808a5684963b6ffdc93a1fa595f8a13e092c153c34489850ec3"

static void test_export_kcidb(void **state)
{
	json_t *r = rows(), *k = kcidb(r, NULL), *t, *num, *b;

	assert_non_null(k);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(k, "version"),
								 "major")), 4);
	assert_int_equal(json_array_size(json_object_get(k, "tests")), 2);
	t = json_array_get(json_object_get(k, "tests"), 0);
	assert_string_equal(json_string_value(json_object_get(t, "id")),
			    "bpflab:0123456789abcdef.run4.h1.96b5f8f47e845808.bpflab.quickstart."
			    "drop.traffic_packet_size_64.port_rx_pps.b");
	assert_string_equal(json_string_value(json_object_get(t, "build_id")),
			    "bpflab:build.6.18.0@" ID_6180);
	assert_string_equal(json_string_value(json_object_get(t, "origin")), "bpflab");
	assert_string_equal(json_string_value(json_object_get(t, "status")), "DONE");
	assert_string_equal(json_string_value(json_object_get(t, "start_time")),
			    "2023-11-14T22:13:10.500+00:00");
	/* its build and checkout: one kernel build */
	assert_int_equal(json_array_size(json_object_get(k, "builds")), 1);
	b = json_array_get(json_object_get(k, "builds"), 0);
	assert_string_equal(json_string_value(json_object_get(b, "id")),
			    "bpflab:build.6.18.0@" ID_6180);
	assert_string_equal(json_string_value(json_object_get(b, "checkout_id")),
			    "bpflab:checkout.6.18.0@" ID_6180);
	assert_string_equal(json_string_value(json_object_get(json_object_get(b, "misc"),
								  "kernel_build")), "6.18.0 #96b5f8");
	assert_null(json_object_get(json_object_get(b, "misc"), "kernel_version"));
	assert_int_equal(json_array_size(json_object_get(k, "checkouts")), 1);
	num = json_object_get(t, "number");
	/* 40 and 60 Mpps over windows of equal time: 50 Mpps, as result show says */
	assert_true(json_real_value(json_object_get(num, "value")) > 49.999e6 &&
		    json_real_value(json_object_get(num, "value")) < 50.001e6);
	assert_string_equal(json_string_value(json_object_get(num, "unit")), "pps");
	assert_string_equal(json_string_value(json_object_get(num, "prefix")), "metric");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		json_object_get(t, "environment"), "misc"), "cpu")), "Xeon");
	/* no nulls: the second row has no cpu */
	t = json_array_get(json_object_get(k, "tests"), 1);
	assert_null(json_object_get(json_object_get(json_object_get(t, "environment"), "misc"),
				    "cpu"));
	/* a time in ns goes out in seconds with the metric prefix (shown as 25 ns) */
	num = json_object_get(t, "number");
	assert_string_equal(json_string_value(json_object_get(num, "unit")), "s");
	assert_string_equal(json_string_value(json_object_get(num, "prefix")), "metric");
	assert_true(fabs(json_real_value(json_object_get(num, "value")) - 25e-9) < 1e-15);
	assert_string_equal(json_string_value(json_object_get(json_object_get(t, "misc"),
								  "unit")), "ns");
	assert_true(json_real_value(json_object_get(json_object_get(t, "misc"), "min")) == 24.0);
	assert_kcidb_v4_4(k);
	json_decref(k);
	k = kcidb(r, "mylab");
	assert_string_equal(json_string_value(json_object_get(
		json_array_get(json_object_get(k, "tests"), 0), "origin")), "mylab");
	assert_kcidb_v4_4(k);
	json_decref(k);
	/* KCIDB origins are ^[a-z0-9_]+$ */
	errno = 0;
	assert_null(kcidb(r, "My-Lab"));
	assert_int_equal(errno, EINVAL);
	assert_null(kcidb(r, ""));
	assert_false(export_origin_valid("lab:1"));
	assert_true(export_origin_valid("lab_1"));
	/* no database id, a build id that is no KCIDB id */
	errno = 0;
	assert_null(export_kcidb(r, NULL));
	assert_int_equal(errno, EINVAL);
	assert_null(export_kcidb(r, &(struct export_kcidb_opts){ .db_id = "x",
							       .build_id = "ci" }));
	assert_false(export_id_valid("CI:1"));
	assert_false(export_id_valid("ci:"));
	assert_false(export_id_valid(":x"));
	assert_true(export_id_valid("ci:kernel/42"));
	/* the caller's build: the tests name it, no checkouts or builds of ours */
	k = export_kcidb(r, &(struct export_kcidb_opts){ .db_id = "x",
						       .build_id = "ci:kernel-42" });
	assert_non_null(k);
	assert_null(json_object_get(k, "builds"));
	assert_null(json_object_get(k, "checkouts"));
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(
		k, "tests"), 1), "build_id")), "ci:kernel-42");
	assert_kcidb_v4_4(k);
	json_decref(k);

	/* a ratio is dimensionless, a row without a time has no start_time */
	json_object_set_new(json_array_get(r, 0), "unit", json_string("ratio"));
	json_object_set_new(json_array_get(r, 2), "unit", json_string("ratio"));
	json_object_del(json_array_get(r, 0), "started_ms");
	json_object_del(json_array_get(r, 2), "started_ms");
	k = kcidb(r, NULL);
	t = json_array_get(json_object_get(k, "tests"), 0);
	assert_null(json_object_get(t, "start_time"));
	assert_int_equal(json_object_size(json_object_get(t, "number")), 1);
	assert_kcidb_v4_4(k);
	json_decref(k);
	json_decref(r);
}

static void test_export_bmf(void **state)
{
	json_t *r = rows(), *b = export_bmf(r), *m;

	assert_non_null(b);
	/* named by plan, variant, subject and point: host and kernel are Bencher's testbed
	 * and branch */
	m = json_object_get(json_object_get(b, "quickstart/drop/xdp_drop"), "prog.ns_per_run");
	assert_non_null(m);
	assert_true(json_real_value(json_object_get(m, "value")) == 25.0);
	assert_true(json_real_value(json_object_get(m, "lower_value")) == 24.0);
	assert_true(json_real_value(json_object_get(m, "upper_value")) == 26.0);
	m = json_object_get(json_object_get(b, "quickstart/drop/b/traffic.packet.size=64"),
			    "port.rx_pps");
	assert_non_null(m);
	/* the same mean as KCIDB's and result show's: (40 + 60) / 2 Mpps */
	assert_true(json_real_value(json_object_get(m, "value")) > 49.999e6 &&
		    json_real_value(json_object_get(m, "value")) < 50.001e6);
	assert_int_equal(json_object_size(b), 2);
	assert_bmf(b);
	json_decref(b);
	json_decref(r);
}

static void test_import_bpftool(void **state)
{
	json_t *before = json_loads("[{\"id\": 7, \"name\": \"cnt_ingress\", \"run_cnt\": 1000,"
		" \"run_time_ns\": 30000}, {\"id\": 8, \"name\": \"idle\", \"run_cnt\": 5,"
		" \"run_time_ns\": 50}, {\"id\": 9, \"name\": \"old\", \"run_cnt\": 1,"
		" \"run_time_ns\": 1}]", 0, NULL);
	json_t *after = json_loads("[{\"id\": 7, \"name\": \"cnt_ingress\", \"run_cnt\": 3000,"
		" \"run_time_ns\": 101800}, {\"id\": 8, \"name\": \"idle\", \"run_cnt\": 5,"
		" \"run_time_ns\": 50}, {\"id\": 9, \"name\": \"reused\", \"run_cnt\": 9,"
		" \"run_time_ns\": 90}, {\"id\": 10, \"name\": \"fresh\", \"run_cnt\": 10,"
		" \"run_time_ns\": 400}]", 0, NULL);
	json_t *imp, *s;
	struct err err;

	imp = import_bpftool(before, after, "hand", "ext-cnt", "a.json..b.json", &err);
	assert_non_null(imp);
	s = json_object_get(json_array_get(json_object_get(imp, "jobs"), 0), "samples");
	assert_int_equal(json_array_size(s), 2);	/* cnt_ingress and fresh */
	assert_string_equal(json_string_value(json_object_get(json_array_get(s, 0), "subject")),
			    "cnt_ingress");
	assert_true(json_real_value(json_object_get(json_array_get(s, 0), "value")) == 35.9);
	assert_true(json_real_value(json_object_get(json_array_get(s, 1), "value")) == 40.0);
	json_decref(imp);
	assert_null(import_bpftool(before, before, "hand", "v", "a..a", &err));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.msg, "no program ran"));
	json_decref(before);
	json_decref(after);
}

static void test_import_csv(void **state)
{
	const char *csv = "variant,prog,set,value\n"
			  "ext-cnt,cnt_ingress,1,35.9\n"
			  "ext-cnt,cnt_egress,1,70.3\n"
			  "ext-cnt,cnt_ingress,2,35.6\n"
			  "\n"
			  "base,cnt_ingress,a,30.0\n";
	json_t *imp, *jobs;
	struct err err;

	imp = csv_import(csv, "hand", NULL, NULL, "x.csv", &err);
	assert_non_null(imp);
	jobs = json_object_get(imp, "jobs");
	assert_int_equal(json_array_size(jobs), 3);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(jobs, 1), "rep")), 2);
	assert_int_equal(json_array_size(json_object_get(json_array_get(jobs, 0), "samples")), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(
		json_array_get(jobs, 0), "samples"), 0), "unit")), "ns");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(jobs, 2), "rep")), 1);
	json_decref(imp);

	assert_null(csv_import("v,p,1,12x\n", "hand", NULL, NULL, "y.csv", &err));
	assert_string_equal(err.msg, "y.csv:1: '12x' is not a number");
	assert_null(csv_import("a,b,c\n", "hand", NULL, NULL, "z.csv", &err));
	assert_string_equal(err.msg, "z.csv:1: expected 4 fields variant,prog,set,value, got 3");
	assert_null(csv_import("variant,prog,set,value\n", "hand", NULL, NULL, "e.csv", &err));
	assert_string_equal(err.msg, "e.csv: no values");
}

/* Snapshots that gave wrong numbers or undefined behaviour (found by fuzz_import_bpftool). */
static void test_import_bpftool_bad(void **state)
{
	static const struct {
		const char *before, *after, *msg;
	} cases[] = {
		/* run_cnt - run_cnt overflowed (UBSan) and made a sample */
		{ "[{\"id\": 1, \"name\": \"a\", \"run_cnt\": -9223372036854775807, "
		  "\"run_time_ns\": 0}]",
		  "[{\"id\": 1, \"name\": \"a\", \"run_cnt\": 9223372036854775807, "
		  "\"run_time_ns\": 1}]", "before snapshot: program id 1 has a negative run_cnt" },
		{ "[{\"id\": 1, \"name\": \"a\", \"run_cnt\": 1, \"run_time_ns\": 1}, "
		  "{\"id\": 1, \"name\": \"a\", \"run_cnt\": 5, \"run_time_ns\": 9}]",
		  "[]", "before snapshot: program id 1 appears twice" },
		{ "[{\"id\": 1, \"name\": \"a\", \"run_cnt\": 1, \"run_time_ns\": 100}]",
		  "[{\"id\": 1, \"name\": \"a\", \"run_cnt\": 2, \"run_time_ns\": 50}]",
		  "program id 1 'a': run_cnt grew but run_time_ns went down" },
	};
	/* entries without an id were all id 0 and matched with each other ("fresh" got
	 * 400-90 ns for one run, the fuzzer's find), and a program with a name was taken for
	 * the unnamed one that had its id before ("new") */
	const char *same = "[{\"name\": \"reused\", \"run_cnt\": 9, \"run_time_ns\": 90}, "
			   "{\"id\": 5, \"run_cnt\": 9, \"run_time_ns\": 90}]";
	const char *after = "[{\"name\": \"fresh\", \"run_cnt\": 10, \"run_time_ns\": 400}, "
			    "{\"id\": 5, \"name\": \"new\", \"run_cnt\": 10, \"run_time_ns\": 400}, "
			    "{\"id\": 6, \"name\": \"x\", \"run_cnt\": 2, \"run_time_ns\": 6}]";
	json_t *b, *a, *imp, *s;
	struct err err;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		b = json_loads(cases[i].before, 0, NULL);
		a = json_loads(cases[i].after, 0, NULL);
		assert_non_null(b);
		assert_non_null(a);
		assert_null(import_bpftool(b, a, "hand", "v", "b..a", &err));
		assert_int_equal(errno, EINVAL);
		assert_non_null(strstr(err.msg, cases[i].msg));
		assert_int_equal(strncmp(err.msg, "b..a: ", 6), 0);
		json_decref(b);
		json_decref(a);
	}
	b = json_loads(same, 0, NULL);
	a = json_loads(after, 0, NULL);
	imp = import_bpftool(b, a, "hand", "v", "b..a", &err);
	assert_non_null(imp);
	s = json_object_get(json_array_get(json_object_get(imp, "jobs"), 0), "samples");
	assert_int_equal(json_array_size(s), 1);	/* only x: 5 got another name */
	assert_string_equal(json_string_value(json_object_get(json_array_get(s, 0), "subject")),
			    "x");
	json_decref(imp);
	json_decref(b);
	json_decref(a);
}

/* CSV files that were misread: not UTF-8 (found by fuzz_import_csv), long variants (found
 * writing its invariant "one job per distinct variant and set"). */
static void test_import_csv_bad(void **state)
{
	struct err err;
	char *csv, long_a[700], long_b[700];
	json_t *imp, *jobs;

	/* not UTF-8 (a Latin-1 file): said "out of memory" */
	assert_null(csv_import("variant,prog,set,value\nbase,c\x96t,a,30.0\n", "hand", NULL,
			       NULL, "l.csv", &err));
	assert_int_equal(errno, EINVAL);
	assert_string_equal(err.msg, "l.csv:2: not UTF-8 text");
	assert_null(csv_import("v,\xed\xa0\x80,1,1\n", "hand", NULL, NULL, "s.csv", &err));	/* a UTF-16 surrogate */
	assert_string_equal(err.msg, "s.csv:1: not UTF-8 text");
	imp = csv_import("caf\xc3\xa9,\xf0\x9f\x90\x9d,1,1\n", "hand", NULL, NULL, "u.csv", &err);
	assert_non_null(imp);
	json_decref(imp);
	/* a NUL byte ended the text there: the lines after it were dropped, exit 0 */
	assert_null(import_csv("base,p,1,30\nbase,p,2,31\0\nbase,p,3,32\n", 37, "hand", NULL,
			       NULL, "z.csv", &err));
	assert_int_equal(errno, EINVAL);
	assert_string_equal(err.msg, "z.csv:2: a NUL byte (not a text file?)");
	/* invalid UTF-8 in a comment line is refused too */
	assert_null(csv_import("# \xff\nbase,p,1,30\n", "hand", NULL, NULL, "c.csv", &err));
	assert_string_equal(err.msg, "c.csv:1: not UTF-8 text");

	/* variants that differ after 510 bytes were one job (a cut key): two jobs now */
	memset(long_a, 'A', 600);
	memcpy(long_b, long_a, 600);
	long_a[600] = long_b[600] = '\0';
	long_a[599] = 'x';
	long_b[599] = 'y';
	assert_true(asprintf(&csv, "%s,p,1,1\n%s,p,1,2\n", long_a, long_b) > 0);
	imp = csv_import(csv, "hand", NULL, NULL, "long.csv", &err);
	free(csv);
	assert_non_null(imp);
	jobs = json_object_get(imp, "jobs");
	assert_int_equal(json_array_size(jobs), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(jobs, 1), "variant")),
			    long_b);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(jobs, 1), "rep")), 1);
	json_decref(imp);

	/* many sets: numbering a new set walked all jobs (100000 sets took minutes) */
	{
		size_t len = 0, i;
		FILE *f = open_memstream(&csv, &len);
		int64_t t0;

		for (i = 0; i < 100000; i++)
			fprintf(f, "v%zu,p,%zu,1.5\n", i % 3, i);
		fclose(f);
		t0 = util_mono_ms();
		imp = csv_import(csv, "hand", NULL, NULL, "many.csv", &err);
		free(csv);
		assert_non_null(imp);
		assert_true(util_mono_ms() - t0 < 10000);
		jobs = json_object_get(imp, "jobs");
		assert_int_equal(json_array_size(jobs), 100000);
		assert_int_equal(json_integer_value(json_object_get(json_array_get(jobs, 99999),
								    "rep")), 33334);
		json_decref(imp);
	}
}

/* A program with two values in one set (store_import would have met SQLite's UNIQUE
 * constraint) and a negative value (times and counts are never below 0): refused with
 * file and line, whatever the unit; the same program in another set is another
 * repetition. */
static void test_import_csv_refused(void **state)
{
	struct err err;
	json_t *imp;

	(void)state;
	assert_null(csv_import("variant,prog,set,value\nbase,p,1,30\nbase,q,1,31\n"
			       "base,p,1,32\n", "hand", NULL, NULL, "d.csv", &err));
	assert_int_equal(errno, EINVAL);
	assert_string_equal(err.msg, "d.csv:4: program 'p' of variant 'base' has a value in set "
			    "'1' already (line 2)");
	imp = csv_import("base,p,1,30\nbase,p,2,32\npatch,p,1,30\n", "hand", NULL, NULL,
			 "ok.csv", &err);
	assert_non_null(imp);
	assert_int_equal(json_array_size(json_object_get(imp, "jobs")), 3);
	json_decref(imp);

	assert_null(csv_import("base,p,1,30\nbase,p,2,-0.5\n", "hand", NULL, NULL, "n.csv", &err));
	assert_string_equal(err.msg, "n.csv:2: value '-0.5' is negative");
	assert_null(csv_import("base,p,1,-1\n", "hand", "x.lat", "ns", "u.csv", &err));
	assert_string_equal(err.msg, "u.csv:1: value '-1' is negative");
	assert_null(csv_import("base,p,1,-1.5\n", "hand", "x.delta", "pps", "d2.csv", &err));
	assert_string_equal(err.msg, "d2.csv:1: value '-1.5' is negative");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_export_kcidb),
		cmocka_unit_test(test_export_bmf),
		cmocka_unit_test(test_import_bpftool),
		cmocka_unit_test(test_import_csv),
		cmocka_unit_test(test_import_bpftool_bad),
		cmocka_unit_test(test_import_csv_bad),
		cmocka_unit_test(test_import_csv_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_export.c - lib/report/export.c (KCIDB v4.4 test objects, Bencher Metric Format) and
 * lib/report/import.c (bpftool before/after snapshots, the variant,prog,set,value CSV) on fixed
 * data: field names and values, the harmonic mean for rates, errors with FILE:LINE. */
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
		json_array_append_new(r, json_pack("{s:I, s:I, s:s, s:s, s:s, s:s, s:s, s:f, s:s, "
			"s:s, s:s, s:[], s:{}, s:I}", "run", (json_int_t)4,
			"job", (json_int_t)(10 + i), "plan", "quickstart", "variant", "drop",
			"subject", "xdp_drop", "metric", "prog.ns_per_run", "unit", "ns",
			"value", i ? 26.0 : 24.0, "host", "h1", "kernel_release", "6.18.0",
			"window", "cost", "flags", "point", "time_ms", (json_int_t)1700000000000LL));
	}
	return r;
}

/* Whether every member of OBJ is one of the NULL-terminated NAMES. */
static bool only_members(const json_t *obj, const char *const *names)
{
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)obj, k, v) {
		const char *const *n;

		for (n = names; *n && strcmp(*n, k); n++)
			;
		if (!*n) {
			print_error("unexpected member '%s'\n", k);
			return false;
		}
	}
	return true;
}

static bool no_nulls(const json_t *v)
{
	const char *k;
	json_t *e;
	size_t i;

	if (json_is_null(v))
		return false;
	if (json_is_object(v))
		json_object_foreach((json_t *)v, k, e)
			if (!no_nulls(e))
				return false;
	if (json_is_array(v))
		json_array_foreach(v, i, e)
			if (!no_nulls(e))
				return false;
	return true;
}

static bool matches_chars(const char *s, const char *extra)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || strchr(extra, *s)))
			return false;
	return true;
}

/* The members and patterns of KCIDB v4.4's test object (kcidb-io,
 * kcidb_io/schema/v04_04.py: "additionalProperties": false everywhere below; origin
 * ^[a-z0-9_]+$, ids ^ORIGIN:.*$, path ^[.a-zA-Z0-9_-]*$, no nulls). */
static void assert_kcidb_v4_4(const json_t *k)
{
	static const char *const top[] = { "version", "checkouts", "builds", "tests", "issues",
					   "incidents", NULL };
	static const char *const version[] = { "major", "minor", NULL };
	static const char *const test[] = { "build_id", "id", "origin", "environment", "path",
					    "comment", "log_url", "log_excerpt", "status",
					    "number", "waived", "start_time", "duration",
					    "output_files", "misc", "_timestamp", NULL };
	static const char *const env[] = { "compatible", "comment", "misc", NULL };
	static const char *const number[] = { "value", "unit", "prefix", NULL };
	static const char *const statuses = "FAIL ERROR MISS PASS DONE SKIP";
	json_t *t;
	size_t i;

	assert_true(only_members(k, top));
	assert_true(only_members(json_object_get(k, "version"), version));
	assert_true(no_nulls(k));
	json_array_foreach(json_object_get(k, "tests"), i, t) {
		const char *origin = json_string_value(json_object_get(t, "origin"));
		const json_t *num = json_object_get(t, "number");
		const char *prefix = json_string_value(json_object_get(num, "prefix"));

		assert_true(only_members(t, test));
		assert_non_null(origin);
		assert_true(matches_chars(origin, "_"));
		assert_true(!strncmp(json_string_value(json_object_get(t, "id")), origin,
				     strlen(origin)));
		assert_true(!strncmp(json_string_value(json_object_get(t, "build_id")), origin,
				     strlen(origin)));
		assert_true(matches_chars(json_string_value(json_object_get(t, "path")),
					  ".ABCDEFGHIJKLMNOPQRSTUVWXYZ_-"));
		assert_non_null(strstr(statuses, json_string_value(json_object_get(t, "status"))));
		assert_true(only_members(json_object_get(t, "environment"), env));
		if (num) {
			assert_true(only_members(num, number));
			assert_true(json_is_number(json_object_get(num, "value")));
			assert_true(!prefix || !strcmp(prefix, "metric") || !strcmp(prefix, "binary"));
		}
		assert_true(json_is_object(json_object_get(t, "misc")));
	}
}

static void test_export_kcidb(void **state)
{
	json_t *r = rows(), *k = export_kcidb(r, NULL), *t, *num;

	assert_non_null(k);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(k, "version"),
								 "major")), 4);
	assert_int_equal(json_array_size(json_object_get(k, "tests")), 2);
	t = json_array_get(json_object_get(k, "tests"), 0);
	assert_string_equal(json_string_value(json_object_get(t, "id")),
			    "bpflab:run4.bpflab.quickstart.drop.traffic_packet_size_64.port_rx_pps.b");
	assert_string_equal(json_string_value(json_object_get(t, "build_id")),
			    "bpflab:kernel-6.18.0");
	assert_string_equal(json_string_value(json_object_get(t, "origin")), "bpflab");
	assert_string_equal(json_string_value(json_object_get(t, "status")), "DONE");
	assert_string_equal(json_string_value(json_object_get(t, "start_time")),
			    "2023-11-14T22:13:20+00:00");
	num = json_object_get(t, "number");
	assert_true(json_real_value(json_object_get(num, "value")) > 47.999e6 &&
		    json_real_value(json_object_get(num, "value")) < 48.001e6);	/* harmonic */
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
	k = export_kcidb(r, "mylab");
	assert_string_equal(json_string_value(json_object_get(
		json_array_get(json_object_get(k, "tests"), 0), "origin")), "mylab");
	assert_kcidb_v4_4(k);
	json_decref(k);
	/* KCIDB origins are ^[a-z0-9_]+$ */
	errno = 0;
	assert_null(export_kcidb(r, "My-Lab"));
	assert_int_equal(errno, EINVAL);
	assert_null(export_kcidb(r, ""));
	assert_false(export_origin_valid("lab:1"));
	assert_true(export_origin_valid("lab_1"));

	/* a ratio is dimensionless, a row without a time has no start_time */
	json_object_set_new(json_array_get(r, 0), "unit", json_string("ratio"));
	json_object_set_new(json_array_get(r, 2), "unit", json_string("ratio"));
	json_object_del(json_array_get(r, 0), "time_ms");
	k = export_kcidb(r, NULL);
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
	m = json_object_get(json_object_get(b, "quickstart/drop/xdp_drop"), "prog.ns_per_run");
	assert_non_null(m);
	assert_true(json_real_value(json_object_get(m, "value")) == 25.0);
	assert_true(json_real_value(json_object_get(m, "lower_value")) == 24.0);
	assert_true(json_real_value(json_object_get(m, "upper_value")) == 26.0);
	assert_non_null(json_object_get(json_object_get(b,
		"quickstart/drop/b/traffic.packet.size=64"), "port.rx_pps"));
	/* BMF (bencher.dev/bmf.json): benchmark -> measure -> {value, lower_value,
	 * upper_value}, value required; benchmark names up to 1024 bytes, measures 64 */
	{
		static const char *const metric_members[] = { "value", "lower_value",
							       "upper_value", NULL };
		const char *bench, *measure;
		json_t *ms, *v;

		json_object_foreach(b, bench, ms) {
			assert_true(strlen(bench) <= 1024);
			json_object_foreach(ms, measure, v) {
				assert_true(strlen(measure) <= 64);
				assert_true(only_members(v, metric_members));
				assert_true(json_is_number(json_object_get(v, "value")));
			}
		}
	}
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
	char err[256];

	imp = import_bpftool(before, after, "hand", "ext-cnt", "a.json..b.json", err, sizeof(err));
	assert_non_null(imp);
	s = json_object_get(json_array_get(json_object_get(imp, "jobs"), 0), "samples");
	assert_int_equal(json_array_size(s), 2);	/* cnt_ingress and fresh */
	assert_string_equal(json_string_value(json_object_get(json_array_get(s, 0), "subject")),
			    "cnt_ingress");
	assert_true(json_real_value(json_object_get(json_array_get(s, 0), "value")) == 35.9);
	assert_true(json_real_value(json_object_get(json_array_get(s, 1), "value")) == 40.0);
	json_decref(imp);
	assert_null(import_bpftool(before, before, "hand", "v", "a..a", err, sizeof(err)));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err, "no program ran"));
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
	char err[256];

	imp = import_csv(csv, "hand", NULL, NULL, "x.csv", err, sizeof(err));
	assert_non_null(imp);
	jobs = json_object_get(imp, "jobs");
	assert_int_equal(json_array_size(jobs), 3);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(jobs, 1), "rep")), 2);
	assert_int_equal(json_array_size(json_object_get(json_array_get(jobs, 0), "samples")), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(
		json_array_get(jobs, 0), "samples"), 0), "unit")), "ns");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(jobs, 2), "rep")), 1);
	json_decref(imp);

	assert_null(import_csv("v,p,1,12x\n", "hand", NULL, NULL, "y.csv", err, sizeof(err)));
	assert_string_equal(err, "y.csv:1: '12x' is not a number");
	assert_null(import_csv("a,b,c\n", "hand", NULL, NULL, "z.csv", err, sizeof(err)));
	assert_string_equal(err, "z.csv:1: expected 4 fields variant,prog,set,value, got 3");
	assert_null(import_csv("variant,prog,set,value\n", "hand", NULL, NULL, "e.csv", err,
			       sizeof(err)));
	assert_string_equal(err, "e.csv: no values");
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
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		b = json_loads(cases[i].before, 0, NULL);
		a = json_loads(cases[i].after, 0, NULL);
		assert_non_null(b);
		assert_non_null(a);
		assert_null(import_bpftool(b, a, "hand", "v", "b..a", err, sizeof(err)));
		assert_int_equal(errno, EINVAL);
		assert_non_null(strstr(err, cases[i].msg));
		assert_int_equal(strncmp(err, "b..a: ", 6), 0);
		json_decref(b);
		json_decref(a);
	}
	b = json_loads(same, 0, NULL);
	a = json_loads(after, 0, NULL);
	imp = import_bpftool(b, a, "hand", "v", "b..a", err, sizeof(err));
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
	char *csv, err[256], long_a[700], long_b[700];
	json_t *imp, *jobs;

	/* not UTF-8 (a Latin-1 file): said "out of memory" */
	assert_null(import_csv("variant,prog,set,value\nbase,c\x96t,a,30.0\n", "hand", NULL,
			       NULL, "l.csv", err, sizeof(err)));
	assert_int_equal(errno, EINVAL);
	assert_string_equal(err, "l.csv:2: not UTF-8 text");
	assert_null(import_csv("v,\xed\xa0\x80,1,1\n", "hand", NULL, NULL, "s.csv", err,
			       sizeof(err)));	/* a UTF-16 surrogate */
	assert_string_equal(err, "s.csv:1: not UTF-8 text");
	imp = import_csv("caf\xc3\xa9,\xf0\x9f\x90\x9d,1,1\n", "hand", NULL, NULL, "u.csv", err,
			 sizeof(err));
	assert_non_null(imp);
	json_decref(imp);

	/* variants that differ after 510 bytes were one job (a cut key): two jobs now */
	memset(long_a, 'A', 600);
	memcpy(long_b, long_a, 600);
	long_a[600] = long_b[600] = '\0';
	long_a[599] = 'x';
	long_b[599] = 'y';
	assert_true(asprintf(&csv, "%s,p,1,1\n%s,p,1,2\n", long_a, long_b) > 0);
	imp = import_csv(csv, "hand", NULL, NULL, "long.csv", err, sizeof(err));
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
		imp = import_csv(csv, "hand", NULL, NULL, "many.csv", err, sizeof(err));
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
	char err[256];
	json_t *imp;

	(void)state;
	assert_null(import_csv("variant,prog,set,value\nbase,p,1,30\nbase,q,1,31\n"
			       "base,p,1,32\n", "hand", NULL, NULL, "d.csv", err, sizeof(err)));
	assert_int_equal(errno, EINVAL);
	assert_string_equal(err, "d.csv:4: program 'p' of variant 'base' has a value in set "
			    "'1' already (line 2)");
	imp = import_csv("base,p,1,30\nbase,p,2,32\npatch,p,1,30\n", "hand", NULL, NULL,
			 "ok.csv", err, sizeof(err));
	assert_non_null(imp);
	assert_int_equal(json_array_size(json_object_get(imp, "jobs")), 3);
	json_decref(imp);

	assert_null(import_csv("base,p,1,30\nbase,p,2,-0.5\n", "hand", NULL, NULL, "n.csv", err,
			       sizeof(err)));
	assert_string_equal(err, "n.csv:2: value '-0.5' is negative");
	assert_null(import_csv("base,p,1,-1\n", "hand", "x.lat", "ns", "u.csv", err,
			       sizeof(err)));
	assert_string_equal(err, "u.csv:1: value '-1' is negative");
	assert_null(import_csv("base,p,1,-1.5\n", "hand", "x.delta", "pps", "d2.csv", err,
			       sizeof(err)));
	assert_string_equal(err, "d2.csv:1: value '-1.5' is negative");
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

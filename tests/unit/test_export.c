/* test_export.c - lib/export.c (KCIDB v4.4 test objects, Bencher Metric Format) and
 * lib/import.c (bpftool before/after snapshots, the variant,prog,set,value CSV) on fixed
 * data: field names and values, the harmonic mean for rates, errors with FILE:LINE. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "export.h"
#include "import.h"

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
	json_decref(k);
	k = export_kcidb(r, "mylab");
	assert_string_equal(json_string_value(json_object_get(
		json_array_get(json_object_get(k, "tests"), 0), "origin")), "mylab");
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_export_kcidb),
		cmocka_unit_test(test_export_bmf),
		cmocka_unit_test(test_import_bpftool),
		cmocka_unit_test(test_import_csv),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_report_attach.c - what the report says of how programs were attached, per host
 * and port: the tc hooks (clsact, tcx), the mode an XDP entry of mode auto got, and the
 * drivers of the ports, from a result made by hand and end to end from the store
 * (store_query_result on an in-memory database, jobs run and ingested). The fixture:
 * report_fixture.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jget.h"
#include "plan/plan.h"
#include "report/report.h"
#include "store/store.h"
#include "base/util.h"
#include "helpers.h"
#include "report_fixture.h"

/* How the tc programs were attached (the result's hosts[].tc_attach, from the jobs'
 * envs): a line per port under its host, several methods over the run's jobs joined
 * by '/'; none for a host without tc programs. The JSON report keeps the hosts as the
 * result gave them. */
static void test_report_tc_attach(void **state)
{
	json_t *r = report_fix_result(9, "tc", "done", 1, "[\"cnt\"]",
				      "[{\"name\":\"g1\",\"kernel_release\":\"6.1.0-47\","
				      "  \"tc_attach\":{\"a\":{\"egress\":\"clsact\"},"
				      "  \"b\":{\"ingress\":\"clsact,tcx\",\"egress\":\"clsact\"}}},"
				      " {\"name\":\"g2\",\"kernel_release\":\"6.12.0\"}]"), *rep;
	const json_t *h;

	(void)state;
	report_fix_add(r, 1, "g1", "cnt", 1, NULL, "prog.ns_per_run", "cnt_ingress", 35.0);
	report_fix_add(r, 2, "g2", "cnt", 1, NULL, "prog.ns_per_run", "cnt_ingress", 30.0);
	rep = report_fix_as(r,
		"run 9  tc  plan 1a2b3c4d5e6f  done\n"
		"host g1  kernel 6.1.0-47\n"
		"  port a: tc egress clsact\n"
		"  port b: tc ingress clsact/tcx, egress clsact\n"
		"\n"
		"prog.ns_per_run  (ns per program run, bpf_stats on)\n"
		"variant  prog         results-1   total = mean ± spread\n"
		"cnt      cnt_ingress       35.0           35.0\n"
		"\n"
		"host g2  kernel 6.12.0\n"
		"\n"
		"prog.ns_per_run  (ns per program run, bpf_stats on)\n"
		"variant  prog         results-1   total = mean ± spread\n"
		"cnt      cnt_ingress       30.0           30.0\n");
	h = json_array_get(json_object_get(rep, "hosts"), 0);
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		json_object_get(h, "tc_attach"), "b"), "ingress")), "clsact,tcx");
	assert_null(json_object_get(json_array_get(json_object_get(rep, "hosts"), 1),
				    "tc_attach"));
	json_decref(rep);
	json_decref(r);
}

/* When set, tc_result's port b had an XDP entry of mode auto that went this mode. */
static const char *xdp_auto_b;

/* When set, tc_result's ports have drivers (a veth, b virtio_net, and a port c the job
 * does not use, e1000e) and tc_run's job spec lists ports a and b and XDP entries. */
static bool with_drivers;

/* A job's result for store_ingest_result: one cost sample, and an env whose port b had
 * its tc hooks attached through TC_B (NULL: port b had only XDP). */
static json_t *tc_result(int64_t job, const char *tc_b)
{
	json_t *r = json_pack("{s:i, s:s, s:I, s:s, s:I, s:I, s:[{s:s, s:s, s:f, s:s, s:s}], "
			      "s:{s:{s:s, s:s}, s:[{s:s, s:s, s:{s:s, s:s}}, "
			      "{s:s, s:s, s:{s:s, s:s}}]}}",
			      "v", 1, "type", "result", "job", (json_int_t)job, "status", "ok",
			      "started_ms", (json_int_t)1000, "finished_ms", (json_int_t)2000,
			      "samples", "metric", "prog.ns_per_run", "subject", "cnt",
			      "value", 35.5, "unit", "ns", "window", "cost",
			      "env", "kernel", "release", "6.1.0-47", "version", "#1 SMP",
			      "ports", "role", "a", "xdp_mode", "none", "tc_attach",
			      "ingress", "none", "egress", "none",
			      "role", "b", "xdp_mode", tc_b ? "none" : "native", "tc_attach",
			      "ingress", tc_b ? tc_b : "none", "egress", tc_b ? tc_b : "none");

	assert_non_null(r);
	if (xdp_auto_b) {
		json_t *b = json_array_get(json_object_get(json_object_get(r, "env"), "ports"), 1);

		json_object_set_new(b, "xdp_mode", json_string(xdp_auto_b));
		json_object_set_new(b, "xdp_auto", json_true());
	}
	if (with_drivers) {
		json_t *ports = json_object_get(json_object_get(r, "env"), "ports");

		json_object_set_new(json_array_get(ports, 0), "driver", json_string("veth"));
		json_object_set_new(json_array_get(ports, 0), "xdp_mode", json_string("native"));
		json_object_set_new(json_array_get(ports, 1), "driver", json_string("virtio_net"));
		json_array_append_new(ports, json_pack("{s:s, s:s, s:s}", "role", "c", "driver",
						       "e1000e", "xdp_mode", "none"));
	}
	return r;
}

/* One job of variant VARIANT (0: "tc", 1: "xdp") on host H, run and reported with
 * tc_result(TC_B). Returns the run. */
static int64_t tc_run(struct store *st, int64_t h, int variant, const char *tc_b)
{
	static char *names[] = { "tc", "xdp" };
	static struct plan_variant vars[] = { { .name = "tc" }, { .name = "xdp" } };
	struct plan plan = { .file = "tc.yaml", .text = "name: tc\n", .text_len = 9,
			     .name = "tc", .repeat = 1, .variants = vars, .n_variants = 2 };
	struct plan_job job = { .variant = variant, .rep = 1 };
	struct store_job_new jn = { .host_id = h, .job = &job };
	struct store_ingest ing;
	int64_t run = 0, id, run_of;
	json_t *spec, *res;

	util_sha256_hex(plan.text, plan.text_len, plan.sha256);
	job.spec = json_pack("{s:s, s:s, s:i}", "plan", "tc", "variant", names[variant],
			     "rep", 1);
	static struct plan_object obj = { .name = "x.bpf.o", .data = "x", .len = 1 };
	struct plan_objects objs = { .objs = &obj, .n = 1 };

	util_sha256_hex(obj.data, obj.len, obj.sha256);
	if (with_drivers)
		json_object_update_new(job.spec, json_pack(
			"{s:[s, s], s:[{s:s, s:s, s:s, s:s, s:s, s:s}, {s:s, s:s, s:s, s:s, s:s, s:s}]}",
			"ports", "a", "b", "attach",
			"port", "b", "hook", "xdp", "mode", "auto", "program", "xdp_tx",
			"object", obj.name, "sha256", obj.sha256,
			"port", "a", "hook", "xdp", "mode", "native", "program", "xdp_drop",
			"object", obj.name, "sha256", obj.sha256));
	job.point_values = json_object();
	assert_int_equal(store_run_create(st, &plan, NULL, &objs, &jn, 1, 200, &run), 0);
	assert_int_equal(store_job_next(st, h, &id, &run_of, &spec), 0);
	assert_int_equal(run_of, run);
	json_decref(spec);
	assert_int_equal(store_job_dispatch(st, id, 300), 0);
	assert_int_equal(store_job_accept(st, id, h, 310), 0);
	res = tc_result(id, tc_b);
	assert_int_equal(store_ingest_result(st, h, res, 400, &ing), 0);
	json_decref(res);
	json_decref(job.spec);
	json_decref(job.point_values);
	return run;
}

/* A store in memory where host g1 (kernel 6.1.0-47) said hello: its id in *HOST. */
static struct store *g1_store(int64_t *host)
{
	json_t *inv = json_pack("{s:{s:s}}", "kernel", "release", "6.1.0-47");
	struct store *st;
	struct err err;

	st = store_open(":memory:", false, &err);
	assert_non_null(st);
	assert_int_equal(store_host_hello(st, "g1", "0.1", inv, 100, host, NULL), 0);
	json_decref(inv);
	return st;
}

/* The same end to end from the store: result_show (store_query_result) reads each
 * job's env and names the hooks that were attached, per port; a run without tc
 * programs has no tc_attach and no line. */
static void test_report_tc_attach_from_store(void **state)
{
	json_t *q, *rep, *h;
	struct store *st;
	char *t;
	int64_t host, run;

	(void)state;
	st = g1_store(&host);

	run = tc_run(st, host, 0, "clsact");
	q = store_query_result(st, run);
	assert_non_null(q);
	h = json_array_get(json_object_get(q, "hosts"), 0);
	t = json_dumps(json_object_get(h, "tc_attach"), JSON_COMPACT | JSON_ENCODE_ANY);
	assert_text(t, "{\"b\":{\"ingress\":\"clsact\",\"egress\":\"clsact\"}}");
	free(t);
	rep = report_build(q);
	t = report_text(rep);
	assert_contains(t, "host g1  kernel 6.1.0-47\n  port b: tc ingress clsact, egress "
			   "clsact\n\n");
	free(t);
	json_decref(rep);
	json_decref(q);

	run = tc_run(st, host, 1, NULL);
	q = store_query_result(st, run);
	assert_non_null(q);
	assert_int_equal(json_array_size(json_object_get(q, "hosts")), 1);
	assert_null(json_object_get(json_array_get(json_object_get(q, "hosts"), 0),
				    "tc_attach"));
	rep = report_build(q);
	t = report_text(rep);
	assert_null(strstr(t, ": tc "));
	assert_contains(t, "host g1  kernel 6.1.0-47\n\n");
	free(t);
	json_decref(rep);
	json_decref(q);
	store_close(&st);
}

/* XDP entries of mode auto: result_show gives the mode each port got (hosts[].xdp_auto,
 * from the envs' xdp_auto ports), result show prints it under the host; entries not of
 * mode auto give nothing. */
static void test_report_xdp_auto_from_store(void **state)
{
	json_t *q, *rep, *h;
	struct store *st;
	char *t;
	int64_t host, run;

	(void)state;
	st = g1_store(&host);
	xdp_auto_b = "generic";
	run = tc_run(st, host, 1, NULL);
	xdp_auto_b = NULL;
	q = store_query_result(st, run);
	assert_non_null(q);
	h = json_array_get(json_object_get(q, "hosts"), 0);
	t = json_dumps(json_object_get(h, "xdp_auto"), JSON_COMPACT | JSON_ENCODE_ANY);
	assert_text(t, "{\"b\":\"generic\"}");
	free(t);
	rep = report_build(q);
	t = report_text(rep);
	assert_contains(t, "host g1  kernel 6.1.0-47\n  port b: xdp mode auto -> generic\n\n");
	free(t);
	json_decref(rep);
	json_decref(q);

	run = tc_run(st, host, 1, NULL);		/* mode native: nothing */
	q = store_query_result(st, run);
	assert_null(json_object_get(json_array_get(json_object_get(q, "hosts"), 0), "xdp_auto"));
	json_decref(q);
	store_close(&st);
}

/* result_show's hosts carry what the drivers form needs: port_driver, the drivers of
 * the ports the job's spec uses (not port c), as compare has it; per variant the XDP
 * entries in plan order with the mode the job's env says was used. */
static void test_report_drivers_from_store(void **state)
{
	json_t *q, *rep, *f, *h;
	struct store *st;
	struct err err;
	char *t;
	int64_t host, run;

	(void)state;
	st = g1_store(&host);
	xdp_auto_b = "generic";
	with_drivers = true;
	run = tc_run(st, host, 1, NULL);
	xdp_auto_b = NULL;
	with_drivers = false;
	q = store_query_result(st, run);
	assert_non_null(q);
	h = json_array_get(json_object_get(q, "hosts"), 0);
	assert_string_equal(json_string_value(json_object_get(h, "port_driver")),
			    "veth,virtio_net");
	t = json_dumps(json_object_get(h, "xdp"), JSON_COMPACT | JSON_PRESERVE_ORDER);
	assert_text(t, "{\"xdp\":[{\"port\":\"b\",\"program\":\"xdp_tx\",\"mode\":\"generic\"},"
		       "{\"port\":\"a\",\"program\":\"xdp_drop\",\"mode\":\"native\"}]}");
	free(t);
	rep = report_build(q);
	f = report_form_build(rep, "drivers", NULL, "cnt", &err);
	assert_non_null(f);
	t = report_form_text(f);
	assert_text(t,
		"run 1  tc  plan 3ea22c4c7504  done\n"
		"\n"
		"prog.ns_per_run cnt  (ns per program run, bpf_stats on; mean of 1 repetition)\n"
		"driver           variant  6.1.0-47\n"
		"veth,virtio_net  tc              -\n"
		"                 xdp        35.5 g\n"
		"g generic: the XDP mode of the program (else the variant's first XDP program)\n");
	free(t);
	json_decref(f);
	json_decref(rep);
	json_decref(q);

	run = tc_run(st, host, 0, "clsact");	/* no XDP entry, no drivers: neither */
	q = store_query_result(st, run);
	h = json_array_get(json_object_get(q, "hosts"), 0);
	assert_null(json_object_get(h, "port_driver"));
	assert_null(json_object_get(h, "xdp"));
	json_decref(q);
	store_close(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_tc_attach),
		cmocka_unit_test(test_report_xdp_auto_from_store),
		cmocka_unit_test(test_report_tc_attach_from_store),
		cmocka_unit_test(test_report_drivers_from_store),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

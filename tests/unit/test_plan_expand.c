// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_plan_expand.c - what a parsed plan becomes: overrides (parsed, applied, refused
 * with the override's own position), the matrix expanded into points and jobs in their
 * order, the job specs with their fields, the tc attach mode of each entry, and the
 * limit on the number of jobs. The fixture: plan_fixture.h.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "base/util.h"
#include "helpers.h"
#include "plan_fixture.h"

/* One override on BASE each (.text is the override) and the message it gets. */
static const struct plan_fix_bad bad_overrides[] = {
	{ "traffic.packet.siz=1",
	  FILE_NAME ": override 'traffic.packet.siz=1': unknown key 'siz' in traffic.packet (expected one of: size, proto, flows)" },
	{ "traffic.packet.size=big",
	  FILE_NAME ": override 'traffic.packet.size=big': traffic.packet.size: expected an integer from 60 to 9000, got 'big'" },
	{ "traffic.from.x=1",
	  FILE_NAME ": override 'traffic.from.x=1': 'traffic.from' is not a map" },
	{ "ports=[a, b",
	  FILE_NAME ": override 'ports=[a, b': did not find expected ',' or ']' (while parsing a flow sequence)" },
	/* ... and what the file says stays positioned in the file. */
	{ "ports=[a]",
	  FILE_NAME ":8:14: variant 'drop': port 'b' is not one of the plan's ports (a)" },
	{ "matrix.traffic.threads=[1, x]",
	  FILE_NAME ": matrix traffic.threads=x: traffic.threads: expected an integer from 1 to 64, got 'x'" },
	{ "name=*x",
	  FILE_NAME ": override 'name=*x': YAML aliases are not supported" },
	{ "variants.t=[{port: b, hook: tc-egress, tc_mode: x, object: o, program: p}]",
	  FILE_NAME ": override 'variants.t=[{port: b, hook: tc-egress, tc_mode: x, object: o, program: p}]': variant 't': tc_mode: expected one of auto, tcx, clsact, got 'x'" },
	{ "variants.d=[{port: b, tc_mode: tcx, object: o, program: p}]",
	  FILE_NAME ": override 'variants.d=[{port: b, tc_mode: tcx, object: o, program: p}]': variant 'd': tc_mode applies to hooks tc-ingress and tc-egress only, not xdp" },
};

static void test_plan_overrides(void **state)
{
	static const char *const set[] = {
		"traffic.packet.size=1500", "repeat=2", "hosts.count=4", "hosts.match.rack=r3",
		"hosts.match.port.driver=mlx5", "ports=[a, b, c]", "traffic.packet.flows=8",
		"description=\"x: y\"",
	};
	static const char *const add_variant[] = {
		"variants.tx=[{port: a, object: xdp_basic.bpf.o, program: xdp_tx}]",
	};
	static const char *const drop_axis[] = { "traffic.packet.size=128" };
	static const char *const add_axis[] = { "matrix.traffic.threads=[1, 2, 4]" };
	struct err err;
	struct plan *p;
	char sha[SHA256_HEX_LEN];
	size_t i;

	(void)state;
	p = plan_fix_parse_ov(BASE, set, 8, &err);
	if (!p)
		fail_msg("%s", err.msg);
	util_sha256_hex(BASE, strlen(BASE), sha);
	assert_string_equal(p->sha256, sha);	/* the text, not the overrides */
	assert_int_equal(p->traffic.size, 1500);
	assert_int_equal(p->traffic.flows, 8);
	assert_int_equal(p->repeat, 2);
	assert_int_equal(p->host_count, 4);
	assert_int_equal(p->n_match, 2);
	assert_string_equal(p->match[0].key, "rack");
	assert_string_equal(p->match[0].value, "r3");
	assert_string_equal(p->match[1].key, "port.driver");
	assert_string_equal(p->match[1].value, "mlx5");
	assert_int_equal(p->n_ports, 3);
	assert_string_equal(p->ports[2], "c");
	assert_string_equal(p->description, "x: y");
	plan_destroy(&p);

	p = plan_fix_parse_ov(BASE, add_variant, 1, &err);
	assert_non_null(p);
	assert_int_equal(p->n_variants, 2);
	assert_string_equal(p->variants[1].name, "tx");
	assert_string_equal(p->variants[1].attach[0].program, "xdp_tx");
	assert_int_equal(p->variants[1].attach[0].line, 0);	/* not from the file */
	plan_destroy(&p);

	/* Setting a key that the matrix varies takes it out of the matrix. */
	p = plan_fix_parse_ov(plan_fix_full, drop_axis, 1, &err);
	assert_non_null(p);
	assert_int_equal(p->n_axes, 0);
	assert_int_equal(p->traffic.size, 128);
	plan_destroy(&p);
	p = plan_fix_parse_ov(plan_fix_full, add_axis, 1, &err);
	assert_non_null(p);
	assert_int_equal(p->n_axes, 2);
	assert_string_equal(p->matrix[1].key, "traffic.threads");
	assert_int_equal(p->matrix[1].n_values, 3);
	plan_destroy(&p);

	/* Errors in what an override put there are reported against the override. */
	for (i = 0; i < ARRAY_LEN(bad_overrides); i++)
		plan_fix_error_ov(BASE, &bad_overrides[i].text, 1, bad_overrides[i].expect);
}

static void test_plan_override_parse(void **state)
{
	struct plan_override ov;
	struct err err;

	(void)state;
	assert_int_equal(plan_override_parse("traffic.packet.size=1500", &ov, &err), 0);
	assert_string_equal(ov.key, "traffic.packet.size");
	assert_string_equal(ov.value, "1500");
	plan_override_release(&ov);
	assert_null(ov.key);
	plan_override_release(&ov);

	assert_int_equal(plan_override_parse("description=a=b", &ov, &err), 0);
	assert_string_equal(ov.key, "description");
	assert_string_equal(ov.value, "a=b");
	plan_override_release(&ov);
	assert_int_equal(plan_override_parse("description=", &ov, &err), 0);
	assert_string_equal(ov.value, "");
	plan_override_release(&ov);

	assert_int_equal(plan_override_parse("x", &ov, &err), -EINVAL);
	assert_string_equal(err.msg, "invalid override 'x': expected KEY=VALUE");
	assert_int_equal(err.line, 0);
	assert_int_equal(plan_override_parse("=1", &ov, &err), -EINVAL);
	assert_string_equal(err.msg, "invalid override '=1': expected KEY=VALUE");
	assert_int_equal(plan_override_parse("a..b=1", &ov, &err), -EINVAL);
	assert_string_equal(err.msg,
			    "invalid override 'a..b=1': expected a key path such as traffic.packet.size");
	assert_int_equal(plan_override_parse("a.=1", &ov, &err), -EINVAL);
	assert_int_equal(plan_override_parse("name=a\nb", &ov, &err), -EINVAL);
	assert_string_equal(err.msg, "invalid override 'name=a\\x0ab': the value must be one line");
	assert_null(ov.key);
}

/* Expansion order, point values and spec contents. */
static void test_plan_expand_matrix(void **state)
{
	static const char *const variants[] = { "a1", "b2", "c3" };
	struct plan_job *jobs = NULL;
	struct err err;
	struct plan *p;
	int n = 0, i;

	(void)state;
	p = plan_fix_parse_ok("name: m\nports: [a, b]\ntraffic: {from: a, duration: 2s}\n"
			      "variants:\n"
			      "  a1: [{port: b, object: o.bpf.o, program: p1}]\n"
			      "  b2: [{port: b, object: o.bpf.o, program: p2}]\n"
			      "  c3: [{port: b, object: o.bpf.o, program: p3}]\n"
			      "matrix:\n"
			      "  traffic.packet.size: [64, 1500]\n"
			      "  traffic.packet.proto: [udp4, udp6]\n"
			      "repeat: 2\n");
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	assert_int_equal(n, 2 * 4 * 3);		/* reps x points x variants */
	for (i = 0; i < n; i++) {
		const struct plan_job *j = &jobs[i];
		int point = (i / 3) % 4;
		const char *size = point < 2 ? "64" : "1500";
		const char *proto = point % 2 ? "udp6" : "udp4";
		json_t *packet = json_object_get(json_object_get(j->spec, "traffic"), "packet");

		assert_int_equal(j->seq, i);
		assert_int_equal(j->rep, i / 12 + 1);
		assert_int_equal(j->point, point);
		assert_int_equal(j->variant, i % 3);	/* A B C A B C */
		assert_string_equal(json_string_value(json_object_get(j->spec, "variant")),
				    variants[i % 3]);
		assert_int_equal(json_integer_value(json_object_get(j->spec, "rep")), j->rep);
		assert_int_equal(json_object_size(j->point_values), 2);
		assert_string_equal(json_string_value(json_object_get(j->point_values,
							"traffic.packet.size")), size);
		assert_string_equal(json_string_value(json_object_get(j->point_values,
							"traffic.packet.proto")), proto);
		assert_true(json_equal(json_object_get(j->spec, "point"), j->point_values));
		assert_int_equal(json_integer_value(json_object_get(packet, "size")), atoi(size));
		assert_string_equal(json_string_value(json_object_get(packet, "proto")), proto);
		assert_string_equal(json_string_value(json_object_get(
			json_array_get(json_object_get(j->spec, "attach"), 0), "program")),
			i % 3 == 0 ? "p1" : i % 3 == 1 ? "p2" : "p3");
	}
	/* The plan is as it was after the expansion. */
	assert_int_equal(p->traffic.size, 64);
	assert_int_equal(p->traffic.proto, JOB_PROTO_UDP4);
	plan_jobs_free(jobs, n);
	jobs = NULL;
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);	/* and again */
	assert_int_equal(n, 24);
	plan_jobs_free(jobs, n);
	plan_destroy(&p);
	plan_jobs_free(NULL, 0);
}

static void test_plan_expand_spec(void **state)
{
	struct plan_job *jobs = NULL;
	struct err err;
	struct plan *p;
	json_t *want;
	char *text;
	int n = 0;

	(void)state;
	p = plan_fix_parse_ok("name: spec\nports: [a, b]\n"
			      "traffic: {generator: udp, from: a, packet: {size: 128, proto: udp6, flows: 4},\n"
			      "          threads: 2, duration: 2s, warmup: 500ms}\n"
			      "variants:\n"
			      "  both:\n"
			      "    - {port: b, mode: generic, object: xdp_basic.bpf.o, program: xdp_tx}\n"
			      "    - {port: b, hook: tc-egress, object: sub/tc.bpf.o, program: cls}\n"
			      "metrics: [port.rx_pps, prog.ns_per_run]\n");
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	assert_int_equal(n, 1);
	want = json_loads("{\"plan\": \"spec\", \"variant\": \"both\", \"rep\": 1, \"point\": {},"
			  " \"ports\": [\"a\", \"b\"],"
			  " \"traffic\": {\"generator\": \"udp\", \"from\": \"a\","
			  "   \"packet\": {\"size\": 128, \"proto\": \"udp6\", \"flows\": 4},"
			  "   \"threads\": 2, \"duration_ms\": 2000, \"warmup_ms\": 500},"
			  " \"attach\": [{\"port\": \"b\", \"hook\": \"xdp\", \"mode\": \"generic\","
			  "   \"object\": \"xdp_basic.bpf.o\", \"program\": \"xdp_tx\"},"
			  "  {\"port\": \"b\", \"hook\": \"tc-egress\", \"tc_mode\": \"auto\","
			  "   \"object\": \"sub/tc.bpf.o\", \"program\": \"cls\"}],"
			  " \"metrics\": [\"port.rx_pps\", \"prog.ns_per_run\"]}", 0, NULL);
	assert_non_null(want);
	text = json_dumps(jobs[0].spec, JSON_SORT_KEYS);
	if (!json_equal(want, jobs[0].spec))
		fail_msg("spec differs: %s", text);
	free(text);
	assert_int_equal(json_object_size(jobs[0].point_values), 0);
	json_decref(want);
	plan_jobs_free(jobs, n);
	plan_destroy(&p);

	/* mode auto: in the spec as written, decoded by the agent's decoder */
	p = plan_fix_parse_ok("name: auto\nports: [a, b]\ntraffic: {from: a, duration: 1s}\n"
			      "variants: {v: [{port: b, mode: auto, object: o, program: p}]}\n");
	assert_int_equal(p->variants[0].attach[0].mode, JOB_XDP_AUTO);
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(
			    jobs[0].spec, "attach"), 0), "mode")), "auto");
	{
		struct job_spec s;
		struct err e;

		assert_int_equal(jobspec_decode(jobs[0].spec, "spec", &s, &e), 0);
		assert_int_equal(s.attach[0].mode, JOB_XDP_AUTO);
		jobspec_release(&s);
	}
	plan_jobs_free(jobs, n);
	plan_destroy(&p);

	/* generator none: no "from" */
	p = plan_fix_parse_ok("name: n\nports: [a]\ntraffic: {generator: none, duration: 1s}\n"
			      "variants: {v: [{port: a, object: o, program: p}]}\n");
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	assert_null(json_object_get(json_object_get(jobs[0].spec, "traffic"), "from"));
	assert_string_equal(json_string_value(json_object_get(json_object_get(jobs[0].spec,
			    "traffic"), "generator")), "none");
	assert_null(json_object_get(jobs[0].spec, "sha256"));
	plan_jobs_free(jobs, n);
	plan_destroy(&p);
}

/* tc_mode: auto (the default), tcx or clsact on tc hooks; every tc entry of the spec
 * says which, XDP entries have none; an override can set it like any other key. */
static const char tc_plan[] =
	"name: tc\n"
	"ports: [a, b]\n"
	"traffic: {generator: udp, from: a, duration: 1s}\n"
	"variants:\n"
	"  tcx: [{port: b, hook: tc-ingress, tc_mode: tcx, object: tc_stats.bpf.o, program: cnt}]\n"
	"  clsact:\n"
	"    - {port: b, hook: tc-ingress, tc_mode: clsact, object: tc_stats.bpf.o, program: cnt}\n"
	"    - {port: a, hook: tc-egress, tc_mode: auto, object: tc_stats.bpf.o, program: cnt}\n"
	"  auto:\n"
	"    - {port: b, hook: tc-egress, object: tc_stats.bpf.o, program: cnt}\n"
	"    - {port: a, object: xdp_basic.bpf.o, program: xdp_pass}\n";

/* The tc_mode of attach entry I of JOB's spec, or NULL. */
static const char *spec_tc_mode(const struct plan_job *job, size_t i)
{
	return json_string_value(json_object_get(json_array_get(json_object_get(job->spec,
							"attach"), i), "tc_mode"));
}

static void test_plan_tc_mode(void **state)
{
	static const char *const to_clsact[] = {
		"variants.tcx=[{port: b, hook: tc-ingress, tc_mode: clsact, object: o, program: p}]",
	};
	static const char *const new_variant[] = {
		"variants.x=[{port: a, hook: tc-egress, tc_mode: tcx, object: o, program: p}]",
	};
	struct plan_job *jobs = NULL;
	struct err err;
	struct plan *p;
	int n = 0;

	(void)state;
	p = plan_fix_parse_ok(tc_plan);
	assert_int_equal(p->n_variants, 3);
	assert_int_equal(p->variants[0].attach[0].tc_mode, JOB_TC_TCX);
	assert_int_equal(p->variants[1].attach[0].tc_mode, JOB_TC_CLSACT);
	assert_int_equal(p->variants[1].attach[1].tc_mode, JOB_TC_AUTO);
	assert_int_equal(p->variants[2].attach[0].tc_mode, JOB_TC_AUTO);	/* default */
	assert_int_equal(p->variants[2].attach[1].hook, JOB_HOOK_XDP);

	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_string_equal(spec_tc_mode(&jobs[0], 0), "tcx");
	assert_string_equal(spec_tc_mode(&jobs[1], 0), "clsact");
	assert_string_equal(spec_tc_mode(&jobs[1], 1), "auto");
	assert_string_equal(spec_tc_mode(&jobs[2], 0), "auto");
	assert_null(spec_tc_mode(&jobs[2], 1));			/* xdp: no tc_mode */
	assert_string_equal(json_string_value(json_object_get(json_array_get(
		json_object_get(jobs[2].spec, "attach"), 1), "mode")), "native");
	plan_jobs_free(jobs, n);
	jobs = NULL;
	plan_destroy(&p);

	/* Overrides: replace a variant, add one. */
	p = plan_fix_parse_ov(tc_plan, to_clsact, 1, &err);
	if (!p)
		fail_msg("%s", err.msg);
	assert_int_equal(p->variants[0].attach[0].tc_mode, JOB_TC_CLSACT);
	plan_destroy(&p);
	p = plan_fix_parse_ov(tc_plan, new_variant, 1, &err);
	if (!p)
		fail_msg("%s", err.msg);
	assert_int_equal(p->n_variants, 4);
	assert_int_equal(p->variants[3].attach[0].tc_mode, JOB_TC_TCX);
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	assert_string_equal(spec_tc_mode(&jobs[3], 0), "tcx");
	plan_jobs_free(jobs, n);
	plan_destroy(&p);

	assert_string_equal(jobspec_tc_mode_name(JOB_TC_AUTO), "auto");
	assert_string_equal(jobspec_tc_mode_name(JOB_TC_TCX), "tcx");
	assert_string_equal(jobspec_tc_mode_name(JOB_TC_CLSACT), "clsact");
	assert_string_equal(jobspec_tc_mode_name((enum job_tc_mode)7), "?");
}

/* The limit itself is accepted and expands; it takes well under a second. */
static void test_plan_expand_limit(void **state)
{
	static const char text[] = BASE "repeat: 1000\nmatrix:\n"
		"  traffic.threads: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"
		"  traffic.packet.flows: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n";
	struct plan_job *jobs = NULL;
	struct err err;
	struct plan *p = plan_fix_parse_ok(text);
	int n = 0;

	(void)state;
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	assert_int_equal(n, PLAN_MAX_JOBS);
	assert_int_equal(jobs[n - 1].rep, 1000);
	assert_int_equal(jobs[n - 1].point, 99);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(jobs[n - 1].spec,
			 "traffic"), "threads")), 10);
	plan_jobs_free(jobs, n);
	plan_destroy(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_overrides),
		cmocka_unit_test(test_plan_override_parse),
		cmocka_unit_test(test_plan_expand_matrix),
		cmocka_unit_test(test_plan_expand_spec),
		cmocka_unit_test(test_plan_tc_mode),
		cmocka_unit_test(test_plan_expand_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

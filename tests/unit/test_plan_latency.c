// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_plan_latency.c - the plan's `latency` section (docs/plans.md, "latency"): parsed
 * into the job spec, the spec's latency object encoded and decoded back to the same
 * bytes, and the refusals (FILE:LINE:COL for plans, the member's path for specs).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "plan/jobspec.h"
#include "helpers.h"

#define FILE_NAME "plans/l.yaml"

/* A plan with traffic TRAFFIC (line 3), a search SEARCH (line 6) and latency LATENCY on
 * line 7 (after "latency: ", column 10). */
#define PLAN(TRAFFIC, SEARCH, LATENCY)                                          \
	"name: l\n"                                                            \
	"ports: [a, b]\n"                                                      \
	"traffic: {from: a, duration: 1s, " TRAFFIC "}\n"                      \
	"variants:\n"                                                          \
	"  drop: [{port: b, object: xdp_basic.bpf.o, program: xdp_drop}]\n"    \
	"search: " SEARCH "\n"                                                 \
	"latency: " LATENCY "\n"

#define XDP "generator: xdp-live"
#define SEARCH "{goals: [{name: PDR, loss: 0.5%}], width: 1%, trial: 1s, min_rate: 1, max_rate: 2}"

static struct plan *parse(const char *text, struct err *err)
{
	return plan_parse(FILE_NAME, text, strlen(text), NULL, 0, err);
}

/* Shares and an absolute rate into the plan and every job spec, and back to the same
 * bytes; no latency: nothing in the spec. */
static void test_latency_into_spec(void **state)
{
	struct err err;
	struct plan *p = parse(PLAN(XDP, SEARCH, "{loads: [10%, 50%, 100%, 90000], port: b, goal: pdr}"),
			       &err);
	struct plan_job *jobs;
	struct job_spec s;
	struct err why;
	char *a, *b;
	json_t *again;
	int n;

	(void)state;
	if (!p)
		fail_msg("refused: %s", err.msg);
	assert_true(p->has_latency);
	assert_int_equal(p->latency.n_loads, 4);
	assert_true(p->latency.loads[0].share == 0.1);
	assert_true(p->latency.loads[1].share == 0.5);
	assert_true(p->latency.loads[2].share == 1);
	assert_true(p->latency.loads[3].share == 0);
	assert_int_equal(p->latency.loads[3].pps, 90000);
	assert_string_equal(p->latency.port, "b");
	assert_string_equal(p->latency.goal, "pdr");
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	assert_int_equal(n, 1);
	a = json_dumps(json_object_get(jobs[0].spec, "latency"), JSON_COMPACT);
	assert_string_equal(a, "{\"loads\":[{\"share\":0.10000000000000001},{\"share\":0.5},"
			       "{\"share\":1.0},{\"pps\":90000}],\"port\":\"b\",\"goal\":\"pdr\"}");
	assert_int_equal(jobspec_decode(jobs[0].spec, "spec", &s, &why), 0);
	assert_true(s.has_latency);
	assert_int_equal(s.latency.n_loads, 4);
	assert_true(s.latency.loads[0].share == 0.1);
	assert_int_equal(s.latency.loads[3].pps, 90000);
	assert_string_equal(s.latency.port, "b");
	assert_string_equal(s.latency.goal, "pdr");
	again = jobspec_encode(&s);
	a = (free(a), json_dumps(jobs[0].spec, JSON_COMPACT));
	b = json_dumps(again, JSON_COMPACT);
	assert_string_equal(a, b);
	free(a);
	free(b);
	json_decref(again);
	jobspec_release(&s);
	plan_jobs_free(jobs, n);
	plan_destroy(&p);
	/* absolute loads with traffic.rate and no search; no port: the agent's default */
	p = parse(PLAN(XDP ", rate: 1000", "~", "{loads: [500]}"), &err);
	if (!p)
		fail_msg("refused: %s", err.msg);
	assert_int_equal(p->latency.loads[0].pps, 500);
	assert_null(p->latency.port);
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	a = json_dumps(json_object_get(jobs[0].spec, "latency"), JSON_COMPACT);
	assert_string_equal(a, "{\"loads\":[{\"pps\":500}]}");
	free(a);
	plan_jobs_free(jobs, n);
	plan_destroy(&p);
	/* no latency: nothing in the spec */
	p = parse(PLAN(XDP, SEARCH, "~"), &err);
	assert_non_null(p);
	assert_false(p->has_latency);
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	assert_null(json_object_get(jobs[0].spec, "latency"));
	plan_jobs_free(jobs, n);
	plan_destroy(&p);
}

static const struct refusal plan_refusals[] = {
	{ PLAN(XDP, "~", "{loads: [10%]}"),
	  FILE_NAME ":7:19: latency.loads: 10% is a share of the PDR a search finds, and the plan has no search section" },
	{ PLAN(XDP, "~", "{loads: [1000]}"),
	  FILE_NAME ":7:19: latency.loads: an absolute load needs a search section or traffic.rate" },
	{ PLAN(XDP, SEARCH, "{loads: [0%]}"),
	  FILE_NAME ":7:19: latency.loads: expected a share of the PDR above 0 % and at most 100 % (such as 10%) or a rate of 1 to 1000000000 frames/s, got '0%'" },
	{ PLAN(XDP, SEARCH, "{loads: [101%]}"), FILE_NAME ":7:19: latency.loads: expected a share" },
	{ PLAN(XDP, SEARCH, "{loads: [0]}"), FILE_NAME ":7:19: latency.loads: expected a share" },
	{ PLAN(XDP, SEARCH, "{loads: [1.5]}"), FILE_NAME ":7:19: latency.loads: expected a share" },
	{ PLAN(XDP, SEARCH, "{loads: [2000000000]}"), FILE_NAME ":7:19: latency.loads: expected a share" },
	{ PLAN(XDP, SEARCH, "{loads: [fast]}"), FILE_NAME ":7:19: latency.loads: expected a share" },
	{ PLAN(XDP, SEARCH, "{loads: []}"), FILE_NAME ":7:18: latency.loads: expected a non-empty list" },
	{ PLAN(XDP, SEARCH, "{loads: [1%, 2%, 3%, 4%, 5%, 6%, 7%, 8%, 9%]}"),
	  FILE_NAME ":7:18: latency.loads: " },
	{ PLAN(XDP, SEARCH, "{port: b}"), FILE_NAME ":7:10: missing required key 'loads' in latency" },
	{ PLAN(XDP, SEARCH, "{loads: [10%], port: c}"),
	  FILE_NAME ":7:31: latency.port 'c' is not one of the plan's ports (a, b)" },
	{ PLAN(XDP, SEARCH, "{loads: [10%], window: 1s}"), FILE_NAME ":7:25: unknown key 'window' in latency" },
	{ PLAN(XDP, SEARCH, "[10%]"), FILE_NAME ":7:10: latency: " },
	{ PLAN("generator: pktgen", SEARCH, "{loads: [10%]}"),
	  FILE_NAME ":7:10: latency: needs traffic.generator xdp-live or udp (the generators that stamp each frame; pktgen does not)" },
	{ PLAN(XDP, SEARCH, "{loads: [10%], goal: NDR}"),
	  FILE_NAME ":7:31: latency.goal: 'NDR' is not one of the search's goals (PDR)" },
	{ PLAN(XDP ", rate: 5", "~", "{loads: [10], goal: NDR}"),
	  FILE_NAME ":7:30: latency.goal: 'NDR' is not one of the search's goals (the plan has no search section)" },
	{ PLAN(XDP, SEARCH, "{loads: [10%], goal: P-R}"), FILE_NAME ":7:31: latency.goal: " },
	/* two-host plans: one-way latency across hosts is not measured */
	{ "name: l\nports: [x, y]\nlink: {generator: x, dut: y}\n"
	  "traffic: {from: x, generator: xdp-live, rate: 1000, duration: 1s}\n"
	  "variants: {v: [{port: y, object: o, program: p}]}\nlatency: {loads: [100]}\n",
	  FILE_NAME ":6:10: latency: one-way latency across hosts is not measured" },
};

static void test_latency_plan_refusals(void **state)
{
	(void)state;
	expect_plan_refusals(FILE_NAME, plan_refusals, ARRAY_LEN(plan_refusals));
}

static const struct refusal spec_refusals[] = {
	{ "{\"latency\":{\"loads\":[]}}", "spec.latency.loads: needs at least one load" },
	{ "{\"latency\":{}}", "spec.latency.loads: needs at least one load" },
	{ "{\"latency\":{\"loads\":[{\"share\":0}]}}", "spec.latency.loads[0].share 0 is out of range (0..1]" },
	{ "{\"latency\":{\"loads\":[{\"share\":1.5}]}}", "spec.latency.loads[0].share 1.5 is out of range (0..1]" },
	{ "{\"latency\":{\"loads\":[{\"share\":\"x\"}]}}", "spec.latency.loads[0].share: must be a number, not a string" },
	{ "{\"latency\":{\"loads\":[{\"pps\":0}]}}", "spec.latency.loads[0].pps" },
	{ "{\"latency\":{\"loads\":[{}]}}", "spec.latency.loads[0].pps: is required" },
	{ "{\"latency\":{\"loads\":[{\"pps\":1,\"share\":0.5}]}}", "spec.latency.loads[0]: has both share and pps" },
	{ "{\"latency\":{\"loads\":[{\"pps\":1}],\"window\":\"x\"}}", "spec.latency.window: unknown field" },
	{ "{\"latency\":{\"loads\":[{\"pps\":1}],\"port\":1}}", "spec.latency.port" },
	{ "{\"latency\":{\"loads\":[{\"pps\":1}],\"goal\":[]}}", "spec.latency.goal" },
};

static void test_latency_spec_refusals(void **state)
{
	struct job_spec s;
	struct err why;
	json_t *j;

	(void)state;
	j = json_of("{\"latency\":{\"loads\":[{\"share\":0.1},{\"pps\":5}],\"port\":\"b\"}}");
	assert_int_equal(jobspec_decode(j, "spec", &s, &why), 0);
	assert_int_equal(s.latency.n_loads, 2);
	jobspec_release(&s);
	json_decref(j);
	expect_spec_refusals(spec_refusals, ARRAY_LEN(spec_refusals));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_latency_into_spec),
		cmocka_unit_test(test_latency_plan_refusals),
		cmocka_unit_test(test_latency_spec_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_plan_search.c - the plan's `search` section (docs/plans.md, "search"): parsed into
 * the job spec, the spec's search object encoded and decoded back to the same bytes, and
 * the refusals (FILE:LINE:COL for plans, the member's path for specs).
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

#define FILE_NAME "plans/s.yaml"

/* A plan with a search section SEARCH on line 9 (after "search: ", column 9). */
#define WITH_SEARCH(SEARCH)                                                    \
	"name: s\n"                                                            \
	"ports: [a, b]\n"                                                      \
	"traffic:\n"                                                           \
	"  from: a\n"                                                          \
	"  generator: xdp-live\n"                                              \
	"  duration: 1s\n"                                                     \
	"variants:\n"                                                          \
	"  drop: [{port: b, object: xdp_basic.bpf.o, program: xdp_drop}]\n"    \
	"search: " SEARCH "\n"

#define GOOD "{goals: [{name: NDR, loss: 0}, {name: PDR, loss: 0.5%}], width: 0.5%, " \
	"exceed: 0.5, trial: 1s, total: 21s, min_rate: 10000, max_rate: 2000000}"

static struct plan *parse(const char *text, struct err *err)
{
	return plan_parse(FILE_NAME, text, strlen(text), NULL, 0, err);
}

/* The example: into the plan and every job spec, and back to the same bytes. */
static void test_search_into_spec(void **state)
{
	struct err err;
	struct plan *p = parse(WITH_SEARCH(GOOD), &err);
	struct plan_job *jobs;
	struct job_spec s;
	struct err why;
	char *a, *b;
	json_t *again;
	int n;

	(void)state;
	if (!p)
		fail_msg("refused: %s", err.msg);
	assert_true(p->has_search);
	assert_int_equal(p->search.n_goals, 2);
	assert_string_equal(p->search.goals[0].name, "NDR");
	assert_true(p->search.goals[0].loss == 0);
	assert_string_equal(p->search.goals[1].name, "PDR");
	assert_true(p->search.goals[1].loss == 0.005);
	assert_true(p->search.width == 0.005);
	assert_true(p->search.exceed == 0.5);
	assert_int_equal(p->search.trial_ms, 1000);
	assert_int_equal(p->search.total_ms, 21000);
	assert_int_equal(p->search.min_rate_pps, 10000);
	assert_int_equal(p->search.max_rate_pps, 2000000);
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	assert_int_equal(n, 1);
	a = json_dumps(json_object_get(jobs[0].spec, "search"),
		       JSON_COMPACT | JSON_REAL_PRECISION(6));
	assert_string_equal(a, "{\"goals\":[{\"name\":\"NDR\",\"loss\":0.0},{\"name\":\"PDR\","
			       "\"loss\":0.005}],\"width\":0.005,\"exceed\":0.5,\"trial_ms\":1000,"
			       "\"total_ms\":21000,\"min_rate_pps\":10000,\"max_rate_pps\":2000000}");
	assert_int_equal(jobspec_decode(jobs[0].spec, "spec", &s, &why), 0);
	assert_true(s.has_search);
	assert_int_equal(s.search.n_goals, 2);
	assert_string_equal(s.search.goals[1].name, "PDR");
	assert_true(s.search.goals[1].loss == 0.005);
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
	/* defaults: exceed 0.5, total = trial */
	p = parse(WITH_SEARCH("{goals: [{name: NDR, loss: 0}], width: 1%, trial: 2s, "
			      "min_rate: 1, max_rate: 2}"), &err);
	if (!p)
		fail_msg("refused: %s", err.msg);
	assert_true(p->search.exceed == 0.5);
	assert_int_equal(p->search.total_ms, 2000);
	assert_int_equal(p->search.method, JOB_SEARCH_MLRSEARCH);
	plan_destroy(&p);
	/* method binary: into the spec (the default is left out), and back */
	p = parse(WITH_SEARCH("{goals: [{name: NDR, loss: 0}], width: 1%, trial: 2s, "
			      "min_rate: 1, max_rate: 2, method: binary}"), &err);
	if (!p)
		fail_msg("refused: %s", err.msg);
	assert_int_equal(p->search.method, JOB_SEARCH_BINARY);
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	a = json_dumps(json_object_get(jobs[0].spec, "search"), JSON_COMPACT);
	assert_contains(a, "{\"method\":\"binary\",\"goals\":");
	free(a);
	assert_int_equal(jobspec_decode(jobs[0].spec, "spec", &s, &why), 0);
	assert_int_equal(s.search.method, JOB_SEARCH_BINARY);
	jobspec_release(&s);
	plan_jobs_free(jobs, n);
	plan_destroy(&p);
	/* no search: nothing in the spec */
	p = parse(WITH_SEARCH("~"), &err);
	assert_non_null(p);
	assert_false(p->has_search);
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	assert_null(json_object_get(jobs[0].spec, "search"));
	plan_jobs_free(jobs, n);
	plan_destroy(&p);
}

static const struct refusal plan_refusals[] = {
	{ WITH_SEARCH("{goals: [{name: NDR, loss: 100%}], width: 1%, trial: 1s, min_rate: 1, max_rate: 2}"),
	  FILE_NAME ":9:36: search.goals: loss: expected a percentage from 0 % to below 100 % (such as 0 or 0.5%), got '100%'" },
	{ WITH_SEARCH("{goals: [{name: NDR, loss: -1%}], width: 1%, trial: 1s, min_rate: 1, max_rate: 2}"),
	  FILE_NAME ":9:36: search.goals: loss: expected a percentage" },
	{ WITH_SEARCH("{goals: [{name: NDR, loss: 0.5}], width: 1%, trial: 1s, min_rate: 1, max_rate: 2}"),
	  FILE_NAME ":9:36: search.goals: loss: expected a percentage" },
	{ WITH_SEARCH("{goals: [{name: NDR, loss: 0}], width: 0%, trial: 1s, min_rate: 1, max_rate: 2}"),
	  FILE_NAME ":9:48: search.width: expected a percentage above 0 % and below 100 % (such as 2%), got '0%'" },
	{ WITH_SEARCH("{goals: [{name: NDR, loss: 0}], width: -1%, trial: 1s, min_rate: 1, max_rate: 2}"),
	  FILE_NAME ":9:48: search.width: expected a percentage above 0 %" },
	{ WITH_SEARCH("{goals: [{name: NDR, loss: 0}], width: 1%, trial: 2s, total: 1s, min_rate: 1, max_rate: 2}"),
	  FILE_NAME ":9:70: search.total: 1000 ms is shorter than search.trial (2000 ms)" },
	{ WITH_SEARCH("{goals: [{name: NDR, loss: 0}], width: 1%, trial: 1s, min_rate: 5, max_rate: 5}"),
	  FILE_NAME ":9:86: search.max_rate: 5 is not above search.min_rate (5)" },
	{ WITH_SEARCH("{goals: [{name: NDR, loss: 0}], width: 1%, trial: 1s, exceed: 1, min_rate: 1, max_rate: 2}"),
	  FILE_NAME ":9:71: search.exceed: expected a ratio from 0 to below 1" },
	{ WITH_SEARCH("{goals: [{name: NDR, loss: 0}, {name: ndr, loss: 1%}], width: 1%, trial: 1s, min_rate: 1, max_rate: 2}"),
	  FILE_NAME ":9:47: search.goals: goal ndr is there twice" },
	{ WITH_SEARCH("{goals: [], width: 1%, trial: 1s, min_rate: 1, max_rate: 2}"),
	  FILE_NAME ":9:17: search.goals: expected a non-empty list" },
	{ WITH_SEARCH("{goals: [{name: NDR, loss: 0}], width: 1%, trial: 1s, min_rate: 1}"),
	  FILE_NAME ":9:9: missing required key 'max_rate' in search" },
	{ WITH_SEARCH("{goals: [{name: NDR, loss: 0}], width: 1%, trial: 1s, min_rate: 1, max_rate: 2, pace: 3}"),
	  FILE_NAME ":9:89: unknown key 'pace' in search" },
	{ WITH_SEARCH("{goals: [{name: NDR, loss: 0}], width: 1%, trial: 1s, min_rate: 1, max_rate: 2, method: linear}"),
	  FILE_NAME ":9:97: search.method: expected one of mlrsearch, binary, got 'linear'" },
};

static void test_search_plan_refusals(void **state)
{
	struct err err;
	struct plan *p;

	(void)state;
	expect_plan_refusals(FILE_NAME, plan_refusals, ARRAY_LEN(plan_refusals));
	/* with traffic.rate, and without a generator */
	p = parse("name: s\nports: [a, b]\ntraffic: {from: a, generator: udp, rate: 1000, duration: 1s}\n"
		  "variants: {v: [{port: b, object: o, program: p}]}\nsearch: " GOOD "\n", &err);
	if (p)
		fail_msg("accepted with traffic.rate");
	assert_contains(err.msg, FILE_NAME ":5:9: search: sets the rate of each trial");
	p = parse("name: s\nports: [a, b]\ntraffic: {generator: none, duration: 1s}\n"
		  "variants: {v: [{port: b, object: o, program: p}]}\nsearch: " GOOD "\n", &err);
	if (p)
		fail_msg("accepted without a generator");
	assert_contains(err.msg, FILE_NAME ":5:9: search: needs a generator");
}

/* search.max_rate against a host's port at submit: above its line rate (10 Gb/s, 64-byte
 * frames: 14204545/s) is refused at the place of max_rate; no speed: not checked. */
static void test_search_line_rate(void **state)
{
	const char *text = WITH_SEARCH("{goals: [{name: NDR, loss: 0}], width: 1%, trial: 1s, "
				       "min_rate: 1, max_rate: 14204546}");
	json_t *inv = json_pack("{s:[{s:s, s:i}]}", "ports", "role", "a", "speed", 10000);
	struct err err;
	struct plan *p = parse(text, &err);
	struct plan_job *jobs;
	int n;

	(void)state;
	assert_non_null(p);
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	assert_int_equal(plan_rate_check(p, jobs[0].spec, inv, "h1", &err), -EINVAL);
	assert_string_equal(err.msg, FILE_NAME ":9:86: search.max_rate: 14204546 frames/s is above the line rate of port 'a' on host 'h1': 14204545 frames/s of 64 bytes at 10000 Mb/s");
	assert_int_equal(err.line, 9);
	assert_int_equal(err.col, 86);
	json_decref(inv);
	inv = json_pack("{s:[{s:s}]}", "ports", "role", "a");
	assert_int_equal(plan_rate_check(p, jobs[0].spec, inv, "h1", &err), 0);
	json_decref(inv);
	plan_jobs_free(jobs, n);
	plan_destroy(&p);
	p = parse(WITH_SEARCH(GOOD), &err);
	inv = json_pack("{s:[{s:s, s:i}]}", "ports", "role", "a", "speed", 10000);
	assert_int_equal(plan_expand(p, &jobs, &n, &err), 0);
	assert_int_equal(plan_rate_check(p, jobs[0].spec, inv, "h1", &err), 0);
	json_decref(inv);
	plan_jobs_free(jobs, n);
	plan_destroy(&p);
}

#define SPEC_SEARCH(X) "{\"search\":{\"goals\":[{\"name\":\"NDR\",\"loss\":0}],\"width\":0.01," \
	"\"exceed\":0.5,\"trial_ms\":1000,\"total_ms\":2000,\"min_rate_pps\":1," \
	"\"max_rate_pps\":2" X "}}"

static const struct refusal spec_refusals[] = {
	{ "{\"search\":{\"goals\":[{\"name\":\"NDR\",\"loss\":1}],\"width\":0.01,\"exceed\":0.5,"
	  "\"trial_ms\":1000,\"total_ms\":2000,\"min_rate_pps\":1,\"max_rate_pps\":2}}",
	  "spec.search.goals[0].loss 1 is out of range [0..1)" },
	{ "{\"search\":{\"goals\":[{\"name\":\"NDR\",\"loss\":0}],\"width\":0,\"exceed\":0.5,"
	  "\"trial_ms\":1000,\"total_ms\":2000,\"min_rate_pps\":1,\"max_rate_pps\":2}}",
	  "spec.search.width 0 is out of range (0..1)" },
	{ "{\"search\":{\"goals\":[{\"name\":\"NDR\",\"loss\":0}],\"width\":0.01,\"exceed\":0.5,"
	  "\"trial_ms\":1000,\"total_ms\":999,\"min_rate_pps\":1,\"max_rate_pps\":2}}",
	  "spec.search.total_ms 999 is less than trial_ms 1000" },
	{ "{\"search\":{\"goals\":[],\"width\":0.01}}", "spec.search.goals: needs at least one goal" },
	{ "{\"search\":{\"goals\":[{\"name\":\"NDR\",\"loss\":0}],\"width\":0.01}}",
	  "spec.search.exceed: is required" },
	{ SPEC_SEARCH(",\"pace\":1"), "spec.search.pace: unknown field" },
	{ SPEC_SEARCH(",\"method\":\"linear\""),
	  "spec.search.method: unknown method 'linear' (mlrsearch, binary)" },
	{ "{\"search\":{\"goals\":[{\"name\":\"NDR\",\"loss\":0}],\"width\":0.01,\"exceed\":0.5,"
	  "\"trial_ms\":1000,\"total_ms\":2000,\"min_rate_pps\":2,\"max_rate_pps\":2}}",
	  "spec.search.min_rate_pps 2 is not below max_rate_pps 2" },
};

static void test_search_spec_refusals(void **state)
{
	struct job_spec s;
	struct err why;
	json_t *j;

	(void)state;
	j = json_of(SPEC_SEARCH(""));
	assert_int_equal(jobspec_decode(j, "spec", &s, &why), 0);
	jobspec_release(&s);
	json_decref(j);
	expect_spec_refusals(spec_refusals, ARRAY_LEN(spec_refusals));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_search_into_spec),
		cmocka_unit_test(test_search_plan_refusals),
		cmocka_unit_test(test_search_spec_refusals),
		cmocka_unit_test(test_search_line_rate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

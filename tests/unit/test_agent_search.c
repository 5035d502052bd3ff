// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_agent_search.c - agent/job_search.c without a lab: the job's search loop driven by
 * a model device instead of job_search_trial (the trials on real ports are
 * tests/integration's), the MLRsearch parameters a spec gives, and the samples: trial.*
 * in order, GOAL.lower/.upper/.conditional per goal.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "job_int.h"
#include "helpers.h"

#define CAP 1e6			/* the model forwards up to 1 Mpps and drops the rest */

struct model {
	int trials;
	int fail_at;		/* this trial fails with -EIO; -1: none */
	bool count_nothing;
	double gen;		/* the generator's reach, pps; 0: any load */
	double first;		/* the first trial offers this times its load; 0: 1 */
	int held;		/* the first HELD trials offer 10 % short, lost in hold-ups */
	struct job_ctx *c;	/* where the hold-ups go (trial_pace), with HELD */
};

static int step(void *ctx, double load, double duration, struct mlrsearch_res *res)
{
	struct model *m = ctx;
	double sent = load * duration;

	if (m->trials++ == m->fail_at)
		return -EIO;
	if (m->count_nothing)
		return 0;
	if (m->gen > 0 && load > m->gen) {
		load = m->gen;
		sent = load * duration;
	}
	res->offered = m->first > 0 && m->trials == 1 ? load * m->first : load;
	if (m->c)
		m->c->trial_pace.held = m->trials <= m->held ? (uint64_t)(0.1 * sent) : 0;
	if (m->trials <= m->held)
		res->offered = 0.9 * load;
	res->forwarded = (uint64_t)llround(fmin(load, CAP) * duration);
	res->lost = (uint64_t)llround(sent) - res->forwarded;
	res->duration = duration;
	return 0;
}

static const struct job_search search = {
	.goals = { { "NDR", 0 }, { "PDR", 0.005 } },
	.n_goals = 2,
	.width = 0.005,
	.exceed = 0.5,
	.trial_ms = 1000,
	.total_ms = 1000,
	.min_rate_pps = 100000,
	.max_rate_pps = 2000000,
};

static void ctx_init(struct job_ctx *c, struct job_opts *opts)
{
	memset(c, 0, sizeof(*c));
	memset(opts, 0, sizeof(*opts));
	jobspec_init(&c->spec);
	c->opts = opts;
	c->spec.has_search = true;
	c->spec.search = search;
	c->rx_role = "b";
}

/* The value of the sample METRIC with SEQ (-1: the whole window), or NAN. */
static double sample(const struct job_ctx *c, const char *metric, int seq)
{
	size_t i;

	for (i = 0; i < c->samples.n; i++) {
		const struct sample *s = &c->samples.v[i];

		if (!strcmp(s->metric, metric) && s->seq == (seq < 0 ? -1 : seq)) {
			assert_string_equal(s->subject, "b");
			return s->value;
		}
	}
	return NAN;
}

/* A 1 s trial over 21 s: the first phase's trials 1/8 s; loads in pps. */
static void test_search_params(void **state)
{
	struct job_search s = search;
	struct mlrsearch_params p;

	(void)state;
	s.total_ms = 21000;
	job_search_params(&s, &p);
	assert_int_equal(p.n_goals, 2);
	assert_string_equal(p.goals[1].name, "PDR");
	assert_true(p.goals[1].loss_ratio == 0.005);
	assert_true(p.goals[0].exceed_ratio == 0.5 && p.goals[1].exceed_ratio == 0.5);
	assert_true(p.final_duration == 1 && p.initial_duration == 0.125);
	assert_true(p.duration_sum == 21);
	assert_true(p.min_rate == 100000 && p.max_rate == 2000000);
	assert_int_equal(p.method, MLRSEARCH_METHOD_MLR);
	s.method = JOB_SEARCH_BINARY;
	job_search_params(&s, &p);
	assert_int_equal(p.method, MLRSEARCH_METHOD_BINARY);
	/* short trials: the first phase no shorter than 0.1 s, nor longer than the trial */
	s.trial_ms = 400;
	job_search_params(&s, &p);
	assert_true(p.initial_duration == 0.1);
	s.trial_ms = 50;
	job_search_params(&s, &p);
	assert_true(p.initial_duration == 0.05);
}

/* The step at 1 Mpps: NDR's bounds around 1 Mpps, PDR's around 1 Mpps / (1 - 0.5 %)
 * (= 1005025 pps, where the loss is 0.5 %), each within the width 0.5 %. */
static void test_search_step(void **state)
{
	struct model m = { .fail_at = -1 };
	struct job_opts opts;
	struct job_ctx c;
	double lo, up;

	(void)state;
	ctx_init(&c, &opts);
	assert_int_equal(job_search_run(&c, step, &m), 0);
	lo = sample(&c, "ndr.lower", -1);
	up = sample(&c, "ndr.upper", -1);
	assert_true(lo <= CAP && up > CAP && (up - lo) / up <= 0.005);
	assert_true(sample(&c, "ndr.conditional", -1) == lo);	/* no loss at lo */
	lo = sample(&c, "pdr.lower", -1);
	up = sample(&c, "pdr.upper", -1);
	assert_true(lo <= CAP / 0.995 && up > CAP / 0.995 && (up - lo) / up <= 0.005);
	assert_true(lo > CAP);					/* above NDR */
	/* by hand (as test_mlrsearch's step): bisection of [1, 2] Mpps down to
	 * 1.00390625 Mpps (loss 0.389 %: within PDR, not NDR) and 1.0078125 (0.775 %);
	 * PDR's conditional throughput is what 1.00390625 Mpps forwarded: 1 Mpps */
	assert_true(sample(&c, "ndr.lower", -1) == 1000000);
	assert_true(sample(&c, "ndr.upper", -1) == 1003906.25);
	assert_true(lo == 1003906.25 && up == 1007812.5);
	assert_near(sample(&c, "pdr.conditional", -1), 1000000, 1);
	assert_true(sample(&c, "search.trials", -1) == 15);
	assert_near(sample(&c, "search.time_s", -1), 5.625, 1e-9);
	/* the trials in order: the first at max_rate for 1/8 s, loss 50 % */
	assert_true(sample(&c, "trial.load_pps", 0) == 2e6);
	assert_true(sample(&c, "trial.duration_s", 0) == 0.125);
	assert_true(sample(&c, "trial.loss_ratio", 0) == 0.5);
	assert_true(sample(&c, "trial.offered_pps", 0) == 2e6);
	assert_true(sample(&c, "search.trials", -1) == m.trials);
	assert_false(isnan(sample(&c, "trial.load_pps", m.trials - 1)));
	assert_true(isnan(sample(&c, "trial.load_pps", m.trials)));
	assert_true(sample(&c, "search.time_s", -1) > 1);
	samples_release(&c.samples);
}

/* A generator of 800 kpps before the 1 Mpps device (by hand, as test_mlrsearch's
 * generator_bound): 2 Mpps for 1/8 s offers 800 kpps: invalid (trial.valid 0, its
 * offered and forwarded 800 kpps, no loss), run again at once twice by the job and
 * reported invalid, then all that once more (6 trials), the ceiling 792 kpps; 792 kpps
 * is clean in the 1/8 s phase, again in the 1/4 s, 1/2 s and 1 s phases (confirming the
 * coarse bound): both goals generator-bound at 792 kpps, no upper bounds,
 * search.ceiling_pps 792000; 10 trials, 7 x 0.125 + 0.25 + 0.5 + 1 = 2.625 s. */
static void test_search_generator_bound(void **state)
{
	struct model m = { .fail_at = -1, .gen = 800000 };
	struct job_opts opts;
	struct job_ctx c;
	int i;

	(void)state;
	ctx_init(&c, &opts);
	assert_int_equal(job_search_run(&c, step, &m), 0);
	assert_true(sample(&c, "trial.load_pps", 0) == 2e6);
	assert_true(sample(&c, "trial.offered_pps", 0) == 800000);
	assert_true(sample(&c, "trial.forwarded_pps", 0) == 800000);
	assert_true(sample(&c, "trial.loss_ratio", 0) == 0);
	assert_true(sample(&c, "trial.valid", 0) == 0);
	for (i = 1; i < 6; i++)
		assert_true(sample(&c, "trial.load_pps", i) == 2e6 &&
			    sample(&c, "trial.valid", i) == 0);
	for (i = 6; i < 10; i++) {
		assert_near(sample(&c, "trial.load_pps", i), 792000, 1e-6);
		assert_true(sample(&c, "trial.valid", i) == 1);
	}
	assert_near(sample(&c, "trial.duration_s", 9), 1, 1e-12);
	assert_true(isnan(sample(&c, "trial.load_pps", 10)));
	assert_near(sample(&c, "ndr.lower", -1), 792000, 1e-6);
	assert_near(sample(&c, "ndr.conditional", -1), 792000, 1e-6);
	assert_near(sample(&c, "pdr.lower", -1), 792000, 1e-6);
	assert_true(isnan(sample(&c, "ndr.upper", -1)) && isnan(sample(&c, "pdr.upper", -1)));
	assert_near(sample(&c, "search.ceiling_pps", -1), 792000, 1e-6);
	assert_true(sample(&c, "search.trials", -1) == 10);
	assert_near(sample(&c, "search.time_s", -1), 2.625, 1e-9);
	/* the job's generator-bound verdict (verdict.h) gets this */
	assert_string_equal(c.search_bound, "search: the generator could not offer the loads "
			    "above 792000 frames/s (trials more than 1% off their load, "
			    "6 times in a row): goal NDR has no upper bound below them");
	samples_release(&c.samples);
	/* the first 3 trials 10 % short, all of it lost in hold-ups: measured again
	 * without counting (trial.valid 0, up to SEARCH_HELD_RETRIES), no ceiling */
	ctx_init(&c, &opts);
	m = (struct model){ .fail_at = -1, .held = 3, .c = &c };
	assert_int_equal(job_search_run(&c, step, &m), 0);
	for (i = 0; i < 3; i++)
		assert_true(sample(&c, "trial.load_pps", i) == 2e6 &&
			    sample(&c, "trial.valid", i) == 0 &&
			    sample(&c, "trial.offered_pps", i) == 1.8e6);
	assert_true(sample(&c, "trial.valid", 3) == 1 && sample(&c, "trial.load_pps", 3) == 2e6);
	assert_true(isnan(sample(&c, "search.ceiling_pps", -1)));
	assert_string_equal(c.search_bound, "");
	assert_true(sample(&c, "search.trials", -1) == 18);
	assert_true(sample(&c, "ndr.lower", -1) == 1000000 && sample(&c, "ndr.upper", -1) == 1003906.25);
	samples_release(&c.samples);
	/* a first trial offered 1.05 times its load (a held-up generator's catch-up) is
	 * invalid too, and run again: valid, the search goes on as test_search_step's (15
	 * trials and this one); no ceiling is recorded, nor a verdict */
	ctx_init(&c, &opts);
	m = (struct model){ .fail_at = -1, .first = 1.05 };
	assert_int_equal(job_search_run(&c, step, &m), 0);
	assert_true(isnan(sample(&c, "search.ceiling_pps", -1)));
	assert_string_equal(c.search_bound, "");
	assert_true(sample(&c, "trial.valid", 0) == 0 && sample(&c, "trial.offered_pps", 0) == 2.1e6);
	assert_true(sample(&c, "trial.valid", 1) == 1 && sample(&c, "trial.load_pps", 1) == 2e6);
	assert_true(sample(&c, "search.trials", -1) == 16);
	assert_true(sample(&c, "ndr.lower", -1) == 1000000 && sample(&c, "ndr.upper", -1) == 1003906.25);
	samples_release(&c.samples);
	/* 1.5 % short in the first 1/8 s trial at 2 Mpps is within what a batch at each end
	 * makes of it: 2 x 1 ms of frames (2000) of 250000 = 1.6 %: valid, 15 trials */
	ctx_init(&c, &opts);
	m = (struct model){ .fail_at = -1, .first = 0.985 };
	assert_int_equal(job_search_run(&c, step, &m), 0);
	assert_true(sample(&c, "trial.valid", 0) == 1);
	assert_true(sample(&c, "search.trials", -1) == 15);
	samples_release(&c.samples);
}

/* A failed trial fails the job with no results; a trial that counted nothing too. */
static void test_search_failures(void **state)
{
	struct model m = { .fail_at = 3 };
	struct job_opts opts;
	struct job_ctx c;

	(void)state;
	ctx_init(&c, &opts);
	assert_int_equal(job_search_run(&c, step, &m), -EIO);
	assert_int_equal(m.trials, 4);
	assert_true(isnan(sample(&c, "ndr.lower", -1)));
	assert_false(isnan(sample(&c, "trial.load_pps", 2)));
	assert_true(isnan(sample(&c, "trial.load_pps", 3)));
	samples_release(&c.samples);
	ctx_init(&c, &opts);
	m = (struct model){ .fail_at = -1, .count_nothing = true };
	assert_int_equal(job_search_run(&c, step, &m), -EIO);
	assert_string_equal(c.err.msg, "search: a trial at 2000000 frames/s counted no frames");
	assert_false(c.err.input);	/* the host's, not the spec's */
	assert_int_equal(c.samples.n, 0);
	samples_release(&c.samples);
}

/* A spec with search but no generator (hand-written: plans refuse it) fails its first
 * trial. */
static void test_search_no_generator(void **state)
{
	struct mlrsearch_res res = { 0 };
	struct job_opts opts;
	struct job_ctx c;

	(void)state;
	ctx_init(&c, &opts);
	c.spec.traffic.generator = JOB_GEN_NONE;
	assert_int_equal(job_search_run(&c, job_search_trial, &c), -EINVAL);
	assert_string_equal(c.err.msg, "search: needs a generator (traffic.generator is none)");
	assert_true(c.err.input);	/* the spec asks what no job can do */
	assert_int_equal(job_search_trial(&c, 1000, 1, &res), -EINVAL);
	assert_int_equal(c.samples.n, 0);
	samples_release(&c.samples);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_search_params),
		cmocka_unit_test(test_search_step),
		cmocka_unit_test(test_search_generator_bound),
		cmocka_unit_test(test_search_failures),
		cmocka_unit_test(test_search_no_generator),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

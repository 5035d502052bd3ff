// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_mlrsearch.c - lib/analysis/mlrsearch.c: RFC 9971's load classification (Appendix
 * A) and conditional throughput (Appendix B) on hand-built trial sets, then the whole
 * search driven by model devices (a step loss curve, a noisy capacity, random loss below
 * and above the PDR goal, a device whose longer trials overturn a coarse bound), each
 * against the trial sequence and bounds worked out by hand in the comments; the budget,
 * max_rate and parameter refusals; and the plain RFC 2544 binary search it is compared
 * with (bench/ndr; method binary, lib/analysis/binsearch.c) on the same devices, by hand.
 * Prints nothing.
 *
 * Common search: NDR (loss 0, exceed 0.5) and PDR (loss 0.5 %, exceed 0.5), width
 * 0.5 %, trials 0.25 s then up to 1 s, so P = 2 phases before the final one: durations
 * 0.25, 0.5, 1 s with phase widths 2 %, 1 %, 0.5 %; min_rate 0.1, max_rate 2 Mpps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <string.h>

#include "analysis/mlrsearch.h"
#include "helpers.h"

#define MPPS 1e6

/* A model device. */
enum model { STEP, NOISY, RANDOM_LOSS, LONG_TRIALS_WORSE, BIG };

struct dut {
	enum model model;
	uint64_t rng;			/* seeded: the runs are repeatable */
};

static double urand(struct dut *d)
{
	d->rng = d->rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(d->rng >> 11) * (1.0 / 9007199254740992.0);
}

/* STEP: forwards up to 1.00 Mpps, loses all of the excess. NOISY: the same with a
 * capacity drawn from [0.99, 1.01] Mpps per trial. RANDOM_LOSS: loss ratio drawn from
 * [0.01 %, 0.4 %] at loads up to 1 Mpps, from [0.6 %, 1 %] plus the excess above.
 * LONG_TRIALS_WORSE: 1.00 Mpps in trials under 1 s (a ring absorbs the burst), 0.90 Mpps
 * in trials of 1 s. BIG: 5 Mpps, more than max_rate. */
static int measure(void *ctx, double load, double duration, struct mlrsearch_res *res)
{
	struct dut *d = ctx;
	double cap = MPPS, sent = load * duration, fwd, loss;

	if (d->model == NOISY)
		cap = MPPS * (1 + 0.01 * (2 * urand(d) - 1));
	if (d->model == LONG_TRIALS_WORSE && duration >= 1.0)
		cap = 0.9 * MPPS;
	if (d->model == BIG)
		cap = 5 * MPPS;
	fwd = fmin(load, cap) * duration;
	if (d->model == RANDOM_LOSS) {
		loss = load <= MPPS ? 0.0001 + 0.0039 * urand(d)
				    : 0.006 + 0.004 * urand(d) + (load - MPPS) / load;
		fwd = sent * (1 - fmin(loss, 1));
	}
	res->offered = load;
	res->forwarded = (uint64_t)llround(fwd);
	res->lost = (uint64_t)llround(sent) - res->forwarded;
	res->duration = duration;
	return 0;
}

static struct mlrsearch_params common_params(void)
{
	struct mlrsearch_params p = {
		.goals = { { "NDR", 0, 0.5 }, { "PDR", 0.005, 0.5 } },
		.n_goals = 2,
		.width = 0.005,
		.initial_duration = 0.25,
		.final_duration = 1,
		.budget = 60,
		.min_rate = 0.1 * MPPS,
		.max_rate = 2 * MPPS,
	};

	return p;
}

/* A finished search of MODEL with P; the caller destroys it. */
static struct mlrsearch *run(const struct mlrsearch_params *p, enum model model)
{
	struct dut d = { .model = model, .rng = 12345 };
	struct mlrsearch *s = mlrsearch_new(p, NULL);

	assert_non_null(s);
	assert_int_equal(mlrsearch_run(s, measure, &d), 0);
	assert_int_not_equal(mlrsearch_status(s), MLRSEARCH_RUNNING);
	return s;
}

/* The trials of S are LOADS (Mpps) at DURATIONS (s). */
static void assert_trials(const struct mlrsearch *s, const double *loads,
			  const double *durations, size_t n)
{
	size_t got;
	const struct mlrsearch_trial *t = mlrsearch_trials(s, &got);

	assert_int_equal(got, n);
	for (size_t i = 0; i < n; i++) {
		assert_near(t[i].load / MPPS, loads[i], 1e-9);
		assert_near(t[i].duration, durations[i], 1e-12);
	}
}

static struct mlrsearch_goal_result goal(const struct mlrsearch *s, size_t i)
{
	struct mlrsearch_goal_result r;

	assert_int_equal(mlrsearch_goal_result(s, i, &r), 0);
	return r;
}

static struct mlrsearch_trial tr(double duration, double loss_ratio)
{
	struct mlrsearch_trial t = { .load = MPPS, .duration = duration, .effective = duration,
				     .loss_ratio = loss_ratio };

	return t;
}

/* Appendix A by hand, final duration 1 s. With sum 1 and exceed 0.5: quantile =
 * max(full-length time, 1) * 0.5. */
static void test_mlrsearch_classify(void **state)
{
	struct mlrsearch_trial t[4] = { 0 };

	(void)state;
	/* no trial: effect_high 0 <= 0.5 (optimistic lower), 1 - 0 > 0.5 (pessimistic not) */
	assert_int_equal(mlrsearch_classify(t, 0, MPPS, 0, 0.5, 1, 1), MLRSEARCH_UNDECIDED);
	/* one full-length low-loss: 1 - 1 = 0 <= 0.5 and 0 <= 0.5 */
	t[0] = tr(1, 0);
	assert_int_equal(mlrsearch_classify(t, 1, MPPS, 0, 0.5, 1, 1), MLRSEARCH_LOWER);
	/* a loss ratio equal to the goal's is low-loss ("not higher") */
	t[0] = tr(1, 0.005);
	assert_int_equal(mlrsearch_classify(t, 1, MPPS, 0.005, 0.5, 1, 1), MLRSEARCH_LOWER);
	/* one full-length high-loss: effect_high 1 > 0.5 and 1 - 0 > 0.5 */
	t[0] = tr(1, 0.01);
	assert_int_equal(mlrsearch_classify(t, 1, MPPS, 0.005, 0.5, 1, 1), MLRSEARCH_UPPER);
	/* a load elsewhere does not count */
	assert_int_equal(mlrsearch_classify(t, 1, 2 * MPPS, 0.005, 0.5, 1, 1),
			 MLRSEARCH_UNDECIDED);
	/* short high-loss 0.25 s: effect_high 0.25 <= 0.5, pessimistic 1 > 0.5 */
	t[0] = tr(0.25, 0.01);
	assert_int_equal(mlrsearch_classify(t, 1, MPPS, 0, 0.5, 1, 1), MLRSEARCH_UNDECIDED);
	/* + short high-loss 0.5 s: 0.75 > 0.5: an upper bound from short trials alone */
	t[1] = tr(0.5, 0.01);
	assert_int_equal(mlrsearch_classify(t, 2, MPPS, 0, 0.5, 1, 1), MLRSEARCH_UPPER);
	/* + short low-loss 0.5 s balances 0.5 * 0.5 / (1 - 0.5) = 0.5 of them: 0.25 again */
	t[2] = tr(0.5, 0);
	assert_int_equal(mlrsearch_classify(t, 3, MPPS, 0, 0.5, 1, 1), MLRSEARCH_UNDECIDED);
	/* short low-loss trials alone never make a lower bound: 1 - 0 > 0.5 */
	assert_int_equal(mlrsearch_classify(&t[2], 1, MPPS, 0, 0.5, 1, 1),
			 MLRSEARCH_UNDECIDED);
	/* sum 2 (two full-length trials wanted), exceed 0.5: quantile 1. One high-loss:
	 * 1 <= 1 optimistic, 2 - 0 > 1 pessimistic: undecided; a second: 2 > 1: upper */
	t[0] = tr(1, 0.01);
	t[1] = tr(1, 0.01);
	assert_int_equal(mlrsearch_classify(t, 1, MPPS, 0, 0.5, 1, 2), MLRSEARCH_UNDECIDED);
	assert_int_equal(mlrsearch_classify(t, 2, MPPS, 0, 0.5, 1, 2), MLRSEARCH_UPPER);
	/* one low-loss is enough there: 2 - 1 = 1 <= 1 */
	t[0] = tr(1, 0);
	assert_int_equal(mlrsearch_classify(t, 1, MPPS, 0, 0.5, 1, 2), MLRSEARCH_LOWER);
	/* exceed 0 (RFC 2544 style), sum 2: one low-loss leaves 2 - 1 = 1 > 0: undecided */
	assert_int_equal(mlrsearch_classify(t, 1, MPPS, 0, 0, 1, 2), MLRSEARCH_UNDECIDED);
}

/* Appendix B by hand at 1 Mpps: full-length trials of loss 0.1 % and 0.3 %, 1 s each. */
static void test_mlrsearch_conditional(void **state)
{
	struct mlrsearch_trial t[3] = { tr(1, 0.003), tr(1, 0.001), tr(0.5, 0.02) };

	(void)state;
	/* sum 2, exceed 0.5: remaining 2 * 0.5 = 1; the lower-loss trial uses it up:
	 * 1e6 * (1 - 0.001); the short trial does not count */
	assert_near(mlrsearch_conditional(t, 3, MPPS, 0.005, 0.5, 1, 2), 999000, 1e-6);
	/* exceed 0: remaining 2, both trials: 1e6 * (1 - 0.003) */
	assert_near(mlrsearch_conditional(t, 3, MPPS, 0.005, 0, 1, 2), 997000, 1e-6);
	/* sum 3, exceed 0: 1 s left after both: quantile loss 1, throughput 0 */
	assert_near(mlrsearch_conditional(t, 3, MPPS, 0.005, 0, 1, 3), 0, 1e-6);
	/* no full-length trial at the load */
	assert_near(mlrsearch_conditional(&t[2], 1, MPPS, 0.005, 0.5, 1, 1), 0, 1e-6);
}

/* The step curve, worked by hand (loads in Mpps; loss = excess / load):
 * phase 0 (0.25 s, width 2 %): no bound: max_rate 2 (loss 50 %, upper for both goals);
 *   no lower bound: first step down min(2 (1 - 2 %), forwarding rate 2 (1 - 0.5) = 1)
 *   = 1 (no loss: lower for both); bisect [1, 2]: 1.5, 1.25, 1.125, 1.0625, 1.03125,
 *   1.015625 (all lossy, > 0.5 % too) until (1.015625 - 1) / 1.015625 = 1.54 % <= 2 %.
 * phase 1 (0.5 s, 1 %): the 0.25 s trials leave every load undecided (one short trial of
 *   0.25 s: 0.25 <= 0.5 * 0.5); the previous bounds again, lower first: 1 (lower),
 *   1.015625 (upper); 1.54 % > 1 %: 1.0078125 (loss 0.78 %, upper for both): 0.78 %.
 * phase 2 (1 s, 0.5 %): 1 (lower), 1.0078125 (upper), 0.78 % > 0.5 %: 1.00390625, loss
 *   0.39 %: upper for NDR, lower for PDR (<= 0.5 %). Both goals within 0.39 %.
 * NDR [1, 1.00390625], PDR [1.00390625, 1.0078125]; PDR's conditional throughput
 * 1.00390625 (1 - 0.00389105) = 1.0000 (its trial forwarded 1 Mpps).
 * Time: 8 x 0.25 + 3 x 0.5 + 3 x 1 = 6.5 s. */
static void test_mlrsearch_step(void **state)
{
	const double loads[] = { 2, 1, 1.5, 1.25, 1.125, 1.0625, 1.03125, 1.015625,
				 1, 1.015625, 1.0078125, 1, 1.0078125, 1.00390625 };
	const double durs[] = { 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25,
				0.5, 0.5, 0.5, 1, 1, 1 };
	struct mlrsearch_params p = common_params();
	struct mlrsearch *s = run(&p, STEP);
	struct mlrsearch_goal_result ndr = goal(s, 0), pdr = goal(s, 1);

	(void)state;
	assert_trials(s, loads, durs, ARRAY_LEN(loads));
	assert_int_equal(mlrsearch_status(s), MLRSEARCH_REGULAR);
	assert_int_equal(ndr.status, MLRSEARCH_REGULAR);
	assert_int_equal(pdr.status, MLRSEARCH_REGULAR);
	assert_near(ndr.lower, 1 * MPPS, 1e-6);
	assert_near(ndr.upper, 1.00390625 * MPPS, 1e-6);
	assert_near(ndr.conditional, 1 * MPPS, 1e-6);
	assert_near(pdr.lower, 1.00390625 * MPPS, 1e-6);
	assert_near(pdr.upper, 1.0078125 * MPPS, 1e-6);
	assert_near(pdr.conditional, 1 * MPPS, 1);
	assert_true(ndr.width <= p.width && pdr.width <= p.width);
	assert_true(ndr.lower <= pdr.lower);
	assert_near(mlrsearch_time(s), 6.5, 1e-9);
	mlrsearch_destroy(&s);
	mlrsearch_destroy(&s);
}

/* Noisy capacity c in [0.99, 1.01] Mpps per trial. Every load <= 0.99 forwards all, so
 * no upper bound lies there: upper > 0.99; every load > 1.01 loses more than 0.5 %
 * (excess over 1.01: with width 0.5 % a PDR upper bound is at most 1.01 / 0.995), so
 * lower <= 1.01 / 0.995 = 1.01508; and width <= 0.5 %: lower >= 0.99 (1 - 0.005) =
 * 0.98505. The seeded draws give 13 trials, 8 x 0.25 + 3 x 0.5 + 2 x 1 = 5.5 s. */
static void test_mlrsearch_noisy(void **state)
{
	struct mlrsearch_params p = common_params();
	struct mlrsearch *s = run(&p, NOISY);
	struct mlrsearch_goal_result ndr = goal(s, 0), pdr = goal(s, 1);

	(void)state;
	assert_int_equal(ndr.status, MLRSEARCH_REGULAR);
	assert_int_equal(pdr.status, MLRSEARCH_REGULAR);
	assert_true(ndr.lower >= 0.98505 * MPPS && ndr.lower <= 1.01 * MPPS);
	assert_true(pdr.lower >= 0.98505 * MPPS && pdr.lower <= 1.01508 * MPPS);
	assert_true(ndr.upper > 0.99 * MPPS && pdr.upper > 0.99 * MPPS);
	assert_true(ndr.width <= p.width && pdr.width <= p.width);
	assert_true(ndr.lower <= pdr.lower);
	assert_true(ndr.conditional <= ndr.lower && pdr.conditional <= pdr.lower);
	assert_near(mlrsearch_time(s), 5.5, 1e-9);
	mlrsearch_destroy(&s);
}

/* Random loss: every trial loses at least 0.01 %, so no load is an NDR lower bound: the
 * NDR goal steps down from its upper bounds with doubling widths (2 %, 4 %, ... of the
 * phase) to min_rate, which fails: "min_rate fails". For PDR every load <= 1 Mpps loses
 * at most 0.4 % (lower), every load above at least 0.6 % (upper): 1 < upper, lower <=
 * 1, and within 0.5 %: lower > 0.995. The conditional throughput is at most lower. */
static void test_mlrsearch_random_loss(void **state)
{
	struct mlrsearch_params p = common_params();
	struct mlrsearch *s = run(&p, RANDOM_LOSS);
	struct mlrsearch_goal_result ndr = goal(s, 0), pdr = goal(s, 1);
	size_t n;
	const struct mlrsearch_trial *t = mlrsearch_trials(s, &n);

	(void)state;
	assert_int_equal(ndr.status, MLRSEARCH_MIN_FAILS);
	assert_false(ndr.has_lower);
	assert_near(ndr.upper, p.min_rate, 1e-6);
	assert_text(mlrsearch_status_str(ndr.status), "min_rate fails");
	/* the outward steps: after the first (to the forwarding rate seen at 2 Mpps, 0.987)
	 * each load is 4 %, 8 %, 16 %, ... (the phase width 2 % doubled per step) under the
	 * one before, until min_rate */
	for (size_t i = 2; i < 8; i++) {
		assert_true(t[i].load < t[i - 1].load);
		assert_near(t[i].load, fmax(p.min_rate, t[i - 1].load *
					    (1 - 0.02 * (1 << (i - 1)))), 1e-6);
	}
	assert_int_equal(pdr.status, MLRSEARCH_REGULAR);
	assert_true(pdr.lower > 0.995 * MPPS && pdr.lower <= 1 * MPPS);
	assert_true(pdr.upper > 1 * MPPS);
	assert_true(pdr.width <= p.width);
	assert_true(pdr.conditional <= pdr.lower && pdr.conditional >= 0.996 * pdr.lower);
	mlrsearch_destroy(&s);
}

/* Longer trials overturn a bound: 1.00 Mpps under 1 s, 0.90 Mpps at 1 s. Phases 0 and
 * 1 run as on the step curve (11 trials, 1 Mpps a lower bound at 0.5 s). In phase 2
 * the previous lower bound 1 is measured first, at 1 s: loss 10 %, an upper bound now:
 * no lower bound is left, so the search goes outward: min(1 (1 - 0.5 %), forwarding
 * rate 0.9) = 0.9 (lower), then bisects [0.9, 1]: 0.95, 0.925, 0.9125, 0.90625 (loss
 * 0.69 %), 0.903125 (0.35 %: upper for NDR, lower for PDR); widths 0.35 %.
 * Time: 8 x 0.25 + 3 x 0.5 + 7 x 1 = 10.5 s. */
static void test_mlrsearch_overturn(void **state)
{
	const double loads[] = { 2, 1, 1.5, 1.25, 1.125, 1.0625, 1.03125, 1.015625,
				 1, 1.015625, 1.0078125,
				 1, 0.9, 0.95, 0.925, 0.9125, 0.90625, 0.903125 };
	const double durs[] = { 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25,
				0.5, 0.5, 0.5, 1, 1, 1, 1, 1, 1, 1 };
	struct mlrsearch_params p = common_params();
	struct mlrsearch *s = run(&p, LONG_TRIALS_WORSE);
	struct mlrsearch_goal_result ndr = goal(s, 0), pdr = goal(s, 1);
	size_t n;
	const struct mlrsearch_trial *t = mlrsearch_trials(s, &n);

	(void)state;
	assert_trials(s, loads, durs, ARRAY_LEN(loads));
	/* 1 Mpps: a lower bound of phase 1 (0.5 s as final duration and sum) from the first
	 * 11 trials, an upper bound of the final phase from all of them */
	assert_int_equal(mlrsearch_classify(t, 11, MPPS, 0, 0.5, 0.5, 0.5), MLRSEARCH_LOWER);
	assert_int_equal(mlrsearch_classify(t, n, MPPS, 0, 0.5, 1, 1), MLRSEARCH_UPPER);
	assert_int_equal(ndr.status, MLRSEARCH_REGULAR);
	assert_near(ndr.lower, 0.9 * MPPS, 1e-6);
	assert_near(ndr.upper, 0.903125 * MPPS, 1e-6);
	assert_near(pdr.lower, 0.903125 * MPPS, 1e-6);
	assert_near(pdr.upper, 0.90625 * MPPS, 1e-6);
	assert_near(pdr.conditional, 0.9 * MPPS, 1);
	assert_near(mlrsearch_time(s), 10.5, 1e-9);
	mlrsearch_destroy(&s);
}

/* A budget of 3 s: the step curve's first 8 trials (2 s) and 2 of phase 1 (1 s); the
 * next 0.5 s trial would pass 3 s. No goal is regular: "budget spent". */
static void test_mlrsearch_budget(void **state)
{
	struct mlrsearch_params p = common_params();
	struct mlrsearch *s;
	struct mlrsearch_goal_result ndr;
	struct mlrsearch_req req;

	(void)state;
	p.budget = 3;
	s = run(&p, STEP);
	ndr = goal(s, 0);
	assert_int_equal(mlrsearch_status(s), MLRSEARCH_BUDGET);
	assert_int_equal(ndr.status, MLRSEARCH_BUDGET);
	assert_near(mlrsearch_time(s), 3, 1e-9);
	assert_true(ndr.has_upper);
	assert_near(ndr.upper, 1.015625 * MPPS, 1e-6);
	assert_int_equal(mlrsearch_next(s, &req), 0);
	assert_text(mlrsearch_status_str(MLRSEARCH_BUDGET), "budget spent");
	mlrsearch_destroy(&s);
}

/* A device faster than max_rate: 2 Mpps without loss at 0.25, 0.5 and 1 s (each phase
 * re-measures the previous lower bound), then nothing is left to try: "max_rate has no
 * loss", max_rate reported as the (irregular) lower bound. 1.75 s. */
static void test_mlrsearch_max_clean(void **state)
{
	const double loads[] = { 2, 2, 2 }, durs[] = { 0.25, 0.5, 1 };
	struct mlrsearch_params p = common_params();
	struct mlrsearch *s = run(&p, BIG);
	struct mlrsearch_goal_result pdr = goal(s, 1);

	(void)state;
	assert_trials(s, loads, durs, ARRAY_LEN(loads));
	assert_int_equal(pdr.status, MLRSEARCH_MAX_CLEAN);
	assert_false(pdr.has_upper);
	assert_near(pdr.lower, 2 * MPPS, 1e-6);
	assert_near(pdr.conditional, 2 * MPPS, 1e-6);
	assert_near(mlrsearch_time(s), 1.75, 1e-9);
	mlrsearch_destroy(&s);
}

/* The next/report protocol. */
static void test_mlrsearch_protocol(void **state)
{
	struct mlrsearch_params p = common_params();
	struct mlrsearch *s = mlrsearch_new(&p, NULL);
	struct mlrsearch_req a, b;
	struct mlrsearch_res none = { .duration = 0.25 }, ok = { .forwarded = 100 };
	size_t n;

	(void)state;
	assert_non_null(s);
	assert_int_equal(mlrsearch_report(s, &ok), -EALREADY);
	assert_int_equal(mlrsearch_next(s, &a), 1);
	assert_int_equal(mlrsearch_next(s, &b), 1);
	assert_near(a.load, b.load, 0);
	assert_near(a.load, p.max_rate, 0);
	assert_near(a.duration, 0.25, 0);
	assert_int_equal(mlrsearch_report(s, &none), -EINVAL);
	assert_int_equal(mlrsearch_report(s, &ok), 0);
	mlrsearch_trials(s, &n);
	assert_int_equal(n, 1);
	/* no duration reported: the requested one is the effective duration */
	assert_near(mlrsearch_time(s), 0.25, 1e-12);
	assert_int_equal(mlrsearch_report(s, &ok), -EALREADY);
	assert_int_equal(mlrsearch_goal_result(s, 2, &(struct mlrsearch_goal_result){ 0 }),
			 -EINVAL);
	mlrsearch_destroy(&s);
	assert_null(s);
	mlrsearch_destroy(NULL);
}

/* A generator that reaches only GEN pps in front of a device that forwards up to CAP
 * (loses the excess). A trial offered more than 1 % short of its load is invalid (the
 * agent's check, agent/job_search.c): reported with mlrsearch_report_invalid. NDR only,
 * one phase of 1 s trials, min_rate 0.1, max_rate 2 Mpps. Returns the invalid trials. */
static size_t run_gen(struct mlrsearch **out, double cap, double gen, bool flaky_first)
{
	struct mlrsearch_params p = common_params();
	struct mlrsearch_req req;
	size_t invalid = 0;

	p.n_goals = 1;
	p.initial_duration = 1;
	*out = mlrsearch_new(&p, NULL);
	assert_non_null(*out);
	while (mlrsearch_next(*out, &req) == 1) {
		double offered = fmin(req.load, gen) * (flaky_first && !invalid ? 0.5 : 1);
		struct mlrsearch_res res = {
			.offered = offered, .duration = req.duration,
			.forwarded = (uint64_t)llround(fmin(offered, cap) * req.duration),
		};

		res.lost = (uint64_t)llround(offered * req.duration) - res.forwarded;
		if (offered < req.load * 0.99) {
			invalid++;
			assert_int_equal(mlrsearch_report_invalid(*out, &res), 0);
		} else {
			assert_int_equal(mlrsearch_report(*out, &res), 0);
		}
	}
	return invalid;
}

/* The plain veth pair: nothing is lost, the generator reaches 1.5 Mpps. By hand:
 * 2 Mpps offered 1.5: invalid, run again: invalid again, the ceiling drops to 1.5 x 0.99
 * = 1.485 Mpps; 1.485 is clean: a lower bound at the ceiling, no upper bound:
 * generator-bound at 1.485 Mpps, 1 valid trial of 3, 3 s. With a device of 1.2 Mpps
 * behind it the ceiling is an upper bound: 1.485 loses 19.2 %, the next load is what it
 * forwarded (1.2: clean), then bisection: 1.3425, 1.27125, 1.235625, 1.2178125,
 * 1.20890625, 1.204453125 all lose; (1.204453125 - 1.2) / 1.204453125 = 0.37 % <= 0.5 %:
 * regular, 8 valid trials of 10. The same with a generator whose first trial falls
 * short once (a busy host): 2 Mpps run again is valid, the ceiling stays max_rate, and
 * the search is the step's of 1.2 Mpps: regular. A generator of 50 kpps: the ceiling
 * 49.5 kpps is below min_rate: the search ends after its second trial, generator-bound
 * without bounds. */
static void test_mlrsearch_generator_bound(void **state)
{
	struct mlrsearch_goal_result r;
	struct mlrsearch *s;
	size_t n, n_invalid;

	(void)state;
	assert_int_equal(run_gen(&s, 10 * MPPS, 1.5 * MPPS, false), 2);
	assert_int_equal(mlrsearch_goal_result(s, 0, &r), 0);
	assert_int_equal(r.status, MLRSEARCH_GENERATOR_BOUND);
	assert_string_equal(mlrsearch_status_str(r.status), "generator-bound");
	assert_true(r.has_lower && !r.has_upper);
	assert_near(r.lower, 1.485 * MPPS, 1e-6);
	assert_near(r.conditional, 1.485 * MPPS, 1e-6);
	assert_near(mlrsearch_ceiling(s, &n_invalid), 1.485 * MPPS, 1e-6);
	assert_int_equal(n_invalid, 2);
	mlrsearch_trials(s, &n);
	assert_int_equal(n, 1);
	assert_near(mlrsearch_time(s), 3, 1e-12);
	assert_int_equal(mlrsearch_status(s), MLRSEARCH_REGULAR);
	mlrsearch_destroy(&s);

	assert_int_equal(run_gen(&s, 1.2 * MPPS, 1.5 * MPPS, false), 2);
	assert_int_equal(mlrsearch_goal_result(s, 0, &r), 0);
	assert_int_equal(r.status, MLRSEARCH_REGULAR);
	assert_near(r.lower, 1.2 * MPPS, 1);
	assert_near(r.upper, 1.204453125 * MPPS, 1);
	mlrsearch_trials(s, &n);
	assert_int_equal(n, 8);
	assert_near(mlrsearch_time(s), 10, 1e-12);
	mlrsearch_destroy(&s);

	assert_int_equal(run_gen(&s, 1.2 * MPPS, 10 * MPPS, true), 1);
	assert_int_equal(mlrsearch_goal_result(s, 0, &r), 0);
	assert_int_equal(r.status, MLRSEARCH_REGULAR);
	assert_near(mlrsearch_ceiling(s, &n_invalid), 2 * MPPS, 0);
	assert_int_equal(n_invalid, 1);
	assert_true(r.lower <= 1.2 * MPPS && r.upper > 1.2 * MPPS);
	mlrsearch_destroy(&s);

	assert_int_equal(run_gen(&s, 10 * MPPS, 0.05 * MPPS, false), 2);
	assert_int_equal(mlrsearch_goal_result(s, 0, &r), 0);
	assert_int_equal(r.status, MLRSEARCH_GENERATOR_BOUND);
	assert_true(!r.has_lower && !r.has_upper);
	assert_near(mlrsearch_ceiling(s, NULL), 49500, 1e-6);
	mlrsearch_trials(s, &n);
	assert_int_equal(n, 0);
	/* no trial pending now; a bad offered rate is refused */
	assert_int_equal(mlrsearch_report_invalid(s, &(struct mlrsearch_res){ 0 }), -EALREADY);
	mlrsearch_destroy(&s);
	s = mlrsearch_new(&(struct mlrsearch_params){ .goals = { { "NDR", 0, 0.5 } },
		.n_goals = 1, .width = 0.01, .final_duration = 1, .min_rate = 1,
		.max_rate = 2 }, NULL);
	assert_int_equal(mlrsearch_next(s, &(struct mlrsearch_req){ 0 }), 1);
	assert_int_equal(mlrsearch_report_invalid(s, &(struct mlrsearch_res){ .offered = NAN }),
			 -EINVAL);
	mlrsearch_destroy(&s);
}

/* Parameters outside their ranges are refused with the field named. */
static void test_mlrsearch_params(void **state)
{
	struct mlrsearch_params p;
	struct err err;

	(void)state;
	p = common_params();
	p.width = 0;
	errno = 0;
	assert_null(mlrsearch_new(&p, &err));
	assert_int_equal(errno, EINVAL);
	assert_text(err.msg, "width 0 outside (0, 1)");
	p = common_params();
	p.goals[1].loss_ratio = 1;
	assert_null(mlrsearch_new(&p, &err));
	assert_text(err.msg, "goal 'PDR': loss 1 outside [0, 1)");
	p = common_params();
	p.budget = 0.5;
	assert_null(mlrsearch_new(&p, &err));
	assert_text(err.msg, "total 0.5 shorter than the trial duration 1");
	p = common_params();
	p.min_rate = p.max_rate;
	assert_null(mlrsearch_new(&p, &err));
	assert_contains(err.msg, "0 < min_rate < max_rate needed");
	p = common_params();
	p.initial_duration = 2;
	assert_null(mlrsearch_new(&p, &err));
	assert_text(err.msg, "initial trial duration 2 outside (0, 1]");
	p = common_params();
	p.n_goals = 0;
	assert_null(mlrsearch_new(&p, NULL));
}

/* Goal I of S ended ST with bounds LOWER and UPPER (Mpps; -1: none). */
static void assert_goal(const struct mlrsearch *s, size_t i, enum mlrsearch_status st,
			double lower, double upper)
{
	struct mlrsearch_goal_result r = goal(s, i);

	assert_int_equal(r.status, st);
	assert_int_equal(r.has_lower, lower >= 0);
	assert_int_equal(r.has_upper, upper >= 0);
	assert_near(r.lower, lower >= 0 ? lower * MPPS : 0, 1e-6);
	assert_near(r.upper, upper >= 0 ? upper * MPPS : 0, 1e-6);
}

/* The plain RFC 2544 binary search (method binary, lib/analysis/binsearch.c) on the step
 * curve, by hand (Mpps; every trial 1 s): NDR: 2 fails; [0.1, 2]: 1.05 fails, 0.575,
 * 0.8125, 0.93125, 0.990625 pass, 1.0203125, 1.00546875 fail, 0.998046875 passes,
 * (1.00546875 - 0.998046875) / 1.00546875 = 0.74 % > 0.5 %: 1.0017578125 fails:
 * 0.37 % <= 0.5 %: 10 trials. PDR, searched again from the start: the same first 9 loads
 * and verdicts (1.00546875 loses 0.54 %, fails), then 1.0017578125 loses 0.18 %: passes;
 * [1.0017578125, 1.00546875], 0.37 %: 10 trials. PDR's conditional throughput: 1.0017578125
 * (1 - 0.0017578125 / 1.0017578125) = 1 Mpps. 20 x 1 s = 20 s against MLRsearch's 6.5 s
 * (test_mlrsearch_step): at most half. */
static void test_binary_step(void **state)
{
	static const double loads[] = {
		2, 1.05, 0.575, 0.8125, 0.93125, 0.990625, 1.0203125, 1.00546875, 0.998046875,
		1.0017578125,
		2, 1.05, 0.575, 0.8125, 0.93125, 0.990625, 1.0203125, 1.00546875, 0.998046875,
		1.0017578125,
	};
	double durations[20];
	struct mlrsearch_params p = common_params();
	struct mlrsearch *b, *s = run(&p, STEP);
	struct mlrsearch_goal_result r;

	(void)state;
	for (size_t i = 0; i < 20; i++)
		durations[i] = 1;
	p.method = MLRSEARCH_METHOD_BINARY;
	b = run(&p, STEP);
	assert_trials(b, loads, durations, 20);
	assert_int_equal(mlrsearch_status(b), MLRSEARCH_REGULAR);
	assert_near(mlrsearch_time(b), 20, 1e-9);
	r = goal(b, 0);
	assert_int_equal(r.status, MLRSEARCH_REGULAR);
	assert_near(r.lower, 0.998046875 * MPPS, 1e-6);
	assert_near(r.upper, 1.0017578125 * MPPS, 1e-6);
	assert_near(r.conditional, 0.998046875 * MPPS, 1e-6);
	assert_near(r.width, (1.0017578125 - 0.998046875) / 1.0017578125, 1e-12);
	r = goal(b, 1);
	assert_int_equal(r.status, MLRSEARCH_REGULAR);
	assert_near(r.lower, 1.0017578125 * MPPS, 1e-6);
	assert_near(r.upper, 1.00546875 * MPPS, 1e-6);
	assert_near(r.conditional, MPPS, 1);	/* whole frames: 1758 of 1001758 lost */
	assert_true(mlrsearch_time(s) <= mlrsearch_time(b) / 2);
	mlrsearch_destroy(&b);
	mlrsearch_destroy(&s);
}

/* Random loss (RANDOM_LOSS: 0.01 to 0.4 % up to 1 Mpps, 0.6 % and more above): every
 * trial fails NDR (loss 0), whatever the draws: 2, then hi = 0.1 + 1.9 / 2^k for k = 1..12
 * ((hi - 0.1) / hi first <= 0.5 % at 1.9 / 4096), then min_rate 0.1 itself, which fails
 * too: 14 trials, no lower bound, upper 0.1 (min_rate fails). PDR's verdicts are the
 * step's at 1 Mpps: the step's NDR sequence, its conditional throughput the lower bound
 * less the loss drawn there (0.01 to 0.4 %). MLRsearch on the same device: test_mlrsearch_
 * random_loss. */
static void test_binary_random_loss(void **state)
{
	double loads[24], durations[24];
	struct mlrsearch_params p = common_params();
	struct mlrsearch_goal_result r;
	struct mlrsearch *b;
	size_t k;

	(void)state;
	loads[0] = 2;
	for (k = 1; k <= 12; k++)
		loads[k] = 0.1 + 1.9 / ldexp(1, (int)k);
	loads[13] = 0.1;
	memcpy(&loads[14], (const double[]){ 2, 1.05, 0.575, 0.8125, 0.93125, 0.990625,
					     1.0203125, 1.00546875, 0.998046875, 1.0017578125 },
	       10 * sizeof(double));
	for (k = 0; k < 24; k++)
		durations[k] = 1;
	p.method = MLRSEARCH_METHOD_BINARY;
	b = run(&p, RANDOM_LOSS);
	assert_trials(b, loads, durations, 24);
	r = goal(b, 0);
	assert_int_equal(r.status, MLRSEARCH_MIN_FAILS);
	assert_false(r.has_lower);
	assert_true(r.has_upper);
	assert_near(r.upper, 0.1 * MPPS, 1e-6);
	assert_near(r.conditional, 0, 0);
	r = goal(b, 1);
	assert_int_equal(r.status, MLRSEARCH_REGULAR);
	assert_near(r.lower, 0.998046875 * MPPS, 1e-6);
	assert_near(r.upper, 1.0017578125 * MPPS, 1e-6);
	assert_true(r.conditional >= 0.998046875 * MPPS * (1 - 0.004) - 1 &&
		    r.conditional <= 0.998046875 * MPPS * (1 - 0.0001) + 1);
	mlrsearch_destroy(&b);
}

/* Edges by hand: a device above max_rate (BIG) passes max_rate 2 for each goal: 2 trials,
 * lower 2 Mpps, no upper. A budget of 3 s stops the step search after 3 trials (2, 1.05,
 * 0.575), NDR's bounds so far [0.575, 1.05]. And the next/report protocol. */
static void test_binary_edges(void **state)
{
	static const double big_loads[] = { 2, 2 }, big_durations[] = { 1, 1 };
	struct mlrsearch_params p = common_params();
	struct mlrsearch_res res = { .forwarded = 1, .duration = 1 };
	struct mlrsearch_req req, again;
	struct mlrsearch_goal_result r;
	struct mlrsearch *b;

	(void)state;
	p.method = MLRSEARCH_METHOD_BINARY;
	b = run(&p, BIG);
	assert_trials(b, big_loads, big_durations, 2);
	r = goal(b, 1);
	assert_int_equal(r.status, MLRSEARCH_MAX_CLEAN);
	assert_true(r.has_lower && !r.has_upper);
	assert_near(r.lower, 2 * MPPS, 1e-6);
	assert_near(r.conditional, 2 * MPPS, 1e-6);
	mlrsearch_destroy(&b);

	p.budget = 3;
	b = run(&p, STEP);
	assert_int_equal(mlrsearch_status(b), MLRSEARCH_BUDGET);
	assert_goal(b, 0, MLRSEARCH_BUDGET, 0.575, 1.05);
	assert_near(mlrsearch_time(b), 3, 1e-9);
	mlrsearch_destroy(&b);

	p.budget = 0;
	b = mlrsearch_new(&p, NULL);
	assert_non_null(b);
	assert_int_equal(mlrsearch_report(b, &res), -EALREADY);
	assert_int_equal(mlrsearch_next(b, &req), 1);
	assert_int_equal(mlrsearch_next(b, &again), 1);
	assert_near(again.load, req.load, 0);
	assert_near(req.load, 2 * MPPS, 0);
	assert_int_equal(mlrsearch_status(b), MLRSEARCH_RUNNING);
	res.forwarded = 0;
	assert_int_equal(mlrsearch_report(b, &res), -EINVAL);
	assert_int_equal(mlrsearch_goal_result(b, 2, &r), -EINVAL);
	mlrsearch_destroy(&b);
	p.method = (enum mlrsearch_method)7;
	assert_null(mlrsearch_new(&p, NULL));
}

/* The binary search where the generator falls short (mlrsearch_report_invalid, as the
 * agent reports it): the first trial at max_rate 2 Mpps offers 1.5, its retry 1.4: the
 * ceiling is 1.5 (1 - 1 %) = 1.485 Mpps. A device of 5 Mpps passes 1.485 for each goal:
 * 2 invalid and 2 valid trials, each goal generator-bound with lower 1.485 and no upper.
 * Then a midpoint above the ceiling, tried at the ceiling. */
static void test_binary_generator_bound(void **state)
{
	struct mlrsearch_params p = common_params();
	struct dut d = { .model = BIG };
	struct mlrsearch_res res = { .duration = 1 };
	struct mlrsearch_req req;
	struct mlrsearch *b;

	(void)state;
	p.method = MLRSEARCH_METHOD_BINARY;
	b = mlrsearch_new(&p, NULL);
	assert_non_null(b);
	assert_int_equal(mlrsearch_next(b, &req), 1);
	assert_near(req.load, 2 * MPPS, 0);
	res.offered = 1.5 * MPPS;
	assert_int_equal(mlrsearch_report_invalid(b, &res), 0);
	assert_int_equal(mlrsearch_next(b, &req), 1);
	assert_near(req.load, 2 * MPPS, 0);
	res.offered = 1.4 * MPPS;
	assert_int_equal(mlrsearch_report_invalid(b, &res), 0);
	assert_near(mlrsearch_ceiling(b, NULL), 1.485 * MPPS, 1e-6);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(mlrsearch_next(b, &req), 1);
		assert_near(req.load, 1.485 * MPPS, 1e-6);
		assert_int_equal(measure(&d, req.load, req.duration, &res), 0);
		assert_int_equal(mlrsearch_report(b, &res), 0);
	}
	assert_int_equal(mlrsearch_next(b, &req), 0);
	for (size_t i = 0; i < 2; i++)
		assert_goal(b, i, MLRSEARCH_GENERATOR_BOUND, 1.485, -1);
	assert_near(mlrsearch_time(b), 4, 1e-9);
	mlrsearch_destroy(&b);

	/* NDR on the step: 2 fails; the midpoint 1.05 offers 0.9 twice: ceiling 0.891; the
	 * midpoint 1.05 again is above it, so 0.891 is tried: passes; lo reached the ceiling:
	 * done, generator-bound, lower 0.891, upper 2 */
	p.n_goals = 1;
	b = mlrsearch_new(&p, NULL);
	assert_non_null(b);
	d.model = STEP;
	assert_int_equal(mlrsearch_next(b, &req), 1);
	assert_int_equal(measure(&d, req.load, req.duration, &res), 0);
	assert_int_equal(mlrsearch_report(b, &res), 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(mlrsearch_next(b, &req), 1);
		assert_near(req.load, 1.05 * MPPS, 1e-6);
		res.offered = 0.9 * MPPS;
		assert_int_equal(mlrsearch_report_invalid(b, &res), 0);
	}
	assert_int_equal(mlrsearch_next(b, &req), 1);
	assert_near(req.load, 0.891 * MPPS, 1e-6);
	assert_int_equal(measure(&d, req.load, req.duration, &res), 0);
	assert_int_equal(mlrsearch_report(b, &res), 0);
	assert_int_equal(mlrsearch_next(b, &req), 0);
	assert_goal(b, 0, MLRSEARCH_GENERATOR_BOUND, 0.891, 2);
	mlrsearch_destroy(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mlrsearch_classify),
		cmocka_unit_test(test_mlrsearch_conditional),
		cmocka_unit_test(test_mlrsearch_step),
		cmocka_unit_test(test_mlrsearch_noisy),
		cmocka_unit_test(test_mlrsearch_random_loss),
		cmocka_unit_test(test_mlrsearch_overturn),
		cmocka_unit_test(test_mlrsearch_budget),
		cmocka_unit_test(test_mlrsearch_max_clean),
		cmocka_unit_test(test_mlrsearch_protocol),
		cmocka_unit_test(test_mlrsearch_generator_bound),
		cmocka_unit_test(test_mlrsearch_params),
		cmocka_unit_test(test_binary_step),
		cmocka_unit_test(test_binary_random_loss),
		cmocka_unit_test(test_binary_edges),
		cmocka_unit_test(test_binary_generator_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_compare.c - lib/analysis/compare.c: the verdicts on fixed data (a clear shift, noise, a
 * significant but negligible 0.3 %, too few noisy values), the choice of test, the
 * repetition estimate worked out by hand, better/worse by direction, constant samples
 * and how the texts print their p ("exact"), bad input, and the run-to-run component
 * (runspread.c and its use in the test). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/runspread.h"
#include "helpers.h"

#define N(a) ARRAY_LEN(a)

static void test_compare_clear_shift(void **state)
{
	/* port.rx_pps: 20 Mpps before, 18 Mpps with the patch, +-0.1 % */
	const double a[] = { 20.01e6, 19.98e6, 20.02e6, 19.99e6, 20.00e6 };
	const double b[] = { 18.00e6, 18.02e6, 17.99e6, 18.01e6, 17.98e6 };
	/* prog.ns_per_run: 35.6 ns before, 40 ns after */
	const double t_a[] = { 35.6, 35.5, 35.7, 35.6, 35.65, 35.55 };
	const double t_b[] = { 40.1, 39.9, 40.0, 40.05, 39.95, 40.0 };
	struct compare_result r;

	(void)state;
	assert_int_equal(compare_samples(a, N(a), b, N(b), STATS_KIND_RATE, NULL, &r), 0);
	assert_int_equal(r.verdict, COMPARE_DIFFERENT);
	assert_int_equal(r.test, COMPARE_TEST_WELCH);
	assert_int_equal(r.change, COMPARE_CHANGE_WORSE);
	assert_true(r.p < 1e-10);
	assert_int_equal(r.n_a, 5);
	assert_int_equal(r.n_b, 5);
	/* a rate's mean over windows of equal time is the arithmetic mean:
	 * (20.01 + 19.98 + 20.02 + 19.99 + 20.00) / 5 = 20.00 Mpps */
	assert_near(r.mean_a, 20e6, 1e-6);
	assert_near(r.delta_pct, 100 * (r.mean_b - r.mean_a) / r.mean_a, 1e-12);
	assert_near(r.delta_pct, -10, 0.01);
	assert_true(r.ci_hi_pct < -9.5 && r.ci_lo_pct > -10.5);
	assert_near(r.spread_a, 0.02e6, 1e-6);
	assert_true(r.statistic < 0);	/* t of b against a */
	assert_int_equal(r.more_reps, 0);
	assert_string_equal(compare_verdict_name(r.verdict), "DIFFERENT");
	assert_string_equal(compare_change_name(r.change), "worse");
	assert_string_equal(compare_test_name(r.test), "welch");

	/* the same drop reversed is better */
	assert_int_equal(compare_samples(b, N(b), a, N(a), STATS_KIND_RATE, NULL, &r), 0);
	assert_int_equal(r.change, COMPARE_CHANGE_BETTER);

	/* times: lower is better */
	assert_int_equal(compare_samples(t_a, N(t_a), t_b, N(t_b), STATS_KIND_TIME, NULL, &r), 0);
	assert_int_equal(r.verdict, COMPARE_DIFFERENT);
	assert_int_equal(r.change, COMPARE_CHANGE_WORSE);
	assert_near(r.mean_a, 35.6, 1e-12);	/* arithmetic */
	assert_int_equal(compare_samples(t_b, N(t_b), t_a, N(t_a), STATS_KIND_TIME, NULL, &r), 0);
	assert_int_equal(r.change, COMPARE_CHANGE_BETTER);

	/* a direction given by the caller (a drop rate: lower is better) */
	{
		COMPARE_OPTS(opts, .direction = COMPARE_DIR_LOWER);

		assert_int_equal(compare_samples(a, N(a), b, N(b), STATS_KIND_RATE, &opts, &r), 0);
		assert_int_equal(r.change, COMPARE_CHANGE_BETTER);
	}
	/* no direction for other kinds: DIFFERENT, neither better nor worse */
	assert_int_equal(compare_samples(a, N(a), b, N(b), STATS_KIND_OTHER, NULL, &r), 0);
	assert_int_equal(r.verdict, COMPARE_DIFFERENT);
	assert_int_equal(r.change, COMPARE_CHANGE_NONE);
}

static void test_compare_noise_same(void **state)
{
	/* the same level, +-0.5 % of noise */
	const double a[] = { 100.3, 99.6, 100.1, 99.8, 100.5, 99.7, 100.2, 99.9, 100.4, 99.5 };
	const double b[] = { 99.9, 100.4, 99.6, 100.2, 99.8, 100.3, 100.0, 99.7, 100.5, 100.1 };
	struct compare_result r;

	(void)state;
	assert_int_equal(compare_samples(a, N(a), b, N(b), STATS_KIND_RATE, NULL, &r), 0);
	assert_int_equal(r.test, COMPARE_TEST_WELCH);
	assert_true(r.p > 0.5);
	/* equivalence: the 90 % interval within +-2 % */
	assert_true(r.ci_lo_pct > -2 && r.ci_hi_pct < 2);
	assert_int_equal(r.verdict, COMPARE_SAME);
	assert_int_equal(r.change, COMPARE_CHANGE_NONE);
	assert_int_equal(r.more_reps, 0);
}

static void test_compare_negligible(void **state)
{
	/* a quiet machine: +-0.02 %, and the candidate 0.3 % faster */
	const double a[] = { 100.00, 100.02, 99.98, 100.01, 99.99, 100.00, 100.02, 99.98 };
	const double b[] = { 100.30, 100.32, 100.28, 100.31, 100.29, 100.30, 100.32, 100.28 };
	struct compare_result r;

	(void)state;
	assert_int_equal(compare_samples(a, N(a), b, N(b), STATS_KIND_RATE, NULL, &r), 0);
	assert_int_equal(r.test, COMPARE_TEST_WELCH);
	/* very significant, and negligible */
	assert_true(r.p < 1e-10);
	assert_near(r.delta_pct, 0.3, 1e-3);
	assert_int_equal(r.verdict, COMPARE_SAME);

	/* with a minimum effect of 0.1 % it matters */
	{
		COMPARE_OPTS(opts, .min_effect = 0.001);

		assert_int_equal(compare_samples(a, N(a), b, N(b), STATS_KIND_RATE, &opts, &r), 0);
		assert_int_equal(r.verdict, COMPARE_DIFFERENT);
		assert_int_equal(r.change, COMPARE_CHANGE_BETTER);
	}
}

static void test_compare_few_noisy(void **state)
{
	/* three repetitions each with +-5 % of noise, means 3 % apart */
	const double a[] = { 95.0, 105.0, 100.0 };
	const double b[] = { 98.0, 108.0, 103.0 };
	struct compare_result r;

	(void)state;
	assert_int_equal(compare_samples(a, N(a), b, N(b), STATS_KIND_TIME, NULL, &r), 0);
	/* fewer than 5: Mann-Whitney */
	assert_int_equal(r.test, COMPARE_TEST_MANN_WHITNEY);
	assert_near(r.statistic, 6, 0);	/* U of b: ranks 2, 4, 6 (95 98 100 103 105 108) */
	assert_true(r.p > 0.05);
	assert_int_equal(r.verdict, COMPARE_UNKNOWN);
	/* pooled variance 25, minimum effect 2 % of 100 = 2:
	 * 2 (1.959964 + 0.841621)^2 25 / 4 / (3 / pi) = 102.7 -> 103 per side, 100 more */
	assert_int_equal(r.more_reps, 100);
	assert_false(r.more_reps_capped);
	{
		COMPARE_OPTS(opts, .max_more_reps = 20);

		assert_int_equal(compare_samples(a, N(a), b, N(b), STATS_KIND_TIME, &opts, &r), 0);
		assert_int_equal(r.more_reps, 20);
		assert_true(r.more_reps_capped);
	}
}

static void test_compare_more_reps_welch(void **state)
{
	/* variance 10 on both sides, 1 % apart: Welch, inconclusive */
	const double a[] = { 98, 102, 100, 96, 104 };
	const double b[] = { 99, 103, 101, 97, 105 };
	struct compare_result r;

	(void)state;
	assert_int_equal(compare_samples(a, N(a), b, N(b), STATS_KIND_TIME, NULL, &r), 0);
	assert_int_equal(r.test, COMPARE_TEST_WELCH);
	assert_near(r.df, 8, 1e-12);
	/* 90 % interval: 1 +- qt(0.95, 8) * 2 = 1 +- 3.7190 (qt from R) */
	assert_near(r.ci_lo_pct, 1 - 1.8595480375308966 * 2, 1e-9);
	assert_near(r.ci_hi_pct, 1 + 1.8595480375308966 * 2, 1e-9);
	assert_int_equal(r.verdict, COMPARE_UNKNOWN);
	/* 2 (1.959964 + 0.841621)^2 * 10 / 2^2 = 39.2 -> 40 per side, 35 more */
	assert_int_equal(r.more_reps, 35);
}

static void test_compare_few_clear(void **state)
{
	/* three repetitions that do not overlap: exact Mann-Whitney cannot go below
	 * p = 0.1 with 3 + 3 values; one more each makes 4 + 4 (p >= 0.029) */
	const double a[] = { 20.0e6, 20.1e6, 19.9e6 };
	const double b[] = { 15.0e6, 15.1e6, 14.9e6 };
	struct compare_result r;

	(void)state;
	assert_int_equal(compare_samples(a, N(a), b, N(b), STATS_KIND_RATE, NULL, &r), 0);
	assert_int_equal(r.test, COMPARE_TEST_MANN_WHITNEY);
	assert_near(r.p, 0.1, 1e-12);
	assert_int_equal(r.verdict, COMPARE_UNKNOWN);
	assert_int_equal(r.more_reps, 1);
	/* with four each it is settled */
	{
		const double a4[] = { 20.0e6, 20.1e6, 19.9e6, 20.05e6 };
		const double b4[] = { 15.0e6, 15.1e6, 14.9e6, 15.05e6 };

		assert_int_equal(compare_samples(a4, 4, b4, 4, STATS_KIND_RATE, NULL, &r), 0);
		assert_int_equal(r.test, COMPARE_TEST_MANN_WHITNEY);
		assert_near(r.p, 2.0 / 70, 1e-12);
		assert_int_equal(r.verdict, COMPARE_DIFFERENT);
		assert_int_equal(r.change, COMPARE_CHANGE_WORSE);
	}
}

static void test_compare_skewed(void **state)
{
	/* one slow outlier among ten: skewed, so Mann-Whitney */
	const double a[] = { 35.6, 35.5, 35.7, 35.6, 35.4, 35.6, 35.5, 35.7, 35.6, 52.0 };
	const double b[] = { 35.5, 35.6, 35.7, 35.6, 35.5, 35.6, 35.4, 35.7, 35.6, 35.5 };
	struct compare_result r;

	(void)state;
	assert_int_equal(compare_samples(a, N(a), b, N(b), STATS_KIND_TIME, NULL, &r), 0);
	assert_true(r.skew_a > 1);
	assert_int_equal(r.test, COMPARE_TEST_MANN_WHITNEY);
	/* the means are 4.6 % apart, but the medians are not: not DIFFERENT */
	assert_true(r.p > 0.05);
	assert_true(r.verdict != COMPARE_DIFFERENT);
	/* without the skew limit Welch decides */
	{
		COMPARE_OPTS(opts, .skew_limit = 100);

		assert_int_equal(compare_samples(a, N(a), b, N(b), STATS_KIND_TIME, &opts, &r), 0);
		assert_int_equal(r.test, COMPARE_TEST_WELCH);
	}
}

static void test_compare_constant(void **state)
{
	/* instruction counts under QEMU icount are exact */
	const double a[] = { 1000, 1000, 1000 }, same[] = { 1000, 1000 };
	const double more[] = { 1100, 1100, 1100 }, tiny[] = { 1001, 1001 };
	struct compare_result r;

	(void)state;
	assert_int_equal(compare_samples(a, 3, same, 2, STATS_KIND_TIME, NULL, &r), 0);
	assert_int_equal(r.test, COMPARE_TEST_CONSTANT);
	assert_int_equal(r.verdict, COMPARE_SAME);
	assert_near(r.p, 1, 0);
	assert_int_equal(compare_samples(a, 3, more, 3, STATS_KIND_TIME, NULL, &r), 0);
	assert_int_equal(r.verdict, COMPARE_DIFFERENT);
	assert_int_equal(r.change, COMPARE_CHANGE_WORSE);
	assert_near(r.delta_pct, 10, 1e-12);
	/* exact but 0.1 %: negligible */
	assert_int_equal(compare_samples(a, 3, tiny, 2, STATS_KIND_TIME, NULL, &r), 0);
	assert_int_equal(r.verdict, COMPARE_SAME);
}

/* How the texts print the p of each kind of comparison: "exact" only when both sides
 * are constant; one constant side is an ordinary test with its p. */
static void test_compare_p_text(void **state)
{
	const double a[] = { 1000, 1000, 1000, 1000, 1000 }, more[] = { 1100, 1100, 1100 };
	const double noisy[] = { 1100, 1101, 1099, 1100.5, 1099.5 }, one[] = { 1000 };
	struct compare_result r;
	char t[32];

	(void)state;
	/* both constant, different: DIFFERENT, exact, p 0 by convention */
	assert_int_equal(compare_samples(a, 5, more, 3, STATS_KIND_TIME, NULL, &r), 0);
	assert_int_equal(r.test, COMPARE_TEST_CONSTANT);
	assert_near(r.p, 0, 0);
	assert_string_equal(compare_p_text(r.test, r.p, t, sizeof(t)), "exact");
	/* both constant and equal: SAME, exact */
	assert_int_equal(compare_samples(a, 5, a, 3, STATS_KIND_TIME, NULL, &r), 0);
	assert_int_equal(r.verdict, COMPARE_SAME);
	assert_string_equal(compare_p_text(r.test, r.p, t, sizeof(t)), "exact");
	/* the baseline constant, the candidate not: Welch, a real p */
	assert_int_equal(compare_samples(a, 5, noisy, 5, STATS_KIND_TIME, NULL, &r), 0);
	assert_int_equal(r.test, COMPARE_TEST_WELCH);
	assert_int_equal(r.verdict, COMPARE_DIFFERENT);
	assert_true(r.p > 0 && r.p < 1e-6);
	compare_p_text(r.test, r.p, t, sizeof(t));
	assert_memory_equal(t, "p ", 2);
	assert_true(strtod(t + 2, NULL) > 0);	/* "p 1.23e-09" */
	/* and the other way round */
	assert_int_equal(compare_samples(noisy, 5, more, 3, STATS_KIND_TIME, NULL, &r), 0);
	assert_true(r.test != COMPARE_TEST_CONSTANT);
	assert_memory_equal(compare_p_text(r.test, r.p, t, sizeof(t)), "p ", 2);
	/* no test */
	assert_int_equal(compare_samples(one, 1, a, 5, STATS_KIND_TIME, NULL, &r), 0);
	assert_string_equal(compare_p_text(r.test, r.p, t, sizeof(t)), "no test");
	assert_string_equal(compare_p_text(COMPARE_TEST_WELCH, 0.031234, t, sizeof(t)),
			    "p 0.0312");
	assert_string_equal(compare_p_text(COMPARE_TEST_MANN_WHITNEY, 1, t, sizeof(t)), "p 1");
}

static void test_compare_one_value(void **state)
{
	const double a[] = { 19.9e6 }, b[] = { 19.5e6, 19.7e6, 19.6e6 };
	struct compare_result r;

	(void)state;
	assert_int_equal(compare_samples(a, 1, b, 3, STATS_KIND_RATE, NULL, &r), 0);
	assert_int_equal(r.test, COMPARE_TEST_NONE);
	assert_true(isnan(r.p));
	assert_true(isnan(r.stddev_a));
	assert_int_equal(r.verdict, COMPARE_UNKNOWN);
	/* the variance of b says one more would do for Welch, but 1 + 3 values make a
	 * Mann-Whitney test that cannot reach alpha: 3 + 5 can (2 / C(8,3) = 0.036) */
	assert_int_equal(r.more_reps, 2);
	assert_int_equal(compare_samples(a, 1, a, 1, STATS_KIND_RATE, NULL, &r), 0);
	assert_int_equal(r.verdict, COMPARE_UNKNOWN);
	assert_int_equal(r.more_reps, 4);	/* to `few` = 5 */
}

static void test_compare_zero_baseline(void **state)
{
	/* port.drop_pps: none before, some after */
	const double a[] = { 0, 0, 0, 0, 0 }, b[] = { 10, 12, 11, 9, 10 };
	struct compare_result r;

	(void)state;
	assert_int_equal(compare_samples(a, 5, b, 5, STATS_KIND_RATE, NULL, &r), 0);
	assert_near(r.mean_a, 0, 0);	/* no frames in any window */
	assert_true(isinf(r.delta_pct) && r.delta_pct > 0);
	assert_int_equal(r.verdict, COMPARE_DIFFERENT);
}

static void test_compare_args(void **state)
{
	const double a[] = { 1, 2, 3 }, bad[] = { 1, NAN };
	struct compare_result r;

	(void)state;
	assert_int_equal(compare_samples(a, 0, a, 3, STATS_KIND_RATE, NULL, &r), -EINVAL);
	assert_int_equal(compare_samples(a, 3, bad, 2, STATS_KIND_RATE, NULL, &r), -EINVAL);
	{
		COMPARE_OPTS(opts, .alpha = 1.5);

		assert_int_equal(compare_samples(a, 3, a, 3, STATS_KIND_RATE, &opts, &r), -EINVAL);
	}
	{
		COMPARE_OPTS(opts, .min_effect = -0.1);

		assert_int_equal(compare_samples(a, 3, a, 3, STATS_KIND_RATE, &opts, &r), -EINVAL);
	}
	assert_string_equal(compare_verdict_name(COMPARE_SAME), "SAME");
	assert_string_equal(compare_verdict_name(COMPARE_UNKNOWN), "UNKNOWN");
	assert_string_equal(compare_test_name(COMPARE_TEST_MANN_WHITNEY), "mann-whitney");
	assert_string_equal(compare_change_name(COMPARE_CHANGE_NONE), "");
}

/* The run-to-run component (opts run_rel_var, run_df): two runs 7 % apart whose
 * repetitions agree within 1 % are DIFFERENT as independent draws, but not when runs of
 * the plan spread by 5 %: Welch on var(mean) = s^2/n + sigma_b^2 per side, worked out
 * by hand; repetitions cannot settle it (run_limited); a component of 0 changes
 * nothing; a change far beyond the spread stays DIFFERENT; two sides of zeros (a port
 * that receives nothing) are SAME, exact, with a component as without. */
static void test_compare_run_component(void **state)
{
	const double a[] = { 100, 101, 99, 100, 100 };	/* mean 100, s^2 0.5 */
	const double b[] = { 107, 108, 106, 107, 107 };	/* mean 107, s^2 0.5 */
	const double c[] = { 150, 151, 149, 150, 150 };	/* +50 % */
	struct compare_result r, r0;
	/* va = vb = 0.5 / 5; vr = 0.05^2 (100^2 + 107^2) = 53.6225 */
	double vr = 0.0025 * (100.0 * 100 + 107.0 * 107), se2 = 0.2 + vr;
	double df = se2 * se2 / (2 * 0.01 / 4 + vr * vr / 9);

	(void)state;
	assert_int_equal(compare_samples(a, N(a), b, N(b), STATS_KIND_TIME, NULL, &r0), 0);
	assert_int_equal(r0.verdict, COMPARE_DIFFERENT);
	{
		COMPARE_OPTS(o, .min_effect = 0.03, .run_rel_var = 0.0025, .run_df = 9);

		assert_int_equal(compare_samples(a, N(a), b, N(b), STATS_KIND_TIME, &o, &r), 0);
	}
	assert_int_equal(r.test, COMPARE_TEST_WELCH);
	assert_near(r.statistic, 7 / sqrt(se2), 1e-12);
	assert_near(r.df, df, 1e-9);
	assert_near(r.df, 9.067, 1e-3);
	assert_near(r.p, 2 * stats_t_cdf(-7 / sqrt(se2), df), 1e-15);
	assert_true(r.p > 0.3 && r.p < 0.4);
	assert_int_equal(r.verdict, COMPARE_UNKNOWN);
	/* (z_0.975 + z_0.8)^2 vr = 420.9 > (0.03 x 100)^2: no n will do */
	assert_true(r.run_limited);
	assert_int_equal(r.more_reps, 0);
	/* the interval: the same half-width t(0.95, df) se about 7 % */
	assert_near(r.ci_hi_pct - r.ci_lo_pct, 2 * stats_t_quantile(0.95, df) * sqrt(se2), 1e-9);
	assert_near((r.ci_hi_pct + r.ci_lo_pct) / 2, 7, 1e-9);

	/* sigma_b of 0 (runs agree): today's test, to the bit */
	{
		COMPARE_OPTS(o, .min_effect = 0.03, .run_rel_var = 0, .run_df = 9);

		assert_int_equal(compare_samples(a, N(a), b, N(b), STATS_KIND_TIME, &o, &r), 0);
	}
	assert_int_equal(r.verdict, r0.verdict);
	assert_true(r.p == r0.p);
	assert_false(r.run_limited);

	/* +50 % with 5 % run-to-run spread: still DIFFERENT (worse) */
	{
		COMPARE_OPTS(o, .min_effect = 0.03, .run_rel_var = 0.0025, .run_df = 9);

		assert_int_equal(compare_samples(a, N(a), c, N(c), STATS_KIND_TIME, &o, &r), 0);
	}
	assert_int_equal(r.verdict, COMPARE_DIFFERENT);
	assert_int_equal(r.change, COMPARE_CHANGE_WORSE);

	/* zeros: no scale for a relative component */
	{
		const double z4[] = { 0, 0, 0, 0 }, z5[] = { 0, 0, 0, 0, 0 };
		COMPARE_OPTS(o, .min_effect = 0.5, .run_rel_var = 0.0049, .run_df = 9);

		assert_int_equal(compare_samples(z4, N(z4), z5, N(z5), STATS_KIND_RATE, &o, &r), 0);
	}
	assert_int_equal(r.test, COMPARE_TEST_CONSTANT);
	assert_int_equal(r.verdict, COMPARE_SAME);
	assert_false(r.run_limited);

	/* a minimum effect the spread leaves room for: an estimate, not run_limited: s^2 8,
	 * 2 % spread (vr 8.58, z^2 vr 67 < (0.1 x 100)^2), p about 0.06, the interval
	 * about 1 to 13 %: 2 z^2 s^2 / (delta^2 - z^2 vr) about 4 < 5, so 1 more */
	{
		const double a2[] = { 100, 104, 96, 100, 100 }, b2[] = { 107, 111, 103, 107, 107 };
		COMPARE_OPTS(o, .min_effect = 0.1, .run_rel_var = 0.0004, .run_df = 9);

		assert_int_equal(compare_samples(a2, N(a2), b2, N(b2), STATS_KIND_TIME, &o, &r), 0);
	}
	assert_int_equal(r.verdict, COMPARE_UNKNOWN);
	assert_false(r.run_limited);
	assert_int_equal(r.more_reps, 1);

	/* bad components */
	{
		COMPARE_OPTS(o, .run_rel_var = -0.1, .run_df = 3);

		assert_int_equal(compare_samples(a, N(a), b, N(b), STATS_KIND_TIME, &o, &r), -EINVAL);
	}
	{
		COMPARE_OPTS(o, .run_rel_var = 0.01, .run_df = NAN);

		assert_int_equal(compare_samples(a, N(a), b, N(b), STATS_KIND_TIME, &o, &r), -EINVAL);
	}
}

/* runspread_add_set: sigma_b^2 = var(run means) - mean(s_i^2 / n_i), relative to the
 * mean of means, clamped at 0 after pooling sets by k - 1. */
static void test_compare_runspread(void **state)
{
	const struct runspread_run three[] = {
		{ .n = 10, .mean = 100, .var = 4 }, { .n = 10, .mean = 110, .var = 4 },
		{ .n = 10, .mean = 90, .var = 4 },
	};
	const struct runspread_run flat[] = {
		{ .n = 4, .mean = 50, .var = 25 }, { .n = 4, .mean = 50.5, .var = 25 },
		{ .n = 1, .mean = 49.5, .var = NAN },
	};
	struct runspread rs = { 0 };

	(void)state;
	/* two runs: too few */
	runspread_add_set(&rs, three, 2);
	assert_false(rs.known);
	assert_int_equal(rs.runs, 2);
	/* three: var(1, 1.1, 0.9) = 0.01, within 4 / 10 / 100^2 = 0.00004: 0.00996 */
	memset(&rs, 0, sizeof(rs));
	runspread_add_set(&rs, three, 3);
	assert_true(rs.known);
	assert_near(rs.rel_var, 0.01 - 0.00004, 1e-12);
	assert_near(rs.df, 2, 0);
	/* within-run noise beyond the spread of the means: 0, known; a run of one value
	 * adds no within variance */
	memset(&rs, 0, sizeof(rs));
	runspread_add_set(&rs, flat, 3);
	assert_true(rs.known);
	assert_true(rs.raw < 0);
	assert_near(rs.rel_var, 0, 0);
	/* pooled by k - 1: (2 x 0.00996 + 2 x raw_flat) / 4 */
	{
		double raw_flat = rs.raw;

		runspread_add_set(&rs, three, 3);
		assert_int_equal(rs.runs, 6);
		assert_near(rs.df, 4, 0);
		assert_near(rs.raw, (2 * 0.00996 + 2 * raw_flat) / 4, 1e-12);
	}
	/* a port that receives nothing in every run: no spread, known */
	{
		const struct runspread_run zero[] = { { .n = 5, .mean = 0, .var = 0 },
						      { .n = 5, .mean = 0, .var = 0 },
						      { .n = 5, .mean = 0, .var = 0 } };
		const struct runspread_run around[] = { { .n = 5, .mean = 1, .var = 0 },
							{ .n = 5, .mean = -1, .var = 0 } };

		memset(&rs, 0, sizeof(rs));
		runspread_add_set(&rs, zero, 3);
		assert_true(rs.known);
		assert_near(rs.rel_var, 0, 0);
		/* means around 0 but not 0: nothing to be relative to, left out */
		memset(&rs, 0, sizeof(rs));
		runspread_add_set(&rs, around, 2);
		assert_int_equal(rs.runs, 0);
	}
	/* one run a side, two sets: 2 runs, df 0: unknown */
	memset(&rs, 0, sizeof(rs));
	runspread_add_set(&rs, three, 1);
	runspread_add_set(&rs, flat, 1);
	assert_false(rs.known);
	assert_int_equal(rs.runs, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compare_clear_shift),
		cmocka_unit_test(test_compare_noise_same),
		cmocka_unit_test(test_compare_negligible),
		cmocka_unit_test(test_compare_few_noisy),
		cmocka_unit_test(test_compare_more_reps_welch),
		cmocka_unit_test(test_compare_few_clear),
		cmocka_unit_test(test_compare_skewed),
		cmocka_unit_test(test_compare_constant),
		cmocka_unit_test(test_compare_p_text),
		cmocka_unit_test(test_compare_one_value),
		cmocka_unit_test(test_compare_zero_baseline),
		cmocka_unit_test(test_compare_args),
		cmocka_unit_test(test_compare_run_component),
		cmocka_unit_test(test_compare_runspread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_compare.c - lib/analysis/compare.c: the verdicts on fixed data (a clear shift, noise, a
 * significant but negligible 0.3 %, too few noisy values), the choice of test, the
 * repetition estimate worked out by hand, better/worse by direction, constant samples
 * and how the texts print their p ("exact"), and bad input. */
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

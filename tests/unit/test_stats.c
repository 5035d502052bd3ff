/* test_stats.c - lib/stats.c against values worked out by hand (and checked with
 * Python's statistics module): the netdev table example, an even-length median, a
 * harmonic mean, and the undefined cases (empty input, one value). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>

#include "stats.h"

#define EPS 1e-9

/* cmocka 1.1's assert_float_equal compares floats; these numbers need doubles. */
#define assert_near(a, b, eps) assert_near_at((a), (b), (eps), __FILE__, __LINE__)

static void assert_near_at(double a, double b, double eps, const char *file, int line)
{
	if (fabs(a - b) <= eps)
		return;
	print_error("%.17g != %.17g (within %g)\n", a, b, eps);
	_fail(file, line);
}

static void test_stats_basic(void **state)
{
	/* bpf_stats runs of cnt_ingress from the design brief */
	const double v[] = { 35.9, 35.6, 35.5 };

	(void)state;
	assert_near(stats_mean(v, 3), 35.666666666666667, EPS);
	/* sqrt(((0.2333..)^2 + (0.0666..)^2 + (0.1666..)^2) / 2) = sqrt(0.0433..) */
	assert_near(stats_stddev(v, 3), 0.208166599946613, EPS);
	assert_near(stats_min(v, 3), 35.5, EPS);
	assert_near(stats_max(v, 3), 35.9, EPS);
	assert_near(stats_spread(v, 3), 0.2, EPS);
	assert_near(stats_median(v, 3), 35.6, EPS);
}

static void test_stats_median_even(void **state)
{
	const double v[] = { 4, 1, 3, 2 };

	(void)state;
	assert_near(stats_median(v, 4), 2.5, EPS);
	/* the input is left alone */
	assert_near(v[0], 4, 0);
	assert_near(v[3], 2, 0);
}

static void test_stats_hmean(void **state)
{
	const double v[] = { 1, 2, 4 };
	const double z[] = { 1, 0, 4 };

	(void)state;
	/* 3 / (1 + 1/2 + 1/4) = 12/7 */
	assert_near(stats_hmean(v, 3), 12.0 / 7.0, EPS);
	/* 40 and 60 pps over equal work: 48 */
	assert_near(stats_hmean((const double[]){ 40, 60 }, 2), 48, EPS);
	assert_true(isnan(stats_hmean(z, 3)));
}

static void test_stats_empty_and_one(void **state)
{
	const double one[] = { 19.86e6 };
	struct stats_summary s;

	(void)state;
	assert_true(isnan(stats_mean(NULL, 0)));
	assert_true(isnan(stats_stddev(NULL, 0)));
	assert_true(isnan(stats_min(NULL, 0)));
	assert_true(isnan(stats_max(NULL, 0)));
	assert_true(isnan(stats_spread(NULL, 0)));
	assert_true(isnan(stats_median(NULL, 0)));
	assert_true(isnan(stats_hmean(NULL, 0)));
	assert_int_equal(stats_summarize(NULL, 0, &s), -EINVAL);
	assert_int_equal(s.n, 0);
	assert_true(isnan(s.mean));

	assert_near(stats_mean(one, 1), 19.86e6, 0);
	assert_true(isnan(stats_stddev(one, 1)));
	assert_near(stats_spread(one, 1), 0, 0);
	assert_near(stats_median(one, 1), 19.86e6, 0);
}

static void test_stats_summarize(void **state)
{
	/* port.rx_pps of the quickstart example */
	const double v[] = { 19.86e6, 19.91e6, 20.03e6 };
	struct stats_summary s;

	(void)state;
	assert_int_equal(stats_summarize(v, 3, &s), 0);
	assert_int_equal(s.n, 3);
	assert_near(s.mean, 19.933333333333333e6, 1e-3);
	assert_near(s.min, 19.86e6, 0);
	assert_near(s.max, 20.03e6, 0);
	assert_near(s.spread, 85000, 1e-6);
	assert_near(s.median, 19.91e6, 0);
	/* deviations -73333.3, -23333.3, 96666.7: variance 7.6333e9 */
	assert_near(s.stddev, 87368.949480540, 1e-6);
}

static void test_stats_large_exact(void **state)
{
	/* long double accumulation: a large offset does not swamp small differences */
	const double v[] = { 1e15 + 1, 1e15 + 2, 1e15 + 3 };

	(void)state;
	assert_near(stats_mean(v, 3), 1e15 + 2, 0);
	assert_near(stats_stddev(v, 3), 1, EPS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats_basic),
		cmocka_unit_test(test_stats_median_even),
		cmocka_unit_test(test_stats_hmean),
		cmocka_unit_test(test_stats_empty_and_one),
		cmocka_unit_test(test_stats_summarize),
		cmocka_unit_test(test_stats_large_exact),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

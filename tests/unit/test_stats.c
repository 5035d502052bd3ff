// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_stats.c - lib/analysis/stats.c against values worked out by hand (and checked with
 * Python's statistics module): the netdev table example, an even-length median, a rate's
 * mean over windows of equal and of unequal duration, and the undefined cases (empty input, one value); then Welch's t-test,
 * the Mann-Whitney U test and the distributions under them against a reference table
 * computed with R (tests/unit/data/reference.R). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdbool.h>

#include "analysis/stats.h"
#include "helpers.h"

#define EPS 1e-9

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

static void test_stats_rate_mean(void **state)
{
	/* 40 Mpps for 1 s and 60 Mpps for 1 s: (40 + 60) M frames over 2 s = 50 Mpps,
	 * not the harmonic 48 (which would be right for windows of equal frames) */
	const double v[] = { 40e6, 60e6 }, equal[] = { 1, 1 }, unequal[] = { 1, 3 };
	/* the demo's h1 drop port.rx_pps: (10.24 + 11.73 + 14.06) / 3 = 12.01 M */
	const double demo[] = { 10.24e6, 11.73e6, 14.06e6 };

	(void)state;
	assert_near(stats_kind_mean(STATS_KIND_RATE, v, 2), 50e6, EPS);
	assert_near(stats_wmean(v, equal, 2), 50e6, EPS);
	/* 40 Mpps for 1 s and 60 Mpps for 3 s: (40 + 180) M frames over 4 s = 55 Mpps */
	assert_near(stats_wmean(v, unequal, 2), 55e6, EPS);
	assert_near(stats_kind_mean(STATS_KIND_RATE, demo, 3), 12.01e6, 1e-3);
	/* a zero rate is just a window without frames */
	assert_near(stats_kind_mean(STATS_KIND_RATE, (const double[]){ 0, 4 }, 2), 2, EPS);
	/* no duration at all, or a negative one: undefined */
	assert_true(isnan(stats_wmean(v, (const double[]){ 0, 0 }, 2)));
	assert_true(isnan(stats_wmean(v, (const double[]){ -1, 3 }, 2)));
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
	assert_true(isnan(stats_wmean(NULL, NULL, 0)));
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

/* Relative closeness, for values that span many orders of magnitude (p-values). */
#define assert_rel(a, b, rel) assert_rel_at((a), (b), (rel), __FILE__, __LINE__)

static void assert_rel_at(double a, double b, double rel, const char *file, int line)
{
	if (fabs(a - b) <= rel * fabs(b))
		return;
	print_error("%.17g != %.17g (within %g relative)\n", a, b, rel);
	_fail(file, line);
}

struct ref_case {
	const char *name;
	const double *x;
	size_t nx;
	const double *y;
	size_t ny;
	double t, df, p;		/* t.test(x, y, var.equal = FALSE) */
	double u, mw_p;			/* wilcox.test(x, y, exact =, correct = TRUE) */
	bool exact;
};

/* BEGIN reference.R: the values below came from R 4.2.2, t.test(var.equal = FALSE) and
 * wilcox.test(exact = TRUE for the cases marked exact, FALSE otherwise; correct = TRUE),
 * printed by tests/unit/data/reference.R. */
static const double ref_rx3_x[] = { 19.859999999999999, 19.91, 20.030000000000001 };
static const double ref_rx3_y[] = { 19.52, 19.600000000000001, 19.41 };
static const double ref_ns5_x[] = { 35.899999999999999, 35.600000000000001, 35.5, 36.100000000000001, 35.799999999999997 };
static const double ref_ns5_y[] = { 37.200000000000003, 36.899999999999999, 37.5, 37, 36.799999999999997, 37.299999999999997 };
static const double ref_var_x[] = { 10.1, 9.8000000000000007, 10.300000000000001, 10, 9.9000000000000004, 10.25, 10.15, 9.6999999999999993 };
static const double ref_var_y[] = { 11.5, 8.9000000000000004, 12.1, 9.4000000000000004, 10.800000000000001, 13 };
static const double ref_same_x[] = { 5.0099999999999998, 4.9800000000000004, 5.0300000000000002, 4.9699999999999998, 5, 5.0199999999999996 };
static const double ref_same_y[] = { 4.9900000000000002, 5.04, 4.96, 5.0099999999999998, 5, 5.0049999999999999 };
static const double ref_far_x[] = { 1, 1.1000000000000001, 0.90000000000000002, 1.05, 0.94999999999999996, 1.02, 0.97999999999999998, 1.01 };
static const double ref_far_y[] = { 2, 2.1000000000000001, 1.8999999999999999, 2.0499999999999998, 1.95, 2.02, 1.98, 2.0099999999999998 };
static const double ref_n20_x[] = { 96.459999999999994, 96.560000000000002, 102.01000000000001, 93.120000000000005, 99.569999999999993, 93.230000000000004, 103.3, 100.61, 104.06999999999999, 98.489999999999995, 101.19, 99.140000000000001, 97.790000000000006, 100.44, 96.230000000000004, 98.939999999999998, 102.09, 100.17, 98.769999999999996, 106.56999999999999 };
static const double ref_n20_y[] = { 103.17, 101.23999999999999, 103.48, 101.43000000000001, 101.84, 101.95, 109.08, 103.06999999999999, 103.53, 105.02, 109.05, 102.33, 101.13, 110.42, 98.620000000000005, 101.90000000000001, 105, 109.84999999999999 };
static const double ref_n40_x[] = { 45.25, 37.860999999999997, 53.308, 47.392000000000003, 48.063000000000002, 52.307000000000002, 51.118000000000002, 51.454999999999998, 47.844000000000001, 56.447000000000003, 57.524999999999999, 50.159999999999997, 47.740000000000002, 53.667000000000002, 52.389000000000003, 44.798000000000002, 47.698999999999998, 55.246000000000002, 49.518999999999998, 48.356000000000002, 51.061999999999998, 49.832000000000001, 49.988, 40.347000000000001, 58.747, 50.997, 45.616999999999997, 54.898000000000003, 51.543999999999997, 50.088000000000001, 55.240000000000002, 61.305, 52.768000000000001, 57.924999999999997, 60.786999999999999, 44.896000000000001, 47.384, 53.881999999999998, 41.460000000000001, 48.664000000000001 };
static const double ref_n40_y[] = { 58.463999999999999, 57.216000000000001, 54.896999999999998, 42.524000000000001, 63.753999999999998, 54.753999999999998, 55.835000000000001, 54.473999999999997, 43.418999999999997, 44.826000000000001, 45.917000000000002, 61.591000000000001, 47.844999999999999, 50.789000000000001, 50.725999999999999, 54.853999999999999, 54.503, 53.338999999999999, 45.692, 36.305999999999997, 52.832000000000001, 53.340000000000003, 58.152999999999999, 51.484999999999999, 48.944000000000003, 54.052, 44.228000000000002, 46.792000000000002, 46.968000000000004, 53.439, 62.456000000000003, 55.817, 57.710000000000001, 53.191000000000003, 53.395000000000003 };
static const double ref_ties_x[] = { 1, 2, 2, 3, 4, 5, 5, 6 };
static const double ref_ties_y[] = { 4, 5, 5, 6, 7, 8, 8, 9, 9 };

static const struct ref_case ref_cases[] = {
	{ "rx3", ref_rx3_x, 3, ref_rx3_y, 3,
	  /* t, df, p */ 5.6682874020035756, 3.9695046073875746, 0.0048888525355753028,
	  /* U, p, exact */ 9, 0.10000000000000001, true },
	{ "ns5", ref_ns5_x, 5, ref_ns5_y, 6,
	  /* t, df, p */ -8.8115908477954168, 8.9062968515742149, 1.0869962485820164e-05,
	  /* U, p, exact */ 0, 0.004329004329004329, true },
	{ "var", ref_var_x, 8, ref_var_y, 6,
	  /* t, df, p */ -1.4258114466445357, 5.1378903294757059, 0.21174314942242733,
	  /* U, p, exact */ 16, 0.34498834498834502, true },
	{ "same", ref_same_x, 6, ref_same_y, 6,
	  /* t, df, p */ 0.058420623783707791, 9.8561275633118601, 0.95458105233376167,
	  /* U, p, exact */ 19, 0.93596247292094281, false },
	{ "far", ref_far_x, 8, ref_far_y, 8,
	  /* t, df, p */ -32.88773464826275, 13.999999999999998, 1.1719060347615788e-14,
	  /* U, p, exact */ 0, 0.0001554001554001554, true },
	{ "n20", ref_n20_x, 20, ref_n20_y, 18,
	  /* t, df, p */ -4.1369386064751339, 35.5016263014966, 0.00020563657361721645,
	  /* U, p, exact */ 59, 0.00022521400508128706, true },
	{ "n40", ref_n40_x, 40, ref_n40_y, 35,
	  /* t, df, p */ -1.1367841736114084, 67.652234062932095, 0.25963912836585978,
	  /* U, p, exact */ 577, 0.19328039725069179, false },
	{ "ties", ref_ties_x, 8, ref_ties_y, 9,
	  /* t, df, p */ -3.721929237430047, 14.904799786942228, 0.0020652494693700961,
	  /* U, p, exact */ 8, 0.0075659255050105597, false },
};

/* ns5 90% CI of mean(x) - mean(y): -1.615072605077996 .. -1.058260728255336 */
/* qt(0.975, 4.5) = 2.6589123472044025, qt(0.05, 12) = -1.7822875556493198, qnorm(0.975) = 1.9599639845400536, qnorm(0.8) = 0.84162123357291441 */
/* pbeta(0.3, 2.5, 4) = 0.35219758590676714, pbeta(0.02, 0.5, 30) = 0.72710173476532303, pbeta(1e-4, 3, 0.5) = 3.1251171945317408e-13 */
/* END reference.R */

static void test_stats_welch_reference(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(ref_cases); i++) {
		const struct ref_case *c = &ref_cases[i];
		struct stats_welch w;

		print_message("welch %s\n", c->name);
		assert_int_equal(stats_welch(c->x, c->nx, c->y, c->ny, &w), 0);
		assert_rel(w.t, c->t, 1e-10);
		assert_rel(w.df, c->df, 1e-10);
		assert_rel(w.p, c->p, 1e-9);
		assert_near(w.diff, stats_mean(c->x, c->nx) - stats_mean(c->y, c->ny), 1e-12);
	}
}

static void test_stats_mann_whitney_reference(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(ref_cases); i++) {
		const struct ref_case *c = &ref_cases[i];
		struct stats_mw m;

		print_message("mann-whitney %s\n", c->name);
		assert_int_equal(stats_mann_whitney(c->x, c->nx, c->y, c->ny, &m), 0);
		assert_near(m.u, c->u, 0);
		assert_int_equal(m.exact, c->exact);
		assert_rel(m.p, c->mw_p, 1e-10);
	}
}

static void test_stats_mann_whitney_edges(void **state)
{
	const double a[] = { 7, 7, 7 }, b[] = { 7, 7 };
	const double lo[] = { 1, 2, 3 }, hi[] = { 4, 5, 6 };
	struct stats_mw m;

	(void)state;
	assert_int_equal(stats_mann_whitney(a, 0, b, 2, &m), -EINVAL);
	/* every value the same: no evidence of a difference */
	assert_int_equal(stats_mann_whitney(a, 3, b, 2, &m), 0);
	assert_true(m.ties);
	assert_false(m.exact);
	assert_near(m.p, 1, 0);
	assert_near(m.u, 3, 0);
	/* complete separation of 3 and 3: 2 of the C(6,3) = 20 orders */
	assert_int_equal(stats_mann_whitney(lo, 3, hi, 3, &m), 0);
	assert_near(m.u, 0, 0);
	assert_rel(m.p, 0.1, 1e-15);
	assert_rel(stats_mw_min_p(3, 3), 0.1, 1e-12);
	assert_rel(stats_mw_min_p(4, 4), 2.0 / 70, 1e-12);
	assert_rel(stats_mw_min_p(5, 6), 0.004329004329004329, 1e-12);
	assert_near(stats_mw_min_p(1, 1), 1, 0);
	/* the largest exact size: C(60,30) counts stay exact, p sums to the tail */
	{
		double x[STATS_MW_EXACT_MAX], y[STATS_MW_EXACT_MAX];
		size_t i;

		for (i = 0; i < STATS_MW_EXACT_MAX; i++) {
			x[i] = (double)i;
			y[i] = i + 1000.0;
		}
		assert_int_equal(stats_mann_whitney(x, STATS_MW_EXACT_MAX, y,
						    STATS_MW_EXACT_MAX, &m), 0);
		assert_true(m.exact);
		assert_rel(m.p, stats_mw_min_p(STATS_MW_EXACT_MAX, STATS_MW_EXACT_MAX), 1e-9);
		/* interleaved: U at the centre, p = 1 */
		for (i = 0; i < STATS_MW_EXACT_MAX; i++)
			y[i] = i + 0.5;
		assert_int_equal(stats_mann_whitney(x, 2, y, 2, &m), 0);
		assert_near(m.u, 1, 0);	/* 0 < 0.5 < 1 < 1.5: x ranks 1, 3 */
		assert_rel(m.p, 2.0 / 3, 1e-12); /* R: wilcox.test(c(0,1), c(.5,1.5))$p.value */
	}
}

static void test_stats_welch_edges(void **state)
{
	const double a[] = { 3, 3, 3 }, b[] = { 3, 3 }, c[] = { 4, 4 };
	struct stats_welch w;

	(void)state;
	assert_int_equal(stats_welch(a, 1, b, 2, &w), -EINVAL);
	/* constant samples: the difference is exact */
	assert_int_equal(stats_welch(a, 3, b, 2, &w), 0);
	assert_near(w.p, 1, 0);
	assert_near(w.t, 0, 0);
	assert_int_equal(stats_welch(a, 3, c, 2, &w), 0);
	assert_near(w.p, 0, 0);
	assert_true(isinf(w.t) && w.t < 0);
}

static void test_stats_distributions(void **state)
{
	(void)state;
	/* R: pbeta(), qt(), qnorm(), see reference.R */
	assert_rel(stats_betai(2.5, 4, 0.3), 0.35219758590676714, 1e-12);
	assert_rel(stats_betai(0.5, 30, 0.02), 0.72710173476532303, 1e-12);
	assert_rel(stats_betai(3, 0.5, 1e-4), 3.1251171945317408e-13, 1e-10);
	assert_near(stats_betai(2, 3, 0), 0, 0);
	assert_near(stats_betai(2, 3, 1), 1, 0);
	assert_true(isnan(stats_betai(-1, 3, 0.5)));
	assert_true(isnan(stats_betai(1, 3, 1.5)));
	assert_rel(stats_t_quantile(0.975, 4.5), 2.6589123472044025, 1e-12);
	assert_rel(stats_t_quantile(0.05, 12), -1.7822875556493198, 1e-12);
	assert_rel(stats_norm_quantile(0.975), 1.9599639845400536, 1e-13);
	assert_rel(stats_norm_quantile(0.8), 0.84162123357291441, 1e-13);
	assert_near(stats_norm_quantile(0.5), 0, 1e-15);
	assert_true(isnan(stats_norm_quantile(0)));
	assert_true(isnan(stats_t_quantile(1, 3)));
	/* the CDFs invert the quantiles and are symmetric */
	assert_rel(stats_t_cdf(stats_t_quantile(0.9, 7.3), 7.3), 0.9, 1e-12);
	assert_rel(stats_t_cdf(-1.5, 6) + stats_t_cdf(1.5, 6), 1, 1e-14);
	assert_rel(stats_norm_cdf(1.9599639845400536), 0.975, 1e-14);
	/* t with one degree of freedom is Cauchy: P(T <= 1) = 3/4 */
	assert_rel(stats_t_cdf(1, 1), 0.75, 1e-14);
}

static void test_stats_kind(void **state)
{
	const double rates[] = { 40, 60 }, with_zero[] = { 0, 4 };

	(void)state;
	assert_int_equal(stats_kind_for_unit("pps"), STATS_KIND_RATE);
	assert_int_equal(stats_kind_for_unit("Mpps"), STATS_KIND_RATE);
	assert_int_equal(stats_kind_for_unit("Gbps"), STATS_KIND_RATE);
	assert_int_equal(stats_kind_for_unit("pkt/Ginsn"), STATS_KIND_RATE);	/* icount guests */
	assert_int_equal(stats_kind_for_unit("insns"), STATS_KIND_TIME);
	assert_int_equal(stats_kind_for_unit("ops/s"), STATS_KIND_RATE);
	assert_int_equal(stats_kind_for_unit("rate"), STATS_KIND_RATE);
	assert_int_equal(stats_kind_for_unit("ns"), STATS_KIND_TIME);
	assert_int_equal(stats_kind_for_unit("US"), STATS_KIND_TIME);
	assert_int_equal(stats_kind_for_unit("cycles"), STATS_KIND_TIME);
	assert_int_equal(stats_kind_for_unit("time"), STATS_KIND_TIME);
	assert_int_equal(stats_kind_for_unit("%"), STATS_KIND_OTHER);
	assert_int_equal(stats_kind_for_unit(""), STATS_KIND_OTHER);
	assert_int_equal(stats_kind_for_unit(NULL), STATS_KIND_OTHER);
	assert_string_equal(stats_kind_name(STATS_KIND_RATE), "rate");
	/* 40 and 60 pps over windows of equal time average to 50, as 40 and 60 ns do */
	assert_near(stats_kind_mean(STATS_KIND_RATE, rates, 2), 50, EPS);
	assert_near(stats_kind_mean(STATS_KIND_TIME, rates, 2), 50, EPS);
	assert_near(stats_kind_mean(STATS_KIND_OTHER, rates, 2), 50, EPS);
	/* a zero rate counts as no frames */
	assert_near(stats_kind_mean(STATS_KIND_RATE, with_zero, 2), 2, EPS);
	assert_true(isnan(stats_kind_mean(STATS_KIND_RATE, NULL, 0)));
}

static void test_stats_skewness(void **state)
{
	const double sym[] = { 1, 2, 3, 4, 5 };
	const double right[] = { 1, 1, 1, 1, 10 };
	const double flat[] = { 2, 2, 2 };

	(void)state;
	assert_near(stats_skewness(sym, 5), 0, EPS);
	/* g1 = m3 / m2^1.5 = 1.5, G1 = g1 sqrt(20) / 3 = 2.2360679774997898 */
	assert_near(stats_skewness(right, 5), 2.2360679774997898, 1e-12);
	assert_true(isnan(stats_skewness(flat, 3)));
	assert_true(isnan(stats_skewness(sym, 2)));
}

/* Worked by hand: (1.959964 + 0.841621) * 0.12 * sqrt(1/5 + 1/5) = 0.212626 (the issue's
 * "5 + 5 values at 12 % CV: about 21 %"); 2.801585 * 0.05 * sqrt(0.2) = 0.062645. The
 * interval of {9, 10, 11}: t(0.975, 2) = 4.302653, sd 1, 4.302653 / (sqrt(3) 10) =
 * 0.248414. */
static void test_stats_min_detectable_effect(void **state)
{
	const double v[] = { 9, 10, 11 }, same[] = { 4, 4, 4 };

	assert_float_equal(stats_min_detectable_effect(5, 5, 0.12, 0.05, 0.8), 0.212626, 1e-5);
	assert_float_equal(stats_min_detectable_effect(10, 10, 0.05, 0.05, 0.8), 0.062645,
			    1e-5);
	assert_true(isnan(stats_min_detectable_effect(0, 5, 0.1, 0.05, 0.8)));
	assert_true(isnan(stats_min_detectable_effect(5, 5, -0.1, 0.05, 0.8)));
	assert_true(isnan(stats_min_detectable_effect(5, 5, 0.1, 1.5, 0.8)));
	assert_float_equal(stats_mean_ci_rel_halfwidth(v, 3, 0.05), 0.248414, 1e-5);
	assert_float_equal(stats_mean_ci_rel_halfwidth(same, 3, 0.05), 0, 0);
	assert_true(isnan(stats_mean_ci_rel_halfwidth(v, 1, 0.05)));
}

/* The inverse, worked by hand: 2 (1.959964 + 0.841621)^2 = 15.697758; 3.1 % CV for a
 * 2 % change: 15.697758 * 0.031^2 / 0.02^2 = 37.71 -> 38; 12 % for 10 %: 22.60 -> 23;
 * and the effect 5 + 5 values at 12 % can see (0.212626) needs 5, not 6. */
static void test_stats_reps_for_effect(void **state)
{
	double e = stats_min_detectable_effect(5, 5, 0.12, 0.05, 0.8);

	assert_float_equal(stats_reps_for_effect(0.031, 0.02, 0.05, 0.8), 38, 0);
	assert_float_equal(stats_reps_for_effect(0.12, 0.10, 0.05, 0.8), 23, 0);
	assert_float_equal(stats_reps_for_effect(0.12, e, 0.05, 0.8), 5, 0);
	assert_float_equal(stats_reps_for_effect(0, 0.02, 0.05, 0.8), 1, 0);
	assert_float_equal(stats_reps_for_effect(0.001, 0.02, 0.05, 0.8), 1, 0);
	assert_true(isnan(stats_reps_for_effect(0.1, 0, 0.05, 0.8)));
	assert_true(isnan(stats_reps_for_effect(-0.1, 0.02, 0.05, 0.8)));
	assert_true(isnan(stats_reps_for_effect(0.1, 0.02, 0.05, 1)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats_basic),
		cmocka_unit_test(test_stats_median_even),
		cmocka_unit_test(test_stats_rate_mean),
		cmocka_unit_test(test_stats_empty_and_one),
		cmocka_unit_test(test_stats_summarize),
		cmocka_unit_test(test_stats_large_exact),
		cmocka_unit_test(test_stats_welch_reference),
		cmocka_unit_test(test_stats_mann_whitney_reference),
		cmocka_unit_test(test_stats_mann_whitney_edges),
		cmocka_unit_test(test_stats_welch_edges),
		cmocka_unit_test(test_stats_distributions),
		cmocka_unit_test(test_stats_kind),
		cmocka_unit_test(test_stats_skewness),
		cmocka_unit_test(test_stats_min_detectable_effect),
		cmocka_unit_test(test_stats_reps_for_effect),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

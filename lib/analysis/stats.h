/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* stats.h - descriptive statistics over arrays of doubles.
 *
 * The few numbers benchmark tables need: mean, sample standard deviation (n - 1), min,
 * max, spread (half the range, the "± spread" kernel developers post), median and
 * the weighted mean (a rate's mean over windows of unequal duration).
 * Used by lib/report/report_*.c and, later, by comparisons and bisection.
 *
 * The second half holds what lib/analysis/compare.c decides with: a metric's kind (which
 * way is better) and its mean (arithmetic for every kind: a rate's windows are of equal
 * time, so total work over total time is their arithmetic mean), sample skewness, the
 * Student t and normal distributions (through the regularized incomplete beta function,
 * evaluated by its continued fraction with the modified Lentz method), Welch's t-test and
 * the Mann-Whitney U test (exact distribution for small samples without ties, normal
 * approximation with tie and continuity correction otherwise). docs/analysis.md gives
 * the reasons; tests/unit/test_stats.c checks them against R.
 *
 * Conventions: an empty input gives NAN (the value is undefined, not zero); NAN values
 * in the input are not filtered, callers pass only the values they have. Pure functions,
 * thread-safe; stats_median and stats_mann_whitney allocate scratch memory.
 */
#ifndef BPFLAB_STATS_H
#define BPFLAB_STATS_H

#include <stdbool.h>
#include <stddef.h>

struct stats_summary {
	size_t n;
	double mean;
	double stddev;			/* sample (n - 1); NAN when n < 2 */
	double min;
	double max;
	double spread;			/* (max - min) / 2 */
	double median;
};

/* Arithmetic mean of the N values at V; NAN when N is 0. */
double stats_mean(const double *v, size_t n);
/* Sample standard deviation (divisor N - 1); NAN when N < 2. */
double stats_stddev(const double *v, size_t n);
/* Smallest / largest value; NAN when N is 0. */
double stats_min(const double *v, size_t n);
double stats_max(const double *v, size_t n);
/* Half the range, (max - min) / 2; NAN when N is 0, 0 for one value. */
double stats_spread(const double *v, size_t n);
/* Median (mean of the two middle values for even N) of V, which is not modified; NAN
 * when N is 0 or on ENOMEM (errno set). */
double stats_median(const double *v, size_t n);
/* Weighted mean sum(v w) / sum(w) of the N values at V with weights W: a rate's mean
 * over windows of durations W (total work over total time; 40 Mpps for 1 s and 60 Mpps
 * for 3 s give 55). NAN when N is 0, a weight is negative or all weights are 0. */
double stats_wmean(const double *v, const double *w, size_t n);

/* Fill OUT with all of the above (except the weighted mean) for the N values at V.
 * Returns 0, -EINVAL when N is 0 (OUT then holds n = 0 and NANs), or -ENOMEM. */
int stats_summarize(const double *v, size_t n, struct stats_summary *out);

/* What a metric measures, which decides which way is better (a rate higher, a time or
 * cost lower) but not its mean: every kind is averaged arithmetically (see
 * stats_kind_mean). */
enum stats_kind {
	STATS_KIND_OTHER,
	STATS_KIND_RATE,
	STATS_KIND_TIME,
};

/* The kind of a metric from its unit: "pps", "bps", anything ending in "ps" or "/s",
 * "rate", "hz", and per-instruction rates of icount guests ("pkt/Ginsn") -> RATE; "ns", "us", "ms", "s", "cycles", "insns", "time" -> TIME (case
 * does not matter); NULL or anything else -> OTHER. */
enum stats_kind stats_kind_for_unit(const char *unit);
/* "rate", "time" or "other". */
const char *stats_kind_name(enum stats_kind kind);
/* The mean of the N windows' values of a metric of KIND, the one every command and
 * export shows: the arithmetic mean, for every kind. A rate (pps) is measured over
 * windows of equal time (a plan's traffic.duration), and total work over total time of
 * such windows is their arithmetic mean (40 and 60 Mpps give 50); the harmonic mean
 * would be right only for windows of equal work (equal frames), which bpflab's are not.
 * Samples do not carry their window's duration: windows of one plan have equal duration.
 * Were windows of one series to differ in duration, this is where stats_wmean with the
 * durations as weights would go. Stddev, intervals and tests (stats_welch,
 * stats_mann_whitney, stats_mean_ci_rel_halfwidth) work on the same values, so mean and
 * test agree. NAN when N is 0. */
double stats_kind_mean(enum stats_kind kind, const double *v, size_t n);
/* Sample skewness, the adjusted Fisher-Pearson coefficient G1 (what R's e1071 calls
 * type 2 and spreadsheets call SKEW); NAN when N < 3 or all values are equal. */
double stats_skewness(const double *v, size_t n);

/* Regularized incomplete beta function I_x(a, b) for a, b > 0 and 0 <= x <= 1; NAN
 * outside that domain. Accurate to about 1e-14 relative. */
double stats_betai(double a, double b, double x);
/* Student's t distribution with DF > 0 degrees of freedom: P(T <= t), and its inverse
 * for 0 < P < 1 (NAN outside). */
double stats_t_cdf(double t, double df);
double stats_t_quantile(double p, double df);
/* Standard normal distribution: P(Z <= z), and its inverse for 0 < P < 1 (NAN outside). */
double stats_norm_cdf(double z);
double stats_norm_quantile(double p);

struct stats_welch {
	double diff;			/* mean(a) - mean(b) */
	double se;			/* sqrt(var_a / n_a + var_b / n_b) */
	double t;			/* diff / se, as R's t.test(a, b) */
	double df;			/* Welch-Satterthwaite */
	double p;			/* two-sided */
};

/* Welch's unequal-variances t-test of A (N_A values) against B (N_B values) into OUT.
 * When both samples are constant (se = 0) the difference is exact: t is 0 and p 1 for
 * equal means, t is +-INFINITY and p 0 otherwise, df is N_A + N_B - 2.
 * Returns 0, or -EINVAL when either sample has fewer than 2 values. */
int stats_welch(const double *a, size_t n_a, const double *b, size_t n_b,
		struct stats_welch *out);

/* Samples up to this size (each) without ties get the exact Mann-Whitney distribution;
 * 30 keeps every count of the distribution exact in 64-bit integers (C(60,30) < 2^57). */
#define STATS_MW_EXACT_MAX 30

struct stats_mw {
	double u;			/* U of A: rank sum of A - n_a (n_a + 1) / 2, R's W */
	double p;			/* two-sided */
	double z;			/* the normal approximation's z (with continuity
					 * correction); NAN when exact */
	bool exact;			/* p from the exact distribution */
	bool ties;			/* some values occur more than once */
};

/* The Mann-Whitney U (Wilcoxon rank-sum) test of A against B into OUT, with midranks for
 * ties. Exact two-sided p when there are no ties and both samples have at most
 * STATS_MW_EXACT_MAX values (the distribution of U counted by dynamic programming);
 * otherwise the normal approximation with tie and continuity correction (R's
 * wilcox.test(correct = TRUE)). When every value is the same, p is 1.
 * Returns 0, -EINVAL when a sample is empty, or -ENOMEM. */
int stats_mann_whitney(const double *a, size_t n_a, const double *b, size_t n_b,
		       struct stats_mw *out);
/* The smallest two-sided p the exact Mann-Whitney test can give for these sizes,
 * 2 / C(n_a + n_b, n_a) (at most 1): below alpha only with enough values. */
double stats_mw_min_p(size_t n_a, size_t n_b);

/* The smallest relative change two samples of N_A and N_B values can resolve when each
 * value varies with coefficient of variation CV (stddev / mean, a fraction): the
 * textbook (z_{1-ALPHA/2} + z_{POWER}) CV sqrt(1/N_A + 1/N_B), a fraction of the mean
 * (0.21 for 21 %). 5 + 5 values at 12 % CV, alpha 0.05, power 0.8: 0.2126. NAN when a
 * size is 0, CV is negative or ALPHA or POWER is outside (0, 1). */
double stats_min_detectable_effect(size_t n_a, size_t n_b, double cv, double alpha,
				   double power);
/* Half-width of the two-sided (1 - ALPHA) Student t confidence interval of the mean of
 * the N values at V, relative to their (arithmetic) mean, as a fraction:
 * t_{1-ALPHA/2, N-1} s / (sqrt(N) |mean|). 0 for N >= 2 equal values; NAN when N < 2
 * or the mean is 0. */
double stats_mean_ci_rel_halfwidth(const double *v, size_t n, double alpha);

/* The inverse of stats_min_detectable_effect for equal sides: how many values each side
 * needs to resolve a relative change EFFECT (a fraction) when each value varies with
 * coefficient of variation CV, ceil(2 (z_{1-ALPHA/2} + z_{POWER})^2 CV^2 / EFFECT^2),
 * at least 1 (a value that is within 1e-9 of an integer is that integer, so that the
 * effect stats_min_detectable_effect gives for n + n comes back as n). 3.1 % CV for a
 * 2 % change, alpha 0.05, power 0.8: 38. NAN when EFFECT is not positive, CV is
 * negative or ALPHA or POWER is outside (0, 1). Large counts are returned as they are:
 * the caller caps them. */
double stats_reps_for_effect(double cv, double effect, double alpha, double power);

#endif

/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* compare.h - the decision of `bpflab result compare`: did the candidate change anything,
 * by how much, beyond the noise?
 *
 * compare_samples takes the repetitions of one metric on the baseline side (A) and on the
 * candidate side (B) and returns the numbers a row of the compare table shows (n, the
 * mean that fits the metric's kind, stddev, spread, delta %) and a verdict:
 *
 *  - the test: Welch's t-test; Mann-Whitney U when either side has fewer than `few`
 *    values (too few to trust normality) or is skewed (|G1| > skew_limit); none when a
 *    side has fewer than 2 values; an exact comparison when both sides are constant
 *    (instruction counts under QEMU icount are);
 *  - DIFFERENT: p < alpha and |delta| >= min_effect;
 *  - SAME: p < alpha but |delta| < min_effect (significant but negligible: 0.3 % on a
 *    quiet machine), or p >= alpha and the (1 - 2 alpha) confidence interval of the
 *    difference lies inside +-min_effect (equivalence, Schuirmann's two one-sided tests);
 *  - UNKNOWN otherwise, with more_reps: how many more repetitions per side should settle
 *    it, from n = 2 (z_{1-alpha/2} + z_{power})^2 s^2 / delta^2 (s^2 the pooled variance,
 *    delta the minimum effect), and at least enough for the chosen test to be able to
 *    reach alpha at all.
 *
 * With a run-to-run component (opts run_rel_var, run_df: the sides are whole runs and
 * earlier runs of their plan give it) the test is Welch's on var(mean) = s^2/n +
 * sigma_b^2 per side, Satterthwaite's df with the component's own, whatever the sizes
 * and skew (the runs, not the repetitions, are the independent draws); the equivalence
 * interval likewise; more_reps knows repetitions cannot shrink sigma_b (run_limited).
 *
 * docs/analysis.md gives the reasons. Pure and thread-safe.
 */
#ifndef BPFLAB_COMPARE_H
#define BPFLAB_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/stats.h"

enum compare_verdict {
	COMPARE_UNKNOWN,
	COMPARE_SAME,
	COMPARE_DIFFERENT,
};

enum compare_test {
	COMPARE_TEST_NONE,		/* a side has fewer than 2 values */
	COMPARE_TEST_WELCH,
	COMPARE_TEST_MANN_WHITNEY,
	COMPARE_TEST_CONSTANT,		/* both sides constant: the difference is exact */
};

/* Which way is better. AUTO: higher for rates, lower for times, none otherwise. */
enum compare_direction {
	COMPARE_DIR_AUTO,
	COMPARE_DIR_HIGHER,
	COMPARE_DIR_LOWER,
	COMPARE_DIR_NONE,
};

/* For a DIFFERENT verdict: is the candidate better or worse. */
enum compare_change {
	COMPARE_CHANGE_NONE,		/* not DIFFERENT, or no direction */
	COMPARE_CHANGE_BETTER,
	COMPARE_CHANGE_WORSE,
};

struct compare_opts {
	double alpha;			/* significance; 0.05 */
	double min_effect;		/* least relative change that matters; 0.02 */
	double power;			/* of the repetition estimate; 0.8 */
	unsigned int max_more_reps;	/* cap of the estimate; 100 */
	size_t few;			/* fewer values on a side: Mann-Whitney; 5 */
	double skew_limit;		/* |G1| above this on a side: Mann-Whitney; 1.0 */
	enum compare_direction direction; /* AUTO */
	/* the run-to-run variance component (lib/analysis/runspread.h): sigma_b^2 over
	 * the squared mean of run means, added to each side's variance of the mean as
	 * run_rel_var x mean^2, and its degrees of freedom; run_df 0: none known, the
	 * repetitions are taken as independent (the verdict of a comparison inside one
	 * run, or of runs without history) */
	double run_rel_var;
	double run_df;
};

#define COMPARE_OPTS(NAME, ...)                                                         \
	struct compare_opts NAME = { __VA_ARGS__ }

struct compare_result {
	enum stats_kind kind;
	size_t n_a, n_b;
	double mean_a, mean_b;		/* stats_kind_mean: arithmetic, rates too */
	double stddev_a, stddev_b;	/* NAN below 2 values */
	double spread_a, spread_b;	/* half range */
	double skew_a, skew_b;		/* G1; NAN below 3 values or when constant */
	double delta_pct;		/* 100 (mean_b - mean_a) / mean_a; +-INFINITY from 0 */
	double ci_lo_pct, ci_hi_pct;	/* (1 - 2 alpha) CI of mean(b) - mean(a)
					 * (arithmetic, Welch), % of mean(a); NAN when
					 * there is no test */
	enum compare_test test;
	double statistic;		/* Welch's t (b against a) or U of b; NAN if none */
	double df;			/* Welch's degrees of freedom; NAN otherwise */
	double p;			/* two-sided; NAN when there is no test */
	enum compare_verdict verdict;
	enum compare_change change;
	unsigned int more_reps;		/* UNKNOWN: repetitions to add to each side
					 * (counted from the smaller); 0 otherwise */
	bool more_reps_capped;		/* the estimate was above max_more_reps */
	bool run_limited;		/* UNKNOWN: the run-to-run component alone is
					 * more than min_effect allows: no number of
					 * repetitions settles it (more_reps 0) */
};

/* Compare the N_A baseline values at A with the N_B candidate values at B of a metric of
 * KIND, under OPTS (NULL for the defaults; a field left 0 takes its default), into OUT.
 * Returns 0, or -EINVAL when a side is empty, a value is not finite, or an option is out
 * of range (alpha or power outside (0, 1), min_effect < 0), or -ENOMEM. */
int compare_samples(const double *a, size_t n_a, const double *b, size_t n_b,
		    enum stats_kind kind, const struct compare_opts *opts,
		    struct compare_result *out);

/* "SAME", "DIFFERENT", "UNKNOWN". */
const char *compare_verdict_name(enum compare_verdict v);
/* "welch", "mann-whitney", "constant", "none". */
const char *compare_test_name(enum compare_test t);
/* "better", "worse", "" for none. */
const char *compare_change_name(enum compare_change c);

/* The p-value of a comparison by TEST as the texts print it, into OUT (LEN >= 16):
 * "exact" for COMPARE_TEST_CONSTANT (both sides without variance: nothing was tested,
 * the means decide, and P is 1 or 0 only by convention), "no test" when P is NAN, else
 * "p 0.0312" (three significant digits). One side constant and the other not is an
 * ordinary test and prints its p. Returns OUT. */
const char *compare_p_text(enum compare_test test, double p, char *out, size_t len);

#endif

// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* compare.c - see compare.h. The verdict is made in three steps: describe both sides,
 * run the test that suits them (and the Welch interval the equivalence check needs), then
 * apply the rules; the repetition estimate is only worked out for UNKNOWN. */
#include "analysis/compare.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

/* An option field, or DEF when it is 0 (or OPTS is NULL). */
#define OPT(o, f, def) ((o) && (o)->f ? (o)->f : (def))

/* Sizes at which the estimate stops looking: a noise this large for this effect needs
 * fixing the machine, not more repetitions. */
#define MORE_REPS_SEARCH 100000

const char *compare_verdict_name(enum compare_verdict v)
{
	switch (v) {
	case COMPARE_SAME:
		return "SAME";
	case COMPARE_DIFFERENT:
		return "DIFFERENT";
	default:
		return "UNKNOWN";
	}
}

const char *compare_test_name(enum compare_test t)
{
	switch (t) {
	case COMPARE_TEST_WELCH:
		return "welch";
	case COMPARE_TEST_MANN_WHITNEY:
		return "mann-whitney";
	case COMPARE_TEST_CONSTANT:
		return "constant";
	default:
		return "none";
	}
}

const char *compare_change_name(enum compare_change c)
{
	switch (c) {
	case COMPARE_CHANGE_BETTER:
		return "better";
	case COMPARE_CHANGE_WORSE:
		return "worse";
	default:
		return "";
	}
}

const char *compare_p_text(enum compare_test test, double p, char *out, size_t len)
{
	if (test == COMPARE_TEST_CONSTANT)
		snprintf(out, len, "exact");
	else if (isnan(p))
		snprintf(out, len, "no test");
	else
		snprintf(out, len, "p %.3g", p);
	return out;
}

static bool all_finite(const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return false;
	return true;
}

/* Sample variance, 0 for fewer than 2 values. */
static double var_or_zero(const double *v, size_t n)
{
	double s = stats_stddev(v, n);

	return isnan(s) ? 0 : s * s;
}

/* Repetitions per side that settle it: the sample size that detects the minimum effect
 * DELTA (absolute) with POWER at ALPHA given variance S2, enlarged by the Mann-Whitney
 * test's asymptotic relative efficiency 3/pi when that test decides, and at least the
 * size where the test can reach alpha (the exact Mann-Whitney cannot below 4 + 4).
 * Returns the number to add to the smaller side, at least 1; NAN when the run-to-run
 * part VR of the difference's variance alone is beyond what DELTA allows. */
static double more_reps(const struct compare_result *r, double s2, double vr, double delta,
			double alpha, double power, size_t few, bool mw)
{
	size_t have = r->n_a < r->n_b ? r->n_a : r->n_b, need = have;
	double z = stats_norm_quantile(1 - alpha / 2) + stats_norm_quantile(power), n;

	/* VR, the run-to-run part of var(mean_b - mean_a), does not shrink with n: what is
	 * left of (delta / z)^2 for the repetitions (NAN: nothing, no n will do) */
	if (vr > 0 && delta > 0 && z * z * vr >= delta * delta)
		return NAN;
	if (s2 > 0 && delta > 0) {
		n = 2 * z * z * s2 / (delta * delta - z * z * vr);
		if (mw)
			n /= 3 / M_PI;
		n = ceil(n);
		if (n > MORE_REPS_SEARCH)
			return INFINITY;
		if (n > need)
			need = (size_t)n;
	} else if (!(s2 > 0) && have < 2) {
		/* no variance to go on yet: enough values for the t-test */
		need = few;
	}
	/* a side below `few` is judged by Mann-Whitney: make sure it can reach alpha */
	while (need < few && stats_mw_min_p(r->n_a + need - have, r->n_b + need - have) >= alpha)
		need++;
	return need > have ? (double)(need - have) : 1;
}

/* Welch's test of B against A with the run-to-run part VR (of var(mean_b - mean_a),
 * RUN_DF degrees of freedom) added to the repetitions' s_a^2/n_a + s_b^2/n_b:
 * Satterthwaite's df over the three parts. Sets OUT's test, statistic, df, p, and the
 * half-width of the (1 - 2 ALPHA) interval in ci_lo_pct and ci_hi_pct (the caller
 * centres it). */
static void run_welch(const double *a, size_t n_a, const double *b, size_t n_b, double vr,
		      double run_df, double alpha, struct compare_result *out)
{
	double va = var_or_zero(a, n_a) / (double)n_a, vb = var_or_zero(b, n_b) / (double)n_b;
	double se2 = va + vb + vr, den = vr * vr / run_df, df, t, h;

	den += va * va / (double)(n_a - 1) + vb * vb / (double)(n_b - 1);
	df = se2 * se2 / den;
	t = (stats_mean(b, n_b) - stats_mean(a, n_a)) / sqrt(se2);
	h = stats_t_quantile(1 - alpha, df) * sqrt(se2);
	out->test = COMPARE_TEST_WELCH;
	out->statistic = t;
	out->df = df;
	out->p = 2 * stats_t_cdf(-fabs(t), df);
	out->ci_lo_pct = out->ci_hi_pct = h;
}

int compare_samples(const double *a, size_t n_a, const double *b, size_t n_b,
		    enum stats_kind kind, const struct compare_opts *opts,
		    struct compare_result *out)
{
	double alpha, min_effect, power, skew_limit, am_a, d, s2, delta, more, vr;
	double run_rel_var, run_df;
	enum compare_direction dir;
	unsigned int max_more;
	size_t few;
	bool mw;
	int err;

	alpha = OPT(opts, alpha, 0.05);
	min_effect = OPT(opts, min_effect, 0.02);
	power = OPT(opts, power, 0.8);
	max_more = OPT(opts, max_more_reps, 100);
	few = OPT(opts, few, 5);
	skew_limit = OPT(opts, skew_limit, 1.0);
	dir = OPT(opts, direction, COMPARE_DIR_AUTO);
	run_rel_var = OPT(opts, run_rel_var, 0.0);
	run_df = OPT(opts, run_df, 0.0);
	if (!(run_rel_var >= 0) || !(run_df >= 0) || !isfinite(run_rel_var) || !isfinite(run_df))
		return -EINVAL;
	if (!(alpha > 0 && alpha < 1) || !(power > 0 && power < 1) || !(min_effect >= 0) ||
	    !n_a || !n_b || !all_finite(a, n_a) || !all_finite(b, n_b))
		return -EINVAL;
	if (dir == COMPARE_DIR_AUTO)
		dir = kind == STATS_KIND_RATE ? COMPARE_DIR_HIGHER :
		      kind == STATS_KIND_TIME ? COMPARE_DIR_LOWER : COMPARE_DIR_NONE;

	*out = (struct compare_result){
		.kind = kind, .n_a = n_a, .n_b = n_b,
		.mean_a = stats_kind_mean(kind, a, n_a),
		.mean_b = stats_kind_mean(kind, b, n_b),
		.stddev_a = stats_stddev(a, n_a), .stddev_b = stats_stddev(b, n_b),
		.spread_a = stats_spread(a, n_a), .spread_b = stats_spread(b, n_b),
		.skew_a = stats_skewness(a, n_a), .skew_b = stats_skewness(b, n_b),
		.ci_lo_pct = NAN, .ci_hi_pct = NAN,
		.test = COMPARE_TEST_NONE, .statistic = NAN, .df = NAN, .p = NAN,
		.verdict = COMPARE_UNKNOWN, .change = COMPARE_CHANGE_NONE,
	};
	if (out->mean_a != 0)
		out->delta_pct = 100 * (out->mean_b - out->mean_a) / fabs(out->mean_a);
	else
		out->delta_pct = out->mean_b == 0 ? 0 : copysign(INFINITY, out->mean_b);
	am_a = stats_mean(a, n_a);
	/* the minimum effect in the values' units, relative to the baseline */
	delta = min_effect * fabs(out->mean_a);
	s2 = n_a + n_b > 2 ? ((n_a - 1) * var_or_zero(a, n_a) + (n_b - 1) * var_or_zero(b, n_b)) /
				     (double)(n_a + n_b - 2) : 0;

	mw = false;
	vr = 0;
	if (n_a >= 2 && n_b >= 2) {
		struct stats_welch w;

		err = stats_welch(b, n_b, a, n_a, &w);
		if (err)
			return err;
		d = w.diff;
		/* the run-to-run component, relative: none where both means are 0 (a port
		 * that receives nothing), whose values then compare as they are */
		if (run_df > 0 && run_rel_var > 0) {
			double am_b = stats_mean(b, n_b);

			vr = run_rel_var * (am_a * am_a + am_b * am_b);
		}
		if (vr > 0) {
			run_welch(a, n_a, b, n_b, vr, run_df, alpha, out);
			out->ci_lo_pct = d - out->ci_lo_pct;	/* run_welch: the half-width */
			out->ci_hi_pct = d + out->ci_hi_pct;
		} else if (w.se == 0) {
			out->test = COMPARE_TEST_CONSTANT;
			out->p = w.p;
			out->statistic = w.t;
			out->ci_lo_pct = out->ci_hi_pct = d;
		} else {
			double h = stats_t_quantile(1 - alpha, w.df) * w.se;

			out->ci_lo_pct = d - h;
			out->ci_hi_pct = d + h;
			mw = n_a < few || n_b < few || fabs(out->skew_a) > skew_limit ||
			     fabs(out->skew_b) > skew_limit;
			if (mw) {
				struct stats_mw m;

				err = stats_mann_whitney(b, n_b, a, n_a, &m);
				if (err)
					return err;
				out->test = COMPARE_TEST_MANN_WHITNEY;
				out->statistic = m.u;
				out->p = m.p;
			} else {
				out->test = COMPARE_TEST_WELCH;
				out->statistic = w.t;
				out->df = w.df;
				out->p = w.p;
			}
		}
		/* the interval in % of the baseline's mean (arithmetic, as mean_a and the
		 * tests: one basis for mean, stddev, interval and test) */
		if (am_a != 0) {
			out->ci_lo_pct *= 100 / fabs(am_a);
			out->ci_hi_pct *= 100 / fabs(am_a);
		} else if (out->ci_lo_pct != 0 || out->ci_hi_pct != 0) {
			/* no scale to be relative to: only the sign is left */
			out->ci_lo_pct = out->ci_lo_pct ? copysign(INFINITY, out->ci_lo_pct) : 0;
			out->ci_hi_pct = out->ci_hi_pct ? copysign(INFINITY, out->ci_hi_pct) : 0;
		}
	}

	if (!isnan(out->p)) {
		double eff = 100 * min_effect;

		if (out->p < alpha)
			out->verdict = fabs(out->delta_pct) >= eff ? COMPARE_DIFFERENT : COMPARE_SAME;
		else if (out->ci_lo_pct > -eff && out->ci_hi_pct < eff)
			out->verdict = COMPARE_SAME;
	}
	if (out->verdict == COMPARE_DIFFERENT && dir != COMPARE_DIR_NONE) {
		bool up = out->mean_b > out->mean_a;

		out->change = up == (dir == COMPARE_DIR_HIGHER) ? COMPARE_CHANGE_BETTER :
								  COMPARE_CHANGE_WORSE;
	}
	if (out->verdict == COMPARE_UNKNOWN) {
		more = more_reps(out, s2, vr, delta, alpha, power, few,
				 out->test == COMPARE_TEST_MANN_WHITNEY);
		if (isnan(more)) {
			out->more_reps = 0;
			out->run_limited = true;
		} else if (more > max_more) {
			out->more_reps = max_more;
			out->more_reps_capped = true;
		} else {
			out->more_reps = (unsigned int)more;
		}
	}
	return 0;
}

// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* stats.c - see stats.h. Sums are accumulated in long double and the variance in two
 * passes (mean first), which keeps pps values around 1e7 exact to the last digit that
 * tables show.
 *
 * The distributions rest on one function, the regularized incomplete beta I_x(a, b):
 * Student's t tail is I_{df/(df+t^2)}(df/2, 1/2). It is evaluated as in Numerical
 * Recipes (betai/betacf): the prefactor x^a (1-x)^b / (a B(a,b)) times the continued
 * fraction of Abramowitz & Stegun 26.5.8, run by the modified Lentz method, on the side
 * of x where the fraction converges fast (x < (a+1)/(a+b+2), else via the symmetry
 * I_x(a,b) = 1 - I_{1-x}(b,a)). lgamma_r keeps it thread-safe. Quantiles are found by
 * bisection, which is slow next to a rational approximation but cannot be wrong by more
 * than its stopping width, and compare needs only a few per call. */
#include "analysis/stats.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

double stats_mean(const double *v, size_t n)
{
	long double sum = 0;
	size_t i;

	if (!n)
		return NAN;
	for (i = 0; i < n; i++)
		sum += v[i];
	return (double)(sum / n);
}

/* The sum over V's N values of the squared deviations from MEAN and, when M3 is not
 * NULL, in *M3 that of the cubed ones; long double sums. */
static long double deviation_sums(const double *v, size_t n, double mean, long double *m3)
{
	long double m2 = 0;
	size_t i;

	if (m3)
		*m3 = 0;
	for (i = 0; i < n; i++) {
		long double d = v[i] - mean;

		m2 += d * d;
		if (m3)
			*m3 += d * d * d;
	}
	return m2;
}

/* Sample variance (n - 1) with long double sums. */
static double variance(const double *v, size_t n, double mean)
{
	return (double)(deviation_sums(v, n, mean, NULL) / (n - 1));
}

double stats_stddev(const double *v, size_t n)
{
	if (n < 2)
		return NAN;
	return sqrt(variance(v, n, stats_mean(v, n)));
}

/* The largest (MAX) or the smallest of the N values at V; NAN for none. */
static double extreme(const double *v, size_t n, bool max)
{
	double m;
	size_t i;

	if (!n)
		return NAN;
	m = v[0];
	for (i = 1; i < n; i++)
		if (max ? v[i] > m : v[i] < m)
			m = v[i];
	return m;
}

double stats_min(const double *v, size_t n)
{
	return extreme(v, n, false);
}

double stats_max(const double *v, size_t n)
{
	return extreme(v, n, true);
}

double stats_spread(const double *v, size_t n)
{
	if (!n)
		return NAN;
	return (stats_max(v, n) - stats_min(v, n)) / 2;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double stats_median(const double *v, size_t n)
{
	double *tmp, med;

	if (!n)
		return NAN;
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp) {
		errno = ENOMEM;
		return NAN;
	}
	memcpy(tmp, v, n * sizeof(*tmp));
	qsort(tmp, n, sizeof(*tmp), cmp_double);
	med = n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
	free(tmp);
	return med;
}

double stats_wmean(const double *v, const double *w, size_t n)
{
	long double sum = 0, wsum = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!(w[i] >= 0))
			return NAN;
		sum += (long double)v[i] * w[i];
		wsum += w[i];
	}
	if (!(wsum > 0))
		return NAN;
	return (double)(sum / wsum);
}

int stats_summarize(const double *v, size_t n, struct stats_summary *out)
{
	out->n = n;
	out->mean = stats_mean(v, n);
	out->stddev = stats_stddev(v, n);
	out->min = stats_min(v, n);
	out->max = stats_max(v, n);
	out->spread = stats_spread(v, n);
	out->median = stats_median(v, n);
	if (!n)
		return -EINVAL;
	return isnan(out->median) ? -ENOMEM : 0;
}

enum stats_kind stats_kind_for_unit(const char *unit)
{
	static const char *const times[] = { "ns", "us", "ms", "s", "cycles", "insns",
					     "time" };
	size_t len, i;

	if (!unit || !*unit)
		return STATS_KIND_OTHER;
	for (i = 0; i < sizeof(times) / sizeof(times[0]); i++)
		if (!strcasecmp(unit, times[i]))
			return STATS_KIND_TIME;
	len = strlen(unit);
	if (!strcasecmp(unit, "rate") || !strcasecmp(unit, "hz") ||
	    (len > 2 && !strcasecmp(unit + len - 2, "/s")) ||
	    (len > 2 && !strcasecmp(unit + len - 2, "ps")) ||
	    (len > 6 && !strcasecmp(unit + len - 6, "/Ginsn")))
		return STATS_KIND_RATE;
	return STATS_KIND_OTHER;
}

const char *stats_kind_name(enum stats_kind kind)
{
	switch (kind) {
	case STATS_KIND_RATE:
		return "rate";
	case STATS_KIND_TIME:
		return "time";
	default:
		return "other";
	}
}

double stats_kind_mean(enum stats_kind kind, const double *v, size_t n)
{
	/* A rate's window is of equal time (traffic.duration), so total work over total
	 * time is the arithmetic mean, as for times and costs: KIND no longer chooses. */
	(void)kind;
	return stats_mean(v, n);
}

double stats_skewness(const double *v, size_t n)
{
	long double m2, m3;
	double g1;

	if (n < 3)
		return NAN;
	m2 = deviation_sums(v, n, stats_mean(v, n), &m3);
	m2 /= n;
	m3 /= n;
	if (m2 <= 0)
		return NAN;
	g1 = (double)(m3 / powl(m2, 1.5L));
	return g1 * sqrt((double)n * (n - 1)) / (n - 2);
}

#define LENTZ_TINY 1e-300

/* V, or LENTZ_TINY in place of a value so near zero that dividing by it would blow up. */
static double lentz_nonzero(double v)
{
	return fabs(v) < LENTZ_TINY ? LENTZ_TINY : v;
}

/* One step of the modified Lentz method with partial numerator AA: the new C and D,
 * and the factor C D the fraction is multiplied by. */
static double lentz_step(double aa, double *c, double *d)
{
	*d = 1 / lentz_nonzero(1 + aa * *d);
	*c = lentz_nonzero(1 + aa / *c);
	return *d * *c;
}

/* The continued fraction for I_x(a, b) (A&S 26.5.8) by the modified Lentz method:
 * h = b0 + a1/(b1 + a2/(b2 + ...)) built as a product of C_j D_j, with tiny values in
 * place of zeros so no step divides by zero. Converges fast for x < (a+1)/(a+b+2). */
static double betacf(double a, double b, double x)
{
	const double eps = 1e-16;
	double qab = a + b, qap = a + 1, qam = a - 1;
	double c = 1, d = 1 / lentz_nonzero(1 - qab * x / qap), h = d, del;
	int m;

	for (m = 1; m <= 10000; m++) {
		int m2 = 2 * m;

		/* even step: d_{2m} = m (b - m) x / ((a + 2m - 1)(a + 2m)) */
		h *= lentz_step(m * (b - m) * x / ((qam + m2) * (a + m2)), &c, &d);
		/* odd step: d_{2m+1} = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)) */
		del = lentz_step(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)), &c, &d);
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

double stats_betai(double a, double b, double x)
{
	int sg;
	double lbt;

	if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1))
		return NAN;
	if (x == 0)
		return 0;
	if (x == 1)
		return 1;
	/* log of x^a (1-x)^b / B(a, b) */
	lbt = lgamma_r(a + b, &sg) - lgamma_r(a, &sg) - lgamma_r(b, &sg) + a * log(x) +
	      b * log1p(-x);
	if (x < (a + 1) / (a + b + 2))
		return exp(lbt) * betacf(a, b, x) / a;
	return 1 - exp(lbt) * betacf(b, a, 1 - x) / b;
}

/* P(|T| > |t|) for Student's t with DF degrees of freedom. */
static double t_two_sided(double t, double df)
{
	if (isinf(t))
		return 0;
	return stats_betai(df / 2, 0.5, df / (df + t * t));
}

double stats_t_cdf(double t, double df)
{
	double tail;

	if (isnan(t) || !(df > 0))
		return NAN;
	tail = t_two_sided(t, df) / 2;
	return t < 0 ? tail : 1 - tail;
}

double stats_t_quantile(double p, double df)
{
	double lo = 0, hi = 1, target, x = 0.5, t;
	int i;

	if (!(p > 0) || !(p < 1) || !(df > 0))
		return NAN;
	if (p == 0.5)
		return 0;
	/* the two-sided tail I_x(df/2, 1/2) grows with x = df / (df + t^2): find the x
	 * whose tail is 2 min(p, 1 - p) */
	target = 2 * (p < 0.5 ? p : 1 - p);
	for (i = 0; i < 200; i++) {
		x = (lo + hi) / 2;
		if (stats_betai(df / 2, 0.5, x) < target)
			lo = x;
		else
			hi = x;
		if (hi - lo <= 1e-17 * hi)
			break;
	}
	t = sqrt(df * (1 - x) / x);
	return p < 0.5 ? -t : t;
}

double stats_norm_cdf(double z)
{
	if (isnan(z))
		return NAN;
	return 0.5 * erfc(-z / M_SQRT2);
}

double stats_norm_quantile(double p)
{
	double lo = -40, hi = 40, z = 0;
	int i;

	if (!(p > 0) || !(p < 1))
		return NAN;
	for (i = 0; i < 200; i++) {
		z = (lo + hi) / 2;
		if (stats_norm_cdf(z) < p)
			lo = z;
		else
			hi = z;
		if (hi - lo <= 1e-15 * (fabs(z) > 1 ? fabs(z) : 1))
			break;
	}
	return (lo + hi) / 2;
}

int stats_welch(const double *a, size_t n_a, const double *b, size_t n_b,
		struct stats_welch *out)
{
	double ma, mb, qa, qb, se2;

	if (n_a < 2 || n_b < 2)
		return -EINVAL;
	ma = stats_mean(a, n_a);
	mb = stats_mean(b, n_b);
	qa = variance(a, n_a, ma) / n_a;
	qb = variance(b, n_b, mb) / n_b;
	se2 = qa + qb;
	out->diff = ma - mb;
	out->se = sqrt(se2);
	if (se2 == 0) {
		out->df = (double)(n_a + n_b - 2);
		out->t = out->diff == 0 ? 0 : copysign(INFINITY, out->diff);
		out->p = out->diff == 0 ? 1 : 0;
		return 0;
	}
	out->t = out->diff / out->se;
	out->df = se2 * se2 / (qa * qa / (n_a - 1) + qb * qb / (n_b - 1));
	out->p = t_two_sided(out->t, out->df);
	return 0;
}

struct ranked {
	double v;
	int from_a;
};

static int cmp_ranked(const void *x, const void *y)
{
	double a = ((const struct ranked *)x)->v, b = ((const struct ranked *)y)->v;

	return (a > b) - (a < b);
}

/* Counts of U for sample sizes M and N (no ties) into C[0 .. M N]: the coefficients of
 * the Gaussian binomial [M+N choose M]_q, built as prod_{i=1..M} (1 - q^{N+i}) / (1 - q^i).
 * After step i the polynomial is [N+i choose i]_q, so each division is exact and every
 * intermediate count is below C(M+N, M), which fits int64 for M, N <= 30. */
static void mw_counts(size_t m, size_t n, int64_t *c)
{
	size_t deg = 0, i, k;

	memset(c, 0, (m * n + 1) * sizeof(*c));
	c[0] = 1;
	for (i = 1; i <= m; i++) {
		size_t up = n + i;

		/* times (1 - q^{n+i}) */
		deg += n;
		for (k = deg; k >= up; k--)
			c[k] -= c[k - up];
		/* divided by (1 - q^i): a running sum with stride i */
		for (k = i; k <= deg; k++)
			c[k] += c[k - i];
	}
}

double stats_mw_min_p(size_t n_a, size_t n_b)
{
	/* C(n_a + n_b, n_a) in floating point; only its size matters here */
	double lc = lgamma((double)(n_a + n_b + 1)) - lgamma((double)(n_a + 1)) -
		    lgamma((double)(n_b + 1));
	double p = 2 * exp(-lc);

	return p > 1 ? 1 : p;
}

int stats_mann_whitney(const double *a, size_t n_a, const double *b, size_t n_b,
		       struct stats_mw *out)
{
	size_t n = n_a + n_b, i, j;
	long double rank_a = 0, tie_sum = 0;
	struct ranked *r = NULL;
	int64_t *c = NULL;
	int err = 0;

	if (!n_a || !n_b)
		return -EINVAL;
	r = malloc(n * sizeof(*r));
	if (!r) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n_a; i++)
		r[i] = (struct ranked){ a[i], 1 };
	for (i = 0; i < n_b; i++)
		r[n_a + i] = (struct ranked){ b[i], 0 };
	qsort(r, n, sizeof(*r), cmp_ranked);
	out->ties = false;
	for (i = 0; i < n; i = j) {
		long double mid, t;
		size_t k;

		for (j = i + 1; j < n && r[j].v == r[i].v; j++)
			;
		/* ranks i+1 .. j share their mean */
		mid = (i + 1 + j) / 2.0L;
		for (k = i; k < j; k++)
			if (r[k].from_a)
				rank_a += mid;
		t = j - i;
		if (t > 1) {
			out->ties = true;
			tie_sum += t * t * t - t;
		}
	}
	out->u = (double)(rank_a - n_a * (n_a + 1) / 2.0L);
	out->z = NAN;
	out->exact = !out->ties && n_a <= STATS_MW_EXACT_MAX && n_b <= STATS_MW_EXACT_MAX;
	if (out->exact) {
		size_t mn = n_a * n_b, u = (size_t)out->u;
		long double tail = 0, total = 0;

		c = malloc((mn + 1) * sizeof(*c));
		if (!c) {
			err = -ENOMEM;
			goto out;
		}
		mw_counts(n_a, n_b, c);
		for (i = 0; i <= mn; i++) {
			total += c[i];
			/* the tail on U's side of the centre, as R's wilcox.test */
			if (2 * u > mn ? i >= u : i <= u)
				tail += c[i];
		}
		out->p = (double)(2 * tail / total);
	} else {
		double mn = (double)n_a * n_b, nn = (double)n;
		double sigma = sqrt(mn / 12 * ((nn + 1) - (double)tie_sum / (nn * (nn - 1))));
		double d = out->u - mn / 2;

		if (sigma == 0) {
			/* every value is the same */
			out->p = 1;
		} else {
			d -= d > 0 ? 0.5 : d < 0 ? -0.5 : 0;
			out->z = d / sigma;
			out->p = 2 * stats_norm_cdf(-fabs(out->z));
		}
	}
	if (out->p > 1)
		out->p = 1;
out:
	free(c);
	free(r);
	return err;
}

double stats_min_detectable_effect(size_t n_a, size_t n_b, double cv, double alpha,
				   double power)
{
	if (!n_a || !n_b || !(cv >= 0) || !(alpha > 0 && alpha < 1) ||
	    !(power > 0 && power < 1))
		return NAN;
	return (stats_norm_quantile(1 - alpha / 2) + stats_norm_quantile(power)) * cv *
	       sqrt(1.0 / (double)n_a + 1.0 / (double)n_b);
}

double stats_mean_ci_rel_halfwidth(const double *v, size_t n, double alpha)
{
	double mean, sd;

	if (n < 2 || !(alpha > 0 && alpha < 1))
		return NAN;
	mean = stats_mean(v, n);
	if (mean == 0 || isnan(mean))
		return NAN;
	sd = stats_stddev(v, n);
	if (sd == 0)
		return 0;
	return stats_t_quantile(1 - alpha / 2, (double)(n - 1)) * sd /
	       (sqrt((double)n) * fabs(mean));
}

double stats_reps_for_effect(double cv, double effect, double alpha, double power)
{
	double z, n;

	if (!(effect > 0) || !(cv >= 0) || !(alpha > 0 && alpha < 1) ||
	    !(power > 0 && power < 1))
		return NAN;
	z = stats_norm_quantile(1 - alpha / 2) + stats_norm_quantile(power);
	n = 2 * z * z * cv * cv / (effect * effect);
	n = ceil(n - 1e-9 * (n > 1 ? n : 1));
	return n < 1 ? 1 : n;
}

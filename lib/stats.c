/* stats.c - see stats.h. Sums are accumulated in long double and the variance in two
 * passes (mean first), which keeps pps values around 1e7 exact to the last digit that
 * tables show. */
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

double stats_stddev(const double *v, size_t n)
{
	long double sum = 0;
	double mean;
	size_t i;

	if (n < 2)
		return NAN;
	mean = stats_mean(v, n);
	for (i = 0; i < n; i++) {
		long double d = v[i] - mean;

		sum += d * d;
	}
	return sqrt((double)(sum / (n - 1)));
}

double stats_min(const double *v, size_t n)
{
	double m;
	size_t i;

	if (!n)
		return NAN;
	m = v[0];
	for (i = 1; i < n; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

double stats_max(const double *v, size_t n)
{
	double m;
	size_t i;

	if (!n)
		return NAN;
	m = v[0];
	for (i = 1; i < n; i++)
		if (v[i] > m)
			m = v[i];
	return m;
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

double stats_hmean(const double *v, size_t n)
{
	long double sum = 0;
	size_t i;

	if (!n)
		return NAN;
	for (i = 0; i < n; i++) {
		if (!(v[i] > 0))
			return NAN;
		sum += 1.0L / v[i];
	}
	return (double)(n / sum);
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

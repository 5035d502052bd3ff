/* stats.h - descriptive statistics over arrays of doubles.
 *
 * The few numbers benchmark tables need: mean, sample standard deviation (n - 1), min,
 * max, spread (half the range, the "± spread" kernel developers post), median and
 * harmonic mean (the right mean for rates measured over equal amounts of work).
 * Used by lib/report.c and, later, by comparisons and bisection.
 *
 * Conventions: an empty input gives NAN (the value is undefined, not zero); NAN values
 * in the input are not filtered, callers pass only the values they have. Pure functions,
 * thread-safe; stats_median allocates a scratch copy.
 */
#ifndef BPFLAB_STATS_H
#define BPFLAB_STATS_H

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
/* Harmonic mean N / sum(1 / v); NAN when N is 0 or any value is not positive. */
double stats_hmean(const double *v, size_t n);

/* Fill OUT with all of the above (except the harmonic mean) for the N values at V.
 * Returns 0, -EINVAL when N is 0 (OUT then holds n = 0 and NANs), or -ENOMEM. */
int stats_summarize(const double *v, size_t n, struct stats_summary *out);

#endif

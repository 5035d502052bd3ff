// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* changepoint.c - see changepoint.h.
 *
 * The search follows ecp's e.divisive: a split tau of a segment [s, e) is scored against
 * every right end kappa in [tau + min, e], comparing X = [s, tau) with Y = [tau, kappa),
 * so that a shift that comes back (10 -> 11.5 -> 10) still shows as two clean samples.
 * Every Q(tau, kappa) is O(1) from a 2-D prefix sum P of the distance matrix
 * (P[i][j] = sum of |x_a - x_b| over a < i, b < j): block sums give the within-X,
 * within-Y and cross sums. So a round costs O(n^2) to build P plus O(L^2) per segment,
 * for the data and for each permutation. Values are centred and scaled by their standard
 * deviation first (the statistic with alpha = 1 is linear in scale, the permutation test
 * does not care), which keeps the prefix sums of pps values near 1e7 exact enough; the
 * reported q is scaled back. P takes (n + 1)^2 doubles, hence CHANGEPOINT_MAX_N.
 */
#include "analysis/changepoint.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define CP_DEFAULT_SEED 0x62706c61625f6370ULL	/* "bpflab_cp" */

/* An option field, or DEF when it is 0 (or OPTS is NULL). */
#define OPT(o, f, def) ((o) && (o)->f ? (o)->f : (def))

/* splitmix64: small, fast, and the same sequence everywhere for one seed */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A value in [0, bound) (Lemire's multiply-shift; the bias for bounds this small is
 * below 2^-50 and the same on every run). */
static size_t rng_below(uint64_t *s, size_t bound)
{
	return (size_t)(((unsigned __int128)rng_next(s) * bound) >> 64);
}

static void shuffle(double *x, size_t n, uint64_t *s)
{
	size_t i;

	for (i = n; i > 1; i--) {
		size_t j = rng_below(s, i);
		double t = x[i - 1];

		x[i - 1] = x[j];
		x[j] = t;
	}
}

/* Prefix sums of |x_a - x_b| into P ((n + 1) x (n + 1), row-major). */
static void build_prefix(const double *x, size_t n, double *p)
{
	size_t i, j, w = n + 1;

	for (j = 0; j <= n; j++)
		p[j] = 0;
	for (i = 1; i <= n; i++) {
		double row = 0;

		p[i * w] = 0;
		for (j = 1; j <= n; j++) {
			row += fabs(x[i - 1] - x[j - 1]);
			p[i * w + j] = p[(i - 1) * w + j] + row;
		}
	}
}

/* Sum of |x_a - x_b| over a in [a0, a1), b in [b0, b1). */
static double block(const double *p, size_t w, size_t a0, size_t a1, size_t b0, size_t b1)
{
	return p[a1 * w + b1] - p[a0 * w + b1] - p[a1 * w + b0] + p[a0 * w + b0];
}

/* The split of [s, e) with the largest q (over all right ends kappa), both parts at
 * least MIN long: its index (the first value after the split) in *TAU and q as the
 * return value; -INFINITY when the segment is too short to split. */
static double best_split(const double *p, size_t n, size_t s, size_t e, size_t min,
			 size_t *tau)
{
	double best = -INFINITY;
	size_t w = n + 1, t, k;

	if (e - s < 2 * min)
		return best;
	for (t = s + min; t + min <= e; t++) {
		double m = (double)(t - s), wx = block(p, w, s, t, s, t) / 2;

		for (k = t + min; k <= e; k++) {
			double nn = (double)(k - t);
			double wy = block(p, w, t, k, t, k) / 2, c = block(p, w, s, t, t, k);
			double en = 2 * c / (m * nn) - 2 * wx / (m * (m - 1)) -
				    2 * wy / (nn * (nn - 1));
			double q = m * nn / (m + nn) * en;

			if (q > best) {
				best = q;
				*tau = t;
			}
		}
	}
	return best;
}

/* The best split over all segments given by the sorted boundaries b[0..nb] (b[0] = 0,
 * b[nb] = n) of the series whose prefix sums are P: q as the return value, its index in
 * *TAU. */
static double best_over(const double *p, size_t n, const size_t *b, size_t nb, size_t min,
			size_t *tau)
{
	double best = -INFINITY;
	size_t k;

	for (k = 0; k < nb; k++) {
		size_t t = 0;
		double q = best_split(p, n, b[k], b[k + 1], min, &t);

		if (q > best) {
			best = q;
			*tau = t;
		}
	}
	return best;
}

static int cmp_cp(const void *a, const void *b)
{
	size_t x = ((const struct changepoint *)a)->index;
	size_t y = ((const struct changepoint *)b)->index;

	return (x > y) - (x < y);
}

int changepoint_find(const double *v, size_t n, const struct changepoint_opts *opts,
		     struct changepoint **out, size_t *n_out)
{
	size_t min, max_points, *bounds = NULL, nb = 1, found = 0, k;
	struct changepoint *cps = NULL;
	unsigned int perms, r;
	double *scratch = NULL, *prefix = NULL, *shuffled = NULL, alpha, mean, sd;
	uint64_t rng;
	int err = 0;

	*out = NULL;
	*n_out = 0;
	min = OPT(opts, min_size, 3);
	alpha = OPT(opts, alpha, 0.01);
	perms = OPT(opts, permutations, 499);
	rng = OPT(opts, seed, CP_DEFAULT_SEED);
	max_points = OPT(opts, max_points, n);
	if (min < 2 || !(alpha > 0) || !(alpha < 1))
		return -EINVAL;
	if (n < 2 * min)
		return 0;
	if (n > CHANGEPOINT_MAX_N)
		return -E2BIG;

	/* at most n / min segments, so n / min - 1 change points */
	if (max_points > n / min - 1)
		max_points = n / min - 1;
	bounds = calloc(max_points + 2, sizeof(*bounds));
	cps = calloc(max_points ? max_points : 1, sizeof(*cps));
	scratch = malloc(n * sizeof(*scratch));
	shuffled = malloc(n * sizeof(*shuffled));
	prefix = malloc((n + 1) * (n + 1) * sizeof(*prefix));
	if (!bounds || !cps || !scratch || !shuffled || !prefix) {
		err = -ENOMEM;
		goto out;
	}
	bounds[0] = 0;
	bounds[1] = n;
	/* centre and scale; a constant series has no change point */
	mean = 0;
	for (k = 0; k < n; k++)
		mean += v[k];
	mean /= n;
	sd = 0;
	for (k = 0; k < n; k++)
		sd += (v[k] - mean) * (v[k] - mean);
	sd = sqrt(sd / (n - 1));
	if (!(sd > 0))
		goto out;
	for (k = 0; k < n; k++)
		scratch[k] = (v[k] - mean) / sd;

	while (found < max_points) {
		size_t tau = 0, t_perm;
		unsigned int ge = 0;
		double q, p;

		build_prefix(scratch, n, prefix);
		q = best_over(prefix, n, bounds, nb, min, &tau);
		if (!isfinite(q))
			break;
		/* permutation test: shuffle within each current segment */
		for (r = 0; r < perms; r++) {
			memcpy(shuffled, scratch, n * sizeof(*shuffled));
			for (k = 0; k < nb; k++)
				shuffle(shuffled + bounds[k], bounds[k + 1] - bounds[k], &rng);
			build_prefix(shuffled, n, prefix);
			/* once p >= alpha is certain the round has failed: stop early (its p
			 * is never reported, so this changes no result) */
			if (best_over(prefix, n, bounds, nb, min, &t_perm) >= q &&
			    (1.0 + ++ge) / (1.0 + perms) >= alpha)
				break;
		}
		p = (1.0 + ge) / (1.0 + perms);
		if (p >= alpha)
			break;
		cps[found++] = (struct changepoint){ .index = tau, .stat = q * sd, .p = p };
		/* insert tau into the sorted boundaries */
		for (k = nb; bounds[k] > tau; k--)
			bounds[k + 1] = bounds[k];
		bounds[k + 1] = tau;
		nb++;
	}
	qsort(cps, found, sizeof(*cps), cmp_cp);
	if (found) {
		*out = cps;
		*n_out = found;
		cps = NULL;
	}
out:
	free(prefix);
	free(shuffled);
	free(scratch);
	free(cps);
	free(bounds);
	return err;
}

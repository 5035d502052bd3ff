/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* changepoint.h - level shifts in a series of results (E-divisive with energy distance).
 *
 * `bpflab result history` orders one metric of one plan on one host class by time or
 * kernel and asks where the level moved. changepoint_find answers with E-divisive means
 * (Matteson & James, "A Nonparametric Approach for Multiple Change Point Analysis of
 * Multivariate Data", JASA 2014) in the form MongoDB's and Hunter's performance CI use:
 *
 *  - the divergence between the values left and right of a split is the energy distance
 *    with alpha = 1, scaled by m n / (m + n):
 *    q = m n / (m + n) * (2/(m n) sum|x_i - y_j| - 1/C(m,2) sum|x_i - x_k|
 *                         - 1/C(n,2) sum|y_j - y_k|),
 *    which is zero in expectation when both sides come from one distribution, whatever
 *    it is, and grows with a shift in level (or spread);
 *  - the best split tau of a segment is the one with the largest q, comparing the values
 *    from the segment's start to tau with those from tau to any later end kappa (as
 *    ecp's e.divisive does, so a shift that comes back is still seen), where both parts
 *    have at least min_size values, so a single spike cannot form a segment of its own;
 *  - hierarchical: each round takes, over all current segments, the best split with the
 *    largest q, and keeps it if a permutation test finds it significant: the values are
 *    shuffled within each segment `permutations` times (a fixed-seed PRNG, so results
 *    are the same on every run), the best q over segments recomputed, and
 *    p = (1 + #{q_perm >= q}) / (1 + permutations). The first split with p >= alpha, or
 *    max_points found, ends the search.
 *
 * One round costs O(permutations * n^2) additions and (n + 1)^2 doubles of memory,
 * hence the limit of CHANGEPOINT_MAX_N values; the CLI's series are hundreds of points.
 * Pure and thread-safe.
 */
#ifndef BPFLAB_CHANGEPOINT_H
#define BPFLAB_CHANGEPOINT_H

#include <stddef.h>
#include <stdint.h>

/* The longest series changepoint_find takes (its prefix table is 32 MiB). */
#define CHANGEPOINT_MAX_N 2000

struct changepoint_opts {
	size_t min_size;		/* least values on each side of a split; 3 (>= 2) */
	double alpha;			/* significance of the permutation test; 0.01 */
	unsigned int permutations;	/* per round; 499 */
	uint64_t seed;			/* of the shuffles; 0 means a fixed default */
	size_t max_points;		/* at most this many change points; 0 means n */
};

#define CHANGEPOINT_OPTS(NAME, ...)                                                     \
	struct changepoint_opts NAME = { __VA_ARGS__ }

struct changepoint {
	size_t index;			/* the first value at the new level */
	double stat;			/* q of the split, in the series' units */
	double p;			/* of the permutation test when it was found */
};

/* Find the change points of the N values at V (in series order). OPTS may be NULL (all
 * defaults); a field left 0 takes its default. On success *OUT is a heap array (caller
 * frees with free(); NULL when none were found) of *N_OUT change points in index order.
 * Returns 0, -EINVAL for bad options (min_size < 2, alpha outside (0, 1)),
 * -E2BIG for more than CHANGEPOINT_MAX_N values, or -ENOMEM. A series shorter than
 * 2 min_size, or a constant one, has no change point. */
int changepoint_find(const double *v, size_t n, const struct changepoint_opts *opts,
		     struct changepoint **out, size_t *n_out);

#endif

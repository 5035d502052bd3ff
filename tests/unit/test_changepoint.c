// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_changepoint.c - lib/analysis/changepoint.c on synthetic series: noise made by a fixed
 * generator around levels that step once, twice (up and up, up and down), not at all,
 * or spike once; the results must be the same on every run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/changepoint.h"

#define N_MAX 64

/* Noise of about +-1 % (sum of four uniforms, so roughly normal), the same every run. */
static double noise(uint64_t *s)
{
	double sum = 0;
	int i;

	for (i = 0; i < 4; i++) {
		*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
		sum += (double)(*s >> 11) / 9007199254740992.0 - 0.5;
	}
	return sum / 2 * 0.02;
}

/* A series of N values: LEVELS[k] from index STARTS[k] on, times (1 + noise). */
static void series(double *v, size_t n, const size_t *starts, const double *levels,
		   size_t nl, uint64_t seed)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		while (k + 1 < nl && i >= starts[k + 1])
			k++;
		v[i] = levels[k] * (1 + noise(&seed));
	}
}

/* The change points of series(V, N, STARTS, LEVELS, NL, SEED) found with OPTS (NULL:
 * the defaults): how many, *CP the points (the caller frees them). */
static size_t find_in_series(double *v, size_t n, const size_t *starts, const double *levels,
			     size_t nl, uint64_t seed, const struct changepoint_opts *opts,
			     struct changepoint **cp)
{
	size_t found = 0;

	series(v, n, starts, levels, nl, seed);
	assert_int_equal(changepoint_find(v, n, opts, cp, &found), 0);
	return found;
}

static void test_changepoint_step(void **state)
{
	const size_t starts[] = { 0, 15 };
	const double levels[] = { 10e6, 11e6 };	/* pps: a 10 % step */
	struct changepoint *cp = NULL;
	double v[N_MAX];
	size_t n = 0;

	(void)state;
	n = find_in_series(v, 30, starts, levels, 2, 1, NULL, &cp);
	assert_int_equal(n, 1);
	assert_int_equal(cp[0].index, 15);
	assert_true(cp[0].p < 0.01);
	assert_true(cp[0].stat > 0);
	free(cp);
}

static void test_changepoint_spike(void **state)
{
	const size_t starts[] = { 0 };
	const double levels[] = { 35.6 };	/* ns per run */
	struct changepoint *cp = NULL;
	double v[N_MAX];
	size_t n = 0;

	(void)state;
	/* one spike of 3x in the middle: not a change of level */
	series(v, 30, starts, levels, 1, 2);
	v[12] *= 3;
	assert_int_equal(changepoint_find(v, 30, NULL, &cp, &n), 0);
	assert_int_equal(n, 0);
	assert_null(cp);
	/* nor at the end, where a segment of one value would isolate it */
	series(v, 30, starts, levels, 1, 2);
	v[29] *= 3;
	assert_int_equal(changepoint_find(v, 30, NULL, &cp, &n), 0);
	assert_int_equal(n, 0);
	/* nor two spikes in a row at the end, shorter than min_size = 3 */
	v[28] *= 3;
	assert_int_equal(changepoint_find(v, 30, NULL, &cp, &n), 0);
	assert_int_equal(n, 0);
}

static void test_changepoint_flat(void **state)
{
	const size_t starts[] = { 0 };
	const double levels[] = { 100 };
	struct changepoint *cp = NULL;
	double v[N_MAX];
	size_t n = 0;
	uint64_t seed;

	(void)state;
	/* noise alone: no change point (each seed a different series) */
	for (seed = 10; seed < 15; seed++) {
		n = find_in_series(v, 40, starts, levels, 1, seed, NULL, &cp);
		assert_int_equal(n, 0);
	}
}

static void test_changepoint_two_steps(void **state)
{
	const size_t starts[] = { 0, 12, 24 };
	const double up[] = { 10, 11, 12 };
	const double updown[] = { 10, 11.5, 10 };
	struct changepoint *cp = NULL;
	double v[N_MAX];
	size_t n = 0;

	(void)state;
	n = find_in_series(v, 36, starts, up, 3, 3, NULL, &cp);
	assert_int_equal(n, 2);
	assert_int_equal(cp[0].index, 12);
	assert_int_equal(cp[1].index, 24);
	free(cp);

	/* a regression fixed later: up, then back down */
	n = find_in_series(v, 36, starts, updown, 3, 4, NULL, &cp);
	assert_int_equal(n, 2);
	assert_int_equal(cp[0].index, 12);
	assert_int_equal(cp[1].index, 24);
	free(cp);

	/* max_points stops after the strongest */
	{
		CHANGEPOINT_OPTS(opts, .max_points = 1);

		n = find_in_series(v, 36, starts, up, 3, 3, &opts, &cp);
		assert_int_equal(n, 1);
		assert_true(cp[0].index == 12 || cp[0].index == 24);
		free(cp);
	}
}

static void test_changepoint_deterministic(void **state)
{
	const size_t starts[] = { 0, 20 };
	const double levels[] = { 5, 5.3 };	/* 6 %: a few permutations come close */
	struct changepoint *a = NULL, *b = NULL;
	double v[N_MAX];
	size_t na = 0, nb = 0;

	(void)state;
	na = find_in_series(v, 40, starts, levels, 2, 5, NULL, &a);
	assert_int_equal(changepoint_find(v, 40, NULL, &b, &nb), 0);
	assert_int_equal(na, 1);
	assert_int_equal(nb, na);
	/* the same shuffles: identical bits, p included */
	assert_memory_equal(a, b, na * sizeof(*a));
	assert_int_equal(a[0].index, 20);
	free(a);
	free(b);

	/* another seed gives other shuffles but the same answer for a clear step */
	{
		CHANGEPOINT_OPTS(opts, .seed = 12345, .permutations = 299);

		assert_int_equal(changepoint_find(v, 40, &opts, &a, &na), 0);
		assert_int_equal(na, 1);
		assert_int_equal(a[0].index, 20);
		assert_true(a[0].p >= 1.0 / 300);
		free(a);
	}
}

static void test_changepoint_args(void **state)
{
	const double v[] = { 1, 2, 3, 4, 5 };
	struct changepoint *cp = NULL;
	size_t n = 7;

	(void)state;
	{
		CHANGEPOINT_OPTS(opts, .min_size = 1);

		assert_int_equal(changepoint_find(v, 5, &opts, &cp, &n), -EINVAL);
	}
	{
		CHANGEPOINT_OPTS(opts, .alpha = 1.5);

		assert_int_equal(changepoint_find(v, 5, &opts, &cp, &n), -EINVAL);
	}
	/* shorter than two segments of min_size: nothing to find */
	assert_int_equal(changepoint_find(v, 5, NULL, &cp, &n), 0);
	assert_int_equal(n, 0);
	assert_null(cp);
	assert_int_equal(changepoint_find(NULL, 0, NULL, &cp, &n), 0);
	assert_int_equal(n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_changepoint_step),
		cmocka_unit_test(test_changepoint_spike),
		cmocka_unit_test(test_changepoint_flat),
		cmocka_unit_test(test_changepoint_two_steps),
		cmocka_unit_test(test_changepoint_deterministic),
		cmocka_unit_test(test_changepoint_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_bisect.c - lib/analysis/bisect.c over simulated histories of 32 kernels with one step
 * change and noise from a deterministic PRNG: found in at most log2(32) + 2 measured
 * kernels wherever the step is; UNKNOWN resolved by extra repetitions when the step is
 * near the noise; unrunnable kernels skipped (the culprit still found, or the range
 * reported when a skip hides it); lower-is-better and higher-is-better metrics; no step
 * at all; constant values (QEMU icount) compared exactly and said so; a replay of the
 * same records giving the same state; bad input; bisect_judge.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/bisect.h"

#define NK 32

/* A history: kernel i measures base * (1 + step) * (1 + noise) from index at on,
 * base * (1 + noise) before; noise uniform in [-noise, +noise]. */
struct sim {
	uint64_t rng;
	double base, step, noise;
	int at;
	bool unrunnable[NK];
	int reps_asked;			/* repetitions measured in all */
	int extra_rounds;		/* measurements with round > 0 */
	/* every record call, for the replay test */
	int rec_kernel[256];
	size_t rec_n[256];
	double rec_vals[256][64];
	int n_rec;
};

static double sim_uniform(struct sim *s)
{
	/* xorshift64*: deterministic across machines */
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return (double)((s->rng * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

static size_t sim_measure(struct sim *s, int kernel, unsigned int reps, double *out)
{
	unsigned int i;

	if (s->unrunnable[kernel])
		return 0;
	for (i = 0; i < reps; i++) {
		double noise = s->noise * (2 * sim_uniform(s) - 1);

		out[i] = s->base * (kernel >= s->at ? 1 + s->step : 1) * (1 + noise);
	}
	s->reps_asked += reps;
	return reps;
}

static void record(struct bisect *b, struct sim *s, int kernel, const double *v, size_t n)
{
	assert_int_equal(bisect_record(b, kernel, v, n), 0);
	assert_true(s->n_rec < 256 && n <= 64);
	s->rec_kernel[s->n_rec] = kernel;
	s->rec_n[s->n_rec] = n;
	memcpy(s->rec_vals[s->n_rec], v, n * sizeof(*v));
	s->n_rec++;
}

/* Drive B to the end as `bpflab bisect step` would; the confirmation interleaved. */
static void sim_run(struct bisect *b, struct sim *s)
{
	struct bisect_action a;
	double v[64], w[64];
	int guard = 0;

	while (bisect_next(b, &a) != BISECT_DONE && a.state != BISECT_FAILED) {
		assert_true(++guard < 200);
		assert_true(a.kernel >= 0 && a.reps > 0 && a.reps <= 32);
		if (a.round > 0)
			s->extra_rounds++;
		if (a.state == BISECT_CONFIRMING) {
			size_t n1 = 0, n2 = 0;
			unsigned int i;
			int second = a.kernel2;

			/* interleaved: one repetition of each in turn */
			assert_int_equal(a.kernel2 >= 0, 1);
			for (i = 0; i < a.reps; i++) {
				n1 += sim_measure(s, a.kernel, 1, v + n1);
				n2 += sim_measure(s, a.kernel2, 1, w + n2);
			}
			record(b, s, a.kernel, v, n1);
			bisect_next(b, &a);
			assert_int_equal(a.kernel, second);
			record(b, s, a.kernel, w, n2);
			continue;
		}
		record(b, s, a.kernel, v, sim_measure(s, a.kernel, a.reps, v));
	}
}

static const char *const *names(void)
{
	static char buf[NK][32];
	static const char *p[NK];
	int i;

	for (i = 0; i < NK; i++) {
		snprintf(buf[i], sizeof(buf[i]), "6.1.0-%d-amd64", 10 + i);
		p[i] = buf[i];
	}
	return p;
}

static struct bisect *new_bisect(enum stats_kind kind)
{
	BISECT_OPTS(o, .kind = kind);
	struct bisect *b = bisect_new(names(), NK, 0, NK - 1, &o);

	assert_non_null(b);
	return b;
}

static void check_found(struct bisect *b, int at)
{
	struct bisect_result r;

	assert_int_equal(bisect_state(b), BISECT_DONE);
	assert_int_equal(bisect_result(b, &r), 0);
	assert_int_equal(r.bad, at);
	assert_int_equal(r.good, at - 1);
	assert_false(r.ambiguous);
	assert_true(r.p < 0.05);
	assert_int_equal(r.confirm, BISECT_CONFIRM_AGREES);
	assert_true(r.n_good >= 5 && r.n_bad >= 5);
}

static void test_bisect_step_found_everywhere(void **state)
{
	int at, seed, worst = 0;

	(void)state;
	for (seed = 1; seed <= 3; seed++) {
		for (at = 1; at < NK; at++) {
			/* ns per packet: +10 % from kernel `at` on, +-1 % noise */
			struct sim s = { .rng = 0x9e3779b97f4a7c15ULL * seed + at, .base = 35.6,
					 .step = 0.10, .noise = 0.01, .at = at };
			struct bisect *b = new_bisect(STATS_KIND_TIME);

			sim_run(b, &s);
			check_found(b, at);
			/* log2(32) + 2: both ends and five halvings of the thirty between */
			assert_true(bisect_n_measured(b) <= 7);
			if (bisect_n_measured(b) > worst)
				worst = bisect_n_measured(b);
			bisect_destroy(&b);
			assert_null(b);
		}
	}
	assert_true(worst >= 6);
}

static void test_bisect_lower_is_worse(void **state)
{
	/* a packet rate, higher is better: 20 Mpps, -8 % from kernel 21 on */
	struct sim s = { .rng = 42, .base = 20e6, .step = -0.08, .noise = 0.01, .at = 21 };
	struct bisect *b = new_bisect(STATS_KIND_RATE);
	struct bisect_result r;

	(void)state;
	sim_run(b, &s);
	check_found(b, 21);
	assert_int_equal(bisect_result(b, &r), 0);
	assert_true(r.delta_pct < -6 && r.delta_pct > -10);
	assert_int_equal(r.change, COMPARE_CHANGE_WORSE);
	assert_true(bisect_n_measured(b) <= 7);
	bisect_destroy(&b);

	/* the same rate getting higher (a fix: better); the change is still found */
	s = (struct sim){ .rng = 43, .base = 20e6, .step = 0.08, .noise = 0.01, .at = 5 };
	b = new_bisect(STATS_KIND_RATE);
	sim_run(b, &s);
	check_found(b, 5);
	assert_int_equal(bisect_result(b, &r), 0);
	assert_int_equal(r.change, COMPARE_CHANGE_BETTER);
	bisect_destroy(&b);
}

static void test_bisect_unknown_resolved(void **state)
{
	int seed, resolved_after_more = 0, right = 0;
	struct bisect_result r;

	(void)state;
	/* a 5 % step under +-4 % noise (min_effect 2 %): five values a side often cannot
	 * tell; extra rounds must settle it and still find the step */
	for (seed = 1; seed <= 10; seed++) {
		struct sim s = { .rng = 1000 + seed, .base = 100, .step = 0.05, .noise = 0.04,
				 .at = 9 + seed };
		struct bisect *b = new_bisect(STATS_KIND_TIME);
		int i, more = 0;

		sim_run(b, &s);
		for (i = 0; i < bisect_n_steps(b); i++)
			more += bisect_step(b, i)->mark == BISECT_MORE;
		if (more) {
			const struct bisect_step *st = NULL;

			/* a MORE step is followed (after the ends' top-up, if any) by a
			 * round > 0 of the same kernel with more values */
			for (i = 0; i < bisect_n_steps(b); i++) {
				const struct bisect_step *m = bisect_step(b, i);
				int j = i + 1;

				if (m->mark != BISECT_MORE)
					continue;
				while ((st = bisect_step(b, j)) && st->mark == BISECT_END)
					j++;
				assert_non_null(st);
				assert_int_equal(st->kernel, m->kernel);
				assert_true(st->round == m->round + 1);
				assert_true(st->n_total > m->n_total);
			}
			assert_true(s.extra_rounds > 0);
			resolved_after_more++;
		}
		/* a classification is a test at alpha 0.05, so now and then noise marks a
		 * kernel wrongly; the confirmation round must then not agree */
		assert_int_equal(bisect_state(b), BISECT_DONE);
		assert_int_equal(bisect_result(b, &r), 0);
		if (r.bad == s.at && r.good == s.at - 1)
			right += r.confirm == BISECT_CONFIRM_AGREES;
		else
			assert_int_not_equal(r.confirm, BISECT_CONFIRM_AGREES);
		/* repetitions were added, kernels were not */
		assert_true(bisect_n_measured(b) <= 7);
		bisect_destroy(&b);
	}
	/* the noise is large enough that some of the ten needed more repetitions */
	assert_true(resolved_after_more >= 3);
	/* and most were found exactly, confirmed */
	assert_true(right >= 8);
}

static void test_bisect_skip(void **state)
{
	struct bisect_result r;
	struct bisect *b;
	struct sim s;
	int i, skips;

	(void)state;
	/* unrunnable kernels that are not the culprit's neighbours: still found */
	s = (struct sim){ .rng = 7, .base = 50, .step = 0.2, .noise = 0.01, .at = 12 };
	s.unrunnable[15] = s.unrunnable[16] = s.unrunnable[8] = true;
	b = new_bisect(STATS_KIND_TIME);
	sim_run(b, &s);
	check_found(b, 12);
	for (i = 0, skips = 0; i < NK; i++)
		skips += bisect_mark(b, i, NULL, NULL) == BISECT_SKIP;
	assert_true(skips >= 1);
	bisect_destroy(&b);

	/* the culprit's good neighbour cannot run: the range 10..12, as git reports it */
	s = (struct sim){ .rng = 8, .base = 50, .step = 0.2, .noise = 0.01, .at = 12 };
	s.unrunnable[11] = true;
	b = new_bisect(STATS_KIND_TIME);
	sim_run(b, &s);
	assert_int_equal(bisect_state(b), BISECT_DONE);
	assert_int_equal(bisect_result(b, &r), 0);
	assert_true(r.ambiguous);
	assert_int_equal(r.n_skipped_between, 1);
	assert_int_equal(r.good, 10);
	assert_int_equal(r.bad, 12);
	bisect_destroy(&b);

	/* the culprit itself cannot run: first bad is one of 12..13 */
	s = (struct sim){ .rng = 9, .base = 50, .step = 0.2, .noise = 0.01, .at = 12 };
	s.unrunnable[12] = true;
	b = new_bisect(STATS_KIND_TIME);
	sim_run(b, &s);
	assert_int_equal(bisect_result(b, &r), 0);
	assert_true(r.ambiguous);
	assert_int_equal(r.good, 11);
	assert_int_equal(r.bad, 13);
	assert_int_equal(bisect_mark(b, 12, NULL, NULL), BISECT_SKIP);
	bisect_destroy(&b);

	/* the bad end cannot run: nothing to bisect */
	s = (struct sim){ .rng = 10, .base = 50, .step = 0.2, .noise = 0.01, .at = 12 };
	s.unrunnable[NK - 1] = true;
	b = new_bisect(STATS_KIND_TIME);
	sim_run(b, &s);
	assert_int_equal(bisect_state(b), BISECT_FAILED);
	assert_non_null(strstr(bisect_why(b), "cannot be measured"));
	assert_int_equal(bisect_result(b, &r), -EAGAIN);
	bisect_destroy(&b);
}

static void test_bisect_no_step(void **state)
{
	struct sim s = { .rng = 11, .base = 10, .step = 0, .noise = 0.005, .at = 99 };
	struct bisect *b = new_bisect(STATS_KIND_TIME);

	(void)state;
	sim_run(b, &s);
	assert_int_equal(bisect_state(b), BISECT_FAILED);
	assert_non_null(strstr(bisect_why(b), "nothing to bisect"));
	assert_int_equal(bisect_n_measured(b), 2);
	bisect_destroy(&b);
}

/* Instruction counts under QEMU icount: every kernel repeats one value. Each comparison
 * is exact and every reason says "exact" where a p would be (lib/analysis/compare.c
 * compare_p_text); the result and the confirmation carry the test. */
static void test_bisect_exact(void **state)
{
	struct sim s = { .rng = 13, .base = 58, .step = 0.069, .noise = 0, .at = 9 };
	struct bisect *b = new_bisect(STATS_KIND_TIME);
	const struct bisect_step *st;
	struct bisect_result r;
	int i, exact = 0;

	(void)state;
	sim_run(b, &s);
	check_found(b, 9);
	assert_int_equal(bisect_result(b, &r), 0);
	assert_int_equal(r.test, COMPARE_TEST_CONSTANT);
	assert_int_equal(r.confirm_test, COMPARE_TEST_CONSTANT);
	for (i = 0; i < bisect_n_steps(b); i++) {
		st = bisect_step(b, i);
		assert_null(strstr(st->why, "(p "));
		assert_null(strstr(st->why, ", p "));
		if (isnan(st->p_good))
			continue;
		assert_int_equal(st->test_good, COMPARE_TEST_CONSTANT);
		assert_non_null(strstr(st->why, "exact)"));
		exact++;
	}
	assert_true(exact >= 3);	/* the ends, a candidate or more, the confirmation */
	assert_non_null(strstr(bisect_step(b, 1)->why, "ends DIFFERENT: +6.90 % (exact)"));
	bisect_destroy(&b);

	/* the same history with 0.2 % noise: ordinary tests, each with its p */
	s = (struct sim){ .rng = 14, .base = 58, .step = 0.069, .noise = 0.002, .at = 9 };
	b = new_bisect(STATS_KIND_TIME);
	sim_run(b, &s);
	check_found(b, 9);
	assert_int_equal(bisect_result(b, &r), 0);
	assert_int_not_equal(r.test, COMPARE_TEST_CONSTANT);
	assert_non_null(strstr(bisect_step(b, 1)->why, "(p "));
	bisect_destroy(&b);
}

static void test_bisect_replay(void **state)
{
	struct sim s = { .rng = 12, .base = 100, .step = 0.05, .noise = 0.04, .at = 17 };
	struct bisect *a = new_bisect(STATS_KIND_TIME), *b = new_bisect(STATS_KIND_TIME);
	struct bisect_result ra, rb;
	int i;

	(void)state;
	s.unrunnable[20] = true;
	sim_run(a, &s);
	for (i = 0; i < s.n_rec; i++)
		assert_int_equal(bisect_record(b, s.rec_kernel[i], s.rec_vals[i], s.rec_n[i]), 0);
	assert_int_equal(bisect_state(b), bisect_state(a));
	assert_int_equal(bisect_n_steps(b), bisect_n_steps(a));
	for (i = 0; i < bisect_n_steps(a); i++) {
		assert_int_equal(bisect_step(a, i)->kernel, bisect_step(b, i)->kernel);
		assert_int_equal(bisect_step(a, i)->mark, bisect_step(b, i)->mark);
		assert_string_equal(bisect_step(a, i)->why, bisect_step(b, i)->why);
	}
	assert_int_equal(bisect_result(a, &ra), 0);
	assert_int_equal(bisect_result(b, &rb), 0);
	assert_int_equal(ra.bad, rb.bad);
	assert_int_equal(ra.confirm, rb.confirm);
	assert_true(ra.p == rb.p);
	bisect_destroy(&a);
	bisect_destroy(&b);
}

static void test_bisect_bad_input(void **state)
{
	const char *dup[] = { "a", "b", "a" }, *two[] = { "a", "b" };
	struct bisect *b;
	struct bisect_action a;
	double v[] = { 1, 2, NAN };

	(void)state;
	errno = 0;
	assert_null(bisect_new(names(), NK, 5, 5, NULL));
	assert_int_equal(errno, EINVAL);
	assert_null(bisect_new(names(), NK, 6, 2, NULL));
	assert_null(bisect_new(names(), NK, 0, NK, NULL));
	assert_null(bisect_new(dup, 3, 0, 2, NULL));
	assert_null(bisect_new(two, 1, 0, 1, NULL));
	b = bisect_new(two, 2, 0, 1, NULL);
	assert_non_null(b);
	assert_int_equal(bisect_next(b, &a), BISECT_ENDS);
	assert_int_equal(a.kernel, 0);
	assert_int_equal(a.reps, 5);
	/* not the kernel asked for; a value that is not finite: nothing changes */
	assert_int_equal(bisect_record(b, 1, v, 2), -EINVAL);
	assert_int_equal(bisect_record(b, 0, v, 3), -EINVAL);
	assert_int_equal(bisect_n_steps(b), 0);
	assert_int_equal(bisect_kernel_index(b, "b"), 1);
	assert_int_equal(bisect_kernel_index(b, "c"), -1);
	bisect_destroy(&b);
	bisect_destroy(&b);
	bisect_destroy(NULL);
}

static void test_bisect_adjacent_ends(void **state)
{
	/* good and bad next to each other: nothing between, the result is the ends */
	const char *two[] = { "6.1.0-47", "6.1.0-53" };
	const double g[] = { 10, 10.1, 9.9, 10, 10.05 }, bd[] = { 12, 12.1, 11.9, 12, 12.05 };
	BISECT_OPTS(o, .kind = STATS_KIND_TIME, .no_confirm = true);
	struct bisect *b = bisect_new(two, 2, 0, 1, &o);
	struct bisect_result r;

	(void)state;
	assert_int_equal(bisect_record(b, 0, g, 5), 0);
	assert_int_equal(bisect_record(b, 1, bd, 5), 0);
	assert_int_equal(bisect_state(b), BISECT_DONE);
	assert_int_equal(bisect_result(b, &r), 0);
	assert_int_equal(r.good, 0);
	assert_int_equal(r.bad, 1);
	assert_true(fabs(r.delta_pct - 20) < 0.5);
	assert_int_equal(r.confirm, BISECT_CONFIRM_NONE);
	bisect_destroy(&b);
}

static void test_bisect_judge(void **state)
{
	const double base[] = { 100, 101, 99, 100, 100.5 };
	const double same[] = { 100.2, 100.8, 99.4, 100.1, 99.9 };
	const double slow[] = { 110, 111, 109, 110, 110.5 };
	const double fast[] = { 90, 91, 89, 90, 90.5 };
	const double noisy[] = { 80, 120, 95, 130, 70 };
	struct compare_result r;

	(void)state;
	/* ns: lower is better */
	assert_int_equal(bisect_judge(base, 5, same, 5, STATS_KIND_TIME, 0.02,
				      COMPARE_DIR_AUTO, &r), BISECT_GOOD);
	assert_int_equal(bisect_judge(base, 5, slow, 5, STATS_KIND_TIME, 0.02,
				      COMPARE_DIR_AUTO, &r), BISECT_BAD);
	assert_true(r.delta_pct > 9);
	assert_int_equal(bisect_judge(base, 5, fast, 5, STATS_KIND_TIME, 0.02,
				      COMPARE_DIR_AUTO, NULL), BISECT_GOOD);
	/* pps: higher is better, a lower rate is bad */
	assert_int_equal(bisect_judge(base, 5, fast, 5, STATS_KIND_RATE, 0.02,
				      COMPARE_DIR_AUTO, NULL), BISECT_BAD);
	/* a threshold above the change: good */
	assert_int_equal(bisect_judge(base, 5, slow, 5, STATS_KIND_TIME, 0.15,
				      COMPARE_DIR_AUTO, NULL), BISECT_GOOD);
	/* cannot tell, no direction, no values: 125 */
	assert_int_equal(bisect_judge(base, 5, noisy, 5, STATS_KIND_TIME, 0.02,
				      COMPARE_DIR_AUTO, NULL), BISECT_SKIP);
	assert_int_equal(bisect_judge(base, 5, slow, 5, STATS_KIND_OTHER, 0.02,
				      COMPARE_DIR_AUTO, NULL), BISECT_SKIP);
	assert_int_equal(bisect_judge(base, 5, slow, 5, STATS_KIND_OTHER, 0.02,
				      COMPARE_DIR_LOWER, NULL), BISECT_BAD);
	assert_int_equal(bisect_judge(base, 5, NULL, 0, STATS_KIND_TIME, 0.02,
				      COMPARE_DIR_AUTO, NULL), BISECT_SKIP);
}

static void test_bisect_run_exit(void **state)
{
	(void)state;
	/* git bisect run: 0 good, 1 bad, 125 skip, 128+ stop */
	assert_int_equal(bisect_run_exit(BISECT_OUT_GOOD), 0);
	assert_int_equal(bisect_run_exit(BISECT_OUT_BAD), 1);
	assert_int_equal(bisect_run_exit(BISECT_OUT_UNKNOWN), 125);
	assert_int_equal(bisect_run_exit(BISECT_OUT_UNTESTABLE), 125);
	assert_int_equal(bisect_run_exit(BISECT_OUT_USAGE), 129);
	assert_int_equal(bisect_run_exit(BISECT_OUT_FAILED), 128);
	assert_int_equal(bisect_run_exit((enum bisect_outcome)99), 128);
	assert_string_equal(bisect_outcome_name(BISECT_OUT_UNKNOWN), "cannot tell");
	assert_string_equal(bisect_outcome_name(BISECT_OUT_UNTESTABLE), "cannot test");
}

static void test_bisect_sample_check(void **state)
{
	const char *const one[] = { "drop", "drop", NULL, "drop" };
	const char *const two[] = { "drop", "pass", "drop", "tx" };
	const char *const subj[] = { "xdp_drop", "xdp_drop", "xdp_pass", "xdp_drop" };
	struct err why;

	(void)state;
	assert_int_equal(bisect_sample_check(one, one, 4, &why), 0);
	assert_int_equal(bisect_sample_check(NULL, NULL, 4, &why), 0);
	assert_int_equal(bisect_sample_check(one, NULL, 0, &why), 0);
	/* several variants pooled into one sample: refused with the list */
	assert_int_equal(bisect_sample_check(two, one, 4, &why), -EINVAL);
	assert_string_equal(why.msg, "values of 3 variants ('drop', 'pass', 'tx'): choose one "
			    "with --variant");
	/* --variant given (NULL: not checked); the subjects still are */
	assert_int_equal(bisect_sample_check(NULL, subj, 4, &why), -EINVAL);
	assert_string_equal(why.msg, "values of 2 subjects ('xdp_drop', 'xdp_pass'): choose one "
			    "with --subject");
	assert_int_equal(bisect_sample_check(one, NULL, 4, &why), 0);
}

static void test_bisect_run_more(void **state)
{
	struct compare_result r = { .verdict = COMPARE_UNKNOWN, .more_reps = 8 };

	(void)state;
	assert_int_equal(bisect_run_more(&r, 5, 30), 8);
	assert_int_equal(bisect_run_more(&r, 25, 30), 5);	/* capped at --max-reps */
	assert_int_equal(bisect_run_more(&r, 30, 30), 0);
	assert_int_equal(bisect_run_more(&r, 40, 30), 0);
	r.more_reps = 1;				/* at least 3 */
	assert_int_equal(bisect_run_more(&r, 5, 30), 3);
	assert_int_equal(bisect_run_more(&r, 29, 30), 1);
	r.more_reps = 100;
	assert_int_equal(bisect_run_more(&r, 5, 30), 25);
	r.verdict = COMPARE_SAME;			/* settled: no more */
	assert_int_equal(bisect_run_more(&r, 5, 30), 0);
	r.verdict = COMPARE_DIFFERENT;
	assert_int_equal(bisect_run_more(&r, 5, 30), 0);
}

static void test_bisect_resolution(void **state)
{
	struct compare_result r = { .n_a = 5, .n_b = 5, .mean_a = 100, .mean_b = 110,
				    .stddev_a = 12, .stddev_b = 12 };
	struct bisect_resolution res;
	char text[160];

	(void)state;
	bisect_resolution_of(&r, 0.05, &res);
	assert_int_equal(res.n_a, 5);
	assert_int_equal(res.n_b, 5);
	assert_float_equal(res.cv, 0.12, 1e-12);
	assert_float_equal(res.mde, 0.2126, 5e-4);	/* the example */
	assert_string_equal(bisect_resolution_text(&res, text, sizeof(text)),
			    "with 5 + 5 values at 12 % CV the smallest change this can see "
			    "is about 21 %");
	/* pooled: 9 + 3 values, stddevs 10 and 20 around a mean of 200 */
	r = (struct compare_result){ .n_a = 9, .n_b = 3, .mean_a = 200, .stddev_a = 10,
				     .stddev_b = 20 };
	bisect_resolution_of(&r, 0.05, &res);
	assert_float_equal(res.cv, sqrt((8 * 100.0 + 2 * 400.0) / 10) / 200, 1e-12);
	/* a side below two values: no figure, no text */
	r.n_b = 1;
	bisect_resolution_of(&r, 0.05, &res);
	assert_true(isnan(res.mde));
	assert_string_equal(bisect_resolution_text(&res, text, sizeof(text)), "");
}

/* --max-reps: UNKNOWN gets rounds while the kernel has fewer values, never more than
 * that (without it a kernel can get 5 + 3 x 20); every unsettled step says what its n
 * could resolve. */
static void test_bisect_max_reps(void **state)
{
	int seed, i, at_cap = 0, skipped = 0;

	(void)state;
	for (seed = 1; seed <= 10; seed++) {
		/* a 3 % step under +-10 % noise: five values a side rarely tell */
		struct sim s = { .rng = 7000 + seed, .base = 100, .step = 0.03, .noise = 0.10,
				 .at = 9 + seed };
		BISECT_OPTS(o, .kind = STATS_KIND_TIME, .max_reps = 30);
		struct bisect *b = bisect_new(names(), NK, 0, NK - 1, &o);

		assert_non_null(b);
		sim_run(b, &s);
		for (i = 0; i < bisect_n_steps(b); i++) {
			const struct bisect_step *st = bisect_step(b, i);

			assert_true(st->n_total <= 30);
			at_cap += st->n_total == 30;
			if (st->mark == BISECT_MORE || (st->mark == BISECT_SKIP && st->n_total)) {
				assert_true(st->res.n_a >= 2 && st->res.n_b >= 2);
				assert_false(isnan(st->res.mde));
			}
			if (st->mark == BISECT_SKIP && st->n_total) {
				/* skipped by the cap, not by a count of rounds */
				assert_int_equal(st->n_total, 30);
				skipped++;
			}
		}
		bisect_destroy(&b);
	}
	/* the noise is such that kernels went up to the cap */
	assert_true(at_cap > 0);
	print_message("max-reps 30: %d steps at the cap, %d kernels skipped there\n", at_cap,
		      skipped);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bisect_step_found_everywhere),
		cmocka_unit_test(test_bisect_lower_is_worse),
		cmocka_unit_test(test_bisect_unknown_resolved),
		cmocka_unit_test(test_bisect_skip),
		cmocka_unit_test(test_bisect_no_step),
		cmocka_unit_test(test_bisect_exact),
		cmocka_unit_test(test_bisect_replay),
		cmocka_unit_test(test_bisect_bad_input),
		cmocka_unit_test(test_bisect_adjacent_ends),
		cmocka_unit_test(test_bisect_judge),
		cmocka_unit_test(test_bisect_run_exit),
		cmocka_unit_test(test_bisect_sample_check),
		cmocka_unit_test(test_bisect_run_more),
		cmocka_unit_test(test_bisect_resolution),
		cmocka_unit_test(test_bisect_max_reps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

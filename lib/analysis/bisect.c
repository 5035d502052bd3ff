// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* bisect.c - see bisect.h. The decision engine of `bpflab bisect` (the session; `bisect
 * run`'s one-kernel judgment is bisect_judge.c): pure, no I/O.
 *
 * Invariants: lo < hi always; every kernel at or below lo that was measured is GOOD or
 * SKIP, every one at or above hi BAD or SKIP (only kernels strictly between them are ever
 * measured in the search); the ends keep their marks. cur >= 0 only while an extra round
 * of kernel cur is pending. Steps are appended, never changed.
 */
#include "analysis/bisect.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

struct kernel_slot {
	char *name;
	double *vals;
	size_t n, cap;
	enum bisect_mark mark;
	bool measured;
};

struct bisect {
	struct bisect_opts opts;
	int n;
	struct kernel_slot *k;
	int good, bad;			/* the ends */
	int lo, hi;			/* last good, first bad */
	enum bisect_state state;
	int dir;			/* +1: bad is higher than good, -1 lower */
	/* ends */
	unsigned int end_want[2];	/* reps still wanted from good, bad */
	unsigned int end_round;
	/* search: a pending extra round, and the ends' top-up before it */
	int cur;
	unsigned int cur_round, cur_reps;
	unsigned int top_up[2];
	/* confirmation */
	int conf_phase;			/* 0: lo expected, 1: hi expected */
	unsigned int conf_round, conf_reps;
	double *conf_vals[2];
	size_t conf_n[2];
	enum bisect_confirm confirm;
	double confirm_p, confirm_delta_pct;
	enum compare_test confirm_test;
	/* log */
	struct bisect_step *steps;
	int n_steps;
	size_t cap_steps;
	int n_measured;
	char why[256];
};

static void opts_fill(struct bisect_opts *o, const struct bisect_opts *in)
{
	*o = in ? *in : (struct bisect_opts){ 0 };
	if (!o->reps)
		o->reps = 5;
	if (!o->max_extra_rounds)
		o->max_extra_rounds = 3;
	if (!o->max_reps_round)
		o->max_reps_round = 20;
	if (!o->confirm_reps)
		o->confirm_reps = o->reps;
	if (!(o->alpha > 0))
		o->alpha = 0.05;
	if (!(o->min_effect > 0))
		o->min_effect = 0.02;
}

struct bisect *bisect_new(const char *const *kernels, int n_kernels, int good, int bad,
			  const struct bisect_opts *opts)
{
	struct bisect *b;
	int i, j;

	if (!kernels || n_kernels < 2 || good < 0 || bad >= n_kernels || good >= bad) {
		errno = EINVAL;
		return NULL;
	}
	for (i = 0; i < n_kernels; i++) {
		if (!kernels[i] || !*kernels[i]) {
			errno = EINVAL;
			return NULL;
		}
		for (j = 0; j < i; j++)
			if (!strcmp(kernels[i], kernels[j])) {
				errno = EINVAL;
				return NULL;
			}
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		goto fail;
	opts_fill(&b->opts, opts);
	b->k = calloc(n_kernels, sizeof(*b->k));
	if (!b->k)
		goto fail;
	b->n = n_kernels;
	for (i = 0; i < n_kernels; i++)
		if (!(b->k[i].name = strdup(kernels[i])))
			goto fail;
	b->good = b->lo = good;
	b->bad = b->hi = bad;
	b->k[good].mark = BISECT_GOOD;
	b->k[bad].mark = BISECT_BAD;
	b->state = BISECT_ENDS;
	b->end_want[0] = b->end_want[1] = b->opts.reps;
	b->cur = -1;
	b->confirm_p = b->confirm_delta_pct = NAN;
	snprintf(b->why, sizeof(b->why), "measuring the ends");
	return b;
fail:
	bisect_destroy(&b);
	errno = ENOMEM;
	return NULL;
}

void bisect_destroy(struct bisect **bp)
{
	struct bisect *b;
	int i;

	if (!bp || !*bp)
		return;
	b = *bp;
	for (i = 0; b->k && i < b->n; i++) {
		free(b->k[i].name);
		free(b->k[i].vals);
	}
	free(b->k);
	free(b->conf_vals[0]);
	free(b->conf_vals[1]);
	free(b->steps);
	free(b);
	*bp = NULL;
}

/* The next candidate of the search: the untested kernel strictly between lo and hi
 * nearest to their middle (the lower one on a tie), or -1. */
static int pick_middle(const struct bisect *b)
{
	int best = -1, i;
	double mid = (b->lo + b->hi) / 2.0, dbest = INFINITY;

	for (i = b->lo + 1; i < b->hi; i++) {
		double d = fabs(i - mid);

		if (b->k[i].mark != BISECT_UNTESTED)
			continue;
		if (d < dbest) {
			dbest = d;
			best = i;
		}
	}
	return best;
}

enum bisect_state bisect_next(const struct bisect *b, struct bisect_action *out)
{
	*out = (struct bisect_action){ .state = b->state, .kernel = -1, .kernel2 = -1 };
	switch (b->state) {
	case BISECT_ENDS:
		out->kernel = b->end_want[0] ? b->good : b->bad;
		out->reps = b->end_want[0] ? b->end_want[0] : b->end_want[1];
		out->round = b->end_round;
		break;
	case BISECT_SEARCHING:
		if (b->top_up[0] || b->top_up[1]) {
			out->kernel = b->top_up[0] ? b->good : b->bad;
			out->reps = b->top_up[0] ? b->top_up[0] : b->top_up[1];
			out->round = b->cur_round;
		} else if (b->cur >= 0) {
			out->kernel = b->cur;
			out->reps = b->cur_reps;
			out->round = b->cur_round;
		} else {
			out->kernel = pick_middle(b);
			out->reps = b->opts.reps;
			assert(out->kernel >= 0);
		}
		break;
	case BISECT_CONFIRMING:
		out->kernel = b->conf_phase ? b->hi : b->lo;
		out->kernel2 = b->conf_phase ? -1 : b->hi;
		out->reps = b->conf_reps;
		out->round = b->conf_round;
		break;
	case BISECT_DONE:
	case BISECT_FAILED:
		break;
	}
	return b->state;
}

static int cmp_opts_samples(const struct bisect *b, const double *a, size_t n_a,
			    const double *v, size_t n_v, struct compare_result *r)
{
	COMPARE_OPTS(o, .alpha = b->opts.alpha, .min_effect = b->opts.min_effect);

	return compare_samples(a, n_a, v, n_v, b->opts.kind, &o, r);
}

static int append(double **vals, size_t *n, size_t *cap, const double *v, size_t k)
{
	double *p = util_grow(*vals, cap, *n + k, sizeof(*p));

	if (!p)
		return -ENOMEM;
	*vals = p;
	memcpy(*vals + *n, v, k * sizeof(*v));
	*n += k;
	return 0;
}

static struct bisect_step *step_new(struct bisect *b, int kernel, unsigned int round,
				    size_t n_new)
{
	struct bisect_step *s = util_grow(b->steps, &b->cap_steps, (size_t)b->n_steps + 1,
					  sizeof(*s));

	if (!s)
		return NULL;
	b->steps = s;
	s = &b->steps[b->n_steps];
	*s = (struct bisect_step){
		.kernel = kernel, .round = round, .n_new = (unsigned int)n_new,
		.mean = NAN, .delta_good_pct = NAN, .p_good = NAN, .p_bad = NAN,
		.v_good = COMPARE_UNKNOWN, .v_bad = COMPARE_UNKNOWN,
		.res = { .cv = NAN, .mde = NAN },
	};
	return s;
}

/* Commit the step that step_new prepared. */
static void step_commit(struct bisect *b, struct bisect_step *s)
{
	const struct kernel_slot *k = &b->k[s->kernel];

	s->n_total = (unsigned int)k->n;
	if (k->n)
		s->mean = stats_kind_mean(b->opts.kind, k->vals, k->n);
	b->n_steps++;
	snprintf(b->why, sizeof(b->why), "%s: %s", k->name, s->why);
}

static unsigned int clamp_reps(const struct bisect *b, unsigned int want)
{
	if (want < 1)
		want = 1;
	return want > b->opts.max_reps_round ? b->opts.max_reps_round : want;
}

/* Another round for a kernel (the ends, a confirmation side) with N values that was
 * UNKNOWN after ROUND extra rounds, for which compare asked WANT more: the values to
 * ask, 0 for none (no more rounds). */
static unsigned int more_round(const struct bisect *b, unsigned int round, size_t n,
			       unsigned int want)
{
	if (!b->opts.max_reps)
		return round < b->opts.max_extra_rounds ? clamp_reps(b, want) : 0;
	if (n >= b->opts.max_reps)
		return 0;
	want = clamp_reps(b, want);
	return want > b->opts.max_reps - n ? (unsigned int)(b->opts.max_reps - n) : want;
}

static int sign(double x)
{
	return x > 0 ? 1 : x < 0 ? -1 : 0;
}

/* Nothing left to measure between lo and hi: the search is over. */
static void search_end(struct bisect *b)
{
	b->cur = -1;
	b->state = b->opts.no_confirm ? BISECT_DONE : BISECT_CONFIRMING;
	b->conf_phase = 0;
	b->conf_reps = b->opts.confirm_reps;
}

static void search_continue(struct bisect *b)
{
	if (b->cur < 0 && pick_middle(b) < 0)
		search_end(b);
}

static int record_end(struct bisect *b, int kernel, const double *v, size_t n)
{
	int side = kernel == b->good ? 0 : 1;
	struct kernel_slot *k = &b->k[kernel];
	struct bisect_step *s = step_new(b, kernel, b->end_round, n);
	struct compare_result r;
	unsigned int more;
	char p[32];
	int err;

	if (!s)
		return -ENOMEM;
	s->mark = BISECT_END;
	if (!n) {
		snprintf(s->why, sizeof(s->why), "the %s end cannot be measured",
			 side ? "bad" : "good");
		if (!k->measured)
			b->n_measured++;
		k->measured = true;
		step_commit(b, s);
		b->state = BISECT_FAILED;
		snprintf(b->why, sizeof(b->why), "the %s end '%s' cannot be measured",
			 side ? "bad" : "good", k->name);
		return 0;
	}
	err = append(&k->vals, &k->n, &k->cap, v, n);
	if (err)
		return err;
	if (!k->measured)
		b->n_measured++;
	k->measured = true;
	b->end_want[side] = 0;
	if (b->end_want[0] || b->end_want[1]) {
		snprintf(s->why, sizeof(s->why), "%s end: %zu values", side ? "bad" : "good",
			 k->n);
		step_commit(b, s);
		return 0;
	}
	err = cmp_opts_samples(b, b->k[b->good].vals, b->k[b->good].n, b->k[b->bad].vals,
			       b->k[b->bad].n, &r);
	if (err) {
		k->n -= n;
		return err;
	}
	s->p_good = r.p;
	s->test_good = r.test;
	s->v_good = r.verdict;
	s->delta_good_pct = r.delta_pct;
	bisect_resolution_of(&r, b->opts.alpha, &s->res);
	compare_p_text(r.test, r.p, p, sizeof(p));
	if (r.verdict == COMPARE_DIFFERENT) {
		b->dir = sign(r.mean_b - r.mean_a);
		b->state = BISECT_SEARCHING;
		snprintf(s->why, sizeof(s->why), "ends DIFFERENT: %+.2f %% (%s)", r.delta_pct,
			 p);
		step_commit(b, s);
		search_continue(b);
		return 0;
	}
	more = r.verdict == COMPARE_UNKNOWN ?
	       more_round(b, b->end_round, r.n_a > r.n_b ? r.n_a : r.n_b, r.more_reps) : 0;
	if (more) {
		b->end_round++;
		b->end_want[0] = b->end_want[1] = more;
		snprintf(s->why, sizeof(s->why), "ends UNKNOWN (%s): %u more each", p,
			 b->end_want[0]);
		step_commit(b, s);
		return 0;
	}
	snprintf(s->why, sizeof(s->why), "ends %s: %+.2f %% (%s)",
		 compare_verdict_name(r.verdict), r.delta_pct, p);
	step_commit(b, s);
	b->state = BISECT_FAILED;
	snprintf(b->why, sizeof(b->why), "good '%s' and bad '%s' %s (%+.2f %%, %s): "
		 "nothing to bisect", b->k[b->good].name, b->k[b->bad].name,
		 r.verdict == COMPARE_SAME ? "are the SAME" : "cannot be told apart",
		 r.delta_pct, p);
	return 0;
}

/* Decide what the values of candidate K say, into S. */
static int classify(struct bisect *b, struct kernel_slot *k, struct bisect_step *s,
		    struct compare_result *rg_out, struct compare_result *rb_out)
{
	const struct kernel_slot *g = &b->k[b->good], *bd = &b->k[b->bad];
	struct bisect_resolution res_bad;
	struct compare_result rg, rb;
	char pg[32], pb[32];
	bool closer_good;
	int err;

	err = cmp_opts_samples(b, g->vals, g->n, k->vals, k->n, &rg);
	if (!err)
		err = cmp_opts_samples(b, bd->vals, bd->n, k->vals, k->n, &rb);
	if (err)
		return err;
	s->p_good = rg.p;
	s->p_bad = rb.p;
	s->test_good = rg.test;
	s->test_bad = rb.test;
	s->v_good = rg.verdict;
	s->v_bad = rb.verdict;
	s->delta_good_pct = rg.delta_pct;
	bisect_resolution_of(&rg, b->opts.alpha, &s->res);
	bisect_resolution_of(&rb, b->opts.alpha, &res_bad);
	if (isnan(s->res.mde) || res_bad.mde > s->res.mde)
		s->res = res_bad;
	closer_good = fabs(rg.mean_b - rg.mean_a) < fabs(rb.mean_b - rb.mean_a);
	if (rg.verdict == COMPARE_SAME && rb.verdict == COMPARE_SAME)
		s->mark = closer_good ? BISECT_GOOD : BISECT_BAD;
	else if (rg.verdict == COMPARE_SAME)
		s->mark = rb.verdict == COMPARE_DIFFERENT || closer_good ? BISECT_GOOD
									  : BISECT_MORE;
	else if (rb.verdict == COMPARE_SAME)
		s->mark = rg.verdict == COMPARE_DIFFERENT || !closer_good ? BISECT_BAD
									   : BISECT_MORE;
	else if (rg.verdict == COMPARE_DIFFERENT)
		s->mark = sign(rg.mean_b - rg.mean_a) == b->dir ? BISECT_BAD : BISECT_GOOD;
	else if (rb.verdict == COMPARE_DIFFERENT && sign(rb.mean_b - rb.mean_a) == -b->dir &&
		 closer_good)
		/* significantly away from bad, towards good, and nearer good: not the
		 * regression (equivalence to good may need more values than it is worth) */
		s->mark = BISECT_GOOD;
	else
		s->mark = BISECT_MORE;
	snprintf(s->why, sizeof(s->why), "%s as good (%+.2f %%, %s), %s as bad (%s)",
		 compare_verdict_name(rg.verdict), rg.delta_pct,
		 compare_p_text(rg.test, rg.p, pg, sizeof(pg)),
		 compare_verdict_name(rb.verdict),
		 compare_p_text(rb.test, rb.p, pb, sizeof(pb)));
	*rg_out = rg;
	*rb_out = rb;
	return 0;
}

static int record_search(struct bisect *b, int kernel, const double *v, size_t n,
			 unsigned int round)
{
	struct kernel_slot *k = &b->k[kernel];
	struct bisect_step *s = step_new(b, kernel, round, n);
	struct compare_result rg, rb;
	char why[128];
	int err;

	if (!s)
		return -ENOMEM;
	if (!n) {
		s->mark = BISECT_SKIP;
		snprintf(s->why, sizeof(s->why), "no values: skip");
		goto decided;
	}
	err = append(&k->vals, &k->n, &k->cap, v, n);
	if (err)
		return err;
	err = classify(b, k, s, &rg, &rb);
	if (err) {
		k->n -= n;		/* nothing changes */
		return err;
	}
	if (s->mark == BISECT_MORE) {
		unsigned int more = 0;

		if (rg.verdict == COMPARE_UNKNOWN)
			more = rg.more_reps;
		if (rb.verdict == COMPARE_UNKNOWN && rb.more_reps > more)
			more = rb.more_reps;
		more = more_round(b, round, k->n, more);
		if (more) {
			b->cur = kernel;
			b->cur_round = round + 1;
			b->cur_reps = more;
			/* an end with fewer values than the candidate will have limits the
			 * test as much as the candidate does: top it up first */
			if (rg.verdict == COMPARE_UNKNOWN && b->k[b->good].n < k->n + b->cur_reps)
				b->top_up[0] = clamp_reps(b, k->n + b->cur_reps - b->k[b->good].n);
			if (rb.verdict == COMPARE_UNKNOWN && b->k[b->bad].n < k->n + b->cur_reps)
				b->top_up[1] = clamp_reps(b, k->n + b->cur_reps - b->k[b->bad].n);
			snprintf(why, sizeof(why), "%.80s: %u more", s->why, b->cur_reps);
			snprintf(s->why, sizeof(s->why), "%s", why);
			if (!k->measured)
				b->n_measured++;
			k->measured = true;
			step_commit(b, s);
			return 0;
		}
		s->mark = BISECT_SKIP;
		snprintf(why, sizeof(why), "%.80s after %u rounds: skip", s->why, round + 1);
		snprintf(s->why, sizeof(s->why), "%s", why);
	}
decided:
	if (!k->measured)
		b->n_measured++;
	k->measured = true;
	k->mark = s->mark;
	if (s->mark == BISECT_GOOD)
		b->lo = kernel;
	else if (s->mark == BISECT_BAD)
		b->hi = kernel;
	b->cur = -1;
	step_commit(b, s);
	search_continue(b);
	return 0;
}

/* More values of an end during the search (before an extra round of a candidate). */
static int record_top_up(struct bisect *b, int kernel, const double *v, size_t n,
			 unsigned int round)
{
	int side = kernel == b->good ? 0 : 1;
	struct kernel_slot *k = &b->k[kernel];
	struct bisect_step *s = step_new(b, kernel, round, n);
	int err;

	if (!s)
		return -ENOMEM;
	err = append(&k->vals, &k->n, &k->cap, v, n);
	if (err)
		return err;
	s->mark = BISECT_END;
	b->top_up[side] = 0;
	snprintf(s->why, sizeof(s->why), "%s end topped up: %zu values%s",
		 side ? "bad" : "good", k->n, n ? "" : " (could not be measured)");
	step_commit(b, s);
	return 0;
}

static int record_confirm(struct bisect *b, int kernel, const double *v, size_t n)
{
	int side = b->conf_phase;
	struct bisect_step *s = step_new(b, kernel, b->conf_round, n);
	struct compare_result r;
	unsigned int more;
	char p[32];
	size_t cap = 0;
	int err;

	if (!s)
		return -ENOMEM;
	s->mark = BISECT_CONFIRM;
	if (n) {
		cap = b->conf_n[side];
		err = append(&b->conf_vals[side], &b->conf_n[side], &cap, v, n);
		if (err)
			return err;
		s->mean = stats_kind_mean(b->opts.kind, v, n);
	}
	s->n_total = (unsigned int)n;
	if (!side) {
		snprintf(s->why, sizeof(s->why), "confirmation, good side: %zu values", n);
		b->n_steps++;
		snprintf(b->why, sizeof(b->why), "%s: %s", b->k[kernel].name, s->why);
		b->conf_phase = 1;
		return 0;
	}
	if (!b->conf_n[0] || !b->conf_n[1]) {
		b->confirm = BISECT_CONFIRM_UNCLEAR;
		snprintf(s->why, sizeof(s->why), "confirmation: a side has no values");
	} else {
		err = cmp_opts_samples(b, b->conf_vals[0], b->conf_n[0], b->conf_vals[1],
				       b->conf_n[1], &r);
		if (err) {
			b->conf_n[1] = 0;
			return err;
		}
		b->confirm_p = r.p;
		b->confirm_test = r.test;
		b->confirm_delta_pct = r.delta_pct;
		s->p_good = r.p;
		s->test_good = r.test;
		compare_p_text(r.test, r.p, p, sizeof(p));
		s->v_good = r.verdict;
		s->delta_good_pct = r.delta_pct;
		bisect_resolution_of(&r, b->opts.alpha, &s->res);
		more = r.verdict == COMPARE_UNKNOWN ?
		       more_round(b, b->conf_round, r.n_a > r.n_b ? r.n_a : r.n_b,
				  r.more_reps) : 0;
		if (more) {
			b->conf_round++;
			b->conf_reps = more;
			b->conf_phase = 0;
			snprintf(s->why, sizeof(s->why), "confirmation UNKNOWN, %+.2f %% (%s): "
				 "%u more each", r.delta_pct, p, b->conf_reps);
			b->n_steps++;
			snprintf(b->why, sizeof(b->why), "%s: %s", b->k[kernel].name, s->why);
			return 0;
		}
		if (r.verdict == COMPARE_DIFFERENT && sign(r.mean_b - r.mean_a) == b->dir)
			b->confirm = BISECT_CONFIRM_AGREES;
		else if (r.verdict == COMPARE_UNKNOWN)
			b->confirm = BISECT_CONFIRM_UNCLEAR;
		else
			b->confirm = BISECT_CONFIRM_DISAGREES;
		snprintf(s->why, sizeof(s->why), "confirmation %s: %s, %+.2f %% (%s)",
			 bisect_confirm_name(b->confirm), compare_verdict_name(r.verdict),
			 r.delta_pct, p);
	}
	b->n_steps++;
	snprintf(b->why, sizeof(b->why), "%s: %s", b->k[kernel].name, s->why);
	b->state = BISECT_DONE;
	return 0;
}

int bisect_record(struct bisect *b, int kernel, const double *values, size_t n)
{
	struct bisect_action a;
	size_t i;

	if (kernel < 0 || kernel >= b->n || (n && !values))
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!isfinite(values[i]))
			return -EINVAL;
	bisect_next(b, &a);
	if (a.kernel < 0 || a.kernel != kernel)
		return -EINVAL;
	switch (b->state) {
	case BISECT_ENDS:
		return record_end(b, kernel, values, n);
	case BISECT_SEARCHING:
		if (kernel == b->good || kernel == b->bad)
			return record_top_up(b, kernel, values, n, a.round);
		return record_search(b, kernel, values, n, a.round);
	case BISECT_CONFIRMING:
		return record_confirm(b, kernel, values, n);
	default:
		return -EINVAL;
	}
}

enum bisect_state bisect_state(const struct bisect *b)
{
	return b->state;
}

const char *bisect_why(const struct bisect *b)
{
	return b->why;
}

int bisect_n_kernels(const struct bisect *b)
{
	return b->n;
}

const char *bisect_kernel(const struct bisect *b, int i)
{
	return i >= 0 && i < b->n ? b->k[i].name : NULL;
}

int bisect_kernel_index(const struct bisect *b, const char *name)
{
	int i;

	for (i = 0; name && i < b->n; i++)
		if (!strcmp(b->k[i].name, name))
			return i;
	return -1;
}

enum bisect_mark bisect_mark(const struct bisect *b, int i, const double **values,
			     size_t *n)
{
	if (i < 0 || i >= b->n)
		return BISECT_UNTESTED;
	if (values)
		*values = b->k[i].vals;
	if (n)
		*n = b->k[i].n;
	return b->k[i].mark;
}

int bisect_n_measured(const struct bisect *b)
{
	return b->n_measured;
}

int bisect_n_steps(const struct bisect *b)
{
	return b->n_steps;
}

const struct bisect_step *bisect_step(const struct bisect *b, int i)
{
	return i >= 0 && i < b->n_steps ? &b->steps[i] : NULL;
}

int bisect_result(const struct bisect *b, struct bisect_result *out)
{
	const struct kernel_slot *g = &b->k[b->lo], *bd = &b->k[b->hi];
	struct compare_result r;
	int i, err;

	if (b->state != BISECT_CONFIRMING && b->state != BISECT_DONE)
		return -EAGAIN;
	*out = (struct bisect_result){
		.good = b->lo, .bad = b->hi, .values_good = g->vals, .n_good = g->n,
		.values_bad = bd->vals, .n_bad = bd->n, .confirm = b->confirm,
		.confirm_p = b->confirm_p, .confirm_delta_pct = b->confirm_delta_pct,
		.confirm_test = b->confirm_test, .p = NAN, .delta_pct = NAN,
	};
	for (i = b->lo + 1; i < b->hi; i++)
		out->n_skipped_between += b->k[i].mark == BISECT_SKIP;
	out->ambiguous = out->n_skipped_between > 0;
	out->mean_good = stats_kind_mean(b->opts.kind, g->vals, g->n);
	out->mean_bad = stats_kind_mean(b->opts.kind, bd->vals, bd->n);
	err = cmp_opts_samples(b, g->vals, g->n, bd->vals, bd->n, &r);
	if (err)
		return err;
	out->p = r.p;
	out->delta_pct = r.delta_pct;
	out->test = r.test;
	out->change = r.change;
	return 0;
}

const char *bisect_mark_name(enum bisect_mark m)
{
	static const char *const names[] = {
		[BISECT_UNTESTED] = "untested", [BISECT_GOOD] = "good", [BISECT_BAD] = "bad",
		[BISECT_SKIP] = "skip", [BISECT_MORE] = "more", [BISECT_END] = "end",
		[BISECT_CONFIRM] = "confirm",
	};

	return (unsigned int)m < sizeof(names) / sizeof(names[0]) ? names[m] : "?";
}

const char *bisect_state_name(enum bisect_state s)
{
	static const char *const names[] = {
		[BISECT_ENDS] = "ends", [BISECT_SEARCHING] = "searching",
		[BISECT_CONFIRMING] = "confirming", [BISECT_DONE] = "done",
		[BISECT_FAILED] = "failed",
	};

	return (unsigned int)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

const char *bisect_confirm_name(enum bisect_confirm c)
{
	static const char *const names[] = {
		[BISECT_CONFIRM_NONE] = "", [BISECT_CONFIRM_AGREES] = "agrees",
		[BISECT_CONFIRM_DISAGREES] = "disagrees", [BISECT_CONFIRM_UNCLEAR] = "unclear",
	};

	return (unsigned int)c < sizeof(names) / sizeof(names[0]) ? names[c] : "?";
}

/* binsearch.c - the plain RFC 2544 binary search (see binsearch.h): one goal at a time,
 * every trial full-length, the interval halved until it is within the width.
 *
 * Per goal, the state is [lo, hi] with flags for which ends a trial has tried; the next
 * load is max_rate until tried, then the midpoint while (hi - lo) / hi > width, then
 * min_rate if lo is the untried min_rate, then the next goal.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/binsearch.h"

#define BINSEARCH_MAX_TRIALS 1000	/* a bug guard, as MLRsearch's */

struct bin_goal {
	double lo, hi;			/* lo: highest passing load, hi: lowest failing */
	bool has_lo, has_hi;		/* tried: lo passed / hi failed */
	double lo_fr;			/* forwarding rate of the trial at lo */
};

struct binsearch {
	struct mlrsearch_params p;
	size_t goal;			/* the goal searched now; n_goals: ended */
	struct bin_goal g[MLRSEARCH_MAX_GOALS];
	struct mlrsearch_trial *t;
	size_t n, cap;
	double spent;
	bool pending, budget_out;
	struct mlrsearch_req req;
};

struct binsearch *binsearch_new(const struct mlrsearch_params *params)
{
	struct binsearch *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->p = *params;
	for (size_t i = 0; i < s->p.n_goals; i++) {
		s->g[i].lo = s->p.min_rate;
		s->g[i].hi = s->p.max_rate;
	}
	return s;
}

void binsearch_destroy(struct binsearch **s)
{
	if (!s || !*s)
		return;
	free((*s)->t);
	free(*s);
	*s = NULL;
}

static double width_of(const struct bin_goal *g)
{
	return (g->hi - g->lo) / g->hi;
}

/* Goal G's next load into *LOAD: true, or false when the goal is done. */
static bool goal_next(const struct binsearch *s, const struct bin_goal *g, double *load)
{
	if (!g->has_hi && !g->has_lo) {
		*load = s->p.max_rate;		/* max_rate not tried yet */
		return true;
	}
	if (g->has_lo && g->lo >= s->p.max_rate)
		return false;			/* max_rate passed */
	if (g->has_hi && g->hi <= s->p.min_rate)
		return false;			/* min_rate failed */
	if (width_of(g) > s->p.width) {
		*load = g->lo + (g->hi - g->lo) / 2;
		return true;
	}
	if (!g->has_lo) {
		*load = s->p.min_rate;		/* lo is min_rate, never tried */
		return true;
	}
	return false;
}

int binsearch_next(struct binsearch *s, struct mlrsearch_req *req)
{
	double load = 0;

	if (s->pending) {
		*req = s->req;
		return 1;
	}
	while (s->goal < s->p.n_goals && !goal_next(s, &s->g[s->goal], &load))
		s->goal++;
	if (s->goal >= s->p.n_goals || s->budget_out)
		return 0;
	if ((s->p.budget > 0 && s->spent + s->p.final_duration > s->p.budget * (1 + 1e-9)) ||
	    s->n >= BINSEARCH_MAX_TRIALS) {
		s->budget_out = true;
		return 0;
	}
	s->req.load = load;
	s->req.duration = s->p.final_duration;
	s->pending = true;
	*req = s->req;
	return 1;
}

int binsearch_report(struct binsearch *s, const struct mlrsearch_res *res)
{
	struct bin_goal *g = &s->g[s->goal];
	struct mlrsearch_trial *t;
	double frames;

	if (!s->pending)
		return -EALREADY;
	frames = (double)res->forwarded + (double)res->lost;
	if (!(frames > 0) || !(res->duration >= 0))
		return -EINVAL;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 32;

		t = realloc(s->t, cap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		s->t = t;
		s->cap = cap;
	}
	t = &s->t[s->n++];
	t->load = s->req.load;
	t->duration = s->req.duration;
	t->effective = res->duration > 0 ? res->duration : s->req.duration;
	t->loss_ratio = (double)res->lost / frames;
	t->offered = res->offered;
	s->spent += t->effective;
	s->pending = false;
	if (t->loss_ratio <= s->p.goals[s->goal].loss_ratio) {
		g->lo = t->load;
		g->has_lo = true;
		g->lo_fr = t->load * (1 - t->loss_ratio);
	} else {
		g->hi = t->load;
		g->has_hi = true;
	}
	return 0;
}

enum mlrsearch_status binsearch_status(const struct binsearch *s)
{
	if (s->budget_out)
		return MLRSEARCH_BUDGET;
	return s->goal >= s->p.n_goals ? MLRSEARCH_REGULAR : MLRSEARCH_RUNNING;
}

int binsearch_goal_result(const struct binsearch *s, size_t i,
			  struct mlrsearch_goal_result *out)
{
	const struct bin_goal *g;

	if (i >= s->p.n_goals)
		return -EINVAL;
	g = &s->g[i];
	memset(out, 0, sizeof(*out));
	out->has_lower = g->has_lo;
	out->has_upper = g->has_hi;
	out->lower = g->has_lo ? g->lo : 0;
	out->upper = g->has_hi ? g->hi : 0;
	out->conditional = g->has_lo ? g->lo_fr : 0;
	out->width = g->has_lo && g->has_hi ? width_of(g) : 0;
	if (g->has_lo && g->has_hi && out->width <= s->p.width)
		out->status = MLRSEARCH_REGULAR;
	else if (g->has_lo && g->lo >= s->p.max_rate)
		out->status = MLRSEARCH_MAX_CLEAN;
	else if (g->has_hi && g->hi <= s->p.min_rate)
		out->status = MLRSEARCH_MIN_FAILS;
	else
		out->status = s->budget_out ? MLRSEARCH_BUDGET : MLRSEARCH_RUNNING;
	return 0;
}

const struct mlrsearch_trial *binsearch_trials(const struct binsearch *s, size_t *n)
{
	*n = s->n;
	return s->t;
}

double binsearch_time(const struct binsearch *s)
{
	return s->spent;
}

// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* binsearch.c - the plain RFC 2544 binary search (see binsearch.h): one goal at a time,
 * every trial full-length, the interval halved until it is within the width.
 *
 * Per goal, the state is [lo, hi] with flags for which ends a trial has tried; the next
 * load is max_rate until tried, then the midpoint while (hi - lo) / hi > width, then
 * min_rate if lo is the untried min_rate, then the next goal. After invalid trials the
 * top is the caller's ceiling instead of max_rate: loads above it are tried at it.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/binsearch.h"

struct bin_goal {
	double lo, hi;			/* lo: highest passing load, hi: lowest failing */
	bool has_lo, has_hi;		/* tried: lo passed / hi failed */
	double lo_fr;			/* forwarding rate of the trial at lo */
};

struct binsearch {
	struct mlrsearch_params p;
	size_t goal;			/* the goal searched now; n_goals: all done */
	struct bin_goal g[MLRSEARCH_MAX_GOALS];
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
	free(*s);
	*s = NULL;
}

static double width_of(const struct bin_goal *g)
{
	return (g->hi - g->lo) / g->hi;
}

/* Goal G's next load into *LOAD: true, or false when the goal is done. */
static bool goal_next(const struct binsearch *s, const struct bin_goal *g, double ceiling,
		      double *load)
{
	double top = ceiling < s->p.max_rate ? ceiling : s->p.max_rate;

	if (top < s->p.min_rate)
		return false;			/* the generator reaches no load */
	if (!g->has_hi && !g->has_lo) {
		*load = top;			/* max_rate (or the ceiling) not tried yet */
		return true;
	}
	if (g->has_lo && g->lo >= top)
		return false;			/* the top passed */
	if (g->has_hi && g->hi <= s->p.min_rate)
		return false;			/* min_rate failed */
	if (width_of(g) > s->p.width) {
		*load = g->lo + (g->hi - g->lo) / 2;
		if (*load > top)
			*load = top;		/* the highest load the generator reaches */
		return true;
	}
	if (!g->has_lo) {
		*load = s->p.min_rate;		/* lo is min_rate, never tried */
		return true;
	}
	return false;
}

bool binsearch_next(struct binsearch *s, double ceiling, double *load)
{
	while (s->goal < s->p.n_goals && !goal_next(s, &s->g[s->goal], ceiling, load))
		s->goal++;
	return s->goal < s->p.n_goals;
}

void binsearch_report(struct binsearch *s, double load, double loss_ratio)
{
	struct bin_goal *g;

	if (s->goal >= s->p.n_goals)
		return;
	g = &s->g[s->goal];
	if (loss_ratio <= s->p.goals[s->goal].loss_ratio) {
		g->lo = load;
		g->has_lo = true;
		g->lo_fr = load * (1 - loss_ratio);
	} else {
		g->hi = load;
		g->has_hi = true;
	}
}

void binsearch_goal_result(const struct binsearch *s, size_t i,
			   struct mlrsearch_goal_result *out)
{
	const struct bin_goal *g = &s->g[i];

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
		out->status = MLRSEARCH_RUNNING;
}

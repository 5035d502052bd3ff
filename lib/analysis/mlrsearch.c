// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* mlrsearch.c - Multiple Loss Ratio Search (RFC 9971): the controller as a state machine.
 *
 * Terms are RFC 9971's (section names in quotes). Every trial is kept; a load's class for
 * a goal is always computed afresh from all trials at that load ("Load Classification",
 * Appendix A), so a bound that later trials overturn is simply no longer a bound.
 *
 * Phases (after FD.io CSIT's implementation): phase k of P + 1 runs trials of duration
 * d_k = initial * (final / initial)^(k / P) and narrows each goal to width w_k = width *
 * 2^(P - k); in phase k a load is classified as if d_k were the Goal Final Trial Duration
 * (and, before the last phase, the Goal Duration Sum). The short trials of earlier phases
 * count as short trials later: they can make an Upper Bound, never a Lower Bound, so a
 * coarse bound is confirmed or overturned by a longer trial.
 *
 * In each phase every goal proposes one load, first rule that applies:
 *   1. lower and upper bound within w_k: none (the goal is done in this phase);
 *   2. the goal's previous-phase relevant bounds that are undecided now and lie between
 *      its current bounds, the lower first (confirm coarse bounds with longer trials);
 *   3. an undecided load between the bounds that already has a trial of this phase's
 *      duration (the Goal Duration Sum asks for more);
 *   4. no bound at all: max_rate;
 *   5. no upper bound: lower / (1 - w_k 2^n) (max_rate at most), n counting this goal's
 *      outward steps since it last had both bounds; lower = max_rate ends the goal;
 *   6. no lower bound: upper (1 - w_k 2^n) (min_rate at least), the first step no higher
 *      than the forwarding rate seen at upper; upper = min_rate ends the goal;
 *   7. the midpoint of the bounds.
 * The smallest proposal is run ("lower loads first"); no proposal moves to the next phase
 * or, after the last, ends the search.
 *
 * A trial the generator could not offer (mlrsearch_report_invalid) is no measurement; run
 * again at once, and invalid again, its load and all above are out of reach, so the
 * search's ceiling (max_rate until then, used in rules 4 and 5) drops below it, and a proposal above the ceiling ends its goal, which
 * is then generator-bound (its lower bound the highest it had below the ceiling).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/binsearch.h"
#include "analysis/mlrsearch.h"

#define MLRSEARCH_MAX_TRIALS 1000	/* a bug guard: no search needs this many */
#define DURATION_SLACK 1e-9		/* relative: a trial this close to d is full-length */
#define GEN_MARGIN 0.01			/* the ceiling after an invalid trial: what was
					 * offered, less this share */

struct goal_state {
	unsigned int up, down;		/* outward steps since the goal had both bounds */
};

struct mlrsearch {
	struct mlrsearch_params p;
	unsigned int n_phases;		/* P: the phases before the final one */
	unsigned int phase;
	struct mlrsearch_trial *t;
	size_t n, cap;
	double *loads;			/* the distinct loads of t, ascending */
	size_t n_loads;
	double spent;			/* sum of effective durations */
	double ceiling;			/* highest load still asked: max_rate, lower after
					 * invalid trials */
	size_t n_invalid;
	double retry_offered;		/* the first invalid trial at req.load: offered */
	bool retry;			/* run req again (its first trial was invalid) */
	bool pending, ended, budget_out;
	struct mlrsearch_req req;
	struct goal_state g[MLRSEARCH_MAX_GOALS];
	struct binsearch *bin;		/* method binary: it chooses the loads */
};

/* One goal as the classification of phase k sees it. */
struct phase_goal {
	double loss, exceed, final, sum, width;
};

/* The bounds of one goal in one phase ("Relevant Upper Bound", "Relevant Lower Bound"). */
struct bounds {
	bool has_lb, has_ub;
	double lb, ub;
};

static bool is_full_length(const struct mlrsearch_trial *t, double final)
{
	return t->duration >= final * (1 - DURATION_SLACK);
}

/* RFC 9971 Appendix A, "Load Classification": each trial's effective duration goes into
 * one of four sums; short high-loss trials count only beyond what short low-loss trials
 * balance; the load is a Lower Bound when even the pessimistic reading (the rest of the
 * Goal Duration Sum high-loss) keeps the high-loss share within the exceed ratio, an
 * Upper Bound when even the optimistic one (the rest low-loss) does not. */
enum mlrsearch_class mlrsearch_classify(const struct mlrsearch_trial *t, size_t n, double load,
					double loss_ratio, double exceed_ratio, double final,
					double sum)
{
	double fl_low = 0, fl_high = 0, short_low = 0, short_high = 0;
	double exceed_coef, balancing, effect_high, effect_fl, effect_whole, quantile;
	bool pessimistic_is_lower, optimistic_is_lower;

	for (size_t i = 0; i < n; i++) {
		bool high;

		if (t[i].load != load)
			continue;
		high = t[i].loss_ratio > loss_ratio;
		if (is_full_length(&t[i], final))
			*(high ? &fl_high : &fl_low) += t[i].effective;
		else
			*(high ? &short_high : &short_low) += t[i].effective;
	}
	exceed_coef = exceed_ratio / (1.0 - exceed_ratio);
	balancing = short_low * exceed_coef;
	effect_high = fl_high + fmax(0.0, short_high - balancing);
	effect_fl = fl_low + effect_high;
	effect_whole = fmax(effect_fl, sum);
	quantile = effect_whole * exceed_ratio;
	pessimistic_is_lower = effect_whole - fl_low <= quantile;
	optimistic_is_lower = effect_high <= quantile;
	if (pessimistic_is_lower && optimistic_is_lower)
		return MLRSEARCH_LOWER;
	if (!pessimistic_is_lower && !optimistic_is_lower)
		return MLRSEARCH_UPPER;
	return MLRSEARCH_UNDECIDED;
}

/* The full-length trial at LOAD next in order of (loss ratio, index) after trial PREV
 * (SIZE_MAX: the first); SIZE_MAX when none is left. */
static size_t next_by_loss(const struct mlrsearch_trial *t, size_t n, double load,
			   double final, size_t prev)
{
	size_t best = SIZE_MAX;

	for (size_t i = 0; i < n; i++) {
		if (t[i].load != load || !is_full_length(&t[i], final))
			continue;
		if (prev != SIZE_MAX && (t[i].loss_ratio < t[prev].loss_ratio ||
					 (t[i].loss_ratio == t[prev].loss_ratio && i <= prev)))
			continue;
		if (best == SIZE_MAX || t[i].loss_ratio < t[best].loss_ratio)
			best = i;
	}
	return best;
}

/* RFC 9971 Appendix B, "Conditional Throughput": the full-length trials at LOAD in order
 * of loss ratio; the loss ratio of the one where (1 - exceed) of max(sum, their time) is
 * used up (1 when their time runs out first) gives load (1 - that ratio). */
double mlrsearch_conditional(const struct mlrsearch_trial *t, size_t n, double load,
			     double loss_ratio, double exceed_ratio, double final, double sum)
{
	double fl_sum = 0, remaining, q = -1;
	size_t i;

	(void)loss_ratio;	/* the trials' own loss ratios decide; kept for symmetry */
	for (i = 0; i < n; i++)
		if (t[i].load == load && is_full_length(&t[i], final))
			fl_sum += t[i].effective;
	if (!(fl_sum > 0))
		return 0;
	remaining = fmax(sum, fl_sum) * (1.0 - exceed_ratio);
	for (i = next_by_loss(t, n, load, final, SIZE_MAX); i != SIZE_MAX;
	     i = next_by_loss(t, n, load, final, i)) {
		if (q >= 0 && remaining <= 0)
			break;
		q = t[i].loss_ratio;
		remaining -= t[i].effective;
	}
	if (i == SIZE_MAX && remaining > 0)
		q = 1.0;
	return load * (1.0 - q);
}

static bool params_ok(const struct mlrsearch_params *p, struct err *err)
{
	if (p->method != MLRSEARCH_METHOD_MLR && p->method != MLRSEARCH_METHOD_BINARY) {
		err_set(err, "method %d unknown", (int)p->method);
		return false;
	}
	if (!p->n_goals || p->n_goals > MLRSEARCH_MAX_GOALS) {
		err_set(err, "goals: %zu given, 1 to %d allowed", p->n_goals,
			MLRSEARCH_MAX_GOALS);
		return false;
	}
	for (size_t i = 0; i < p->n_goals; i++) {
		const struct mlrsearch_goal *g = &p->goals[i];
		const char *name = g->name ? g->name : "";

		if (!(g->loss_ratio >= 0 && g->loss_ratio < 1)) {
			err_set(err, "goal '%s': loss %g outside [0, 1)", name,
				g->loss_ratio);
			return false;
		}
		if (!(g->exceed_ratio >= 0 && g->exceed_ratio < 1)) {
			err_set(err, "goal '%s': exceed %g outside [0, 1)", name,
				g->exceed_ratio);
			return false;
		}
	}
	if (!(p->width > 0 && p->width < 1)) {
		err_set(err, "width %g outside (0, 1)", p->width);
		return false;
	}
	if (!(p->final_duration > 0)) {
		err_set(err, "trial duration %g not positive", p->final_duration);
		return false;
	}
	if (!(p->initial_duration >= 0 && p->initial_duration <= p->final_duration)) {
		err_set(err, "initial trial duration %g outside (0, %g]",
			p->initial_duration, p->final_duration);
		return false;
	}
	if (!(p->duration_sum >= 0) || !(p->budget >= 0)) {
		err_set(err, "duration sum %g or budget %g negative", p->duration_sum,
			p->budget);
		return false;
	}
	if (p->budget > 0 && p->budget < p->final_duration) {
		err_set(err, "total %g shorter than the trial duration %g", p->budget,
			p->final_duration);
		return false;
	}
	if (!(p->min_rate > 0 && p->min_rate < p->max_rate && isfinite(p->max_rate))) {
		err_set(err, "min_rate %g and max_rate %g: 0 < min_rate < max_rate needed",
			p->min_rate, p->max_rate);
		return false;
	}
	return true;
}

struct mlrsearch *mlrsearch_new(const struct mlrsearch_params *params, struct err *err)
{
	struct mlrsearch *s;

	if (!params || !params_ok(params, err)) {
		if (!params)
			err_set(err, "no parameters");
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->p = *params;
	if (s->p.method == MLRSEARCH_METHOD_BINARY && !(s->bin = binsearch_new(params))) {
		free(s);
		return NULL;
	}
	s->ceiling = s->p.max_rate;
	s->retry_offered = -1;
	if (!s->p.initial_duration)
		s->p.initial_duration = s->p.final_duration;
	if (!s->p.duration_sum)
		s->p.duration_sum = s->p.final_duration;
	s->n_phases = s->p.phases;
	if (!s->n_phases && s->p.initial_duration < s->p.final_duration)
		s->n_phases = (unsigned int)ceil(log2(s->p.final_duration /
						      s->p.initial_duration) - 1e-9);
	if (s->p.initial_duration == s->p.final_duration)
		s->n_phases = 0;
	return s;
}

void mlrsearch_destroy(struct mlrsearch **s)
{
	if (!s || !*s)
		return;
	binsearch_destroy(&(*s)->bin);
	free((*s)->t);
	free((*s)->loads);
	free(*s);
	*s = NULL;
}

static double phase_duration(const struct mlrsearch *s, unsigned int k)
{
	if (k >= s->n_phases)
		return s->p.final_duration;
	return s->p.initial_duration * pow(s->p.final_duration / s->p.initial_duration,
					   (double)k / s->n_phases);
}

/* Goal I as phase K classifies: d_k as final duration (and as duration sum before the
 * last phase), width w 2^(P - k), at most 1/2. */
static struct phase_goal phase_goal(const struct mlrsearch *s, size_t i, unsigned int k)
{
	struct phase_goal pg = {
		.loss = s->p.goals[i].loss_ratio,
		.exceed = s->p.goals[i].exceed_ratio,
		.final = phase_duration(s, k),
		.sum = k >= s->n_phases ? s->p.duration_sum : phase_duration(s, k),
		.width = s->p.width * ldexp(1.0, (int)(s->n_phases - (k < s->n_phases ?
								  k : s->n_phases))),
	};

	if (pg.width > 0.5)
		pg.width = fmax(0.5, s->p.width);
	return pg;
}

static enum mlrsearch_class class_at(const struct mlrsearch *s, const struct phase_goal *pg,
				     double load)
{
	return mlrsearch_classify(s->t, s->n, load, pg->loss, pg->exceed, pg->final, pg->sum);
}

/* "Relevant Upper Bound": the smallest Upper Bound; "Relevant Lower Bound": the largest
 * Lower Bound below it (any Lower Bound without one). */
static struct bounds bounds_of(const struct mlrsearch *s, const struct phase_goal *pg)
{
	struct bounds b = { 0 };
	size_t i;

	for (i = 0; i < s->n_loads; i++)
		if (class_at(s, pg, s->loads[i]) == MLRSEARCH_UPPER) {
			b.has_ub = true;
			b.ub = s->loads[i];
			break;
		}
	while (i-- > 0)
		if (class_at(s, pg, s->loads[i]) == MLRSEARCH_LOWER) {
			b.has_lb = true;
			b.lb = s->loads[i];
			break;
		}
	return b;
}

static bool inside(const struct bounds *b, double x)
{
	return (!b->has_lb || x > b->lb) && (!b->has_ub || x < b->ub);
}

static double width_of(const struct bounds *b)
{
	return b->has_lb && b->has_ub ? (b->ub - b->lb) / b->ub : 0;
}

/* The lowest forwarding rate of the trials at LOAD ("Trial Forwarding Rate"). */
static double forwarding_rate(const struct mlrsearch *s, double load)
{
	double fr = load;

	for (size_t i = 0; i < s->n; i++)
		if (s->t[i].load == load)
			fr = fmin(fr, load * (1.0 - s->t[i].loss_ratio));
	return fr;
}

enum step { STEP_NONE, STEP_HOLD, STEP_UP, STEP_DOWN };

/* Goal I's proposal in the current phase (the rules at the top) into *LOAD; STEP_NONE
 * when the goal is done in this phase. */
static enum step propose_rule(struct mlrsearch *s, size_t i, double *load)
{
	struct goal_state *g = &s->g[i];
	struct phase_goal pg = phase_goal(s, i, s->phase);
	struct bounds b = bounds_of(s, &pg);
	double e, best = INFINITY;

	if (b.has_lb && b.has_ub) {
		g->up = g->down = 0;
		if (width_of(&b) <= pg.width)
			return STEP_NONE;
	}
	if (s->phase > 0) {
		struct phase_goal prev = phase_goal(s, i, s->phase - 1);
		struct bounds pb = bounds_of(s, &prev);

		if (pb.has_lb && inside(&b, pb.lb) &&
		    class_at(s, &pg, pb.lb) == MLRSEARCH_UNDECIDED)
			best = pb.lb;
		else if (pb.has_ub && inside(&b, pb.ub) &&
			 class_at(s, &pg, pb.ub) == MLRSEARCH_UNDECIDED)
			best = pb.ub;
	}
	for (size_t j = 0; j < s->n; j++) {
		double x = s->t[j].load;

		if (x < best && is_full_length(&s->t[j], pg.final) && inside(&b, x) &&
		    class_at(s, &pg, x) == MLRSEARCH_UNDECIDED)
			best = x;
	}
	if (best < INFINITY) {
		*load = best;
		return STEP_HOLD;
	}
	if (!b.has_lb && !b.has_ub) {
		*load = s->ceiling;
		return STEP_HOLD;
	}
	if (!b.has_ub) {
		if (b.lb >= s->ceiling)
			return STEP_NONE;
		e = pg.width * ldexp(1.0, (int)g->up);
		*load = e < 1 ? fmin(s->ceiling, b.lb / (1.0 - e)) : s->ceiling;
		return STEP_UP;
	}
	if (!b.has_lb) {
		if (b.ub <= s->p.min_rate)
			return STEP_NONE;
		e = pg.width * ldexp(1.0, (int)g->down);
		*load = b.ub * (1.0 - fmin(e, 1.0));
		if (!g->down)
			*load = fmin(*load, forwarding_rate(s, b.ub));
		*load = fmax(*load, s->p.min_rate);
		return STEP_DOWN;
	}
	*load = b.lb + (b.ub - b.lb) / 2;
	return STEP_HOLD;
}

/* propose_rule within reach: a load above the ceiling (or the ceiling below min_rate)
 * ends the goal, generator-bound. */
static enum step propose(struct mlrsearch *s, size_t i, double *load)
{
	enum step st = propose_rule(s, i, load);

	if (st != STEP_NONE && (*load > s->ceiling || *load < s->p.min_rate))
		return STEP_NONE;
	return st;
}

static void end_search(struct mlrsearch *s, bool budget_out)
{
	s->ended = true;
	s->budget_out = budget_out;
}

/* MLRsearch's next load into *BEST (the rules at the top, moving to the next phase when
 * no goal proposes one); false when the last phase is done. */
static bool mlr_next(struct mlrsearch *s, double *best)
{
	enum step steps[MLRSEARCH_MAX_GOALS];
	double loads[MLRSEARCH_MAX_GOALS];
	size_t i;

	for (;;) {
		*best = INFINITY;
		for (i = 0; i < s->p.n_goals; i++) {
			steps[i] = propose(s, i, &loads[i]);
			if (steps[i] != STEP_NONE && loads[i] < *best)
				*best = loads[i];
		}
		if (*best < INFINITY)
			break;
		if (s->phase >= s->n_phases)
			return false;
		s->phase++;
	}
	/* an outward step counts for every goal that asked for this load */
	for (i = 0; i < s->p.n_goals; i++) {
		if (steps[i] == STEP_UP && loads[i] == *best)
			s->g[i].up++;
		if (steps[i] == STEP_DOWN && loads[i] == *best)
			s->g[i].down++;
	}
	return true;
}

int mlrsearch_next(struct mlrsearch *s, struct mlrsearch_req *req)
{
	double load, d;

	if (s->ended)
		return 0;
	if (s->pending) {
		*req = s->req;
		return 1;
	}
	if (s->retry) {
		s->retry = false;
		if (s->p.budget > 0 && s->spent + s->req.duration > s->p.budget * (1 + DURATION_SLACK)) {
			end_search(s, true);
			return 0;
		}
		s->pending = true;
		*req = s->req;
		return 1;
	}
	if (!(s->bin ? binsearch_next(s->bin, s->ceiling, &load) : mlr_next(s, &load))) {
		end_search(s, false);
		return 0;
	}
	d = s->bin ? s->p.final_duration : phase_duration(s, s->phase);
	if ((s->p.budget > 0 && s->spent + d > s->p.budget * (1 + DURATION_SLACK)) ||
	    s->n + s->n_invalid >= MLRSEARCH_MAX_TRIALS) {
		end_search(s, true);
		return 0;
	}
	s->req.load = load;
	s->req.duration = d;
	s->pending = true;
	*req = s->req;
	return 1;
}

/* LOAD into the ascending distinct loads of S: 0 or -ENOMEM. */
static int add_load(struct mlrsearch *s, double load)
{
	size_t i = 0;
	double *l;

	while (i < s->n_loads && s->loads[i] < load)
		i++;
	if (i < s->n_loads && s->loads[i] == load)
		return 0;
	l = realloc(s->loads, (s->n_loads + 1) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	s->loads = l;
	memmove(&l[i + 1], &l[i], (s->n_loads - i) * sizeof(*l));
	l[i] = load;
	s->n_loads++;
	return 0;
}

int mlrsearch_report(struct mlrsearch *s, const struct mlrsearch_res *res)
{
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
	if (add_load(s, s->req.load) < 0)
		return -ENOMEM;
	t = &s->t[s->n++];
	t->load = s->req.load;
	t->duration = s->req.duration;
	t->effective = res->duration > 0 ? res->duration : s->req.duration;
	t->loss_ratio = (double)res->lost / frames;
	t->offered = res->offered;
	s->spent += t->effective;
	s->pending = false;
	s->retry_offered = -1;
	if (s->bin)
		binsearch_report(s->bin, t->load, t->loss_ratio);
	return 0;
}

int mlrsearch_report_invalid(struct mlrsearch *s, const struct mlrsearch_res *res)
{
	double load = s->req.load, offered = res->offered, c, highest = 0;

	if (!s->pending)
		return -EALREADY;
	if (!(offered >= 0) || !(res->duration >= 0))
		return -EINVAL;
	s->n_invalid++;
	s->spent += res->duration > 0 ? res->duration : s->req.duration;
	s->pending = false;
	/* the first at this load: once more (a busy host's generator falls short at times) */
	if (s->retry_offered < 0) {
		s->retry_offered = offered;
		s->retry = true;
		return 0;
	}
	offered = fmax(offered, s->retry_offered);
	s->retry_offered = -1;
	/* the highest load a trial reached below this one stays in reach */
	for (size_t i = 0; i < s->n_loads && s->loads[i] < load; i++)
		highest = s->loads[i];
	c = fmax(fmin(offered, load) * (1.0 - GEN_MARGIN), highest);
	if (c < s->ceiling)
		s->ceiling = c;
	return 0;
}

double mlrsearch_ceiling(const struct mlrsearch *s, size_t *n_invalid)
{
	if (n_invalid)
		*n_invalid = s->n_invalid;
	return s->ceiling;
}

enum mlrsearch_status mlrsearch_status(const struct mlrsearch *s)
{
	if (!s->ended)
		return MLRSEARCH_RUNNING;
	return s->budget_out ? MLRSEARCH_BUDGET : MLRSEARCH_REGULAR;
}

int mlrsearch_goal_result(const struct mlrsearch *s, size_t i,
			  struct mlrsearch_goal_result *out)
{
	struct phase_goal pg;
	struct bounds b;

	if (i >= s->p.n_goals)
		return -EINVAL;
	if (s->bin) {
		binsearch_goal_result(s->bin, i, out);
		if (out->status == MLRSEARCH_RUNNING && s->n_invalid &&
		    (!out->has_upper || out->upper > s->ceiling))
			out->status = MLRSEARCH_GENERATOR_BOUND;
		else if (out->status == MLRSEARCH_RUNNING && s->ended)
			out->status = MLRSEARCH_BUDGET;
		return 0;
	}
	pg = phase_goal(s, i, s->n_phases);
	b = bounds_of(s, &pg);
	memset(out, 0, sizeof(*out));
	out->has_lower = b.has_lb;
	out->has_upper = b.has_ub;
	out->lower = b.lb;
	out->upper = b.ub;
	out->width = width_of(&b);
	if (b.has_lb)
		out->conditional = mlrsearch_conditional(s->t, s->n, b.lb, pg.loss, pg.exceed,
							 pg.final, pg.sum);
	if (b.has_lb && b.has_ub && out->width <= pg.width)
		out->status = MLRSEARCH_REGULAR;
	else if (b.has_lb && !b.has_ub && b.lb >= s->p.max_rate)
		out->status = MLRSEARCH_MAX_CLEAN;
	else if (b.has_ub && !b.has_lb && b.ub <= s->p.min_rate)
		out->status = MLRSEARCH_MIN_FAILS;
	else if (s->n_invalid && (!b.has_ub || b.ub > s->ceiling))
		out->status = MLRSEARCH_GENERATOR_BOUND;
	else
		out->status = s->ended ? MLRSEARCH_BUDGET : MLRSEARCH_RUNNING;
	return 0;
}

const struct mlrsearch_trial *mlrsearch_trials(const struct mlrsearch *s, size_t *n)
{
	*n = s->n;
	return s->t;
}

double mlrsearch_time(const struct mlrsearch *s)
{
	return s->spent;
}

const char *mlrsearch_status_str(enum mlrsearch_status st)
{
	switch (st) {
	case MLRSEARCH_RUNNING: return "running";
	case MLRSEARCH_REGULAR: return "regular";
	case MLRSEARCH_MAX_CLEAN: return "max_rate has no loss";
	case MLRSEARCH_MIN_FAILS: return "min_rate fails";
	case MLRSEARCH_BUDGET: return "budget spent";
	case MLRSEARCH_GENERATOR_BOUND: return "generator-bound";
	}
	return "?";
}

int mlrsearch_run(struct mlrsearch *s, mlrsearch_measure_fn measure, void *ctx)
{
	struct mlrsearch_req req;
	struct mlrsearch_res res;
	int err;

	while ((err = mlrsearch_next(s, &req)) == 1) {
		memset(&res, 0, sizeof(res));
		err = measure(ctx, req.load, req.duration, &res);
		if (err < 0)
			return err;
		err = mlrsearch_report(s, &res);
		if (err < 0)
			return err;
	}
	return err;
}

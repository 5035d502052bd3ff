// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* plan_search.c - see plan_int.h. The `search` section (docs/plans.md, "search"): the
 * goals, width, exceed ratio, trial and total durations and the load range of an
 * MLRsearch (lib/analysis/mlrsearch.h), checked into a struct job_search that
 * plan_expand.c copies into every job spec. Strings point into the plan's tree.
 */
#include "plan/plan_int.h"

#include <stdio.h>
#include <string.h>

static const char *const search_keys[] = {
	"goals", "width", "exceed", "trial", "total", "min_rate", "max_rate", "method", NULL,
};
static const char *const goal_keys[] = { "name", "loss", NULL };

/* `loss: 0` or `loss: 0.5%`: a percentage in [0, 100 %). */
static int want_loss(struct vctx *c, const struct plan_node *node, double *out)
{
	char buf[400];
	bool sign;
	double v;

	if (plan_parse_percent(node, &v, &sign) && (sign || v == 0) && v >= 0 && v < 100) {
		*out = v / 100;
		return 0;
	}
	return plan_vfail(c, node, "search.goals: loss: expected a percentage from 0 %% to below 100 %% (such as 0 or 0.5%%), got %s",
			  plan_got(node, buf, sizeof(buf)));
}

/* `exceed: 0.5` (or 50%): the Goal Exceed Ratio in [0, 1). */
static int want_exceed(struct vctx *c, const struct plan_node *node, double *out)
{
	char buf[400];
	bool sign;
	double v;

	if (plan_parse_percent(node, &v, &sign) && (v /= sign ? 100 : 1) >= 0 && v < 1) {
		*out = v;
		return 0;
	}
	return plan_vfail(c, node, "search.exceed: expected a ratio from 0 to below 1 (such as 0.5 or 50%%), got %s",
			  plan_got(node, buf, sizeof(buf)));
}

static int build_goals(struct vctx *c, const struct plan_node *goals, struct job_search *s)
{
	char buf[400];
	int i, j, ret;

	if ((ret = plan_want_list(c, goals, "search.goals", "goals", JOBSPEC_MAX_GOALS)))
		return ret;
	for (i = 0; i < goals->n; i++) {
		const struct plan_node *g = goals->kids[i];
		struct plan_node *name, *loss;

		if ((ret = plan_want_map(c, g, "search.goals")) ||
		    (ret = plan_check_keys(c, g, goal_keys, "search.goals")) ||
		    (ret = plan_need(c, g, "name", "search.goals", &name)) ||
		    (ret = plan_want_name(c, name, "search.goals: name", "_",
					  "a goal name of letters, digits and '_' (such as NDR)")) ||
		    (ret = plan_need(c, g, "loss", "search.goals", &loss)) ||
		    (ret = want_loss(c, loss, &s->goals[i].loss)))
			return ret;
		s->goals[i].name = name->text;
		for (j = 0; j < i; j++) {
			if (!strcasecmp(s->goals[j].name, name->text))
				return plan_vfail(c, name, "search.goals: goal %s is there twice (metrics are named by the goal in lower case)",
						  plan_shown(name->text, buf, sizeof(buf)));
		}
	}
	s->n_goals = goals->n;
	return 0;
}

int plan_build_search(struct vctx *c, const struct plan_node *node, struct plan *p)
{
	struct job_search *s = &p->search;
	struct plan_node *n;
	int lo, hi, ret;

	memset(s, 0, sizeof(*s));
	if ((ret = plan_want_map(c, node, "search")) ||
	    (ret = plan_check_keys(c, node, search_keys, "search")) ||
	    (ret = plan_need(c, node, "goals", "search", &n)) || (ret = build_goals(c, n, s)) ||
	    (ret = plan_need(c, node, "width", "search", &n)) ||
	    (ret = plan_want_percent(c, n, "search.width", 0, 100, &s->width)) ||
	    (ret = plan_need(c, node, "trial", "search", &n)) ||
	    (ret = plan_want_duration(c, n, "search.trial", 1, JOBSPEC_MAX_DURATION_MS, "1ms to 60m",
				      &s->trial_ms)))
		return ret;
	s->exceed = 0.5;
	s->total_ms = s->trial_ms;
	if ((n = plan_opt(node, "exceed")) && (ret = want_exceed(c, n, &s->exceed)))
		return ret;
	if ((n = plan_opt(node, "method")) &&
	    (ret = plan_want_enum(c, n, "search.method", jobspec_search_method_names,
				  (int *)&s->method)))
		return ret;
	if ((n = plan_opt(node, "total")) &&
	    (ret = plan_want_duration(c, n, "search.total", 1, JOBSPEC_MAX_DURATION_MS, "1ms to 60m",
				      &s->total_ms)))
		return ret;
	if (s->total_ms < s->trial_ms)
		return plan_vfail(c, n, "search.total: %lld ms is shorter than search.trial (%lld ms)",
				  (long long)s->total_ms, (long long)s->trial_ms);
	if ((ret = plan_need(c, node, "min_rate", "search", &n)) ||
	    (ret = plan_want_int(c, n, "search.min_rate", 1, JOBSPEC_MAX_RATE_PPS, &lo)) ||
	    (ret = plan_need(c, node, "max_rate", "search", &n)) ||
	    (ret = plan_want_int(c, n, "search.max_rate", 1, JOBSPEC_MAX_RATE_PPS, &hi)))
		return ret;
	if (lo >= hi)
		return plan_vfail(c, n, "search.max_rate: %d is not above search.min_rate (%d)", hi,
				  lo);
	s->min_rate_pps = lo;
	s->max_rate_pps = hi;
	p->search_max_line = n->line;
	p->search_max_col = n->col;
	p->has_search = true;
	return 0;
}

int plan_check_search(struct vctx *c, const struct plan_node *root, const struct plan *p)
{
	const struct plan_node *search = plan_node_get(root, "search", NULL);

	if (p->traffic.generator == JOB_GEN_NONE)
		return plan_vfail(c, search, "search: needs a generator (traffic.generator is none)");
	if (p->traffic.rate_pps || p->traffic.rate_share > 0)
		return plan_vfail(c, search, "search: sets the rate of each trial; leave out traffic.rate");
	if (p->link_generator)
		return plan_vfail(c, search, "search: not supported with link (two-host plans) yet");
	return 0;
}

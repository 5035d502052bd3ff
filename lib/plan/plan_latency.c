// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* plan_latency.c - see plan_int.h. The `latency` section (docs/plans.md, "latency"): the
 * loads at which the agent measures one-way latency after the search (shares of the PDR
 * it found: the last goal's lower bound, or the goal named; or absolute frames/s) and the
 * port of the receiving program, checked into a
 * struct job_latency that plan_expand.c copies into every job spec; then checked against
 * the traffic, search and link sections. Strings point into the plan's tree.
 */
#include "plan/plan_int.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const latency_keys[] = { "loads", "port", "goal", NULL };

/* One load: "10%" (a share of the PDR, above 0 and at most 100 %) or a rate in frames/s. */
static int want_load(struct vctx *c, const struct plan_node *node, struct job_latency_load *ld)
{
	char buf[400];
	bool sign;
	double v;

	if (plan_parse_percent(node, &v, &sign)) {
		if (sign && v > 0 && v <= 100) {
			ld->share = v / 100;
			return 0;
		}
		if (!sign && v >= 1 && v <= JOBSPEC_MAX_RATE_PPS && v == (double)(int64_t)v) {
			ld->pps = (int64_t)v;
			return 0;
		}
	}
	return plan_vfail(c, node, "latency.loads: expected a share of the PDR above 0 %% and at most 100 %% (such as 10%%) or a rate of 1 to %lld frames/s, got %s",
			  (long long)JOBSPEC_MAX_RATE_PPS, plan_got(node, buf, sizeof(buf)));
}

int plan_build_latency(struct vctx *c, const struct plan_node *node, struct plan *p)
{
	struct job_latency *l = &p->latency;
	struct plan_node *loads, *port, *goal;
	int i, ret;

	memset(l, 0, sizeof(*l));
	if ((ret = plan_want_map(c, node, "latency")) ||
	    (ret = plan_check_keys(c, node, latency_keys, "latency")) ||
	    (ret = plan_need(c, node, "loads", "latency", &loads)) ||
	    (ret = plan_want_list(c, loads, "latency.loads", "loads", JOBSPEC_MAX_LOADS)))
		return ret;
	for (i = 0; i < loads->n; i++) {
		if ((ret = want_load(c, loads->kids[i], &l->loads[i])))
			return ret;
	}
	l->n_loads = loads->n;
	if ((port = plan_opt(node, "port"))) {
		if ((ret = plan_want_port(c, p, port, "latency.port")))
			return ret;
		l->port = port->text;
	}
	if ((goal = plan_opt(node, "goal"))) {
		if ((ret = plan_want_name(c, goal, "latency.goal", "_", "a search goal's name")))
			return ret;
		l->goal = goal->text;
	}
	p->has_latency = true;
	return 0;
}

int plan_check_latency(struct vctx *c, const struct plan_node *root, const struct plan *p)
{
	const struct plan_node *lat = plan_node_get(root, "latency", NULL);
	struct plan_node *loads = plan_opt(lat, "loads");
	const struct job_latency *l = &p->latency;
	bool rate = p->traffic.rate_pps || p->traffic.rate_share > 0;
	char buf[400], names[300];
	const char *goals[JOBSPEC_MAX_GOALS];
	int i;

	if (p->link_generator)
		return plan_vfail(c, lat, "latency: one-way latency across hosts is not measured: with link (two-host plans) the frames do not come back to the generator host, whose clock stamped them");
	if (p->traffic.generator != JOB_GEN_XDP_LIVE && p->traffic.generator != JOB_GEN_UDP)
		return plan_vfail(c, lat, "latency: needs traffic.generator xdp-live or udp (the generators that stamp each frame; %s does not)",
				  jobspec_generator_name(p->traffic.generator));
	if (l->goal) {
		for (i = 0; i < p->search.n_goals; i++) {
			goals[i] = p->search.goals[i].name;
			if (!strcasecmp(goals[i], l->goal))
				break;
		}
		if (!p->has_search || i == p->search.n_goals)
			return plan_vfail(c, plan_opt(lat, "goal"), "latency.goal: '%s' is not one of the search's goals (%s)",
					  plan_shown(l->goal, buf, sizeof(buf)),
					  p->has_search ? plan_joined(goals, i, names, sizeof(names)) :
					  "the plan has no search section");
	}
	for (i = 0; i < l->n_loads; i++) {
		const struct plan_node *at = loads && i < loads->n ? loads->kids[i] : lat;

		if (l->loads[i].share > 0 && !p->has_search)
			return plan_vfail(c, at, "latency.loads: %s is a share of the PDR a search finds, and the plan has no search section (give frames/s, or add one)",
					  at->text ? at->text : "a share");
		if (!l->loads[i].share && !p->has_search && !rate)
			return plan_vfail(c, at, "latency.loads: an absolute load needs a search section or traffic.rate (the loads are measured after them)");
	}
	return 0;
}

/* job_search.c - a job with `search` (docs/plans.md, "search"): instead of the rate and
 * cost windows, an MLRsearch (lib/analysis/mlrsearch.h) whose trials are short windows at
 * the load the search asks: the generator made again at that rate for each trial, its
 * frames the offered count, the receiving side's count (the variant's first counter when
 * it exports one, else the receiving port's rx_packets) the forwarded one. Each trial is
 * stored as samples trial.* with seq its index; each goal's result as GOAL.lower,
 * GOAL.upper and GOAL.conditional (docs/agent.md, "Metrics").
 */
#include "job_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/mlrsearch.h"
#include "base/util.h"

/* Frames still in flight when the generator stops are counted within this; it is also
 * the least gap between two trials (a device's queues, a policer's bucket settle). */
#define SEARCH_DRAIN_MS 300
/* The first phase's trials: the final trial duration / SEARCH_INITIAL_DIV, at least
 * SEARCH_MIN_INITIAL_S (shorter trials measure start-up, not the device). */
#define SEARCH_INITIAL_DIV 8
#define SEARCH_MIN_INITIAL_S 0.1

void job_search_params(const struct job_search *s, struct mlrsearch_params *p)
{
	int i;

	memset(p, 0, sizeof(*p));
	p->method = s->method == JOB_SEARCH_BINARY ? MLRSEARCH_METHOD_BINARY : MLRSEARCH_METHOD_MLR;
	for (i = 0; i < s->n_goals && i < MLRSEARCH_MAX_GOALS; i++) {
		p->goals[i].name = s->goals[i].name;
		p->goals[i].loss_ratio = s->goals[i].loss;
		p->goals[i].exceed_ratio = s->exceed;
	}
	p->n_goals = (size_t)i;
	p->width = s->width;
	p->final_duration = (double)s->trial_ms / 1000;
	p->initial_duration = p->final_duration / SEARCH_INITIAL_DIV;
	if (p->initial_duration < SEARCH_MIN_INITIAL_S)
		p->initial_duration = p->final_duration < SEARCH_MIN_INITIAL_S ?
				      p->final_duration : SEARCH_MIN_INITIAL_S;
	p->duration_sum = (double)s->total_ms / 1000;
	p->min_rate = (double)s->min_rate_pps;
	p->max_rate = (double)s->max_rate_pps;
}

/* The receiving side's count now into *N. */
static int rx_count(struct job_ctx *c, uint64_t *n)
{
	const struct job_port *rx;
	struct ifstats_counters st;
	int err;

	if (attach_counter_count(c->attach) > 0) {
		err = attach_counter_read(c->attach, 0, n);
		if (err)
			snprintf(c->err, sizeof(c->err), "search: cannot read counter '%s': %s",
				 attach_counter_get(c->attach, 0)->name, strerror(-err));
		return err;
	}
	rx = c->rx_role ? job_find_port(c, c->rx_role) : NULL;
	if (!rx) {
		snprintf(c->err, sizeof(c->err), "search: no receiving port (traffic.to) to count forwarded frames at");
		return -EINVAL;
	}
	err = ifstats_read(c->rtnl, rx->ifindex, &st);
	if (err)
		snprintf(c->err, sizeof(c->err), "search: cannot read port '%s' ('%s'): %s",
			 rx->role, rx->ifname, strerror(-err));
	*n = st.rx_packets;
	return err;
}

int job_search_trial(void *ctx, double load, double duration, struct mlrsearch_res *res)
{
	struct job_ctx *c = ctx;
	uint64_t rx0 = 0, rx1 = 0, sent = 0;
	int64_t t0, t1;
	int err;

	job_traffic_destroy(c);
	c->spec.traffic.rate_pps = llround(load) > 0 ? llround(load) : 1;
	c->spec.traffic.rate_share = 0;
	err = job_traffic_setup(c);
	if (!err && !c->gen) {
		snprintf(c->err, sizeof(c->err), "search: needs a generator (traffic.generator is none)");
		err = -EINVAL;
	}
	err = err ?: rx_count(c, &rx0);
	if (err)
		return err;
	t0 = util_mono_ns();
	err = job_traffic_start(c) ?:
	      job_sleep_until(c, t0 + (int64_t)(duration * 1e9));
	t1 = util_mono_ns();
	err = job_traffic_stop(c) ?: err;
	if (err)
		return err;
	err = c->gen_ops->frames(c->gen, &sent) ?:
	      job_sleep_until(c, util_mono_ns() + SEARCH_DRAIN_MS * 1000000LL) ?: rx_count(c, &rx1);
	if (err)
		return err;
	res->duration = (double)(t1 - t0) / 1e9;
	res->offered = res->duration > 0 ? (double)sent / res->duration : 0;
	res->forwarded = rx1 - rx0 < sent ? rx1 - rx0 : sent;
	res->lost = sent - res->forwarded;
	if (!sent) {
		snprintf(c->err, sizeof(c->err), "search: the generator sent nothing in a trial at %.0f frames/s", load);
		return -EIO;
	}
	return 0;
}

/* GOAL's name in lower case and SUFFIX: "ndr.lower". */
static const char *goal_metric(const char *goal, const char *suffix, char *out, size_t len)
{
	size_t i;

	snprintf(out, len, "%s.%s", goal, suffix);
	for (i = 0; out[i] && out[i] != '.'; i++)
		out[i] = (char)tolower((unsigned char)out[i]);
	return out;
}

int job_search_run(struct job_ctx *c, mlrsearch_measure_fn measure, void *mctx)
{
	const char *subject = c->rx_role ? c->rx_role : "search";
	struct mlrsearch_params p;
	struct mlrsearch_req req;
	struct mlrsearch *s;
	char name[96];
	size_t i;
	int n = 0, err = 0;

	job_search_params(&c->spec.search, &p);
	s = mlrsearch_new(&p, c->err, sizeof(c->err));
	if (!s)
		return -errno;
	while (!err && mlrsearch_next(s, &req) == 1) {
		struct mlrsearch_res res = { 0 };

		job_progress(c, "rate", n, 0, NULL);
		err = measure(mctx, req.load, req.duration, &res);
		if (!err && !res.forwarded && !res.lost) {
			snprintf(c->err, sizeof(c->err), "search: a trial at %.0f frames/s counted no frames", req.load);
			err = -EIO;
		}
		if (err)
			break;
		err = mlrsearch_report(s, &res);
		if (err) {
			snprintf(c->err, sizeof(c->err), "search: %s", strerror(-err));
			break;
		}
		/* one trial: its load, what was offered and the loss, in order (seq) */
		job_add_record_seq(c, "trial.load_pps", subject, req.load, "pps", "rate", n);
		job_add_record_seq(c, "trial.offered_pps", subject, res.offered, "pps", "rate", n);
		job_add_record_seq(c, "trial.duration_s", subject, res.duration, "s", "rate", n);
		job_add_record_seq(c, "trial.loss_ratio", subject,
				   (double)res.lost / (double)(res.forwarded + res.lost), "ratio",
				   "rate", n);
		n++;
	}
	for (i = 0; !err && i < p.n_goals; i++) {
		struct mlrsearch_goal_result r;

		mlrsearch_goal_result(s, i, &r);
		if (r.has_lower || r.status == MLRSEARCH_MAX_CLEAN) {
			job_add_record(c, goal_metric(p.goals[i].name, "lower", name, sizeof(name)),
				       subject, r.lower, "pps", "rate");
			job_add_record(c, goal_metric(p.goals[i].name, "conditional", name,
						      sizeof(name)),
				       subject, r.conditional, "pps", "rate");
		}
		if (r.has_upper)
			job_add_record(c, goal_metric(p.goals[i].name, "upper", name, sizeof(name)),
				       subject, r.upper, "pps", "rate");
	}
	if (!err) {
		job_add_record(c, "search.trials", subject, n, "count", "rate");
		job_add_record(c, "search.time_s", subject, mlrsearch_time(s), "s", "rate");
	}
	mlrsearch_destroy(&s);
	return err;
}

// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* job_search.c - a job with `search` (docs/plans.md, "search"): instead of the rate and
 * cost windows, an MLRsearch (lib/analysis/mlrsearch.h) whose trials are short windows at
 * the load the search asks: the search's one generator (made at the first trial) started
 * at that rate for each trial (gen_ops.set_rate; made again where it has none), its
 * frames the offered count, the receiving side's count (the variant's first counter when
 * it exports one, else the receiving port's rx_packets) the forwarded one. Each trial is
 * stored as samples trial.* with seq its index; each goal's result as GOAL.lower,
 * GOAL.upper and GOAL.conditional (docs/agent.md, "Metrics"). A trial whose offered rate
 * (by the paced generator's own record where it keeps one, gen.h struct gen_paced; else
 * its frames from the first out to the trial's end) is more than 1 % from its load
 * (VERDICT_RATE_MISS, as a traffic.rate window's generator-bound; above it too: a
 * held-up generator's catch-up burst; below it: a paced thread's shortfall, gen.h struct
 * gen_pace) is stored with trial.valid 0 and run again at once, up to SEARCH_RETRIES
 * times, then reported to the search as invalid, not as a measurement
 * (mlrsearch_report_invalid); one short by no more than what its generator lost in
 * hold-ups is run again first, up to SEARCH_HELD_RETRIES times, without counting.
 */
#include "job_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "analysis/mlrsearch.h"
#include "base/util.h"
#include "verdict.h"

/* Frames still in flight when the generator stops are counted within this; it is also
 * the least gap between two trials (a device's queues, a policer's bucket settle). */
#define SEARCH_DRAIN_MS 300
/* What a trial's edges may cut of a paced generator's sending: a burst (gen.h
 * gen_pace: at most 250 us of frames when auto, traffic.burst when asked) is taken as
 * 64 frames or 1 ms of the rate, whichever is more (bounds kept from the batches of
 * before bounded bursts: a tolerance no tighter than it was). */
#define SEARCH_BATCH_FRAMES 64
/* An invalid trial (off its load) is measured again at once this many times before
 * the search is told (mlrsearch_report_invalid, which asks for it once more itself). */
#define SEARCH_RETRIES 2
/* A trial off its load because the generator was held up (the frames lost in hold-ups
 * make up the miss: gen.h) is a disturbance, not the generator's reach: measured again
 * at once, up to this many times more, without counting toward the search's ceiling. */
#define SEARCH_HELD_RETRIES 3
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
			err_set(&c->err, "search: cannot read counter '%s': %s",
				attach_counter_get(c->attach, 0)->name, strerror(-err));
		return err;
	}
	rx = c->rx_role ? job_find_port(c, c->rx_role) : NULL;
	if (!rx) {
		err_at(&c->err, NULL, 0, 0, "search: no receiving port (traffic.to) to count forwarded frames at");
		return -EINVAL;
	}
	err = ifstats_read(c->rtnl, rx->ifindex, &st);
	if (err)
		err_set(&c->err, "search: cannot read port '%s' ('%s'): %s",
			rx->role, rx->ifname, strerror(-err));
	*n = st.rx_packets;
	return err;
}

/* Poll the started generator every millisecond until its first frames are out, its
 * count above BASE (or DEADLINE): the time then into *T, its frames into *F. */
static int first_frames(struct job_ctx *c, uint64_t base, int64_t deadline, int64_t *t,
			uint64_t *f)
{
	int err;

	for (;;) {
		*t = util_mono_ns();
		err = c->gen_ops->frames(c->gen, f);
		if (err || *f > base || *t >= deadline)
			return err;
		err = job_sleep_until(c, *t + 1000000);
		if (err)
			return err;
	}
}

/* The rate the generator's paced threads held by their own record (struct gen_paced),
 * or -1 when it keeps none or a thread's finished batches span less than half the
 * DURATION s trial (its frames' count then says more). */
static double paced_rate(struct job_ctx *c, double duration)
{
	struct gen_paced d[GEN_MAX_THREADS];
	int n = c->spec.traffic.threads > 0 ? c->spec.traffic.threads : 1, i;

	if (!c->gen_ops->paced || n > GEN_MAX_THREADS)
		return -1;
	for (i = 0; i < n; i++) {
		if (c->gen_ops->paced(c->gen, i, &d[i]))
			return -1;
	}
	return gen_paced_rate(d, n, (int64_t)(duration * 1e9 / 2));
}

/* The stopped generator's burst and shortfall in the trial into c->trial_pace (burst 0:
 * it keeps none). */
static void trial_pace(struct job_ctx *c)
{
	if (!c->gen_ops->pace_stats || c->gen_ops->pace_stats(c->gen, &c->trial_pace))
		memset(&c->trial_pace, 0, sizeof(c->trial_pace));
}

/* The generator at the trial's load (c->spec.traffic.rate_pps): the search's one
 * generator with its rate changed (gen_ops.set_rate), made on the first trial; a
 * generator without set_rate is made again. */
static int trial_generator(struct job_ctx *c)
{
	int err;

	if (c->gen && c->gen_ops->set_rate) {
		c->target_pps = (uint64_t)c->spec.traffic.rate_pps;
		err = c->gen_ops->set_rate(c->gen, c->target_pps);
		if (err)
			err_set(&c->err, "search: cannot set the generator's rate: %s",
				strerror(-err));
		return err;
	}
	job_traffic_destroy(c);
	return job_traffic_setup(c);
}

int job_search_trial(void *ctx, double load, double duration, struct mlrsearch_res *res)
{
	struct job_ctx *c = ctx;
	uint64_t rx0 = 0, rx1 = 0, sent = 0, f_first = 0, f_end = 0, base = 0;
	int64_t t0, t_first = 0, t1;
	double paced = -1;
	int err;

	c->spec.traffic.rate_pps = llround(load) > 0 ? llround(load) : 1;
	c->spec.traffic.rate_share = 0;
	err = trial_generator(c);
	if (!err && !c->gen) {
		err_at(&c->err, NULL, 0, 0, "search: needs a generator (traffic.generator is none)");
		err = -EINVAL;
	}
	/* the generator's count runs on over the trials it serves */
	err = err ?: c->gen_ops->frames(c->gen, &base) ?: rx_count(c, &rx0);
	if (err)
		return err;
	t0 = util_mono_ns();
	err = job_traffic_start(c) ?:
	      first_frames(c, base, t0 + (int64_t)(duration * 1e9), &t_first, &f_first) ?:
	      job_sleep_until(c, t0 + (int64_t)(duration * 1e9));
	t1 = util_mono_ns();
	if (!err)
		paced = paced_rate(c, duration);
	err = err ?: c->gen_ops->frames(c->gen, &f_end);
	err = job_traffic_stop(c) ?: err;
	if (err)
		return err;
	err = c->gen_ops->frames(c->gen, &sent) ?:
	      job_sleep_until(c, util_mono_ns() + SEARCH_DRAIN_MS * 1000000LL) ?: rx_count(c, &rx1);
	if (err)
		return err;
	sent -= base;
	trial_pace(c);
	res->duration = (double)(t1 - t0) / 1e9;
	/* the rate the paced threads held over their finished batches (an xdp-live call
	 * waits 16-70 ms on a busy host, and the trial's end cut its bursts: 3-70 % short
	 * in 0.25 s trials); else the rate the generator held from its first frames to the
	 * trial's end: its start-up (threads, the first batch) and its stop (tens of ms on
	 * a busy host) are no shortfall of the rate */
	if (paced >= 0)
		res->offered = paced;
	else if (f_end > f_first && t1 > t_first)
		res->offered = (double)(f_end - f_first) / ((double)(t1 - t_first) / 1e9);
	else
		res->offered = res->duration > 0 ? (double)sent / res->duration : 0;
	res->forwarded = rx1 - rx0 < sent ? rx1 - rx0 : sent;
	res->lost = sent - res->forwarded;
	if (!sent) {
		err_set(&c->err, "search: the generator sent nothing in a trial at %.0f frames/s", load);
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

/* How far a trial's offered rate may be from LOAD: 1 % (VERDICT_RATE_MISS), or what a
 * batch at each end of a DURATION s window makes of it when more (a 0.1 s trial at
 * 20000 frames/s: 2 x 64 of 2000 frames, 6.4 %); a full-length trial is 1 %. */
static double rate_tolerance(const struct job_ctx *c, double load, double duration)
{
	int threads = c->spec.traffic.threads > 0 ? c->spec.traffic.threads : 1;
	double batch = fmax((double)SEARCH_BATCH_FRAMES * threads, load / 1000);

	if (!(load > 0 && duration > 0))
		return VERDICT_RATE_MISS;
	return fmax(VERDICT_RATE_MISS, 2 * batch / (load * duration));
}

/* Whether trial RES at REQ's load fell short by no more than the frames its generator
 * lost in hold-ups (c->trial_pace.held) and TOL: held up, not at its reach. */
static bool trial_held(const struct job_ctx *c, const struct mlrsearch_req *req,
		       const struct mlrsearch_res *res, double tol)
{
	if (!c->trial_pace.held || res->duration <= 0 || res->offered >= req->load)
		return false;
	return res->offered + (double)c->trial_pace.held / res->duration >=
	       req->load * (1 - tol);
}

/* Trial N's records, in order (seq N): its load, what was offered and forwarded, the
 * loss and whether it counted. */
static void add_trial(struct job_ctx *c, const char *subject, int n,
		      const struct mlrsearch_req *req, const struct mlrsearch_res *res, bool valid)
{
	double frames = (double)(res->forwarded + res->lost);

	job_add_record_seq(c, "trial.load_pps", subject, req->load, "pps", "rate", n);
	job_add_record_seq(c, "trial.offered_pps", subject, res->offered, "pps", "rate", n);
	/* forwarded in the offered rate's terms: the offered rate spans the paced threads'
	 * finished batches, not the whole window, so forwarded / window would read as loss */
	job_add_record_seq(c, "trial.forwarded_pps", subject,
			   frames > 0 ? res->offered * (double)res->forwarded / frames : 0, "pps",
			   "rate", n);
	job_add_record_seq(c, "trial.duration_s", subject, res->duration, "s", "rate", n);
	job_add_record_seq(c, "trial.loss_ratio", subject, (double)res->lost / frames, "ratio",
			   "rate", n);
	job_add_record_seq(c, "trial.valid", subject, valid, "bool", "rate", n);
	/* the paced generator's own: the largest burst it sent, the frames it owed and
	 * could not send on time, and of those the ones lost in hold-ups (gen.h, struct
	 * gen_pace) */
	if (c->trial_pace.burst) {
		job_add_record_seq(c, "trial.gen_burst", subject, (double)c->trial_pace.burst,
				   "frames", "rate", n);
		job_add_record_seq(c, "trial.gen_shortfall", subject,
				   (double)c->trial_pace.shortfall, "frames", "rate", n);
		job_add_record_seq(c, "trial.gen_held", subject, (double)c->trial_pace.held,
				   "frames", "rate", n);
	}
}

int job_search_run(struct job_ctx *c, mlrsearch_measure_fn measure, void *mctx)
{
	const char *subject = c->rx_role ? c->rx_role : "search";
	struct mlrsearch_params p;
	struct mlrsearch_req req;
	struct mlrsearch *s;
	char name[96];
	size_t i;
	int n = 0, retries = 0, held_retries = 0, err = 0;
	double retried_s = 0;	/* the retried trials' time (not the search's own) */
	double tol;

	job_search_params(&c->spec.search, &p);
	s = mlrsearch_new(&p, &c->err);
	if (!s)
		return -errno;
	while (!err && mlrsearch_next(s, &req) == 1) {
		struct mlrsearch_res res = { 0 };
		bool valid;

		job_progress(c, "rate", n, 0, NULL);
		err = measure(mctx, req.load, req.duration, &res);
		if (!err && !res.forwarded && !res.lost) {
			err_set(&c->err, "search: a trial at %.0f frames/s counted no frames", req.load);
			err = -EIO;
		}
		if (err)
			break;
		/* generator-bound: no measurement at this load (docs/agent.md, "Search");
		 * measured again at once up to SEARCH_RETRIES times (a host's passing
		 * disturbance) before the search is told */
		tol = rate_tolerance(c, req.load, req.duration);
		valid = fabs(res.offered - req.load) <= req.load * tol;
		if (!valid && held_retries < SEARCH_HELD_RETRIES && trial_held(c, &req, &res, tol)) {
			held_retries++;
			retried_s += res.duration;
			add_trial(c, subject, n, &req, &res, valid);
			n++;
			continue;
		}
		if (!valid && retries < SEARCH_RETRIES) {
			retries++;
			retried_s += res.duration;
			add_trial(c, subject, n, &req, &res, valid);
			n++;
			continue;
		}
		retries = 0;
		held_retries = 0;
		err = valid ? mlrsearch_report(s, &res) : mlrsearch_report_invalid(s, &res);
		if (err) {
			err_set(&c->err, "search: %s", strerror(-err));
			break;
		}
		add_trial(c, subject, n, &req, &res, valid);
		n++;
	}
	for (i = 0; !err && i < p.n_goals; i++) {
		struct mlrsearch_goal_result r;

		mlrsearch_goal_result(s, i, &r);
		if (r.status == MLRSEARCH_GENERATOR_BOUND && !c->search_bound[0])
			snprintf(c->search_bound, sizeof(c->search_bound),
				 "search: the generator could not offer the loads above %.0f frames/s (trials more than %.0f%% off their load, %d times in a row): goal %s has no upper bound below them",
				 mlrsearch_ceiling(s, NULL), 100.0 * VERDICT_RATE_MISS,
				 2 * (SEARCH_RETRIES + 1), p.goals[i].name);
		/* what latency loads are shares of: latency.goal's lower bound, else the
		 * last goal's */
		if (!c->spec.latency.goal || !strcasecmp(c->spec.latency.goal, p.goals[i].name))
			c->search_lower = r.has_lower || r.status == MLRSEARCH_MAX_CLEAN ?
					  r.lower : 0;
		if (r.has_lower || r.status == MLRSEARCH_MAX_CLEAN) {
			job_add_record(c, goal_metric(p.goals[i].name, "lower", name, sizeof(name)),
				       subject, r.lower, "pps", "rate");
			job_add_record(c, goal_metric(p.goals[i].name, "conditional", name,
						      sizeof(name)),
				       subject, r.conditional, "pps", "rate");
		}
		/* generator-bound: an upper bound above the ceiling is not the goal's */
		if (r.has_upper && r.status != MLRSEARCH_GENERATOR_BOUND)
			job_add_record(c, goal_metric(p.goals[i].name, "upper", name, sizeof(name)),
				       subject, r.upper, "pps", "rate");
	}
	if (!err) {
		size_t invalid;
		double ceiling = mlrsearch_ceiling(s, &invalid);

		job_add_record(c, "search.trials", subject, n, "count", "rate");
		job_add_record(c, "search.time_s", subject, mlrsearch_time(s) + retried_s, "s",
			       "rate");
		if (invalid && ceiling < p.max_rate)
			job_add_record(c, "search.ceiling_pps", subject, ceiling, "pps", "rate");
	}
	mlrsearch_destroy(&s);
	return err;
}

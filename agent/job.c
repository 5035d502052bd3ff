// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* job.c - see job.h: job_run() takes a job through its phases (prepare, barrier,
 * traffic, windows, cleanup) and builds its result; the parts are in job_traffic.c,
 * job_window.c and job_sample.c (job_int.h). */
#include "job.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_int.h"
#include "genboost.h"
#include "base/log.h"
#include "proto/proto.h"
#include "base/util.h"
#include "verdict.h"

int job_id_format(const json_t *id, char *out, size_t out_len)
{
	const char *s;

	if (json_is_integer(id)) {
		snprintf(out, out_len, "%lld", (long long)json_integer_value(id));
		return 0;
	}
	s = json_string_value(id);
	if (!s || !*s || *s == '.' || strlen(s) >= out_len || strspn(s,
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") != strlen(s))
		return -EINVAL;
	snprintf(out, out_len, "%s", s);
	return 0;
}

int job_id_text(const json_t *msg, char *out, size_t out_len)
{
	return job_id_format(json_object_get(json_object_get(msg, "job"), "id"), out, out_len);
}

/* Load and attach the variant. */
static int prepare(struct job_ctx *c, char **verifier_log)
{
	struct attach_port *ap;
	int i, err;

	ap = calloc(c->n_ports ? c->n_ports : 1, sizeof(*ap));
	if (!ap) {
		err_set(&c->err, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < c->n_ports; i++) {
		ap[i].role = c->ports[i].role;
		ap[i].ifname = c->ports[i].ifname;
		ap[i].ifindex = c->ports[i].ifindex;
	}
	/* clsact filters of an agent killed before its detach (attach.h) */
	err = attach_tc_cleanup(ap, c->n_ports, &c->err);
	if (err < 0 || !c->spec.n_attach) {
		free(ap);
		return err < 0 ? err : 0;
	}
	{
		struct attach_opts ao = {
			.objects = json_object_get(c->msg, "objects"),
			.bpf_dir = c->opts->bpf_dir,
			.require_sha256 = c->opts->require_sha256,
			.ports = ap,
			.n_ports = c->n_ports,
			.verifier_stats = c->spec.verifier == JOB_VERIFIER_STATS,
		};

		err = attach_load_spec(c->attach, c->spec.attach, c->spec.n_attach, &ao,
				       verifier_log, &c->err);
		if (!err)
			err = attach_links(c->attach, &c->err);
	}
	free(ap);
	return err;
}

/* One side of a two-host plan (spec "pair"): tell the coordinator that this side is
 * prepared and wait for its `go`, so that both sides start their windows together. */
static int barrier(struct job_ctx *c)
{
	long long limit = c->spec.pair.barrier_ms;
	int64_t deadline = util_mono_ns() + limit * 1000000LL;
	json_t *ready;
	int go;

	if (!c->spec.has_pair)
		return 0;
	if (!c->opts->go || !c->opts->progress) {
		err_set(&c->err, "this agent cannot run one side of a two-host plan here");
		return -EOPNOTSUPP;
	}
	ready = proto_msg_new("ready");
	if (!ready || json_object_set(ready, "job", c->id)) {
		json_decref(ready);
		err_set(&c->err, "out of memory");
		return -ENOMEM;
	}
	c->opts->progress(c->opts->progress_ctx, ready);
	json_decref(ready);
	while (!(go = atomic_load(c->opts->go))) {
		if (util_mono_ns() >= deadline) {
			err_set(&c->err,
				"barrier: no go within %lld ms (the %s side of the pair never got ready)",
				limit, c->spec.pair.role == JOB_PAIR_GENERATOR ? "dut" : "generator");
			return -ETIMEDOUT;
		}
		if (job_sleep_until(c, util_mono_ns() + 5000000LL))
			return -ECANCELED;
	}
	if (go > 0 && c->opts->go_at_ms) {
		int64_t late = util_wall_ms() - (int64_t)atomic_load(c->opts->go_at_ms);

		/* Clocks that disagree by more than a go's trip over a LAN: not comparable. */
		c->go_late_ms = late >= 0 && late <= PAIR_MAX_GO_LATE_MS ? late : 0;
	}
	if (go < 0) {
		const char *why = c->opts->go_abort;

		err_set(&c->err, "pair aborted: %s",
			why && *why ? why : "the other side failed before the barrier");
		return -ECONNABORTED;
	}
	pr_debug("job: go");
	return 0;
}

/* The result's "verdicts" and "verdict_details" (verdict.h). */
static void add_verdicts(struct job_ctx *c, struct job_result *res)
{
	json_t *debug = json_object_get(json_object_get(res->env, "kernel"), "debug_options");
	struct verdict_input in = {
		.debug_options = debug,
		.rx_role = c->rate_done ? c->rx_role : NULL,
		.rx_pps = c->rx_series,
		.n_rx = c->n_rx_series,
		.rx_frames = c->rate_rx_frames,
		.gen_frames = c->gen ? (double)c->rate_gen_frames : -1,
		.target_pps = (double)(c->rate_done ? c->rate_target_pps : c->target_pps),
		.offered_pps = c->rate_done ? c->offered_pps : -1,
		.error_frames = c->rate_done ? c->rate_errors : 0,
		.all_rx_frames = c->rate_all_rx,
		.error_what = "rx/tx errors and drops of the job's ports, and counters named *err*",
		.rx_cpu_busy = c->rate_done ? c->rx_cpu_busy : -1,
		.rx_cpus = c->rx_cpus,
		.others = { c->dist_done[0] ? c->dist[0].others : -1,
			    c->dist_done[1] ? c->dist[1].others : -1 },
		.others_what = { c->dist[0].text, c->dist[1].text },
		.rx_cpu = c->rx_cpu,
		.outliers = c->outliers[0] ? c->outliers : NULL,
		.search_bound = c->search_bound[0] ? c->search_bound : NULL,
		/* under icount the guest's clock runs with its instructions: a gap in the
		 * generator is other work of its vCPU (the receive path's softirq), not a
		 * hold-up by anything outside the measurement */
		.held_pps = c->rate_done && !c->icount ? c->rate_held_pps : 0,
		.held_n = c->rate_done && !c->icount ? c->rate_held.held_n : 0,
		.held_ms = c->rate_done && !c->icount ? (double)c->rate_held.held_ns / 1e6 : 0,
	};

	if (verdict_compute(&in, &res->verdicts, &res->details))
		res->verdicts = res->details = NULL;
}

/* Each job port's XDP mode during the job (the mode used: native or generic, also for
 * an entry of mode auto, which adds "xdp_auto": true), and how its tc hooks were
 * attached ("tc_attach": {"ingress": tcx|clsact|none, "egress": ...}), into the env's
 * port entries. */
static void add_xdp_modes(struct job_ctx *c, json_t *env)
{
	json_t *ports = json_object_get(env, "ports"), *p;
	size_t i;
	int j;

	json_array_foreach(ports, i, p) {
		const char *role = json_string_value(json_object_get(p, "role"));
		const char *mode = "none", *tc[2] = { "none", "none" };
		bool xdp_auto = false;

		if (!role || !job_find_port(c, role))
			continue;
		for (j = 0; c->attach && j < attach_count(c->attach); j++) {
			const struct attach_prog *a = attach_get(c->attach, j);

			if (strcmp(a->role, role))
				continue;
			if (a->hook == JOB_HOOK_XDP) {
				mode = jobspec_xdp_mode_name(a->mode_used);
				xdp_auto = a->mode == JOB_XDP_AUTO;
			}
			else if (a->tc_attached != JOB_TC_AUTO)
				tc[a->hook == JOB_HOOK_TC_EGRESS] = jobspec_tc_mode_name(a->tc_attached);
		}
		json_object_set_new(p, "xdp_mode", json_string(mode));
		if (xdp_auto)
			json_object_set_new(p, "xdp_auto", json_true());
		json_object_set_new(p, "tc_attach", json_pack("{s:s, s:s}", "ingress", tc[0],
							       "egress", tc[1]));
	}
}

/* The scheduling class a paced generator of the job ran in (genboost.h), into the env:
 * "gen_sched": "fifo" (SCHED_FIFO), "fifo, then other" (a thread ran flat out and went
 * back), or "other" (not permitted); absent when no paced generator ran (full speed,
 * pktgen, none). */
static void add_gen_sched(json_t *env)
{
	bool fifo, demoted;

	if (genboost_seen(&fifo, &demoted))
		json_object_set_new(env, "gen_sched",
				    json_string(!fifo ? "other" :
						demoted ? "fifo, then other" : "fifo"));
}

/* Point RES->r at RES's own members. */
static void job_result_link(struct job_result *res)
{
	res->r.job = json_is_integer(res->id) ? json_integer_value(res->id) : 0;
	res->r.error = res->error;
	res->r.verifier_log = res->verifier_log;
	res->r.env = json_is_object(res->env) ? res->env : NULL;
	res->r.verdicts = res->verdicts;
	res->r.verdict_details = res->details;
}

int job_run_result(const json_t *msg, const struct job_opts *opts, struct job_result *res)
{
	struct job_ctx ctx, *c = &ctx;
	json_t *job = json_object_get(msg, "job");
	const json_t *spec = json_object_get(job, "spec");
	char *verifier_log = NULL;
	int64_t duration_ms, warmup_ms, warmup_left_ms, t_go;
	bool rates;
	int64_t started = util_wall_ms();
	int err;

	memset(c, 0, sizeof(*c));
	jobspec_init(&c->spec);
	c->opts = opts;
	c->stats_fd = -1;
	c->icount = opts->inv && opts->inv->timing && !strcmp(opts->inv->timing, "icount");
	c->rx_cpu_busy = -1;
	c->offered_pps = -1;
	c->rx_cpu = -1;
	{
		char *config = NULL;
		size_t len;

		if (!inventory_kernel_config(&config, &len))
			c->irq_time = disturb_irq_time(config);
		free(config);
	}
	c->msg = msg;
	c->id = json_object_get(job, "id");
	memset(res, 0, sizeof(*res));
	res->id = json_incref(c->id);
	res->env = opts->inv ? inventory_build(opts->inv) : json_object();
	genboost_seen(&(bool){ 0 }, &(bool){ 0 });	/* forget an earlier job's generator */

	if (!json_is_object(spec)) {
		err = err_at(&c->err, NULL, 0, 0, "job message has no spec");
		goto out;
	}
	/* the one place the agent reads the spec's JSON */
	err = jobspec_decode(spec, "spec", &c->spec, &c->err);
	if (err) {
		c->err.input = err == -EINVAL;	/* the spec is wrong, not this host */
		goto out;
	}
	duration_ms = c->spec.traffic.duration_ms;
	warmup_ms = c->spec.traffic.warmup_ms;
	if (!duration_ms) {
		err = err_at(&c->err, NULL, 0, 0, "job spec has no traffic.duration_ms");
		goto out;
	}
	err = job_resolve_ports(c);
	if (err)
		goto out;
	c->rtnl = ifstats_new();
	c->attach = attach_new();
	if (!c->rtnl || !c->attach) {
		err = -errno;
		err_set(&c->err, "cannot open rtnetlink: %s", strerror(errno));
		goto out;
	}

	job_progress(c, "prepare", 0, 0, NULL);
	err = prepare(c, &verifier_log);
	if (err)
		goto out;
	job_load_samples(c);
	/* the ports' driver counters (nic.*) after the attach, which may change a driver's
	 * queues; a counter the spec asks for and no port has fails the job here */
	if (!c->spec.has_search) {
		err = job_nic_open(c);
		if (err)
			goto out;
	}
	/* The generator is made ready before the barrier (loading its program can take a
	 * good part of a second on a busy host) and the warmup ends WARMUP_MS after the
	 * coordinator sent its `go` (at_ms) on both sides of a pair, however late each side
	 * saw it, so that their rate windows line up. */
	err = job_traffic_setup(c) ?: barrier(c);
	if (err)
		goto out;
	t_go = util_mono_ns() - c->go_late_ms * 1000000LL;
	if (c->spec.has_search) {
		/* trials instead of the windows (job_search.c) */
		err = job_search_run(c, job_search_trial, c);
		if (!err && c->spec.has_latency)
			err = job_latency_run(c, c->search_lower);
		goto out;
	}
	err = job_traffic_start(c);
	if (err)
		goto out;
	rates = job_any_metric(c, "port.") || job_any_metric(c, "gen.") || job_any_metric(c, "counter.") ||
		job_any_metric(c, "cpu.") || job_any_metric(c, "nic.") || job_rxcost_wanted(c);
	/* without a generator, the receiving port: its look is part of the warmup, so the
	 * rate window still starts warmup after the go */
	if (rates && !c->rx_role && !c->from)
		c->rx_role = job_pair_dut_port(c) ?: job_busiest_port(c);
	/* a cold host warms up first; a pair's windows must line up, so not there */
	if (opts->last_job_ns && job_cost_wanted(c) && attach_count(c->attach) &&
	    !c->spec.has_pair &&
	    (!*opts->last_job_ns || util_mono_ns() - *opts->last_job_ns > JOB_IDLE_MS * 1000000LL)) {
		err = job_warm_up(c);
		if (err)
			goto out;
		t_go = util_mono_ns();
	}
	warmup_left_ms = warmup_ms - (util_mono_ns() - t_go) / 1000000;
	if (warmup_left_ms > 0) {
		err = job_run_window(c, JOB_WARMUP, warmup_left_ms);
		if (err)
			goto out;
	}
	if (rates) {
		c->rx_series = calloc((duration_ms + 999) / 1000 + 1, sizeof(*c->rx_series));
		if (!c->rx_series) {
			err = -ENOMEM;
			err_set(&c->err, "out of memory");
			goto out;
		}
		/* rx.ns_per_frame: its tracepoints only for the rate window */
		if (job_rxcost_wanted(c)) {
			err = job_rxcost_open(c);
			if (err)
				goto out;
		}
		err = job_run_window(c, JOB_RATE, duration_ms);
		rxcost_close(&c->rxcost);
		if (err)
			goto out;
		err = job_check_delivery(c);
		if (err)
			goto out;
	}
	if (job_cost_wanted(c) && !attach_count(c->attach) &&
	    c->spec.traffic.generator == JOB_GEN_XDP_LIVE && c->spec.has_pair &&
	    c->spec.pair.role == JOB_PAIR_GENERATOR) {
		/* the generator side of a pair feeds the other side's cost window too
		 * (xdp-live only, as before the generator interface) */
		job_progress(c, "cost", 0, 0, NULL);
		err = job_sleep_until(c, util_mono_ns() + (PAIR_GUARD_MS + duration_ms) * 1000000LL);
		if (err)
			goto out;
	}
	if (job_cost_wanted(c) && attach_count(c->attach)) {
		/* the DUT side of a pair: a generator whose rate window ends a little later
		 * must not feel bpf_stats in it */
		if (c->spec.has_pair && c->rate_done) {
			err = job_sleep_until(c, util_mono_ns() + PAIR_GUARD_MS * 1000000LL);
			if (err)
				goto out;
		}
		c->stats_fd = progstats_enable();
		if (c->stats_fd < 0) {
			err = c->stats_fd;
			err_set(&c->err, "cannot enable bpf_stats: %s", strerror(-err));
			goto out;
		}
		err = job_run_window(c, JOB_COST, duration_ms);
		progstats_disable(&c->stats_fd);
		if (err)
			goto out;
	}
	/* a thread that failed in the last second fails the job */
	err = job_traffic_stop(c);
	if (!err && c->spec.has_latency)
		err = job_latency_run(c, 0);
out:
	add_verdicts(c, res);
	add_xdp_modes(c, res->env);
	add_gen_sched(res->env);
	if (c->opts->progress && spec)
		job_progress(c, "cleanup", 0, 0, NULL);
	progstats_disable(&c->stats_fd);
	rxcost_close(&c->rxcost);
	job_traffic_destroy(c);
	attach_destroy(&c->attach);
	free(c->rx_series);
	disturb_release(&c->dist_first);
	ifstats_destroy(&c->rtnl);
	job_nic_close(c);
	free(c->ports);
	jobspec_release(&c->spec);
	if (err == -ECANCELED)
		err_set(&c->err, "cancelled");
	if (!err && c->samples_lost) {
		err = -ENOMEM;
		err_set(&c->err, "out of memory: %zu samples lost", c->samples_lost);
	}
	res->r.failed = err != 0;
	if (err) {
		char id[64] = "?";

		job_id_text(msg, id, sizeof(id));
		res->error = strdup(err_text(&c->err, err));
		pr_warn("job '%s' failed: %s", id, err_text(&c->err, err));
	}
	res->verifier_log = verifier_log;
	res->r.started_ms = started;
	res->r.finished_ms = util_wall_ms();
	res->r.has_started = res->r.has_finished = true;
	res->r.samples = c->samples;
	memset(&c->samples, 0, sizeof(c->samples));
	if (opts->last_job_ns)
		*opts->last_job_ns = util_mono_ns();
	if (!res->env || (err && !res->error)) {
		job_result_release(res);
		return -ENOMEM;
	}
	job_result_link(res);
	return 0;
}

int job_result_fail(struct job_result *res, const char *error)
{
	char *e = strdup(error);

	if (!e)
		return -ENOMEM;
	free(res->error);
	res->error = e;
	res->r.failed = true;
	samples_release(&res->r.samples);
	job_result_link(res);
	return 0;
}

char *job_result_encode(const struct job_result *res, size_t *len)
{
	json_t *msg;
	char *text = NULL;

	if (json_is_integer(res->id))
		return msg_result_encode_text(&res->r, len);
	msg = msg_result_encode(&res->r);

	/* a job id that is not an integer (agent --once, tests) as its message had it */
	if (msg && json_object_set(msg, "job", res->id ? res->id : json_null())) {
		json_decref(msg);
		return NULL;
	}
	if (msg)
		text = proto_encode(msg, len);
	json_decref(msg);
	return text;
}

void job_result_release(struct job_result *res)
{
	samples_release(&res->r.samples);
	json_decref(res->id);
	json_decref(res->env);
	json_decref(res->verdicts);
	json_decref(res->details);
	free(res->error);
	free(res->verifier_log);
	memset(res, 0, sizeof(*res));
}

json_t *job_run(const json_t *msg, const struct job_opts *opts)
{
	struct job_result res;
	json_t *result;
	struct err why;
	size_t len;
	char *text;

	if (job_run_result(msg, opts, &res))
		return NULL;
	text = job_result_encode(&res, &len);
	job_result_release(&res);
	if (!text)
		return NULL;
	result = proto_decode(text, len, &why);
	free(text);
	return result;
}

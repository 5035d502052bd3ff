// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* job_window.c - the measurement windows of a job (job_int.h): warmup, rate and cost,
 * each a counter snapshot per second at absolute deadlines and the samples of each
 * second and of the whole window; the verdicts' facts of the rate window; what others
 * took of the measured CPUs; and the host warm-up. */
#include "job_int.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "base/util.h"
#include "verdict.h"

/* Counters at one instant. */
struct job_snap {
	int64_t t_ns;			/* CLOCK_MONOTONIC, middle of the reads */
	struct ifstats_counters *ports;	/* n_ports */
	uint64_t gen_frames;
	struct gen_pace_stats pace;	/* a paced generator's (gen.h), burst 0: none */
	struct progstats *progs;	/* n_progs */
	uint64_t *counters;		/* attach_counter_count() */
	struct cpustat cpu;		/* empty unless cpu.* metrics are wanted */
	/* per port its driver counters (ethstats.h), read at the edges of the rate
	 * window only (nic_ok[i]: read), and the middle of those reads */
	uint64_t **nic;
	bool *nic_ok;
	int64_t nic_t_ns;
	struct rxcost_sums rx;		/* rate window with c->rxcost */
};

/* A paced generator's largest burst and its shortfall since it started (warm-up too) at
 * the window's end B: gen.burst, gen.shortfall (gen.h struct gen_pace_stats), when it
 * keeps them; its hold-ups in the rate window A -> B (gen.held frames, gen.held_ms) into
 * the verdict's input (c->rate_held). */
static void rate_pace(struct job_ctx *c, const struct job_snap *a, const struct job_snap *b,
		      double dt)
{
	if (!b->pace.burst)
		return;
	job_add_record(c, "gen.burst", c->from, (double)b->pace.burst, "frames", "rate");
	job_add_record(c, "gen.shortfall", c->from, (double)b->pace.shortfall, "frames",
		       "rate");
	if (!a->pace.burst)
		return;
	c->rate_held = (struct gen_pace_stats){
		.held = b->pace.held - a->pace.held,
		.held_n = b->pace.held_n - a->pace.held_n,
		.held_ns = b->pace.held_ns - a->pace.held_ns,
	};
	c->rate_held_pps = (double)c->rate_held.held / dt;
	job_add_record(c, "gen.held", c->from, (double)c->rate_held.held, "frames", "rate");
	job_add_record(c, "gen.held_ms", c->from, (double)c->rate_held.held_ns / 1e6, "ms",
		       "rate");
}

static bool cancelled(const struct job_ctx *c)
{
	return c->opts->cancel && atomic_load(c->opts->cancel);
}

/* Sleep until the CLOCK_MONOTONIC instant DEADLINE_NS, looking at the cancel flag every
 * JOB_POLL_MS. Returns 0, or -ECANCELED. */
int job_sleep_until(struct job_ctx *c, int64_t deadline_ns)
{
	for (;;) {
		int64_t now = util_mono_ns(), until;
		struct timespec ts;

		if (cancelled(c))
			return -ECANCELED;
		if (now >= deadline_ns)
			return 0;
		until = deadline_ns - now > JOB_POLL_MS * 1000000LL ?
			now + JOB_POLL_MS * 1000000LL : deadline_ns;
		ts.tv_sec = until / 1000000000LL;
		ts.tv_nsec = until % 1000000000LL;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
}


/* Under icount, job_sleep_until() DEADLINE_NS in slices of COSTSLICE_NS, reading every
 * attached program's bpf_stats at the end of each slice into c->slices. Returns 0,
 * -ECANCELED, or -errno with c->err set. */
static int sleep_sliced(struct job_ctx *c, int64_t deadline_ns)
{
	int n = attach_count(c->attach), i, err;
	struct progstats now[n ? n : 1];

	for (;;) {
		int64_t t = util_mono_ns();

		if (t >= deadline_ns)
			return 0;
		err = job_sleep_until(c, t + COSTSLICE_NS < deadline_ns ? t + COSTSLICE_NS
								  : deadline_ns);
		if (err)
			return err;
		for (i = 0; i < n; i++) {
			err = progstats_read(attach_get(c->attach, i)->prog_fd, &now[i]);
			if (err) {
				err_set(&c->err, "cannot read bpf_stats of '%s': %s",
					attach_get(c->attach, i)->subject, strerror(-err));
				return err;
			}
		}
		costslice_add(c->slices, now);
	}
}

static int attach_count_counters(const struct job_ctx *c)
{
	return c->attach ? attach_counter_count(c->attach) : 0;
}

static int snap_init(struct job_ctx *c, struct job_snap *s)
{
	int n_progs = c->attach ? attach_count(c->attach) : 0;

	memset(s, 0, sizeof(*s));
	int n_counters = attach_counter_count(c->attach);

	s->ports = calloc(c->n_ports ? c->n_ports : 1, sizeof(*s->ports));
	s->progs = calloc(n_progs ? n_progs : 1, sizeof(*s->progs));
	s->counters = calloc(n_counters ? n_counters : 1, sizeof(*s->counters));
	if (!s->ports || !s->progs || !s->counters)
		return -ENOMEM;
	if (!c->nic)
		return 0;
	s->nic = calloc(c->n_ports ? c->n_ports : 1, sizeof(*s->nic));
	s->nic_ok = calloc(c->n_ports ? c->n_ports : 1, sizeof(*s->nic_ok));
	if (!s->nic || !s->nic_ok)
		return -ENOMEM;
	for (int i = 0; i < c->n_ports; i++) {
		if (c->nic[i] && !(s->nic[i] = calloc(ethstats_count(c->nic[i]) ?: 1,
						      sizeof(**s->nic))))
			return -ENOMEM;
	}
	return 0;
}

static void snap_release(struct job_ctx *c, struct job_snap *s)
{
	for (int i = 0; s->nic && i < c->n_ports; i++)
		free(s->nic[i]);
	free(s->nic);
	free(s->nic_ok);
	s->nic = NULL;
	s->nic_ok = NULL;
	free(s->ports);
	free(s->progs);
	free(s->counters);
	cpustat_release(&s->cpu);
	s->ports = NULL;
	s->progs = NULL;
	s->counters = NULL;
}

static void snap_copy(struct job_ctx *c, struct job_snap *dst, const struct job_snap *src)
{
	int n_progs = c->attach ? attach_count(c->attach) : 0;

	dst->t_ns = src->t_ns;
	dst->gen_frames = src->gen_frames;
	dst->pace = src->pace;
	dst->rx = src->rx;
	memcpy(dst->ports, src->ports, c->n_ports * sizeof(*dst->ports));
	memcpy(dst->progs, src->progs, n_progs * sizeof(*dst->progs));
	memcpy(dst->counters, src->counters,
	       attach_counter_count(c->attach) * sizeof(*dst->counters));
	if (src->cpu.n) {
		struct cpustat_cpu *cpus = realloc(dst->cpu.cpus, src->cpu.n * sizeof(*cpus));

		if (cpus) {
			memcpy(cpus, src->cpu.cpus, src->cpu.n * sizeof(*cpus));
			dst->cpu.cpus = cpus;
			dst->cpu.n = src->cpu.n;
		}
	}
}

/* The driver counters of every job port into S (best effort: a port whose read fails
 * has none in this window, logged). */
static void nic_take(struct job_ctx *c, struct job_snap *s)
{
	int64_t t0 = util_mono_ns();
	int i, err;

	for (i = 0; s->nic && i < c->n_ports; i++) {
		s->nic_ok[i] = false;
		if (!c->nic[i])
			continue;
		err = ethstats_read(c->nic[i], s->nic[i]);
		if (err)
			pr_warn("job: cannot read the driver counters of port '%s' ('%s'): %s",
				c->ports[i].role, c->ports[i].ifname, strerror(-err));
		s->nic_ok[i] = !err;
	}
	s->nic_t_ns = t0 + (util_mono_ns() - t0) / 2;
}

/* Read every counter the job samples into S, with NIC the ports' driver counters too.
 * Returns 0 or -errno with c->err set. */
static int snap_take(struct job_ctx *c, struct job_snap *s, bool progs, bool nic)
{
	int64_t t0 = util_mono_ns();
	int i, err;

	for (i = 0; i < c->n_ports; i++) {
		err = ifstats_read(c->rtnl, c->ports[i].ifindex, &s->ports[i]);
		if (err) {
			err_set(&c->err, "cannot read counters of port '%s' ('%s'): %s",
				c->ports[i].role, c->ports[i].ifname, strerror(-err));
			return err;
		}
	}
	if (c->gen) {
		err = c->gen_ops->frames(c->gen, &s->gen_frames);
		if (err) {
			err_set(&c->err, "cannot read the generator's frame count: %s",
				strerror(-err));
			return err;
		}
		if (!c->gen_ops->pace_stats || c->gen_ops->pace_stats(c->gen, &s->pace))
			memset(&s->pace, 0, sizeof(s->pace));
	}
	for (i = 0; progs && i < attach_count(c->attach); i++) {
		const struct attach_prog *p = attach_get(c->attach, i);

		err = progstats_read(p->prog_fd, &s->progs[i]);
		if (err) {
			err_set(&c->err, "cannot read bpf_stats of '%s': %s",
				p->subject, strerror(-err));
			return err;
		}
	}
	for (i = 0; !progs && i < attach_count_counters(c); i++) {
		err = attach_counter_read(c->attach, i, &s->counters[i]);
		if (err) {
			err_set(&c->err, "cannot read counter '%s' of map '%s': %s",
				attach_counter_get(c->attach, i)->name,
				attach_counter_get(c->attach, i)->map, strerror(-err));
			return err;
		}
	}
	if (!progs && c->rxcost) {
		err = rxcost_read(c->rxcost, &s->rx);
		if (err) {
			err_set(&c->err, "cannot read rx.ns_per_frame's maps: %s",
				strerror(-err));
			return err;
		}
	}
	if (!progs && (job_any_metric(c, "cpu.") || c->gen)) {
		err = cpustat_read(c->opts->proc_stat, &s->cpu);
		if (err) {
			err_set(&c->err, "cannot read '%s': %s",
				c->opts->proc_stat ? c->opts->proc_stat : "/proc/stat",
				strerror(-err));
			return err;
		}
	}
	s->t_ns = t0 + (util_mono_ns() - t0) / 2;
	if (nic)
		nic_take(c, s);
	return 0;
}

/* Whether the spec lists nic.NAME: then a zero rate is a measurement, kept. */
static bool nic_listed(const char *name, void *ctx)
{
	const struct job_ctx *c = ctx;
	int i;

	for (i = 0; c->spec.has_metrics && i < c->spec.n_metrics; i++)
		if (!strncmp(c->spec.metrics[i], "nic.", 4) && !strcmp(c->spec.metrics[i] + 4, name))
			return true;
	return false;
}

/* The driver counters of each port between A and B (the whole rate window): a record
 * nic.NAME per counter that moved (or that the spec lists), subject the port's role. */
static void nic_emit(struct job_ctx *c, const struct job_snap *a, const struct job_snap *b)
{
	struct ethstats_rate r[ETHSTATS_MAX];
	double dt = (b->nic_t_ns - a->nic_t_ns) / 1e9;
	char metric[8 + ETHSTATS_NAME_LEN];
	int i, k, n;

	for (i = 0; a->nic && b->nic && i < c->n_ports; i++) {
		if (!c->nic[i] || !a->nic_ok[i] || !b->nic_ok[i])
			continue;
		n = ethstats_rates(ethstats_stats(c->nic[i]), ethstats_count(c->nic[i]),
				   a->nic[i], b->nic[i], dt, nic_listed, c, r);
		for (k = 0; k < n; k++) {
			snprintf(metric, sizeof(metric), "nic.%s", r[k].name);
			job_add_record(c, metric, c->ports[i].role, r[k].value, r[k].unit, "rate");
		}
	}
}

/* What the verdicts need from interval A -> B of the rate window (SEQ -1: whole). */
static void rate_facts(struct job_ctx *c, const struct job_snap *a, const struct job_snap *b,
		       double dt, int seq)
{
	int i;

	for (i = 0; i < c->n_ports; i++) {
		const struct ifstats_counters *x = &a->ports[i], *y = &b->ports[i];
		double rx = (double)(y->rx_packets - x->rx_packets);

		if (c->rx_role && !strcmp(c->ports[i].role, c->rx_role)) {
			if (seq >= 0 && c->rx_series)
				c->rx_series[c->n_rx_series++] = rx / dt;
			if (seq < 0)
				c->rate_rx_frames = rx;
		}
		if (seq < 0) {
			/* A generator outrunning the path overflows its own port's queue and
			 * the receiver's: those drops are the generator's, not the path's. */
			bool gen_tx = c->from && !strcmp(c->ports[i].role, c->from);
			bool gen_rx = c->from && c->rx_role && !strcmp(c->ports[i].role, c->rx_role);

			c->rate_all_rx += rx;
			c->rate_errors += (double)(y->rx_errors - x->rx_errors);
			if (!gen_tx)
				c->rate_errors += (double)(y->tx_errors - x->tx_errors) +
						  (double)(y->tx_dropped - x->tx_dropped);
			if (!gen_rx)
				c->rate_errors += (double)(y->rx_dropped - x->rx_dropped);
		}
	}
	for (i = 0; seq < 0 && i < attach_count_counters(c); i++) {
		if (strstr(attach_counter_get(c->attach, i)->name, "err"))
			c->rate_errors += (double)(b->counters[i] - a->counters[i]);
	}
	if (seq < 0 && a->cpu.n && a->cpu.n == b->cpu.n) {
		int cpu[a->cpu.n], n = 0;
		double busy[a->cpu.n], soft;
		struct verdict_cpus vc = {
			.cpu = cpu, .busy = busy,
			.gen_cpus = c->n_gen_cpus ? c->gen_cpus : NULL, .n_gen = c->n_gen_cpus,
			/* a veth peer's NAPI (or backlog) runs on the sending CPU */
			.rx_on_gen_cpu = c->from_veth,
		};

		for (i = 0; i < a->cpu.n; i++) {
			if (cpustat_share(&a->cpu, &b->cpu, i, &busy[n], &soft))
				continue;
			cpu[n++] = b->cpu.cpus[i].cpu;
		}
		vc.n = n;
		c->rx_cpu_busy = verdict_rx_busy(&vc, c->rx_cpus, sizeof(c->rx_cpus));
	}
}

/* The job port of ROLE, or NULL (job_find_port() without calling job_traffic.c, which
 * calls this file). */
static const struct job_port *port_of(const struct job_ctx *c, const char *role)
{
	int i;

	for (i = 0; role && i < c->n_ports; i++) {
		if (!strcmp(c->ports[i].role, role))
			return &c->ports[i];
	}
	return NULL;
}

/* rx.ns_per_frame of each receiving port over A -> B (rxcost.h); over the whole window
 * (SEQ -1) its denominators as records too. */
static void emit_rxcost(struct job_ctx *c, const struct job_snap *a, const struct job_snap *b,
			int seq)
{
	const struct job_port *rx = port_of(c, c->n_rx_roles ? c->rx_roles[0] : NULL);
	struct rxcost_work work[RXPATH_MAX_WORK + 1];
	double per_poll, per_frame;
	struct rxcost_fig f;
	int i, j;

	for (i = 0; rx && i < c->n_ports; i++) {
		if (&c->ports[i] == rx)
			job_add_sample(c, "rx.softirq_ns_per_frame", rx->role,
				       rxcost_softirq_per_frame(&a->rx, &b->rx,
					       (double)(b->ports[i].rx_packets -
							a->ports[i].rx_packets)),
				       "ns", "rate", seq);
	}
	if (seq < 0 && rx)
		job_add_record(c, "rx.softirqs", rx->role,
			       (double)(b->rx.sirq.count - a->rx.sirq.count), "count", "rate");
	for (i = 0; c->rxcost_polls && i < c->n_rx_roles; i++) {
		const struct job_port *p = port_of(c, c->rx_roles[i]);
		double port_frames = -1;

		for (j = 0; j < c->n_ports; j++) {
			if (&c->ports[j] == p)
				port_frames = (double)(b->ports[j].rx_packets - a->ports[j].rx_packets);
		}
		rxcost_delta(&a->rx, &b->rx, i, port_frames, &f);
		job_add_sample(c, "rx.ns_per_frame", c->rx_roles[i], f.ns_per_frame, "ns", "rate",
			       seq);
		if (seq >= 0)
			continue;
		job_add_record(c, "rx.frames", c->rx_roles[i], f.frames, "count", "rate");
		/* what the port counted meanwhile: frames polled elsewhere (threaded NAPI,
		 * busy polling, another path) show as a difference */
		if (port_frames >= 0)
			job_add_record(c, "rx.port_frames", c->rx_roles[i], port_frames, "count",
				       "rate");
		job_add_record(c, "rx.polls", c->rx_roles[i], f.polls, "count", "rate");
		job_add_record(c, "rx.empty_polls", c->rx_roles[i], f.empty_polls, "count", "rate");
		job_add_record(c, "rx.empty_poll_ns", c->rx_roles[i], f.empty_ns, "ns", "rate");
		if (f.polls > 0 &&
		    !rxcost_read_work(c->rxcost, i, f.napi, work) &&
		    !rxcost_fit(work, RXPATH_MAX_WORK + 1, &per_poll, &per_frame)) {
			/* since the attach (a minimum cannot be taken apart), a few ms more */
			job_add_record(c, "rx.fit_ns_per_frame", c->rx_roles[i], per_frame, "ns",
				       "rate");
			job_add_record(c, "rx.fit_ns_per_poll", c->rx_roles[i], per_poll, "ns",
				       "rate");
		}
		if (f.others > 0)
			job_add_record(c, "rx.other_napis", c->rx_roles[i], f.others, "count",
				       "rate");
		if (f.outside > 0)
			job_add_record(c, "rx.untimed_polls", c->rx_roles[i], f.outside, "count",
				       "rate");
		if (i == 0)
			job_add_record(c, "rx.hook_ns_per_poll", "napi_poll", f.hook_ns_per_poll,
				       "ns", "rate");
	}
}

/* Samples of one interval A -> B; SEQ -1 for the whole window. */
static void emit(struct job_ctx *c, enum job_window w, const struct job_snap *a,
		 const struct job_snap *b, int seq)
{
	double dt = (b->t_ns - a->t_ns) / 1e9;
	int i;

	if (dt <= 0)
		return;
	if (w == JOB_RATE) {
		for (i = 0; i < c->n_ports; i++) {
			const struct ifstats_counters *x = &a->ports[i], *y = &b->ports[i];
			double drops = (double)(y->rx_dropped - x->rx_dropped) +
				       (double)(y->tx_dropped - x->tx_dropped);

			job_add_sample(c, "port.rx_pps", c->ports[i].role,
				   (y->rx_packets - x->rx_packets) / dt, "pps", "rate", seq);
			job_add_sample(c, "port.tx_pps", c->ports[i].role,
				   (y->tx_packets - x->tx_packets) / dt, "pps", "rate", seq);
			job_add_sample(c, "port.drop_pps", c->ports[i].role, drops / dt, "pps", "rate",
				   seq);
		}
		if (c->gen) {
			job_add_sample(c, "gen.tx_pps", c->from, (b->gen_frames - a->gen_frames) / dt,
				   "pps", "rate", seq);
			if (seq < 0)
				c->rate_gen_frames = b->gen_frames - a->gen_frames;
			/* the rate the generator held, against traffic.rate: measured */
			if (seq < 0 && c->target_pps) {
				c->offered_pps = (b->gen_frames - a->gen_frames) / dt;
				job_add_record(c, "gen.offered_pps", c->from, c->offered_pps,
					       "pps", "rate");
				rate_pace(c, a, b, dt);
			}
		}
		for (i = 0; i < attach_count_counters(c); i++)
			job_add_sample(c, "counter.pps", attach_counter_get(c->attach, i)->name,
				   (b->counters[i] - a->counters[i]) / dt, "pps", "rate", seq);
		for (i = 0; i < a->cpu.n && i < b->cpu.n; i++) {
			char subject[32];
			double busy, softirq;

			if (cpustat_share(&a->cpu, &b->cpu, i, &busy, &softirq))
				continue;
			snprintf(subject, sizeof(subject), "cpu%d", b->cpu.cpus[i].cpu);
			job_add_sample(c, "cpu.busy", subject, busy, "ratio", "rate", seq);
			job_add_sample(c, "cpu.softirq", subject, softirq, "ratio", "rate", seq);
		}
		if (c->rxcost)
			emit_rxcost(c, a, b, seq);
		rate_facts(c, a, b, dt, seq);
		if (seq < 0)
			nic_emit(c, a, b);
		for (i = 0; seq < 0 && i < c->n_ports; i++) {
			if (c->from && !strcmp(c->ports[i].role, c->from))
				c->rate_from_tx = b->ports[i].tx_packets - a->ports[i].tx_packets +
						  b->ports[i].tx_dropped - a->ports[i].tx_dropped;
		}
	} else if (w == JOB_COST) {
		for (i = 0; i < attach_count(c->attach); i++) {
			const struct attach_prog *p = attach_get(c->attach, i);
			uint64_t runs = b->progs[i].run_cnt - a->progs[i].run_cnt;
			uint64_t ns = b->progs[i].run_time_ns - a->progs[i].run_time_ns;

			double per_run = runs ? (double)ns / runs : NAN;

			/* under icount: the interrupt-free count of the window's slices */
			if (c->slices)
				per_run = seq >= 0 ? costslice_take_second(c->slices, i)
						   : costslice_window(c->slices, i);
			if (!isnan(per_run))	/* no runs, no cost to report */
				job_add_sample(c, "prog.ns_per_run", p->subject, per_run, "ns",
					   "cost", seq);
			job_add_sample(c, "prog.run_pps", p->subject, runs / dt, "pps", "cost", seq);
		}
	}
}

/* {ROLE: rx pps} between A and B for progress messages. */
static json_t *rates_json(struct job_ctx *c, const struct job_snap *a, const struct job_snap *b)
{
	double dt = (b->t_ns - a->t_ns) / 1e9;
	json_t *r = json_object();
	int i;

	for (i = 0; r && dt > 0 && i < c->n_ports; i++)
		json_object_set_new(r, c->ports[i].role,
				    json_real(round((b->ports[i].rx_packets -
						     a->ports[i].rx_packets) / dt)));
	return r;
}

/* Where the measured work of the job ran (disturb.h): the generator's CPUs when it is
 * pinned and the receive path runs there (a veth peer's NAPI); else those and every CPU
 * that served at least a quarter of the window's NET_RX softirqs. Without a pinned
 * generator (traffic from outside, a pair's DUT, udp without traffic.cpus): the NET_RX
 * CPUs this agent may run on, else every CPU it may run on (a DUT in a lab in a box
 * receives on its partner's CPU, whose generator is not "others" to the pair). Returns
 * the count in OUT (0: every CPU). */
static int measured_cpus(struct job_ctx *c, const struct disturb_snap *a,
			 const struct disturb_snap *b, int *out, int max)
{
	int n = 0, rx[64], n_rx, i, j;
	cpu_set_t set;

	for (i = 0; i < c->n_gen_cpus && n < max; i++)
		out[n++] = c->gen_cpus[i];
	if (n && c->from_veth)
		return n;
	n_rx = disturb_rx_cpus(a, b, 0.25, rx, 64);
	if (!n && sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (i = 0; i < n_rx && n < max; i++) {
		for (j = 0; j < n && out[j] != rx[i]; j++)
			;
		if (j == n && (c->n_gen_cpus || CPU_ISSET(rx[i], &set)))
			out[n++] = rx[i];
	}
	for (i = 0; !n && !c->n_gen_cpus && i < CPU_SETSIZE && n < max; i++)
		if (CPU_ISSET(i, &set))
			out[n++] = i;
	return n;
}

/* The disturbance snapshot at the start of a rate or cost window (best effort: a /proc
 * that cannot be read leaves the window without disturbance figures). */
static void disturb_begin(struct job_ctx *c)
{
	if (disturb_read(c->opts->proc_dir, &c->dist_first))
		disturb_release(&c->dist_first);
}

/* What others took of the measured CPUs over window W of DT_S seconds: into c->dist,
 * and the samples cpu.others (per CPU) and, for the rate window, rx.cpu. */
static void disturb_end(struct job_ctx *c, enum job_window w, double dt_s)
{
	struct disturb_snap end = { 0 };
	struct disturb_window *dw = &c->dist[w == JOB_COST];
	const char *window = w == JOB_COST ? "cost" : "rate";
	int cpus[64], n, i;

	if (!c->dist_first.n || disturb_read(c->opts->proc_dir, &end))
		goto out;
	n = measured_cpus(c, &c->dist_first, &end, cpus, 64);
	if (disturb_measure(&c->dist_first, &end, cpus, n, dt_s, c->irq_time, dw))
		goto out;
	c->dist_done[w == JOB_COST] = true;
	for (i = 0; i < end.n; i++) {
		double others = disturb_cpu_others(&c->dist_first, &end, i, c->irq_time);
		char subject[32];
		int k;

		for (k = 0; k < n && cpus[k] != end.cpus[i].cpu; k++)
			;
		if (others < 0 || (n && k == n))
			continue;	/* a CPU the measured work did not use */
		snprintf(subject, sizeof(subject), "cpu%d", end.cpus[i].cpu);
		job_add_record(c, "cpu.others", subject, others, "ratio", window);
	}
	if (w == JOB_RATE && dw->rx_cpu >= 0) {
		c->rx_cpu = dw->rx_cpu;
		/* always recorded: compare tells two populations apart by it */
		job_add_record(c, "rx.cpu", c->rx_role ? c->rx_role : "", dw->rx_cpu, "cpu",
			   window);
	}
	pr_debug("job: %s window: others took %.1f%% of the measured CPUs (%s); NET_RX on cpu%d (%.0f%%)",
		 window, 100.0 * dw->others, dw->text, dw->rx_cpu, 100.0 * dw->rx_share);
out:
	disturb_release(&end);
	disturb_release(&c->dist_first);
}

static const char *window_phase(enum job_window w)
{
	return w == JOB_WARMUP ? "warmup" : w == JOB_RATE ? "rate" : "cost";
}

int job_rxcost_open(struct job_ctx *c)
{
	const char *names[RXPATH_MAX_DEVS];
	int i, j;

	c->n_rx_roles = 0;
	for (i = -1; i < c->spec.n_attach; i++) {
		const char *role = i < 0 ? c->rx_role : c->spec.attach[i].port;

		if (!role || (i >= 0 && c->spec.attach[i].hook != JOB_HOOK_XDP) ||
		    !port_of(c, role))
			continue;
		for (j = 0; j < c->n_rx_roles && strcmp(c->rx_roles[j], role); j++)
			;
		if (j < c->n_rx_roles)
			continue;
		if (c->n_rx_roles == RXPATH_MAX_DEVS) {
			err_at(&c->err, NULL, 0, 0,
			       "rx.ns_per_frame: more than %d receiving ports", RXPATH_MAX_DEVS);
			return -E2BIG;
		}
		names[c->n_rx_roles] = port_of(c, role)->ifname;
		c->rx_roles[c->n_rx_roles++] = role;
	}
	if (!c->n_rx_roles) {
		err_at(&c->err, NULL, 0, 0,
		       "rx.ns_per_frame: no receiving port (traffic.to, the generator's peer, or an XDP port of the variant)");
		return -EINVAL;
	}
	/* rx.softirq_ns_per_frame alone: no napi_poll hook (what it costs shows in the
	 * difference to a run with rx.ns_per_frame) */
	c->rxcost_polls = job_metric_listed(c, "rx.ns_per_frame");
	return rxcost_open_opts(&c->rxcost, names, c->n_rx_roles, c->rxcost_polls, &c->err);
}

/* Run one phase of DURATION_MS: a counter snapshot per second at absolute deadlines,
 * samples per second and for the whole phase (not for warmup), a progress message per
 * second. Returns 0, -ECANCELED, or -errno with c->err set. */
int job_run_window(struct job_ctx *c, enum job_window w, int64_t duration_ms)
{
	struct job_snap first, prev, cur;
	struct costslice slices;
	int n = (int)((duration_ms + 999) / 1000), i, err;
	bool progs = w == JOB_COST;
	int64_t t0;

	memset(&first, 0, sizeof(first));
	memset(&prev, 0, sizeof(prev));
	memset(&cur, 0, sizeof(cur));
	err = snap_init(c, &first) ?: snap_init(c, &prev) ?: snap_init(c, &cur);
	if (err) {
		err_set(&c->err, "out of memory");
		goto out;
	}
	if (w != JOB_WARMUP)
		disturb_begin(c);
	err = snap_take(c, &first, progs, w == JOB_RATE);
	if (err)
		goto out;
	snap_copy(c, &prev, &first);
	if (progs && c->icount) {
		err = costslice_init(&slices, attach_count(c->attach), first.progs);
		if (err) {
			err_set(&c->err, "out of memory");
			goto out;
		}
		c->slices = &slices;
	}
	t0 = first.t_ns;
	for (i = 0; i < n; i++) {
		int64_t end_ms = (i + 1) * 1000LL < duration_ms ? (i + 1) * 1000LL : duration_ms;

		err = c->slices ? sleep_sliced(c, t0 + end_ms * 1000000LL)
				: job_sleep_until(c, t0 + end_ms * 1000000LL);
		if (err)
			goto out;
		if (c->gen)
			err = c->gen_ops->error(c->gen, &c->err);
		if (err)
			goto out;
		err = snap_take(c, &cur, progs, w == JOB_RATE && i == n - 1);
		if (err)
			goto out;
		if (w != JOB_WARMUP)
			emit(c, w, &prev, &cur, i);
		job_progress(c, window_phase(w), i + 1, n, rates_json(c, &prev, &cur));
		snap_copy(c, &prev, &cur);
	}
	if (w != JOB_WARMUP) {
		emit(c, w, &first, &cur, -1);
		job_window_robust(c, window_phase(w));
		disturb_end(c, w, (cur.t_ns - first.t_ns) / 1e9);
	}
	if (w == JOB_RATE) {
		c->rate_done = true;
		c->rate_target_pps = c->target_pps;
	}
	pr_debug("job: %s window of %lld ms done", window_phase(w), (long long)duration_ms);
	if (c->slices)
		pr_debug("job: icount cost over %llu slices of %lld ns",
			 (unsigned long long)slices.slices, COSTSLICE_NS);
out:
	if (c->slices) {
		costslice_release(c->slices);
		c->slices = NULL;
	}
	snap_release(c, &first);
	snap_release(c, &prev);
	snap_release(c, &cur);
	return err;
}

/* The host warm-up: a host that has just started or was idle for JOB_IDLE_MS runs the
 * job's traffic with bpf_stats on in rounds of JOB_WARM_ROUND_MS until every attached
 * program's cost per run moved less than JOB_WARM_SETTLED from the round before (at
 * most JOB_WARM_MAX_ROUNDS), so that the first job of a lab does not measure a cold
 * host. The rounds are kept as samples warmup.ns_per_run (seq = round, window cost)
 * and count for nothing else. Returns 0, -ECANCELED, or -errno with c->err set. */
int job_warm_up(struct job_ctx *c)
{
	int n = attach_count(c->attach), r, i, err;
	struct job_snap a, b;
	double prev[n ? n : 1];

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	c->stats_fd = progstats_enable();
	if (c->stats_fd < 0) {
		err = c->stats_fd;
		err_set(&c->err, "cannot enable bpf_stats: %s", strerror(-err));
		return err;
	}
	err = snap_init(c, &a) ?: snap_init(c, &b);
	if (err) {
		err_set(&c->err, "out of memory");
		goto out;
	}
	err = snap_take(c, &a, true, false);
	for (r = 0; !err && r < JOB_WARM_MAX_ROUNDS && !c->warm_settled; r++) {
		bool settled = r > 0;

		err = job_sleep_until(c, a.t_ns + JOB_WARM_ROUND_MS * 1000000LL) ?:
		      snap_take(c, &b, true, false);
		if (err)
			break;
		for (i = 0; i < n; i++) {
			uint64_t runs = b.progs[i].run_cnt - a.progs[i].run_cnt;
			double ns = runs ? (double)(b.progs[i].run_time_ns -
						    a.progs[i].run_time_ns) / runs : NAN;

			job_add_record_seq(c, "warmup.ns_per_run", attach_get(c->attach, i)->subject,
				       ns, "ns", "cost", r);
			if (r > 0 && !(fabs(ns - prev[i]) < JOB_WARM_SETTLED * prev[i]))
				settled = false;
			prev[i] = ns;
		}
		job_progress(c, "warmup", r + 1, JOB_WARM_MAX_ROUNDS, NULL);
		c->warm_rounds = r + 1;
		c->warm_settled = settled;
		snap_copy(c, &a, &b);
	}
	pr_info("job: host warm-up of %d round%s, cost %s", c->warm_rounds,
		c->warm_rounds == 1 ? "" : "s", c->warm_settled ? "settled" : "not settled");
out:
	progstats_disable(&c->stats_fd);
	snap_release(c, &a);
	snap_release(c, &b);
	return err;
}

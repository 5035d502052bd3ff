/* job.c - see job.h. One struct job_ctx lives for one job_run() call; every resource it
 * acquires is released at its one cleanup label. */
#include "job.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <math.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis.h"
#include "attach.h"
#include "jobspec.h"
#include "costslice.h"
#include "cpustat.h"
#include "disturb.h"
#include "pktgen.h"
#include "udpgen.h"
#include "verdict.h"
#include "ifstats.h"
#include "log.h"
#include "progstats.h"
#include "stats.h"
#include "proto.h"
#include "util.h"
#include "xdpgen.h"

#define JOB_ERR_LEN 1024
#define JOB_POLL_MS 100
/* two-host pairs: a go later than this after the coordinator's at_ms means the clocks
 * disagree (the side times from its own receipt); the DUT's pause between its rate and
 * cost windows */
#define PAIR_MAX_GO_LATE_MS 1000
#define PAIR_GUARD_MS 200
/* the host warm-up (docs/agent.md, "Warm-up"): after JOB_IDLE_MS without a job, rounds
 * of JOB_WARM_ROUND_MS with bpf_stats on until every program's cost moved less than
 * JOB_WARM_SETTLED between two rounds, at most JOB_WARM_MAX_ROUNDS */
#define JOB_IDLE_MS 60000
#define JOB_WARM_ROUND_MS 1000
#define JOB_WARM_SETTLED 0.03
#define JOB_WARM_MAX_ROUNDS 8

struct job_port {
	const char *role;		/* borrowed from the spec */
	const char *ifname;		/* borrowed from the inventory config */
	int ifindex;
};

/* Counters at one instant. */
struct job_snap {
	int64_t t_ns;			/* CLOCK_MONOTONIC, middle of the reads */
	struct ifstats_counters *ports;	/* n_ports */
	uint64_t gen_frames;
	struct progstats *progs;	/* n_progs */
	uint64_t *counters;		/* attach_counter_count() */
	struct cpustat cpu;		/* empty unless cpu.* metrics are wanted */
};

struct job_ctx {
	const struct job_opts *opts;
	json_t *id;			/* borrowed */
	const json_t *msg;
	struct job_spec spec;		/* decoded once (jobspec.h); what the job reads */
	json_t *samples;
	struct job_port *ports;
	int n_ports;
	const char *from;		/* generator port role, or NULL */
	bool from_veth;			/* the generator's port is a veth */
	uint64_t rate_gen_frames;	/* generator frames over the rate window */
	uint64_t rate_from_tx;		/* tx_packets + tx_dropped of FROM, same window */
	struct ifstats *rtnl;
	struct attach_set *attach;
	struct xdpgen *gen;
	struct udpgen *udp;
	struct pktgen *pktgen;
	const char *rx_role;		/* the receiving port (traffic.to or the default) */
	double *rx_series;		/* its per-second rx pps in the rate window */
	int n_rx_series;
	double rate_rx_frames;		/* frames it received over the rate window */
	double rate_all_rx;		/* frames received on all ports, same window */
	double rate_errors;		/* error and drop counter deltas (verdict.h) */
	bool rate_done;			/* the rate window completed */
	int64_t go_late_ms;		/* how long after the coordinator sent it the go came */
	int cpus[64];			/* traffic.cpus */
	int n_cpus;
	int gen_cpus[64];		/* the generator threads' CPUs (n_gen_cpus; 0: not
					 * pinned), for the generator-bound verdict */
	int n_gen_cpus;
	double rx_cpu_busy;		/* verdict_rx_busy() over the rate window, or -1 */
	char rx_cpus[256];		/* the CPUs it looked at */
	int stats_fd;
	bool icount;			/* the host's timing is icount (costslice.h) */
	struct costslice *slices;	/* under icount, during the cost window */
	struct disturb_snap dist_first;	/* at the start of the window being measured */
	struct disturb_window dist[2];	/* what others took in the rate and cost windows */
	bool dist_done[2];
	int rx_cpu;			/* the CPU that served most NET_RX in the rate window */
	bool irq_time;			/* the kernel accounts IRQ time apart (disturb.h) */
	int warm_rounds;		/* rounds of the host warm-up, 0: none */
	bool warm_settled;
	char outliers[512];		/* outlier seconds of the windows, for the verdict */
	size_t outliers_len;
	char err[JOB_ERR_LEN];
};

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

static bool metric_wanted(const struct job_ctx *c, const char *name)
{
	int i;

	if (!c->spec.has_metrics)
		return true;
	for (i = 0; i < c->spec.n_metrics; i++) {
		if (!strcmp(c->spec.metrics[i], name))
			return true;
	}
	return false;
}

/* A sample that is a record of the job rather than a measurement the plan chose:
 * emitted whatever the spec's metrics. SEQ -1: the whole window. */
static void add_record_seq(struct job_ctx *c, const char *metric, const char *subject,
			   double value, const char *unit, const char *window, int seq)
{
	json_t *s;

	if (!isfinite(value))
		return;
	s = json_pack("{s:s, s:s, s:f, s:s, s:s, s:o}", "metric", metric, "subject", subject,
		      "value", value, "unit", unit, "window", window,
		      "seq", seq >= 0 ? json_integer(seq) : json_null());
	if (s)
		json_array_append_new(c->samples, s);
}

/* A sample of a metric the spec lists (all of them when it lists none). */
static void add_sample(struct job_ctx *c, const char *metric, const char *subject,
		       double value, const char *unit, const char *window, int seq)
{
	if (metric_wanted(c, metric))
		add_record_seq(c, metric, subject, value, unit, window, seq);
}

static void add_record(struct job_ctx *c, const char *metric, const char *subject,
		       double value, const char *unit, const char *window)
{
	add_record_seq(c, metric, subject, value, unit, window, -1);
}

static void progress(struct job_ctx *c, const char *phase, int second, int of,
		     json_t *rates)
{
	json_t *msg;

	if (!c->opts->progress) {
		json_decref(rates);
		return;
	}
	msg = proto_msg_new("progress");
	if (msg) {
		json_object_set(msg, "job", c->id);
		json_object_set_new(msg, "phase", json_string(phase));
		json_object_set_new(msg, "second", json_integer(second));
		json_object_set_new(msg, "of", json_integer(of));
		if (rates)
			json_object_set(msg, "rates", rates);
		c->opts->progress(c->opts->progress_ctx, msg);
	}
	json_decref(rates);
	json_decref(msg);
}

static bool cancelled(const struct job_ctx *c)
{
	return c->opts->cancel && atomic_load(c->opts->cancel);
}

/* Sleep until the CLOCK_MONOTONIC instant DEADLINE_NS, looking at the cancel flag every
 * JOB_POLL_MS. Returns 0, or -ECANCELED. */
static int sleep_until(struct job_ctx *c, int64_t deadline_ns)
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

static bool any_metric(const struct job_ctx *c, const char *prefix);

/* Under icount, sleep_until() DEADLINE_NS in slices of COSTSLICE_NS, reading every
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
		err = sleep_until(c, t + COSTSLICE_NS < deadline_ns ? t + COSTSLICE_NS
								  : deadline_ns);
		if (err)
			return err;
		for (i = 0; i < n; i++) {
			err = progstats_read(attach_get(c->attach, i)->prog_fd, &now[i]);
			if (err) {
				snprintf(c->err, sizeof(c->err), "cannot read bpf_stats of '%s': %s",
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
	return s->ports && s->progs && s->counters ? 0 : -ENOMEM;
}

static void snap_release(struct job_snap *s)
{
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

/* Frames the generator has sent so far (0 without one). */
static int gen_frames(struct job_ctx *c, uint64_t *frames)
{
	*frames = 0;
	if (c->gen)
		return xdpgen_frames(c->gen, frames);
	if (c->udp)
		return udpgen_frames(c->udp, frames);
	if (c->pktgen)
		return pktgen_frames(c->pktgen, frames);
	return 0;
}

/* Read every counter the job samples into S. Returns 0 or -errno with c->err set. */
static int snap_take(struct job_ctx *c, struct job_snap *s, bool progs)
{
	int64_t t0 = util_mono_ns();
	int i, err;

	for (i = 0; i < c->n_ports; i++) {
		err = ifstats_read(c->rtnl, c->ports[i].ifindex, &s->ports[i]);
		if (err) {
			snprintf(c->err, sizeof(c->err), "cannot read counters of port '%s' ('%s'): %s",
				 c->ports[i].role, c->ports[i].ifname, strerror(-err));
			return err;
		}
	}
	if (c->gen || c->udp || c->pktgen) {
		err = gen_frames(c, &s->gen_frames);
		if (err) {
			snprintf(c->err, sizeof(c->err), "cannot read the generator's frame count: %s",
				 strerror(-err));
			return err;
		}
	}
	for (i = 0; progs && i < attach_count(c->attach); i++) {
		const struct attach_prog *p = attach_get(c->attach, i);

		err = progstats_read(p->prog_fd, &s->progs[i]);
		if (err) {
			snprintf(c->err, sizeof(c->err), "cannot read bpf_stats of '%s': %s",
				 p->subject, strerror(-err));
			return err;
		}
	}
	for (i = 0; !progs && i < attach_count_counters(c); i++) {
		err = attach_counter_read(c->attach, i, &s->counters[i]);
		if (err) {
			snprintf(c->err, sizeof(c->err), "cannot read counter '%s' of map '%s': %s",
				 attach_counter_get(c->attach, i)->name,
				 attach_counter_get(c->attach, i)->map, strerror(-err));
			return err;
		}
	}
	if (!progs && (any_metric(c, "cpu.") || c->gen || c->udp || c->pktgen)) {
		err = cpustat_read(c->opts->proc_stat, &s->cpu);
		if (err) {
			snprintf(c->err, sizeof(c->err), "cannot read '%s': %s",
				 c->opts->proc_stat ? c->opts->proc_stat : "/proc/stat",
				 strerror(-err));
			return err;
		}
	}
	s->t_ns = t0 + (util_mono_ns() - t0) / 2;
	return 0;
}

enum job_window { JOB_WARMUP, JOB_RATE, JOB_COST };

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

			add_sample(c, "port.rx_pps", c->ports[i].role,
				   (y->rx_packets - x->rx_packets) / dt, "pps", "rate", seq);
			add_sample(c, "port.tx_pps", c->ports[i].role,
				   (y->tx_packets - x->tx_packets) / dt, "pps", "rate", seq);
			add_sample(c, "port.drop_pps", c->ports[i].role, drops / dt, "pps", "rate",
				   seq);
		}
		if (c->gen || c->udp || c->pktgen) {
			add_sample(c, "gen.tx_pps", c->from, (b->gen_frames - a->gen_frames) / dt,
				   "pps", "rate", seq);
			if (seq < 0)
				c->rate_gen_frames = b->gen_frames - a->gen_frames;
		}
		for (i = 0; i < attach_count_counters(c); i++)
			add_sample(c, "counter.pps", attach_counter_get(c->attach, i)->name,
				   (b->counters[i] - a->counters[i]) / dt, "pps", "rate", seq);
		for (i = 0; i < a->cpu.n && i < b->cpu.n; i++) {
			char subject[32];
			double busy, softirq;

			if (cpustat_share(&a->cpu, &b->cpu, i, &busy, &softirq))
				continue;
			snprintf(subject, sizeof(subject), "cpu%d", b->cpu.cpus[i].cpu);
			add_sample(c, "cpu.busy", subject, busy, "ratio", "rate", seq);
			add_sample(c, "cpu.softirq", subject, softirq, "ratio", "rate", seq);
		}
		rate_facts(c, a, b, dt, seq);
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
				add_sample(c, "prog.ns_per_run", p->subject, per_run, "ns",
					   "cost", seq);
			add_sample(c, "prog.run_pps", p->subject, runs / dt, "pps", "cost", seq);
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
		add_record(c, "cpu.others", subject, others, "ratio", window);
	}
	if (w == JOB_RATE && dw->rx_cpu >= 0) {
		c->rx_cpu = dw->rx_cpu;
		/* always recorded: compare tells two populations apart by it */
		add_record(c, "rx.cpu", c->rx_role ? c->rx_role : "", dw->rx_cpu, "cpu",
			   window);
	}
	pr_debug("job: %s window: others took %.1f%% of the measured CPUs (%s); NET_RX on cpu%d (%.0f%%)",
		 window, 100.0 * dw->others, dw->text, dw->rx_cpu, 100.0 * dw->rx_share);
out:
	disturb_release(&end);
	disturb_release(&c->dist_first);
}

/* Mark one series' outlier seconds (Tukey's fences, k = 1.5, over its per-second
 * values SECS[0..N-1], samples IDX[] of c->samples) with "outlier": true and name
 * them in c->outliers. */
static void mark_outliers(struct job_ctx *c, const char *metric, const char *subject,
			  const double *secs, const size_t *idx, size_t n)
{
	double lo, hi;
	bool named = false;
	size_t i;

	if (analysis_tukey_fences(secs, n, 1.5, &lo, &hi))
		return;
	for (i = 0; i < n; i++) {
		json_t *smp = json_array_get(c->samples, idx[i]);
		size_t o = c->outliers_len, cap = sizeof(c->outliers);

		if (secs[i] >= lo && secs[i] <= hi)
			continue;
		json_object_set_new(smp, "outlier", json_true());
		if (o + 1 >= cap)
			continue;
		o += (size_t)snprintf(c->outliers + o, cap - o, "%s%s%s%s%s second %lld %s fence %.4g",
				      named ? ", " : o ? "; " : "", named ? "" : metric,
				      named || !*subject ? "" : " of '", named ? "" : subject,
				      named || !*subject ? "" : "'",
				      (long long)json_integer_value(json_object_get(smp, "seq")),
				      secs[i] < lo ? "below" : "above", secs[i] < lo ? lo : hi);
		c->outliers_len = o < cap ? o : cap - 1;
		named = true;
	}
}

/* After a window: for each of its per-second series, the median of the seconds as the
 * whole-window sample METRIC.median (docs/agent.md, "Windows and seconds"), and its
 * outlier seconds marked. */
static void window_robust(struct job_ctx *c, const char *window)
{
	size_t n = json_array_size(c->samples), i, j, k;
	double *secs = calloc(n ? n : 1, sizeof(*secs));
	size_t *idx = calloc(n ? n : 1, sizeof(*idx));
	char *done = calloc(n ? n : 1, 1);

	for (i = 0; secs && idx && done && i < n; i++) {
		json_t *a = json_array_get(c->samples, i);
		const char *metric = json_string_value(json_object_get(a, "metric"));
		const char *subject = json_string_value(json_object_get(a, "subject"));
		char name[128];

		if (done[i] || !json_is_integer(json_object_get(a, "seq")) ||
		    strcmp(json_string_value(json_object_get(a, "window")), window) ||
		    !strncmp(metric, "warmup.", 7))
			continue;
		for (j = i, k = 0; j < n; j++) {
			json_t *b = json_array_get(c->samples, j);

			if (done[j] || !json_is_integer(json_object_get(b, "seq")) ||
			    strcmp(json_string_value(json_object_get(b, "window")), window) ||
			    strcmp(json_string_value(json_object_get(b, "metric")), metric) ||
			    strcmp(json_string_value(json_object_get(b, "subject")), subject))
				continue;
			done[j] = 1;
			idx[k] = j;
			secs[k++] = json_number_value(json_object_get(b, "value"));
		}
		snprintf(name, sizeof(name), "%s.median", metric);
		add_record(c, name, subject, stats_median(secs, k),
			   json_string_value(json_object_get(a, "unit")), window);
		/* the series the tables are about: the receiving port's rate and the
		 * programs' cost (a port that receives a frame now and then has a
		 * quartile range of 0 and an "outlier" in every window) */
		if (!strcmp(metric, "prog.ns_per_run") ||
		    (!strcmp(metric, "port.rx_pps") && c->rx_role && !strcmp(subject, c->rx_role)))
			mark_outliers(c, metric, subject, secs, idx, k);
	}
	free(secs);
	free(idx);
	free(done);
}

static const char *window_phase(enum job_window w)
{
	return w == JOB_WARMUP ? "warmup" : w == JOB_RATE ? "rate" : "cost";
}

/* Run one phase of DURATION_MS: a counter snapshot per second at absolute deadlines,
 * samples per second and for the whole phase (not for warmup), a progress message per
 * second. Returns 0, -ECANCELED, or -errno with c->err set. */
static int run_window(struct job_ctx *c, enum job_window w, int64_t duration_ms)
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
		snprintf(c->err, sizeof(c->err), "out of memory");
		goto out;
	}
	if (w != JOB_WARMUP)
		disturb_begin(c);
	err = snap_take(c, &first, progs);
	if (err)
		goto out;
	snap_copy(c, &prev, &first);
	if (progs && c->icount) {
		err = costslice_init(&slices, attach_count(c->attach), first.progs);
		if (err) {
			snprintf(c->err, sizeof(c->err), "out of memory");
			goto out;
		}
		c->slices = &slices;
	}
	t0 = first.t_ns;
	for (i = 0; i < n; i++) {
		int64_t end_ms = (i + 1) * 1000LL < duration_ms ? (i + 1) * 1000LL : duration_ms;

		err = c->slices ? sleep_sliced(c, t0 + end_ms * 1000000LL)
				: sleep_until(c, t0 + end_ms * 1000000LL);
		if (err)
			goto out;
		if (c->gen)
			err = xdpgen_error(c->gen, c->err, sizeof(c->err));
		else if (c->udp)
			err = udpgen_error(c->udp, c->err, sizeof(c->err));
		if (err)
			goto out;
		err = snap_take(c, &cur, progs);
		if (err)
			goto out;
		if (w != JOB_WARMUP)
			emit(c, w, &prev, &cur, i);
		progress(c, window_phase(w), i + 1, n, rates_json(c, &prev, &cur));
		snap_copy(c, &prev, &cur);
	}
	if (w != JOB_WARMUP) {
		emit(c, w, &first, &cur, -1);
		window_robust(c, window_phase(w));
		disturb_end(c, w, (cur.t_ns - first.t_ns) / 1e9);
	}
	if (w == JOB_RATE)
		c->rate_done = true;
	pr_debug("job: %s window of %lld ms done", window_phase(w), (long long)duration_ms);
	if (c->slices)
		pr_debug("job: icount cost over %llu slices of %lld ns",
			 (unsigned long long)slices.slices, COSTSLICE_NS);
out:
	if (c->slices) {
		costslice_release(c->slices);
		c->slices = NULL;
	}
	snap_release(&first);
	snap_release(&prev);
	snap_release(&cur);
	return err;
}

/* The host warm-up: a host that has just started or was idle for JOB_IDLE_MS runs the
 * job's traffic with bpf_stats on in rounds of JOB_WARM_ROUND_MS until every attached
 * program's cost per run moved less than JOB_WARM_SETTLED from the round before (at
 * most JOB_WARM_MAX_ROUNDS), so that the first job of a lab does not measure a cold
 * host. The rounds are kept as samples warmup.ns_per_run (seq = round, window cost)
 * and count for nothing else. Returns 0, -ECANCELED, or -errno with c->err set. */
static int warm_up(struct job_ctx *c)
{
	int n = attach_count(c->attach), r, i, err;
	struct job_snap a, b;
	double prev[n ? n : 1];

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	c->stats_fd = progstats_enable();
	if (c->stats_fd < 0) {
		err = c->stats_fd;
		snprintf(c->err, sizeof(c->err), "cannot enable bpf_stats: %s", strerror(-err));
		return err;
	}
	err = snap_init(c, &a) ?: snap_init(c, &b);
	if (err) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		goto out;
	}
	err = snap_take(c, &a, true);
	for (r = 0; !err && r < JOB_WARM_MAX_ROUNDS && !c->warm_settled; r++) {
		bool settled = r > 0;

		err = sleep_until(c, a.t_ns + JOB_WARM_ROUND_MS * 1000000LL) ?:
		      snap_take(c, &b, true);
		if (err)
			break;
		for (i = 0; i < n; i++) {
			uint64_t runs = b.progs[i].run_cnt - a.progs[i].run_cnt;
			double ns = runs ? (double)(b.progs[i].run_time_ns -
						    a.progs[i].run_time_ns) / runs : NAN;

			add_record_seq(c, "warmup.ns_per_run", attach_get(c->attach, i)->subject,
				       ns, "ns", "cost", r);
			if (r > 0 && !(fabs(ns - prev[i]) < JOB_WARM_SETTLED * prev[i]))
				settled = false;
			prev[i] = ns;
		}
		progress(c, "warmup", r + 1, JOB_WARM_MAX_ROUNDS, NULL);
		c->warm_rounds = r + 1;
		c->warm_settled = settled;
		snap_copy(c, &a, &b);
	}
	pr_info("job: host warm-up of %d round%s, cost %s", c->warm_rounds,
		c->warm_rounds == 1 ? "" : "s", c->warm_settled ? "settled" : "not settled");
out:
	progstats_disable(&c->stats_fd);
	snap_release(&a);
	snap_release(&b);
	return err;
}

/* Resolve the spec's port roles (and traffic.from) to interfaces. */
static int resolve_ports(struct job_ctx *c)
{
	const struct inventory_config *inv = c->opts->inv;
	int i, j;

	if (!c->spec.n_ports) {
		snprintf(c->err, sizeof(c->err), "job spec has no ports");
		return -EINVAL;
	}
	c->ports = calloc(c->spec.n_ports, sizeof(*c->ports));
	if (!c->ports) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < c->spec.n_ports; i++) {
		struct job_port *p = &c->ports[c->n_ports];

		p->role = c->spec.ports[i];
		for (j = 0; inv && j < inv->n_ports; j++) {
			if (!strcmp(inv->ports[j].key, p->role))
				p->ifname = inv->ports[j].value;
		}
		if (!p->ifname) {
			snprintf(c->err, sizeof(c->err),
				 "port role '%s' is not mapped on this agent (--port %s=IFNAME)",
				 p->role, p->role);
			return -ENODEV;
		}
		p->ifindex = if_nametoindex(p->ifname);
		if (!p->ifindex) {
			snprintf(c->err, sizeof(c->err), "port '%s': interface '%s' does not exist",
				 p->role, p->ifname);
			return -ENODEV;
		}
		c->n_ports++;
	}
	return 0;
}

static const struct job_port *find_port(const struct job_ctx *c, const char *role)
{
	int i;

	for (i = 0; role && i < c->n_ports; i++) {
		if (!strcmp(c->ports[i].role, role))
			return &c->ports[i];
	}
	return NULL;
}

/* The destination of traffic leaving FROM: the port traffic.to names, else a veth's peer
 * (IFLA_LINK in this namespace), else the job's other port. Sets c->rx_role (when the
 * destination is a job port) and MAC: the job's packet.dst_mac, else the destination's
 * MAC, else broadcast. */
static int pick_dst(struct job_ctx *c, const struct job_port *from,
		    const struct ifstats_link *from_link, uint8_t mac[6])
{
	const char *text = c->spec.traffic.dst_mac, *to = c->spec.traffic.to;
	const struct job_port *dst = NULL;
	struct ifstats_link peer;
	char driver[32] = "";
	bool have_mac = false;
	int i;

	inventory_driver(from->ifname, driver, sizeof(driver));
	c->from_veth = !strcmp(driver, "veth");
	if (to) {
		dst = find_port(c, to);
		if (!dst) {
			snprintf(c->err, sizeof(c->err), "traffic.to '%s' is not one of the job's ports",
				 to);
			return -EINVAL;
		}
	} else if (c->from_veth && from_link->link > 0 && !from_link->link_netns &&
		   !ifstats_get(c->rtnl, from_link->link, &peer) && peer.mac_len == 6) {
		memcpy(mac, peer.mac, 6);
		have_mac = true;
		for (i = 0; i < c->n_ports; i++) {
			if (c->ports[i].ifindex == from_link->link)
				dst = &c->ports[i];
		}
	} else {
		for (i = 0; i < c->n_ports && !dst; i++) {
			if (&c->ports[i] != from)
				dst = &c->ports[i];
		}
	}
	if (dst) {
		c->rx_role = dst->role;
		if (!have_mac && !ifstats_get(c->rtnl, dst->ifindex, &peer) && peer.mac_len == 6) {
			memcpy(mac, peer.mac, 6);
			have_mac = true;
		}
	}
	if (text) {
		if (ifstats_parse_mac(text, mac)) {
			snprintf(c->err, sizeof(c->err), "invalid traffic.packet.dst_mac '%s'", text);
			return -EINVAL;
		}
		return 0;
	}
	if (!have_mac)
		memset(mac, 0xff, 6);
	return 0;
}

/* traffic.cpus into c->cpus: CPUs this process can name (the spec's limit is wider). */
static int get_cpus(struct job_ctx *c)
{
	const struct job_traffic *t = &c->spec.traffic;
	int i;

	for (i = 0; i < t->n_cpus && i < (int)ARRAY_SIZE(c->cpus); i++) {
		if (t->cpus[i] >= CPU_SETSIZE) {
			snprintf(c->err, sizeof(c->err), "traffic.cpus[%d] is not a CPU number", i);
			return -EINVAL;
		}
		c->cpus[c->n_cpus++] = t->cpus[i];
	}
	return 0;
}

/* Where the generator's THREADS threads run (xdpgen.h, udpgen.h, pktgen.h) into
 * c->gen_cpus; none when they are not pinned (udp without traffic.cpus). */
static void gen_cpus_of(struct job_ctx *c, enum job_generator gen, int threads)
{
	cpu_set_t set;
	int i, j, n_allowed = 0, allowed[64];

	c->n_gen_cpus = 0;
	if (!c->n_cpus && gen == JOB_GEN_XDP_LIVE && !sched_getaffinity(0, sizeof(set), &set)) {
		for (j = 0; j < CPU_SETSIZE && n_allowed < 64; j++) {
			if (CPU_ISSET(j, &set))
				allowed[n_allowed++] = j;
		}
	}
	for (i = 0; i < threads && i < 64; i++) {
		int cpu = c->n_cpus ? c->cpus[i % c->n_cpus] :
			  gen == JOB_GEN_PKTGEN ? i :
			  n_allowed ? allowed[i % n_allowed] : -1;

		if (cpu < 0)
			return;
		for (j = 0; j < c->n_gen_cpus && c->gen_cpus[j] != cpu; j++)
			;
		if (j == c->n_gen_cpus)
			c->gen_cpus[c->n_gen_cpus++] = cpu;
	}
}

/* Make the plan's generator ready to send from traffic.from (start_traffic() starts
 * it): its program loaded, its frame built, its destination picked. */
static int setup_traffic(struct job_ctx *c)
{
	const struct job_traffic *t = &c->spec.traffic;
	enum job_generator gen = t->generator;
	struct xdpgen_config cfg;
	struct ifstats_link link;
	const struct job_port *from;
	int err;

	if (gen == JOB_GEN_NONE)
		return 0;
	c->from = t->from;
	from = find_port(c, c->from);
	if (!from) {
		snprintf(c->err, sizeof(c->err), "traffic.from '%s' is not one of the job's ports",
			 c->from ? c->from : "");
		return -EINVAL;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.ifindex = from->ifindex;
	cfg.ipv6 = t->proto == JOB_PROTO_UDP6;
	cfg.size = t->size;
	cfg.flows = t->flows;
	cfg.threads = t->threads;
	err = get_cpus(c);
	if (err)
		return err;
	cfg.cpus = c->n_cpus ? c->cpus : NULL;
	cfg.n_cpus = c->n_cpus;
	gen_cpus_of(c, gen, cfg.threads);
	err = ifstats_get(c->rtnl, from->ifindex, &link);
	if (err) {
		snprintf(c->err, sizeof(c->err), "cannot read port '%s' ('%s'): %s", from->role,
			 from->ifname, strerror(-err));
		return err;
	}
	if (link.mac_len == 6)
		memcpy(cfg.src_mac, link.mac, 6);
	err = pick_dst(c, from, &link, cfg.dst_mac);
	if (err)
		return err;
	if (gen == JOB_GEN_PKTGEN) {
		struct pktgen_config pc = {
			.dir = c->opts->pktgen_dir, .ifname = from->ifname, .size = cfg.size,
			.ipv6 = cfg.ipv6, .flows = cfg.flows, .threads = cfg.threads,
			.cpus = cfg.cpus, .n_cpus = cfg.n_cpus,
		};

		memcpy(pc.dst_mac, cfg.dst_mac, 6);
		c->pktgen = pktgen_new(&pc, c->err, sizeof(c->err));
		return c->pktgen ? 0 : -errno;
	}
	if (gen == JOB_GEN_UDP) {
		struct udpgen_config uc = {
			.ifindex = from->ifindex, .size = cfg.size, .ipv6 = cfg.ipv6,
			.flows = cfg.flows, .threads = cfg.threads, .cpus = cfg.cpus,
			.n_cpus = cfg.n_cpus,
		};

		memcpy(uc.src_mac, cfg.src_mac, 6);
		memcpy(uc.dst_mac, cfg.dst_mac, 6);
		c->udp = udpgen_new(&uc, c->err, sizeof(c->err));
		return c->udp ? 0 : -errno;
	}
	c->gen = xdpgen_new(&cfg, c->err, sizeof(c->err));
	return c->gen ? 0 : -errno;
}

/* Start the generator that setup_traffic() made ready (none: nothing to do). */
static int start_traffic(struct job_ctx *c)
{
	if (c->pktgen)
		return pktgen_start(c->pktgen, c->err, sizeof(c->err));
	if (c->udp)
		return udpgen_start(c->udp, c->err, sizeof(c->err));
	if (c->gen)
		return xdpgen_start(c->gen, c->err, sizeof(c->err));
	return 0;
}

static bool any_metric(const struct job_ctx *c, const char *prefix)
{
	int i;

	if (!c->spec.has_metrics)
		return true;
	for (i = 0; i < c->spec.n_metrics; i++) {
		if (!strncmp(c->spec.metrics[i], prefix, strlen(prefix)))
			return true;
	}
	return false;
}

/* A veth refuses xdp-live frames unless its peer runs NAPI (a native XDP program, or
 * GRO on), and the kernel drops them without counting: the generator's count would then
 * be frames that went nowhere. Fail such a job rather than report them. */
static int check_delivery(struct job_ctx *c)
{
	const struct job_port *from = find_port(c, c->from);

	if (!c->gen || !c->from_veth || c->rate_gen_frames < 10000 ||
	    c->rate_from_tx * 100 >= c->rate_gen_frames)
		return 0;
	snprintf(c->err, sizeof(c->err),
		 "port '%s' ('%s') took %llu of %llu xdp-live frames: the veth peer needs a native "
		 "XDP program or GRO on to receive them", c->from, from ? from->ifname : "?",
		 (unsigned long long)c->rate_from_tx, (unsigned long long)c->rate_gen_frames);
	return -EPIPE;
}

/* Load and attach the variant. */
static int prepare(struct job_ctx *c, char **verifier_log)
{
	struct attach_port *ap;
	int i, err;

	ap = calloc(c->n_ports ? c->n_ports : 1, sizeof(*ap));
	if (!ap) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < c->n_ports; i++) {
		ap[i].role = c->ports[i].role;
		ap[i].ifname = c->ports[i].ifname;
		ap[i].ifindex = c->ports[i].ifindex;
	}
	/* clsact filters of an agent killed before its detach (attach.h) */
	err = attach_tc_cleanup(ap, c->n_ports, c->err, sizeof(c->err));
	if (err < 0 || !c->spec.n_attach) {
		free(ap);
		return err < 0 ? err : 0;
	}
	{
		struct attach_opts ao = {
			.sz = sizeof(ao),
			.objects = json_object_get(c->msg, "objects"),
			.bpf_dir = c->opts->bpf_dir,
			.require_sha256 = c->opts->require_sha256,
			.ports = ap,
			.n_ports = c->n_ports,
		};

		err = attach_load_spec(c->attach, c->spec.attach, c->spec.n_attach, &ao,
				       verifier_log, c->err, sizeof(c->err));
		if (!err)
			err = attach_links(c->attach, c->err, sizeof(c->err));
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
		snprintf(c->err, sizeof(c->err), "this agent cannot run one side of a two-host plan here");
		return -EOPNOTSUPP;
	}
	ready = proto_msg_new("ready");
	if (!ready || json_object_set(ready, "job", c->id)) {
		json_decref(ready);
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -ENOMEM;
	}
	c->opts->progress(c->opts->progress_ctx, ready);
	json_decref(ready);
	while (!(go = atomic_load(c->opts->go))) {
		if (util_mono_ns() >= deadline) {
			snprintf(c->err, sizeof(c->err),
				 "barrier: no go within %lld ms (the %s side of the pair never got ready)",
				 limit, c->spec.pair.role == JOB_PAIR_GENERATOR ? "dut" : "generator");
			return -ETIMEDOUT;
		}
		if (sleep_until(c, util_mono_ns() + 5000000LL))
			return -ECANCELED;
	}
	if (go > 0 && c->opts->go_at_ms) {
		int64_t late = util_wall_ms() - (int64_t)atomic_load(c->opts->go_at_ms);

		/* Clocks that disagree by more than a go's trip over a LAN: not comparable. */
		c->go_late_ms = late >= 0 && late <= PAIR_MAX_GO_LATE_MS ? late : 0;
	}
	if (go < 0) {
		const char *why = c->opts->go_abort;

		snprintf(c->err, sizeof(c->err), "pair aborted: %s",
			 why && *why ? why : "the other side failed before the barrier");
		return -ECONNABORTED;
	}
	pr_debug("job: go");
	return 0;
}

/* Without a generator, the port that receives most over a short look (100 ms): the
 * receiving port for the verdicts. NULL when nothing arrives. */
static const char *busiest_port(struct job_ctx *c)
{
	struct ifstats_counters a, b;
	uint64_t best = 0;
	const char *role = NULL;
	int i;

	for (i = 0; i < c->n_ports; i++) {
		if (ifstats_read(c->rtnl, c->ports[i].ifindex, &a))
			continue;
		sleep_until(c, util_mono_ns() + 100000000LL / (c->n_ports ? c->n_ports : 1));
		if (ifstats_read(c->rtnl, c->ports[i].ifindex, &b))
			continue;
		if (b.rx_packets - a.rx_packets > best) {
			best = b.rx_packets - a.rx_packets;
			role = c->ports[i].role;
		}
	}
	return role;
}

/* The DUT side of a pair receives on its end of the link (pair.link.dut): known, not
 * guessed by busiest_port() (which, with no warmup, would also start its rate window
 * 100 ms after the generator's). NULL when this is not a pair's DUT side. */
static const char *pair_dut_port(struct job_ctx *c)
{
	const struct job_port *p;

	if (!c->spec.has_pair || c->spec.pair.role != JOB_PAIR_DUT)
		return NULL;
	p = find_port(c, c->spec.pair.link_dut);
	return p ? p->role : NULL;
}

/* The result's "verdicts" and "verdict_details" (verdict.h). */
static void add_verdicts(struct job_ctx *c, json_t *result, json_t *env)
{
	json_t *debug = json_object_get(json_object_get(env, "kernel"), "debug_options");
	struct verdict_input in = {
		.debug_options = debug,
		.rx_role = c->rate_done ? c->rx_role : NULL,
		.rx_pps = c->rx_series,
		.n_rx = c->n_rx_series,
		.rx_frames = c->rate_rx_frames,
		.gen_frames = c->gen || c->udp || c->pktgen ? (double)c->rate_gen_frames : -1,
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
	};
	json_t *verdicts, *details;

	if (verdict_compute(&in, &verdicts, &details))
		return;
	json_object_set_new(result, "verdicts", verdicts);
	json_object_set_new(result, "verdict_details", details);
}

/* Each job port's XDP mode during the job, and how its tc hooks were attached
 * ("tc_attach": {"ingress": tcx|clsact|none, "egress": ...}), into the env's port
 * entries. */
static void add_xdp_modes(struct job_ctx *c, json_t *env)
{
	json_t *ports = json_object_get(env, "ports"), *p;
	size_t i;
	int j;

	json_array_foreach(ports, i, p) {
		const char *role = json_string_value(json_object_get(p, "role"));
		const char *mode = "none", *tc[2] = { "none", "none" };

		if (!role || !find_port(c, role))
			continue;
		for (j = 0; c->attach && j < attach_count(c->attach); j++) {
			const struct attach_prog *a = attach_get(c->attach, j);

			if (strcmp(a->role, role))
				continue;
			if (a->hook == ATTACH_XDP)
				mode = attach_mode_name(a->mode);
			else if (a->tc_attached != ATTACH_TC_AUTO)
				tc[a->hook == ATTACH_TC_EGRESS] = attach_tc_name(a->tc_attached);
		}
		json_object_set_new(p, "xdp_mode", json_string(mode));
		json_object_set_new(p, "tc_attach", json_pack("{s:s, s:s}", "ingress", tc[0],
							       "egress", tc[1]));
	}
}

json_t *job_run(const json_t *msg, const struct job_opts *opts)
{
	struct job_ctx ctx, *c = &ctx;
	json_t *job = json_object_get(msg, "job");
	const json_t *spec = json_object_get(job, "spec");
	json_t *result, *env;
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
	c->samples = json_array();
	result = proto_msg_new("result");
	if (!result || !c->samples) {
		json_decref(result);
		json_decref(c->samples);
		return NULL;
	}
	json_object_set(result, "job", c->id ? c->id : json_null());
	env = opts->inv ? inventory_build(opts->inv) : json_object();
	json_object_set_new(result, "env", env ? env : json_null());

	if (!json_is_object(spec)) {
		snprintf(c->err, sizeof(c->err), "job message has no spec");
		err = -EINVAL;
		goto out;
	}
	/* the one place the agent reads the spec's JSON */
	err = jobspec_decode(spec, "spec", &c->spec, c->err, sizeof(c->err));
	if (err)
		goto out;
	duration_ms = c->spec.traffic.duration_ms;
	warmup_ms = c->spec.traffic.warmup_ms;
	if (!duration_ms) {
		snprintf(c->err, sizeof(c->err), "job spec has no traffic.duration_ms");
		err = -EINVAL;
		goto out;
	}
	err = resolve_ports(c);
	if (err)
		goto out;
	c->rtnl = ifstats_new();
	c->attach = attach_new();
	if (!c->rtnl || !c->attach) {
		err = -errno;
		snprintf(c->err, sizeof(c->err), "cannot open rtnetlink: %s", strerror(errno));
		goto out;
	}

	progress(c, "prepare", 0, 0, NULL);
	err = prepare(c, &verifier_log);
	if (err)
		goto out;
	/* The generator is made ready before the barrier (loading its program can take a
	 * good part of a second on a busy host) and the warmup ends WARMUP_MS after the
	 * coordinator sent its `go` (at_ms) on both sides of a pair, however late each side
	 * saw it, so that their rate windows line up. */
	err = setup_traffic(c) ?: barrier(c);
	if (err)
		goto out;
	t_go = util_mono_ns() - c->go_late_ms * 1000000LL;
	err = start_traffic(c);
	if (err)
		goto out;
	rates = any_metric(c, "port.") || any_metric(c, "gen.") || any_metric(c, "counter.") ||
		any_metric(c, "cpu.");
	/* without a generator, the receiving port: its look is part of the warmup, so the
	 * rate window still starts warmup after the go */
	if (rates && !c->rx_role && !c->from)
		c->rx_role = pair_dut_port(c) ?: busiest_port(c);
	/* a cold host warms up first; a pair's windows must line up, so not there */
	if (opts->last_job_ns && any_metric(c, "prog.") && attach_count(c->attach) &&
	    !c->spec.has_pair &&
	    (!*opts->last_job_ns || util_mono_ns() - *opts->last_job_ns > JOB_IDLE_MS * 1000000LL)) {
		err = warm_up(c);
		if (err)
			goto out;
		t_go = util_mono_ns();
	}
	warmup_left_ms = warmup_ms - (util_mono_ns() - t_go) / 1000000;
	if (warmup_left_ms > 0) {
		err = run_window(c, JOB_WARMUP, warmup_left_ms);
		if (err)
			goto out;
	}
	if (rates) {
		c->rx_series = calloc((duration_ms + 999) / 1000 + 1, sizeof(*c->rx_series));
		if (!c->rx_series) {
			err = -ENOMEM;
			snprintf(c->err, sizeof(c->err), "out of memory");
			goto out;
		}
		err = run_window(c, JOB_RATE, duration_ms);
		if (err)
			goto out;
		err = check_delivery(c);
		if (err)
			goto out;
	}
	if (any_metric(c, "prog.") && !attach_count(c->attach) && c->gen &&
	    c->spec.has_pair && c->spec.pair.role == JOB_PAIR_GENERATOR) {
		/* the generator side of a pair feeds the other side's cost window too */
		progress(c, "cost", 0, 0, NULL);
		err = sleep_until(c, util_mono_ns() + (PAIR_GUARD_MS + duration_ms) * 1000000LL);
		if (err)
			goto out;
	}
	if (any_metric(c, "prog.") && attach_count(c->attach)) {
		/* the DUT side of a pair: a generator whose rate window ends a little later
		 * must not feel bpf_stats in it */
		if (c->spec.has_pair && c->rate_done) {
			err = sleep_until(c, util_mono_ns() + PAIR_GUARD_MS * 1000000LL);
			if (err)
				goto out;
		}
		c->stats_fd = progstats_enable();
		if (c->stats_fd < 0) {
			err = c->stats_fd;
			snprintf(c->err, sizeof(c->err), "cannot enable bpf_stats: %s",
				 strerror(-err));
			goto out;
		}
		err = run_window(c, JOB_COST, duration_ms);
		progstats_disable(&c->stats_fd);
		if (err)
			goto out;
	}
	if (c->gen) {
		/* a thread that failed in the last second */
		err = xdpgen_stop(c->gen, c->err, sizeof(c->err));
		if (err)
			goto out;
	}
	if (c->udp) {
		err = udpgen_stop(c->udp, c->err, sizeof(c->err));
		if (err)
			goto out;
	}
	if (c->pktgen) {
		err = pktgen_stop(c->pktgen, c->err, sizeof(c->err));
		if (err)
			goto out;
	}
out:
	add_verdicts(c, result, env);
	add_xdp_modes(c, env);
	if (c->opts->progress && spec)
		progress(c, "cleanup", 0, 0, NULL);
	progstats_disable(&c->stats_fd);
	xdpgen_destroy(&c->gen);
	udpgen_destroy(&c->udp);
	pktgen_destroy(&c->pktgen);
	attach_destroy(&c->attach);
	free(c->rx_series);
	disturb_release(&c->dist_first);
	ifstats_destroy(&c->rtnl);
	free(c->ports);
	jobspec_release(&c->spec);
	if (err == -ECANCELED)
		snprintf(c->err, sizeof(c->err), "cancelled");
	json_object_set_new(result, "status", json_string(err ? "failed" : "ok"));
	if (err) {
		char id[64] = "?";

		job_id_text(msg, id, sizeof(id));
		json_object_set_new(result, "error", json_string(c->err[0] ? c->err : strerror(-err)));
		pr_warn("job '%s' failed: %s", id, c->err[0] ? c->err : strerror(-err));
	}
	if (verifier_log)
		json_object_set_new(result, "verifier_log", json_string(verifier_log));
	free(verifier_log);
	json_object_set_new(result, "started_ms", json_integer(started));
	json_object_set_new(result, "finished_ms", json_integer(util_wall_ms()));
	json_object_set_new(result, "samples", c->samples);
	if (c->warm_rounds)
		json_object_set_new(result, "warmup", json_pack("{s:i, s:b}", "rounds",
				    c->warm_rounds, "settled", c->warm_settled));
	if (opts->last_job_ns)
		*opts->last_job_ns = util_mono_ns();
	return result;
}

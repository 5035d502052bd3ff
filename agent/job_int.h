/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* job_int.h - what the parts of the job runner share (not for other modules).
 *
 * job.c runs a job (job.h) through its phases and holds the struct job_ctx of the call;
 * the parts it calls:
 *   job_traffic.c  the job's ports, the generator (gen.h) and the receiving port
 *   job_window.c   the warmup, rate and cost windows and the host warm-up: counter
 *                  snapshots per second, their samples, what others took of the CPUs
 *   job_search.c   a job with `search`: an MLRsearch of trials instead of the windows
 *   job_latency.c  a job with `latency`: stamped windows timed by a receiving program
 *   job_sample.c   samples and records into the result, the metric filter, the
 *                  per-window medians and outlier seconds, progress messages
 * Functions that can fail return 0 or -errno with c->err set (-ECANCELED: cancelled); a
 * spec this host cannot run as asked (a port it lacks, a counter no port has) is input
 * (err_at without a place: the agent does not know the plan's lines).
 */
#ifndef BPFLAB_AGENT_JOB_INT_H
#define BPFLAB_AGENT_JOB_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "attach.h"
#include "base/err.h"
#include "costslice.h"
#include "cpustat.h"
#include "disturb.h"
#include "ethstats.h"
#include "gen.h"
#include "ifstats.h"
#include "job.h"
#include "analysis/mlrsearch.h"
#include "plan/jobspec.h"
#include "progstats.h"
#include "proto/samples.h"
#include "rxcost.h"

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

/* One job_run() call: every resource it acquires is released at job_run()'s one
 * cleanup label. */
struct job_ctx {
	const struct job_opts *opts;
	json_t *id;			/* borrowed */
	const json_t *msg;
	struct job_spec spec;		/* decoded once (jobspec.h); what the job reads */
	struct samples samples;		/* the result's (job_sample.c), moved into it */
	size_t samples_lost;		/* not added: out of memory */
	struct job_port *ports;
	int n_ports;
	const char *from;		/* generator port role, or NULL */
	bool from_veth;			/* the generator's port is a veth */
	uint64_t rate_gen_frames;	/* generator frames over the rate window */
	uint64_t rate_from_tx;		/* tx_packets + tx_dropped of FROM, same window */
	uint64_t target_pps;		/* traffic.rate in frames/s, 0: full speed */
	double offered_pps;		/* generator frames/s over the rate window, or -1 */
	struct gen_pace_stats rate_held;	/* the paced generator's hold-ups in it */
	double rate_held_pps;		/* and their frames a second of it */
	bool stamp;			/* the generator stamps frames (latency windows) */
	double search_lower;		/* latency.goal's (else the last goal's) lower bound */
	struct ifstats *rtnl;
	struct ethstats **nic;		/* per job port its driver counters, NULL: none */
	struct attach_set *attach;
	const struct gen_ops *gen_ops;	/* the generator (gen.h), NULL: none */
	void *gen;			/* its object, owned */
	const char *rx_role;		/* the receiving port (traffic.to or the default) */
	double *rx_series;		/* its per-second rx pps in the rate window */
	int n_rx_series;
	double rate_rx_frames;		/* frames it received over the rate window */
	double rate_all_rx;		/* frames received on all ports, same window */
	double rate_errors;		/* error and drop counter deltas (verdict.h) */
	bool rate_done;			/* the rate window completed */
	uint64_t rate_target_pps;	/* target_pps during it (a search or latency
					 * step changes target_pps later) */
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
	struct gen_pace_stats trial_pace;	/* the last search trial's or latency window's */
	char search_bound[256];		/* why a search ended generator-bound, "" if not */
	struct rxcost *rxcost;		/* rx.ns_per_frame: attached for the rate window */
	const char *rx_roles[RXPATH_MAX_DEVS];	/* its ports, in the order of its devices */
	int n_rx_roles;
	bool rxcost_polls;		/* napi_poll hooked: per-poll figures */
	size_t outliers_len;
	struct err err;			/* why the job failed (err.h), said once in its result */
};

enum job_window { JOB_WARMUP, JOB_RATE, JOB_COST };

/* job_sample.c */
/* true when the spec lists a metric starting with PREFIX (or lists none) */
bool job_any_metric(const struct job_ctx *c, const char *prefix);
/* A record of the job (emitted whatever the spec's metrics); SEQ -1: the whole window. */
void job_add_record_seq(struct job_ctx *c, const char *metric, const char *subject,
			double value, const char *unit, const char *window, int seq);
void job_add_record(struct job_ctx *c, const char *metric, const char *subject,
		    double value, const char *unit, const char *window);
/* A sample of a metric the spec lists (all of them when it lists none). */
void job_add_sample(struct job_ctx *c, const char *metric, const char *subject,
		    double value, const char *unit, const char *window, int seq);
/* true when the spec lists a metric of the cost window (prog.ns_per_run, prog.run_pps)
 * or none */
bool job_cost_wanted(const struct job_ctx *c);
/* true when the spec names rx.ns_per_frame or rx.softirq_ns_per_frame (never by listing
 * no metrics: their tracepoints cost every poll of the rate window something) */
bool job_rxcost_wanted(const struct job_ctx *c);
/* true when the spec lists NAME (not by listing none) */
bool job_metric_listed(const struct job_ctx *c, const char *name);
/* What the load of each attached program cost (verifier.insns, prog.jited_bytes,
 * prog.xlated_insns; with `verifier: stats` the verifier log's figures), as whole
 * cost-window samples. */
void job_load_samples(struct job_ctx *c);
/* A progress message through opts->progress; takes RATES (may be NULL). */
void job_progress(struct job_ctx *c, const char *phase, int second, int of, json_t *rates);
/* Medians and outlier seconds of WINDOW's per-second series. */
void job_window_robust(struct job_ctx *c, const char *window);

/* job_window.c */
/* Sleep until CLOCK_MONOTONIC DEADLINE_NS, looking at the cancel flag every JOB_POLL_MS. */
int job_sleep_until(struct job_ctx *c, int64_t deadline_ns);
/* rx.ns_per_frame: attach bpf/rxpath.bpf.c for the receiving port(s): c->rx_role and
 * every port with an XDP program of the variant. */
int job_rxcost_open(struct job_ctx *c);
/* Run window W of DURATION_MS. */
int job_run_window(struct job_ctx *c, enum job_window w, int64_t duration_ms);
/* The host warm-up. */
int job_warm_up(struct job_ctx *c);
/* Each job port's driver counters into c->nic (none: NULL), and a `nic.NAME` the spec
 * lists that no job port exports fails the job. */
int job_nic_open(struct job_ctx *c);
/* Close them. */
void job_nic_close(struct job_ctx *c);

/* job_traffic.c */
/* The spec's port roles resolved to interfaces into c->ports. */
int job_resolve_ports(struct job_ctx *c);
/* The job port of ROLE, or NULL. */
const struct job_port *job_find_port(const struct job_ctx *c, const char *role);
/* Make the spec's generator ready (nothing sent yet); none: nothing to do. */
int job_traffic_setup(struct job_ctx *c);
/* Start it. */
int job_traffic_start(struct job_ctx *c);
/* Stop it (a thread that failed in the last second fails the job). */
int job_traffic_stop(struct job_ctx *c);
/* Stop and free it; safe without one. */
void job_traffic_destroy(struct job_ctx *c);
/* Fail a job whose veth port silently refused the generator's frames. */
int job_check_delivery(struct job_ctx *c);
/* Without a generator: the port that receives most over 100 ms, or NULL. */
const char *job_busiest_port(struct job_ctx *c);
/* The DUT side of a pair: its end of the link; else NULL. */
const char *job_pair_dut_port(struct job_ctx *c);

/* job_search.c */
/* The MLRsearch parameters of a spec's search. */
void job_search_params(const struct job_search *s, struct mlrsearch_params *p);
/* One trial on the job's ports (mlrsearch_measure_fn, CTX the struct job_ctx): the
 * generator made again at LOAD frames/s, run DURATION s, offered and forwarded frames. */
int job_search_trial(void *ctx, double load, double duration, struct mlrsearch_res *res);
/* The search of c->spec.search with MEASURE (job_search_trial, or a model in tests),
 * its trials and results as samples. */
int job_search_run(struct job_ctx *c, mlrsearch_measure_fn measure, void *mctx);

/* job_latency.c */
/* The latency windows of c->spec.latency, a share load taken of PDR_PPS (the lower
 * bound of latency.goal, else of the search's last goal; 0: none), their figures as
 * samples latency.*. */
int job_latency_run(struct job_ctx *c, double pdr_pps);

#endif

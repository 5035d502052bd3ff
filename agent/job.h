/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* job.h - run one job: prepare, traffic, warmup, the rate and cost windows, cleanup.
 *
 * job_run_result() executes a job message body ({"job": {id, run, spec}, "objects": {...}},
 * docs/protocol.md) on this host and fills the complete result (struct job_result). The spec is
 * decoded once, at the start (jobspec.h: a spec that does not decode fails the job with
 * the member's path), and the job reads only the struct:
 *
 *   prepare   resolve the spec's port roles to interfaces, load and attach the variant
 *             (attach.h); a load failure returns the verifier log
 *   barrier   a spec with "pair" (one side of a two-host plan) sends `ready` and waits
 *             for the coordinator's `go` (opts->go), at most pair.barrier_ms; an abort
 *             or the timeout fails the job before any traffic
 *   traffic   start the generator out of traffic.from: xdp-live (xdpgen.h), udp
 *             (udpgen.h), pktgen (pktgen.h), or none (something outside sends; only
 *             measure); threads pinned to traffic.cpus when given
 *   warm-up   a host that just started or was idle for a minute first runs the traffic
 *             with bpf_stats on in 1 s rounds until the programs' cost settles (kept
 *             as warmup.ns_per_run samples, seq the round: their count is the rounds)
 *   warmup    wait traffic.warmup_ms
 *   rate      traffic.duration_ms with bpf_stats off: every second, per port, the
 *             IFLA_STATS64 deltas over the time actually elapsed -> port.rx_pps,
 *             port.tx_pps, port.drop_pps (rx_dropped + tx_dropped), and the generator's
 *             frame count -> gen.tx_pps, the plan's counters -> counter.pps, /proc/stat
 *             -> cpu.busy and cpu.softirq per CPU; one sample per second (seq 0..n-1) and one for
 *             the whole window (seq null); a veth port that silently refused the
 *             generator's frames fails the job
 *   cost      traffic.duration_ms with bpf_stats on: per attached program, run_cnt and
 *             run_time_ns deltas -> prog.ns_per_run, prog.run_pps, per second and whole;
 *             on an icount host prog.ns_per_run is the lowest per-run average over
 *             1 ms slices instead, the interrupt-free instruction count (costslice.h)
 *             After each window: a METRIC.median record per per-second series and its
 *             outlier seconds marked (Tukey, k 1.5); what others took of the measured
 *             CPUs (disturb.h) as cpu.others records, the NET_RX CPU as rx.cpu
 *   cleanup   stop the generator, detach, unload
 *   verdicts  debug-kernel, generator-bound, unstable, disturbed, outlier-seconds,
 *             errors (verdict.h) into the
 *             result's "verdicts" and "verdict_details"; each job port's XDP mode and
 *             how its tc hooks were attached into the result env's ports ("xdp_mode",
 *             "tc_attach": tcx or clsact per hook)
 *
 * Seconds end at absolute deadlines (no drift); a window whose metrics the spec does not
 * list is skipped, and only listed metrics are emitted (all when the spec lists none).
 * The cancel flag is looked at every 100 ms: a cancelled job stops, cleans up and returns
 * status failed, error "cancelled", with the samples of the seconds it completed. Every
 * exit path detaches everything.
 *
 * Runs in the calling thread (the agent's worker thread, or main for --once); the progress
 * callback is called from it once per phase second.
 */
#ifndef BPFLAB_AGENT_JOB_H
#define BPFLAB_AGENT_JOB_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inventory.h"
#include "plan/jobspec.h"
#include "proto/msg_result.h"

/* Called with a complete "progress" message (borrowed). */
typedef void (*job_progress_fn)(void *ctx, const json_t *progress);

struct job_opts {
	const struct inventory_config *inv;	/* agent name, port roles, labels */
	const char *bpf_dir;		/* objects the message does not carry, or NULL */
	bool require_sha256;		/* refuse attach entries without sha256 */
	job_progress_fn progress;	/* may be NULL */
	void *progress_ctx;
	atomic_int *cancel;		/* non-zero: stop (may be NULL) */
	const char *proc_stat;		/* per-CPU times, NULL: /proc/stat (tests) */
	const char *pktgen_dir;		/* pktgen's control files, NULL: /proc/net/pktgen */
	/* two-host plans: a spec with "pair" sends `ready` through PROGRESS after prepare
	 * and waits until *GO is 1 (go) or -1 (abort) */
	atomic_int *go;
	/* with an abort: the coordinator's reason (may be NULL), written before *GO is set
	 * to -1 and read only after, so that the failed job says why */
	const char *go_abort;
	/* with a go: the coordinator's wall clock (ms) when it sent it, or 0; written
	 * before *GO is set to 1 (may be NULL) */
	atomic_llong *go_at_ms;
	/* where /proc is for the disturbance figures (disturb.h), NULL: /proc (tests) */
	const char *proc_dir;
	/* the host warm-up: CLOCK_MONOTONIC ns when the previous job ended, 0 when none
	 * has since the agent started; job_run warms a cold host up and sets it. NULL: no
	 * warm-up (tests, --once) */
	int64_t *last_job_ns;
};

/* A job's result as the agent holds it: the one type of the `result` message
 * (lib/proto/msg_result.h), whose texts and values point into the members below. Owned
 * by whoever holds it; job_result_release frees. */
struct job_result {
	struct msg_result r;		/* r.samples owned */
	json_t *id;			/* the job's id as its message had it (a reference) */
	json_t *env, *verdicts, *details;
	char *error, *verifier_log;
};

/* Run the job in MSG (borrowed) into *OUT. Returns 0, or -ENOMEM (*OUT empty). Failures
 * of the job itself are results with status "failed". */
int job_run_result(const json_t *msg, const struct job_opts *opts, struct job_result *out);
/* *RES failed with ERROR (copied) and without samples (a pair broken under it). 0 or
 * -ENOMEM. */
int job_result_fail(struct job_result *res, const char *error);
/* *RES as the text of its `result` message (malloc'd, LEN bytes): the one encoding of a
 * result, the bytes the spool keeps and the socket carries. NULL when out of memory. */
char *job_result_encode(const struct job_result *res, size_t *len);
/* Free what *RES owns; safe on a zeroed or released one. */
void job_result_release(struct job_result *res);

/* job_run_result's result as a new "result" message (--once, tests); NULL only when
 * out of memory. */
json_t *job_run(const json_t *msg, const struct job_opts *opts);

/* A job id (integer or string) as text into OUT; 0, or -EINVAL when ID is neither or
 * unusable. String ids are restricted to [A-Za-z0-9._-] (not starting with '.') so that
 * they can name spool files. */
int job_id_format(const json_t *id, char *out, size_t out_len);
/* The id of the job in a job message ({"job": {"id": ...}}), as job_id_format. */
int job_id_text(const json_t *msg, char *out, size_t out_len);

#endif

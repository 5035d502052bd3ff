/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* verdict.h - the verdicts a job's result carries (docs/agent.md, "Verdicts").
 *
 * Computed by the job runner from what it measured, so that a table can say why a number
 * is not to be trusted:
 *
 *   debug-kernel     a kernel option that spoils measurements is on (LOCKDEP, KASAN, ...)
 *   generator-bound  the receiving port received at least 99% of the frames the generator
 *                    managed to send AND the CPUs that did the receiving were less than
 *                    90% busy: the path kept up with room to spare, so the rate measured
 *                    is the generator's, not the path's. On a veth the receiving peer's
 *                    NAPI runs on the generator's CPU, so the two are one loop on one
 *                    saturated CPU and the rate is the path's (with the generator's cost
 *                    in it): not generator-bound unless that CPU had idle time. With
 *                    traffic.rate instead: the generator offered a rate further than 1%
 *                    (VERDICT_RATE_MISS) from it, so the load is not the one asked for,
 *                    unless its hold-ups (below) make up the difference
 *   unstable         the receiving port's per-second rx rates in the rate window have a
 *                    coefficient of variation (sample standard deviation / mean) above
 *                    the bound (5%)
 *   disturbed        others (other processes, other agents, kernel threads, interrupts,
 *                    steal) took more than the bound (35%) of the CPUs the measured work
 *                    ran on, in the rate or the cost window (disturb.h); or, with
 *                    traffic.rate, the paced generator missed it by more than 1% and the
 *                    frames it could not send while held from its CPU (gen.h, hold-ups)
 *                    make up the difference: the repetition is measured again and left
 *                    out of compare
 *   outlier-seconds  a per-second value of a window lies outside Tukey's fences (k 1.5)
 *                    of its series (at least 4 seconds): marked, the repetition is used
 *   errors           frames lost to errors: the ports' rx_errors + tx_errors + rx_dropped
 *                    + tx_dropped deltas over the rate window (on veth these count failed
 *                    XDP_TX and XDP_REDIRECT transmits, not XDP_DROP), plus plan counters
 *                    whose name contains "err", above 0.1% of the frames received
 *
 * Pure functions over numbers: unit-tested on fixed series.
 */
#ifndef BPFLAB_AGENT_VERDICT_H
#define BPFLAB_AGENT_VERDICT_H

#include <jansson.h>
#include <stdint.h>

#define VERDICT_CV_BOUND 0.05		/* unstable above this */
#define VERDICT_GEN_BOUND 0.99		/* generator-bound at or above this */
#define VERDICT_IDLE_BOUND 0.90		/* ... and receiving CPUs busy below this */
#define VERDICT_RATE_MISS 0.01		/* with traffic.rate: generator-bound when the
					 * offered rate is further than this from it */
#define VERDICT_ERROR_SHARE 0.001	/* errors above this share of received frames */
#define VERDICT_OTHERS_BOUND 0.35	/* disturbed when others took more of the measured
					 * CPUs in a window (docs/agent.md, "Disturbance") */

struct verdict_input {
	json_t *debug_options;		/* array of option names that are on, or NULL */
	const char *rx_role;		/* the receiving port, NULL when none */
	const double *rx_pps;		/* its per-second rx rates in the rate window */
	int n_rx;
	double rx_frames;		/* frames it received over the window */
	double gen_frames;		/* frames the generator sent over the window; < 0: no
					 * generator (traffic from outside) */
	double error_frames;		/* error count over the window (see above) */
	double all_rx_frames;		/* frames received on all ports over the window */
	const char *error_what;		/* where the errors were seen, for the details */
	double rx_cpu_busy;		/* the highest cpu.busy over the rate window of the
					 * CPUs that did the receiving (verdict_rx_busy);
					 * < 0: unknown, never generator-bound */
	const char *rx_cpus;		/* those CPUs, for the details ("cpu0") */
	double others[2];		/* share of the measured CPUs others took in the rate
					 * and the cost window (disturb.h); < 0: unknown */
	const char *others_what[2];	/* per-CPU figures of each, for the details */
	int rx_cpu;			/* the CPU that served the receive softirq; -1 */
	const char *outliers;		/* the outlier seconds of the windows, or NULL */
	double target_pps;		/* traffic.rate in frames/s; 0: full speed */
	double offered_pps;		/* frames/s the generator sent over the rate window
					 * (gen.offered_pps); < 0: unknown */
	const char *search_bound;	/* a search ended generator-bound: why (job_search.c),
					 * else NULL */
	double held_pps;		/* with traffic.rate: the frames/s the paced generator
					 * did not send because it was held up (gen.h,
					 * struct gen_pace) over the rate window */
	uint64_t held_n;		/* those hold-ups */
	double held_ms;			/* and their time */
};

/* Per-CPU busy shares over the rate window, and where the generator ran. */
struct verdict_cpus {
	const int *cpu;			/* CPU numbers */
	const double *busy;		/* their cpu.busy, 0..1 */
	int n;
	const int *gen_cpus;		/* the generator threads' CPUs; NULL: not pinned */
	int n_gen;
	int rx_on_gen_cpu;		/* the receive path runs on the sender's CPU (a veth
					 * peer's NAPI) */
};

/* Sample coefficient of variation of X[0..N-1]; -1 when N < 2 or the mean is 0. */
double verdict_cv(const double *x, int n);

/* The highest busy share among the CPUs that did the receiving: the generator's CPUs
 * when IN->rx_on_gen_cpu; else every other CPU (all of them when the generator used
 * every CPU); all CPUs when the generator was not pinned. Their names ("cpu0,cpu1") go
 * to OUT. Returns -1 when there is no such CPU. */
double verdict_rx_busy(const struct verdict_cpus *in, char *out, size_t out_len);

/* Evaluate IN. *VERDICTS gets a new array of verdict names (in the order above) and
 * *DETAILS a new object {verdict: "why"}. Returns 0 or -ENOMEM. */
int verdict_compute(const struct verdict_input *in, json_t **verdicts, json_t **details);

#endif

/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* runspread.h - the run-to-run variance component of a compare row.
 *
 * The repetitions of one run are jobs taken close together in time; between runs the
 * machine drifts (5-15 % on a shared machine), so each run has an offset of its own and
 * the repetitions of a run are not independent draws of the quantity compared across
 * runs. From the runs of the same plan, host and kernel build (the compared ones among
 * them) the component is, one-way random effects (method of moments):
 *
 *     sigma_b^2 = max(0, var(run means) - mean(s_i^2 / n_i))
 *
 * here relative to the set's mean of run means (so that the two sides of a compare, at
 * different levels, share one estimate), with k - 1 degrees of freedom; several sets
 * (the two sides ran different plans or kernels) pool by degrees of freedom. It needs
 * RUNSPREAD_MIN_RUNS runs. compare_samples adds it to each side's variance of the mean
 * (docs/analysis.md, "Run-to-run spread"). Pure and thread-safe.
 */
#ifndef BPFLAB_RUNSPREAD_H
#define BPFLAB_RUNSPREAD_H

#include <stdbool.h>
#include <stddef.h>

/* Fewer runs (the compared ones counted) leave the component unknown. */
#define RUNSPREAD_MIN_RUNS 3
/* The newest runs of a set that count (older ones may be another machine's state). */
#define RUNSPREAD_MAX_RUNS 20
/* Where the component is not known (fewer runs, or a side pooling hosts or builds), a
 * compare assumes this relative spread with these degrees of freedom unless told
 * otherwise (--run-spread): the estimate from 10 runs of one plan on the shared 2-CPU
 * machine of bench/README.md ("validity", 5.7 to 7.3 %). Taking the repetitions of one
 * run as independent instead made 1 in 4 to 1 in 2 first A/A pairs DIFFERENT there. */
#define RUNSPREAD_ASSUMED 0.07
#define RUNSPREAD_ASSUMED_DF 9

/* One run's values of a compare row: how many, their mean and sample variance (NAN or
 * unused below 2 values). */
struct runspread_run {
	size_t n;
	double mean;
	double var;
};

/* The estimate: the relative variance sigma_b^2 / M^2 (M the mean of run means), its
 * degrees of freedom and the runs behind it. */
struct runspread {
	double rel_var;			/* >= 0: raw clamped at 0 */
	double raw;			/* the pooled estimate before the clamp */
	double df;			/* sum over sets of k - 1 */
	size_t runs;			/* sum over sets of k */
	bool known;			/* runs >= RUNSPREAD_MIN_RUNS and df >= 1 */
	bool assumed;			/* not known: REL_VAR and DF are an assumption
					 * (analysis.c), RAW and RUNS what was seen */
};

/* Add the set of the K runs at R (one plan, host and kernel build) to the pooled
 * estimate ACC (zeroed by the caller before the first set). A set of runs all of mean
 * 0 has no spread (raw 0); one whose mean of run means is otherwise 0 or not finite,
 * or of no run, is left out. Sets are pooled by
 * their k - 1 degrees of freedom before the estimate is clamped at 0; ACC->known says
 * whether enough runs were seen. */
void runspread_add_set(struct runspread *acc, const struct runspread_run *r, size_t k);

/* TEXT, a percentage from 0 to under 1000 as `--run-spread` and the dashboard's
 * run_spread take it, into *ASSUMED as analysis_opts.run_spread_assumed wants it: the
 * fraction, or -1 for 0 (nothing assumed: repetitions independent). -EINVAL otherwise. */
int runspread_parse_pct(const char *text, double *assumed);

#endif

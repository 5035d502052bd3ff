/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* bisect.h - the decision engine of `bpflab bisect`: which kernel to measure next, and
 * what each measurement says, over an ordered list of candidate kernels (oldest first)
 * whose two ends the user calls good and bad.
 *
 * A state machine in the style of git bisect, with no I/O: the caller asks
 * bisect_next() what to measure, measures it (stored results or a new run), and feeds
 * the values with bisect_record(); the engine keeps every value and every decision.
 *
 *  1. The two ends are measured first and compared (compare_samples). They must differ
 *     (DIFFERENT); the sign of mean(bad) - mean(good) is the "bad direction". UNKNOWN
 *     asks both ends for more repetitions (bounded); SAME, or UNKNOWN past the bound,
 *     fails the bisection: there is nothing to find.
 *  2. Then the kernel in the middle of the open range (last good, first bad), among the
 *     candidates not skipped, is measured and classified against BOTH ends:
 *     SAME as good (and, if SAME as bad too, closer to good) -> good; SAME as bad, or
 *     DIFFERENT from good in the bad direction -> bad; DIFFERENT from good in the other
 *     direction -> good (not a regression); DIFFERENT from bad towards good and closer
 *     to good, with good UNKNOWN -> good; a one-sided SAME whose mean is closer to the
 *     other end, or UNKNOWN on both -> more repetitions of the same kernel (and first of
 *     an end that has fewer values than the kernel will have), at most
 *     max_extra_rounds times, then skip. A kernel recorded with no values (no host
 *     can run it, its runs failed) is skipped, as `git bisect skip` does.
 *  3. When no candidate is left between the last good and the first bad, the result is
 *     the first bad kernel, its good neighbour, both sides' values, p and delta; if
 *     skipped kernels lie between them the result is ambiguous (a range, as git says
 *     "the first bad commit could be any of").
 *  4. A confirmation round: both kernels measured again, interleaved; the driver
 *     records the good neighbour's values, then the first bad's; the confirmation agrees
 *     when they are DIFFERENT in the bad direction again.
 *
 * Replaying the same bisect_record() calls on a new engine gives the same state: that
 * is how a stored session is resumed (lib/store/store_bisect.c keeps the calls).
 *
 * Not thread-safe; one engine per session. Ownership: the engine copies the kernel names
 * and every value it is given.
 */
#ifndef BPFLAB_BISECT_H
#define BPFLAB_BISECT_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/compare.h"
#include "base/err.h"
#include "analysis/stats.h"

struct bisect;

struct bisect_opts {
	enum stats_kind kind;		/* the metric's kind (its mean); OTHER */
	unsigned int reps;		/* repetitions of a first measurement; 5 */
	unsigned int max_extra_rounds;	/* UNKNOWN: rounds of more repetitions; 3 */
	unsigned int max_reps_round;	/* most repetitions one extra round asks; 20 */
	unsigned int confirm_reps;	/* each side of the confirmation; reps */
	bool no_confirm;		/* end without a confirmation round */
	double alpha;			/* compare_opts.alpha; 0.05 */
	double min_effect;		/* compare_opts.min_effect; 0.02 */
	unsigned int max_reps;		/* 0: UNKNOWN gets max_extra_rounds rounds; else
					 * rounds while the kernel (the ends, a
					 * confirmation side) has fewer values than this,
					 * none beyond it (`--max-reps`) */
};

#define BISECT_OPTS(NAME, ...)                                                          \
	struct bisect_opts NAME = { __VA_ARGS__ }

/* What a measured kernel is, or what the engine thinks of one measurement. */
enum bisect_mark {
	BISECT_UNTESTED,
	BISECT_GOOD,
	BISECT_BAD,
	BISECT_SKIP,
	BISECT_MORE,			/* a step only: UNKNOWN, more repetitions asked */
	BISECT_END,			/* a step only: an end measured */
	BISECT_CONFIRM,			/* a step only: a confirmation measurement */
};

enum bisect_state {
	BISECT_ENDS,			/* measuring the good and bad ends */
	BISECT_SEARCHING,		/* measuring candidates in between */
	BISECT_CONFIRMING,		/* the confirmation round */
	BISECT_DONE,
	BISECT_FAILED,			/* nothing to find (see bisect_why) */
};

/* What to do next (bisect_next). */
struct bisect_action {
	enum bisect_state state;	/* DONE / FAILED: nothing to measure */
	int kernel;			/* measure this kernel (index), -1 if none */
	int kernel2;			/* CONFIRMING: then this one, interleaved; else -1 */
	unsigned int reps;		/* this many repetitions (each kernel) */
	unsigned int round;		/* 0 first measurement, 1.. extra rounds */
};

/* What a comparison of N_A and N_B values could resolve: CV is the pooled standard
 * deviation over the baseline (A) mean, MDE the smallest relative change that the two
 * samples detect at the comparison's alpha with power 0.8
 * (stats_min_detectable_effect), both fractions; NAN when a side has fewer than 2
 * values. */
struct bisect_resolution {
	size_t n_a, n_b;
	double cv;
	double mde;
};

/* One recorded measurement and what was decided from it. */
struct bisect_step {
	int kernel;
	unsigned int round;		/* 0 first, 1.. extra rounds */
	unsigned int n_new;		/* values given by this call */
	unsigned int n_total;		/* values of the kernel after it */
	double mean;			/* of all its values (kind mean); NAN if none */
	double delta_good_pct;		/* against the good end; NAN if not compared */
	double p_good, p_bad;		/* against each end; NAN if not compared */
	enum compare_test test_good, test_bad;	/* the tests that gave them; CONSTANT:
						 * exact (compare_p_text) */
	enum compare_verdict v_good, v_bad;
	enum bisect_mark mark;
	struct bisect_resolution res;	/* of the comparison that decided (the less
					 * resolving of the two for a candidate); n 0
					 * when nothing was compared */
	char why[128];			/* "SAME as good (+0.10 %, p 0.41), ...", "no
					 * values: skip"; "exact" in place of "p 0.41"
					 * when both sides were constant (compare_p_text) */
};

enum bisect_confirm {
	BISECT_CONFIRM_NONE,		/* not (yet) confirmed */
	BISECT_CONFIRM_AGREES,
	BISECT_CONFIRM_DISAGREES,	/* SAME, or DIFFERENT the other way */
	BISECT_CONFIRM_UNCLEAR,		/* UNKNOWN */
};

/* The answer, when the state is CONFIRMING or DONE. */
struct bisect_result {
	int good;			/* last good kernel: the first bad's good neighbour */
	int bad;			/* first bad kernel */
	bool ambiguous;			/* skipped kernels between them */
	int n_skipped_between;
	double mean_good, mean_bad;	/* kind means of all their values */
	double delta_pct;		/* 100 (mean_bad - mean_good) / mean_good */
	double p;			/* of compare(good values, bad values) */
	enum compare_test test;
	const double *values_good, *values_bad;	/* the engine's; valid until it changes */
	size_t n_good, n_bad;
	enum compare_change change;	/* by the opts' kind (AUTO direction) */
	enum bisect_confirm confirm;
	double confirm_p, confirm_delta_pct;	/* NAN before the confirmation */
	enum compare_test confirm_test;		/* of the confirmation; NONE before */
};

/* A new session over the N_KERNELS names at KERNELS (oldest first, copied, distinct),
 * with KERNELS[GOOD] good and KERNELS[BAD] bad, GOOD < BAD, under OPTS (NULL: defaults;
 * a field left 0 takes its default). Returns NULL with errno: EINVAL for bad arguments
 * (fewer than 2 kernels, an index out of range, GOOD >= BAD, a duplicate name), ENOMEM. */
struct bisect *bisect_new(const char *const *kernels, int n_kernels, int good, int bad,
			  const struct bisect_opts *opts);
/* Free; *B becomes NULL. Takes NULL. */
void bisect_destroy(struct bisect **b);

/* What to measure next into *OUT. Returns the state. */
enum bisect_state bisect_next(const struct bisect *b, struct bisect_action *out);
/* Record the N values at VALUES (finite) measured on kernel KERNEL, which must be the
 * one bisect_next names (in CONFIRMING: first kernel, then kernel2). N = 0 means the
 * kernel could not be measured: skip it (an end that cannot be measured fails the
 * bisection). Returns 0, -EINVAL (not the kernel asked for, a value not finite, no
 * measurement expected in this state), -ENOMEM. On error nothing changes. */
int bisect_record(struct bisect *b, int kernel, const double *values, size_t n);

/* The state now. */
enum bisect_state bisect_state(const struct bisect *b);
/* Why the bisection failed, or the last decision's reason; never NULL. */
const char *bisect_why(const struct bisect *b);
/* The kernels (as given) and their count. */
int bisect_n_kernels(const struct bisect *b);
const char *bisect_kernel(const struct bisect *b, int i);
/* Index of kernel NAME, or -1. */
int bisect_kernel_index(const struct bisect *b, const char *name);
/* What kernel I is now (UNTESTED, GOOD, BAD, SKIP), and its values into *VALUES (the
 * engine's, may be NULL) and *N (may be NULL). */
enum bisect_mark bisect_mark(const struct bisect *b, int i, const double **values,
			     size_t *n);
/* Kernels measured (at least one bisect_record call, skips included), and the steps. */
int bisect_n_measured(const struct bisect *b);
int bisect_n_steps(const struct bisect *b);
const struct bisect_step *bisect_step(const struct bisect *b, int i);
/* The result into *OUT. Returns 0, or -EAGAIN before the search has ended. */
int bisect_result(const struct bisect *b, struct bisect_result *out);

/* "untested", "good", "bad", "skip", "more", "end", "confirm". */
const char *bisect_mark_name(enum bisect_mark m);
/* "ends", "searching", "confirming", "done", "failed". */
const char *bisect_state_name(enum bisect_state s);
/* "", "agrees", "disagrees", "unclear". */
const char *bisect_confirm_name(enum bisect_confirm c);

/* `bisect run` (one kernel against a stored baseline): is CURRENT (N_CUR values) good
 * or bad against BASELINE (N_BASE values) of a metric of KIND, with MIN_EFFECT the
 * relative change that matters and DIR the better direction (AUTO: by kind)? Returns
 * BISECT_GOOD (SAME, or DIFFERENT and better), BISECT_BAD (DIFFERENT and worse),
 * BISECT_SKIP (UNKNOWN, no direction, or no values), with the comparison in *CMP (may
 * be NULL). */
enum bisect_mark bisect_judge(const double *baseline, size_t n_base, const double *current,
			      size_t n_cur, enum stats_kind kind, double min_effect,
			      enum compare_direction dir, struct compare_result *cmp);

/* What `bisect run` found for one commit, and its exit status for `git bisect run`
 * (bisect_run_exit): GOOD 0, BAD 1; UNKNOWN (cannot tell, after the most repetitions)
 * and UNTESTABLE (this commit cannot be tested: its kernel has no host, its jobs all
 * failed) 125, which git skips; USAGE (bad usage, a plan that does not validate, a
 * metric matching several variants or subjects) 129 and FAILED (the tool failed: no
 * coordinator, an unreadable database, a failed submit, a baseline without values) 128,
 * which stop `git bisect run` instead of skipping every commit. */
enum bisect_outcome {
	BISECT_OUT_GOOD,
	BISECT_OUT_BAD,
	BISECT_OUT_UNKNOWN,
	BISECT_OUT_UNTESTABLE,
	BISECT_OUT_USAGE,
	BISECT_OUT_FAILED,
};

#define BISECT_EXIT_SKIP 125		/* git bisect run: skip this commit */
#define BISECT_EXIT_FAILED 128		/* git bisect run: stop */
#define BISECT_EXIT_USAGE 129		/* git bisect run: stop */

/* The exit status of outcome O; BISECT_EXIT_FAILED for a value out of range. */
int bisect_run_exit(enum bisect_outcome o);
/* "good", "bad", "cannot tell", "cannot test", "usage", "failed". */
const char *bisect_outcome_name(enum bisect_outcome o);

/* `bisect run`'s escalation: after comparison R of a kernel with N_HAVE values (the
 * fewer of the two sides), how many more values each side should get, at most MAX_REPS
 * in all: 0 unless R is UNKNOWN and N_HAVE < MAX_REPS; else compare's more_reps, at
 * least 3, capped at MAX_REPS - N_HAVE. */
unsigned int bisect_run_more(const struct compare_result *r, size_t n_have,
			     unsigned int max_reps);

/* What comparison R (at significance ALPHA; 0: 0.05) could resolve, into *OUT. */
void bisect_resolution_of(const struct compare_result *r, double alpha,
			  struct bisect_resolution *out);
/* "with 5 + 5 values at 12 % CV the smallest change this can see is about 21 %" into
 * OUT, "" when RES has no figure (a side below 2 values). Returns OUT. */
const char *bisect_resolution_text(const struct bisect_resolution *res, char *out,
				   size_t len);

/* A sample that bisect compares must be one variant and one subject, never several
 * pooled. VARIANTS and SUBJECTS (each may be NULL: not checked) name the variant and
 * subject of each of N values (a NULL name is not counted). Returns 0 when each names
 * at most one, else -EINVAL with ERR set (input): "values of 2 variants ('drop',
 * 'pass'): choose one with --variant" (variants are checked first). */
int bisect_sample_check(const char *const *variants, const char *const *subjects,
			size_t n, struct err *err);

#endif

/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* repeat.h - the repetition controller's decision: does a (host, variant, point) need
 * another repetition, and why.
 *
 * A plan's `repeat` (docs/plans.md) is either a count N (min = max = N, nothing added
 * unless a repetition does not count) or `{min, max, until, on}`: after each round of a
 * host's point the coordinator (lib/store/store_repeat.c) hands this module the values of the
 * variant's counted repetitions per (metric, subject) of `on`, and it answers MORE while
 * the 95 % confidence interval of any of their means is wider than `until` of the mean
 * and fewer than `max` repetitions ran; then SETTLED, or NOT_SETTLED with the half-width
 * reached. A repetition that does not count (its verdicts include one of
 * repeat_verdict_excluded: `disturbed`, `warmup`) is measured again, counted against
 * max; for a plain count N such replacements go up to 2N repetitions in all. A failed
 * repetition ends the variant's repetitions: another attempt would fail the same way.
 *
 * Pure: no I/O, no allocation; tests/unit/test_repeat.c checks it against values worked
 * out by hand.
 */
#ifndef BPFLAB_REPEAT_H
#define BPFLAB_REPEAT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define REPEAT_ALPHA 0.05		/* 95 % confidence intervals */

struct repeat_policy {
	int min;			/* repetitions expanded at submit */
	int max;			/* the most repetitions in all */
	double until;			/* relative CI half-width to reach; 0: fixed count */
	const json_t *on;		/* array of metric names (borrowed), NULL: none */
};

/* The policy of a job spec: its "repeat" object ({min, max, until, on}) when adaptive,
 * else a fixed count FIXED (the run's repeat): min FIXED, max 2 FIXED (room to measure
 * again what did not count), until 0. Returns 0, or -EINVAL for a malformed "repeat". */
int repeat_policy_from_spec(const json_t *spec, int fixed, struct repeat_policy *p);

/* Whether the metric named METRIC is one the policy settles on. */
bool repeat_policy_on(const struct repeat_policy *p, const char *metric);

/* Whether a repetition with verdict NAME does not count (measured again). */
bool repeat_verdict_excluded(const char *name);

/* The counted values of one (metric, subject) of a variant. */
struct repeat_series {
	const char *metric;
	const char *subject;
	const double *v;
	size_t n;
};

/* What one variant's repetitions are so far. */
struct repeat_state {
	int total;			/* repetitions that ran (done or failed) */
	int counted;			/* done, with no excluded verdict */
	int failed;
};

enum repeat_action {
	REPEAT_SETTLED,			/* stop: every series within until (or a fixed count) */
	REPEAT_NOT_SETTLED,		/* stop: max reached with a series still too wide */
	REPEAT_STOP_FAILED,		/* stop: a repetition failed */
	REPEAT_MORE,			/* queue one more repetition */
};

struct repeat_decision {
	enum repeat_action action;
	double halfwidth;		/* the widest relative CI half-width, NAN when none */
	const char *metric;		/* of the widest series, NULL when none */
	const char *subject;
	char why[256];			/* for MORE and NOT_SETTLED: the reason, one line */
};

/* Decide for one variant: policy P, its state ST and the N series S of its counted
 * repetitions (only the metrics of P->on are looked at). */
void repeat_decide(const struct repeat_policy *p, const struct repeat_state *st,
		   const struct repeat_series *s, size_t n, struct repeat_decision *d);

/* "settled", "not settled", "failed", "more". */
const char *repeat_action_name(enum repeat_action a);

#endif

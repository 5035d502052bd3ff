/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* mlrsearch.h - Multiple Loss Ratio Search (RFC 9971) as a state machine with no I/O.
 *
 * The search finds, for each goal (a loss ratio, e.g. NDR 0 and PDR 0.5 %), the highest
 * load a device forwards within that loss, as RFC 9971 defines it: the Relevant Lower
 * Bound, the Relevant Upper Bound and the Conditional Throughput. The caller (the agent,
 * a bench, a unit test with a model device) owns the traffic:
 *
 *	s = mlrsearch_new(&params);
 *	while (mlrsearch_next(s, &req) == 1) {
 *		run one trial at req.load pps for req.duration s;
 *		mlrsearch_report(s, &res);	(what the trial measured)
 *	}
 *	mlrsearch_goal_result(s, i, &out) for each goal; mlrsearch_destroy(&s);
 *
 * mlrsearch_run() does that loop with a measure callback. The algorithm (lib/analysis/
 * mlrsearch.c, docs/analysis.md "MLRsearch") follows FD.io CSIT's implementation in
 * outline: short trials first (phases from initial_duration up to final_duration, each
 * twice the width of the next), bisection inside each goal's bounds, lower loads first,
 * and an outward search with doubling steps when a bound is missing or new trials turned
 * it over. Pure: one search object per search, not shared between threads. With
 * params.method MLRSEARCH_METHOD_BINARY the same calls run the plain RFC 2544 binary
 * search instead (lib/analysis/binsearch.h), for comparison (bench/ndr).
 *
 * Folder contract: lib/analysis/ (docs/architecture.md, "Layout"), includes only base.
 */
#ifndef BPFLAB_MLRSEARCH_H
#define BPFLAB_MLRSEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define MLRSEARCH_MAX_GOALS 8

/* One Search Goal (RFC 9971, "Search Goal"): its Goal Loss Ratio and Goal Exceed Ratio,
 * both in [0, 1). The goal's final trial duration, duration sum and width are the
 * search's (shared by all goals, as the RFC recommends). */
struct mlrsearch_goal {
	const char *name;		/* borrowed; "NDR", "PDR" */
	double loss_ratio;
	double exceed_ratio;
};

/* How the search is made: MLRsearch, or the plain RFC 2544 binary search it is measured
 * against (lib/analysis/binsearch.h; same loop, same results). */
enum mlrsearch_method { MLRSEARCH_METHOD_MLR, MLRSEARCH_METHOD_BINARY };

/* The Controller Input (RFC 9971, "Controller Input"). Loads in frames per second. */
struct mlrsearch_params {
	enum mlrsearch_method method;	/* MLRSEARCH_METHOD_MLR (0) by default */
	struct mlrsearch_goal goals[MLRSEARCH_MAX_GOALS];
	size_t n_goals;			/* 1..MLRSEARCH_MAX_GOALS */
	double width;			/* Goal Width, relative: (ub - lb) / ub, > 0, < 1 */
	double initial_duration;	/* s, the first phase's trials; 0: final_duration */
	double final_duration;		/* s, Goal Final Trial Duration, > 0 */
	double duration_sum;		/* s, Goal Duration Sum; 0: final_duration */
	double budget;			/* s, most trial time the search may spend; 0: none */
	double min_rate, max_rate;	/* Min Load, Max Load: 0 < min_rate < max_rate */
	unsigned int phases;		/* phases before the final one; 0: as many as
					 * doublings from initial to final duration */
};

/* The next trial to run (RFC 9971, "Trial Input"). */
struct mlrsearch_req {
	double load;			/* pps, intended */
	double duration;		/* s */
};

/* What one trial measured (RFC 9971, "Trial Output"): the loss ratio is
 * lost / (forwarded + lost); the Trial Effective Duration is DURATION (the request's
 * when 0). OFFERED is kept for the caller's records, not used by the search. */
struct mlrsearch_res {
	double offered;			/* pps, as measured */
	uint64_t forwarded, lost;	/* frames */
	double duration;		/* s */
};

/* A stored trial (RFC 9971, "Trial Result"): the load and duration it was asked for, its
 * Trial Effective Duration, Trial Loss Ratio and the measured offered load. */
struct mlrsearch_trial {
	double load, duration, effective, loss_ratio, offered;
};

/* Load Classification (RFC 9971, "Load Classification", Appendix A). */
enum mlrsearch_class { MLRSEARCH_UNDECIDED, MLRSEARCH_LOWER, MLRSEARCH_UPPER };

/* How a goal ended. */
enum mlrsearch_status {
	MLRSEARCH_RUNNING,		/* not ended yet */
	MLRSEARCH_REGULAR,		/* both bounds, width <= goal width (Regular Goal
					 * Result) */
	MLRSEARCH_MAX_CLEAN,		/* max_rate is a lower bound: no upper bound */
	MLRSEARCH_MIN_FAILS,		/* min_rate is an upper bound: no lower bound */
	MLRSEARCH_BUDGET,		/* the budget ran out before the goal's width */
	MLRSEARCH_GENERATOR_BOUND,	/* no upper bound within the ceiling (loads above
					 * it could not be offered): lower, if any, is the
					 * highest lower bound below it */
};

/* One goal's result (RFC 9971, "Goal Result"); a bound that does not exist is 0 with its
 * has_ flag false. With MLRSEARCH_MAX_CLEAN, lower is max_rate (the RFC's "effective"
 * lower bound of an Irregular Goal Result) and conditional is computed there. */
struct mlrsearch_goal_result {
	enum mlrsearch_status status;
	bool has_lower, has_upper;
	double lower, upper;		/* Relevant Lower / Upper Bound, pps */
	double conditional;		/* Conditional Throughput at lower, pps (0 without) */
	double width;			/* (upper - lower) / upper; 0 without both */
};

struct mlrsearch;

/* A search with PARAMS (copied; goal names stay borrowed). NULL with errno EINVAL for
 * parameters outside the ranges above (ERR, if not NULL, gets a message naming the
 * field), ENOMEM. */
struct mlrsearch *mlrsearch_new(const struct mlrsearch_params *params, struct err *err);

/* Frees *S and sets it to NULL; NULL and *S NULL allowed. */
void mlrsearch_destroy(struct mlrsearch **s);

/* The next trial into REQ: 1 (run it, then mlrsearch_report), 0 when the search has
 * ended (mlrsearch_status says why). Called again before a report, it gives the same
 * trial. */
int mlrsearch_next(struct mlrsearch *s, struct mlrsearch_req *req);

/* The result of the trial mlrsearch_next gave. 0; -EALREADY without a trial pending;
 * -EINVAL when forwarded + lost is 0 or the duration negative, -ENOMEM (nothing is
 * recorded then, the trial stays pending). */
int mlrsearch_report(struct mlrsearch *s, const struct mlrsearch_res *res);

/* The trial mlrsearch_next gave was not run at its load: the generator offered only
 * RES->offered pps (a caller's validity check, e.g. more than 1 % off). It is no
 * measurement (not among mlrsearch_trials; its duration counts in mlrsearch_time).
 * mlrsearch_next gives the same trial once more; invalid again, its load and those
 * above are out of reach: the ceiling (max_rate at first), the highest load the search
 * still asks, drops to the higher of the two offered rates less 1 % (but not below the
 * highest load that has trials under the invalid one). A goal whose next load would be
 * above the ceiling ends MLRSEARCH_GENERATOR_BOUND; a ceiling below min_rate ends the
 * search. 0; -EALREADY without a trial pending; -EINVAL for a negative or NaN offered
 * rate or duration. */
int mlrsearch_report_invalid(struct mlrsearch *s, const struct mlrsearch_res *res);

/* The ceiling (above) and, into *N_INVALID if not NULL, the invalid trials so far. */
double mlrsearch_ceiling(const struct mlrsearch *s, size_t *n_invalid);

/* MLRSEARCH_RUNNING while trials remain; at the end MLRSEARCH_BUDGET when the budget
 * stopped it, else MLRSEARCH_REGULAR (each goal's own status says more). */
enum mlrsearch_status mlrsearch_status(const struct mlrsearch *s);

/* Goal I's result (at the end, or so far) into OUT: 0, or -EINVAL for a bad I. */
int mlrsearch_goal_result(const struct mlrsearch *s, size_t i,
			  struct mlrsearch_goal_result *out);

/* The trials so far (borrowed, in order) and their total effective duration. */
const struct mlrsearch_trial *mlrsearch_trials(const struct mlrsearch *s, size_t *n);
double mlrsearch_time(const struct mlrsearch *s);

/* Status as text: "running", "regular", "max_rate has no loss", "min_rate fails",
 * "budget spent", "generator-bound". */
const char *mlrsearch_status_str(enum mlrsearch_status st);

/* RFC 9971 Appendix A: the class of the N trials at T whose load equals LOAD, for a goal
 * of LOSS_RATIO and EXCEED_RATIO with Goal Final Trial Duration FINAL and Goal Duration
 * Sum SUM. */
enum mlrsearch_class mlrsearch_classify(const struct mlrsearch_trial *t, size_t n, double load,
					double loss_ratio, double exceed_ratio, double final,
					double sum);

/* RFC 9971 Appendix B: the Conditional Throughput at LOAD from the trials there (as
 * mlrsearch_classify); 0 without a full-length trial at LOAD. */
double mlrsearch_conditional(const struct mlrsearch_trial *t, size_t n, double load,
			     double loss_ratio, double exceed_ratio, double final, double sum);

/* A device for mlrsearch_run: runs a trial at LOAD pps for
 * DURATION s into RES; 0, or a negative errno that ends the run. */
typedef int (*mlrsearch_measure_fn)(void *ctx, double load, double duration,
				    struct mlrsearch_res *res);

/* Drives S to its end with MEASURE: 0, or the first negative errno of MEASURE or S. */
int mlrsearch_run(struct mlrsearch *s, mlrsearch_measure_fn measure, void *ctx);

#endif /* BPFLAB_MLRSEARCH_H */

/* binsearch.h - the plain RFC 2544 binary search for throughput under a loss bound, as a
 * state machine with no I/O, with MLRsearch's types (lib/analysis/mlrsearch.h): what
 * MLRsearch is measured against (bench/ndr) and what a plan gets with `search.method:
 * binary` (docs/plans.md, "search"). Callers reach it through mlrsearch_new with
 * params.method = MLRSEARCH_METHOD_BINARY, the same next/report loop.
 *
 * One search per goal, one after the other, as RFC 2544 users do (nothing is carried from
 * one goal's search to the next): every trial at params.final_duration; first max_rate (a
 * pass ends the goal: max_rate is the lower bound); then the midpoint of [lo, hi], lo
 * starting at min_rate (not tried), hi at max_rate, a pass raising lo and a failure
 * lowering hi, until (hi - lo) / hi <= width; if lo is then still the untried min_rate,
 * one trial there (a failure: no lower bound). A trial passes when its loss ratio is at
 * most the goal's loss ratio (exceed ratio and duration sum are MLRsearch's and unused).
 *
 * Folder contract: lib/analysis/ (docs/architecture.md, "Layout"), includes only base.
 */
#ifndef BPFLAB_BINSEARCH_H
#define BPFLAB_BINSEARCH_H

#include <stddef.h>

#include "analysis/mlrsearch.h"

struct binsearch;

/* A search with PARAMS (copied; goal names stay borrowed), checked by the caller
 * (mlrsearch_new). NULL with errno ENOMEM. */
struct binsearch *binsearch_new(const struct mlrsearch_params *params);

/* Frees *S and sets it to NULL; NULL and *S NULL allowed. */
void binsearch_destroy(struct binsearch **s);

/* As mlrsearch_next / _report / _status / _goal_result / _trials / _time. */
int binsearch_next(struct binsearch *s, struct mlrsearch_req *req);
int binsearch_report(struct binsearch *s, const struct mlrsearch_res *res);
enum mlrsearch_status binsearch_status(const struct binsearch *s);
int binsearch_goal_result(const struct binsearch *s, size_t i,
			  struct mlrsearch_goal_result *out);
const struct mlrsearch_trial *binsearch_trials(const struct binsearch *s, size_t *n);
double binsearch_time(const struct binsearch *s);

#endif /* BPFLAB_BINSEARCH_H */

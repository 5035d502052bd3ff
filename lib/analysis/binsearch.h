/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* binsearch.h - the plain RFC 2544 binary search for throughput under a loss bound, as a
 * state machine with no I/O, with MLRsearch's types (lib/analysis/mlrsearch.h): what
 * MLRsearch is measured against (bench/ndr) and what a plan gets with `search.method:
 * binary` (docs/plans.md, "search"). Callers reach it through mlrsearch_new with
 * params.method = MLRSEARCH_METHOD_BINARY, the same next/report loop: mlrsearch.c keeps
 * the trials and asks this file only for loads.
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

#include <stdbool.h>
#include <stddef.h>

#include "analysis/mlrsearch.h"

struct binsearch;

/* A search with PARAMS (copied; goal names stay borrowed), checked by the caller
 * (mlrsearch_new). NULL with errno ENOMEM. */
struct binsearch *binsearch_new(const struct mlrsearch_params *params);

/* Frees *S and sets it to NULL; NULL and *S NULL allowed. */
void binsearch_destroy(struct binsearch **s);

/* The next load into *LOAD: true, or false when every goal is done. The trial runs at
 * params.final_duration; the caller (mlrsearch.c) keeps the trials, their time and the
 * budget. CEILING is the highest load the generator reached (mlrsearch_ceiling;
 * max_rate until a trial was invalid): a goal starts there instead of max_rate, a
 * midpoint above it is tried at it instead, and a goal whose lower bound reached it is
 * done (generator-bound when that is below max_rate). */
bool binsearch_next(struct binsearch *s, double ceiling, double *load);

/* The trial at LOAD (the last binsearch_next gave) lost LOSS_RATIO. */
void binsearch_report(struct binsearch *s, double load, double loss_ratio);

/* Goal I's result (I < n_goals) into OUT: status MLRSEARCH_RUNNING while the goal is not
 * done. */
void binsearch_goal_result(const struct binsearch *s, size_t i,
			   struct mlrsearch_goal_result *out);

#endif /* BPFLAB_BINSEARCH_H */

/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* analysis.h - from stored values to the compare and history reports.
 *
 * The rows come from store_query_values() (the same JSON from a database file and from
 * the coordinator's `query` request). analysis_compare groups them by a stored field
 * (the run, kernel.release, port.driver, host, variant, ...), pairs baseline and
 * candidate values per (metric, matrix point, variant, subject) and hands each pair to
 * compare_samples (lib/analysis/compare.c); analysis_history orders the groups of one metric and
 * finds level shifts with changepoint_find (lib/analysis/changepoint.c). Both leave out results
 * whose job carries a verdict that spoils measurement (debug-kernel, disturbed,
 * generator-bound; a kernel with debug options counts as debug-kernel) unless
 * include_flagged is set, and count what they left out; an unstable result is used.
 * Compare also leaves out a side's far-out values (ANALYSIS_OUTLIER_K) unless all is
 * set, and says MIXED instead of a verdict where a side's receive softirq ran on two
 * CPUs at two levels (the jobs' rx.cpu records).
 *
 * The reports are JSON (docs/analysis.md, "Compare and history reports"); lib/report/report_compare.c
 * and lib/report/report_history.c print them. Built by lib/analysis/ files (analysis.c the compare,
 * analysis_history.c the history, analysis_series.c what both read). Pure functions of
 * their input, thread-safe.
 *
 * Folder contract (docs/architecture.md, "Layout"):
 * lib/analysis/ turns numbers into decisions (stats, compare, changepoint, noise,
 * repeat, analysis, bisect): pure functions over values, no I/O, no SQL; it includes
 * only lib/base/.
 */
#ifndef BPFLAB_ANALYSIS_H
#define BPFLAB_ANALYSIS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

struct analysis_opts {
	bool include_flagged;		/* use results with excluding verdicts too */
	bool all;			/* compare: keep far-out values too (and, with
					 * include_flagged, everything stored) */
	double alpha;			/* of compare_samples; 0: its default */
	double min_effect;		/* of compare_samples (fraction); 0: its default */
	bool strict;			/* compare: refuse a side that pools values of
					 * several hosts or kernel builds */
	const json_t *run_spread;	/* compare by run: store_query_run_spread's rows
					 * for the compared runs (not stolen), whence
					 * each row's run-to-run component
					 * (analysis_spread.c); NULL: none */
	double run_spread_assumed;	/* with run_spread, the relative run-to-run
					 * spread taken where it is not known; 0:
					 * RUNSPREAD_ASSUMED, < 0: none (the repetitions
					 * are then taken as independent) */
};

#define ANALYSIS_OPTS(NAME, ...)                                                        \
	struct analysis_opts NAME = { __VA_ARGS__ }

/* The verdicts that leave a result out of compare and history. */
extern const char *const analysis_excluding_flags[];
#define ANALYSIS_N_EXCLUDING 3

/* The excluding verdicts of value row ROW as a bit set (bit i: analysis_excluding_flags[i]);
 * 0 for a clean result. */
unsigned int analysis_row_flags(const json_t *row);

/* Whether METRIC is a record a job keeps beside its measurements, never compared:
 * rx.cpu and the other rx.* but rx.ns_per_frame and rx.softirq_ns_per_frame, cpu.others,
 * warmup.*, search.* (a search's trials and time), *.median, nic.* (driver counters)
 * (docs/agent.md). */
bool analysis_is_record(const char *metric);
/* Whether value or sample ROW is a record: its metric is one (analysis_is_record) and the
 * job's metrics do not list it (a nic.NAME a plan lists is compared: the store's row
 * member "listed"). */
bool analysis_row_is_record(const json_t *row);

/* A compare side's values outside Tukey's fences with k = 3 ("far out"), from 5 values
 * on, are left out of the comparison and counted (docs/analysis.md). */
#define ANALYSIS_OUTLIER_K 3.0
#define ANALYSIS_OUTLIER_MIN_N 5

/* Tukey's fences of the N values at V: LO = Q1 - K IQR and HI = Q3 + K IQR, the
 * quartiles by linear interpolation between order statistics (R's default, type 7).
 * A value outside [LO, HI] is an outlier (K 1.5) or far out (K 3). Returns 0, -EINVAL
 * when N < ANALYSIS_TUKEY_MIN_N (too few values for quartiles to mean anything), or
 * -ENOMEM. */
#define ANALYSIS_TUKEY_MIN_N 4
int analysis_tukey_fences(const double *v, size_t n, double k, double *lo, double *hi);

/* What a "pooled" entry of a compare report (ENTRY: {"side": "baseline"|"candidate",
 * "group", "hosts", "builds"}) says, into OUT: "baseline run 3 holds values of 2 hosts
 * (h1, h2) and 2 kernel builds (6.1 #a1b2c3, 6.1 #d4e5f6)". Returns OUT. */
const char *analysis_pooled_text(const json_t *entry, const char *by, char *out, size_t len);

/* Compare ROWS (store_query_values rows with "group"; not stolen) grouped by BY: the
 * values of group BASELINE against those of CANDIDATE, or, when CANDIDATE is NULL,
 * against every other group in order of first appearance. BASELINE NULL: the first
 * group. Rows per metric (first measured first) in plan order: points, then variants
 * (the rows' "point_seq" and "variant_idx"), then as first measured. OPTS may be NULL.
 * Returns a new report object, or NULL with errno set and the
 * reason in ERR: EINVAL for a bad option, ENOENT when no (unexcluded) value is in the
 * baseline or candidate group (ERR names the groups there are), EDOM when OPTS->strict
 * and a side pools several hosts or kernel builds (ERR names them), ENOMEM. The report's
 * "pooled" lists each side that does (docs/analysis.md, "Pooling"). */
json_t *analysis_compare(const json_t *rows, const char *by, const char *baseline,
			 const char *candidate, const struct analysis_opts *opts, struct err *err);

/* The filter of store_query_run_spread for a compare by run of value rows ROWS read with
 * FILTER (not stolen): FILTER without "by", with "runs" the run ids of ROWS and
 * "include_flagged". A new object, or NULL (ENOMEM). */
json_t *analysis_spread_filter(const json_t *filter, const json_t *rows, bool include_flagged);

/* The history of ROWS grouped by BY (kernel.release: in order of first appearance in
 * time; day: in date order): per (metric, point, variant, subject) series, per group n,
 * mean (by kind), stddev, spread, min, max and delta % from the first group, and the
 * change points of the series of single values with the groups on both sides. OPTS may
 * be NULL. Returns a new report, or NULL with errno set and ERR (ENOENT: no values). */
json_t *analysis_history(const json_t *rows, const char *by, const struct analysis_opts *opts,
			 struct err *err);

#endif

/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* report_compare.h - the text and CSV forms of the compare and history reports of
 * lib/analysis/analysis.c, as `bpflab result compare` and `result history` print them.
 *
 * Text fits a mail (80 columns where the names allow): per metric and matrix point a
 * table with n, mean ± stddev of each side, delta % and the verdict ("SAME (exact)" for
 * two constant sides, the row's "exact": compare_p_text), then a footer
 * naming kernel, host, CPU, governor and plan hash of each side and how many flagged
 * results were left out. Forms: "table" (default), "patch" (without patch / with patch /
 * improvement %) and "grid" (Version | Test | a column per variant). Numbers are printed
 * with an SI suffix from 10000 on (12.5M), as netdev tables do.
 *
 * Functions return 0 or -errno (-EIO for a write error, -EINVAL for an unknown form).
 */
#ifndef BPFLAB_REPORT_COMPARE_H
#define BPFLAB_REPORT_COMPARE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* report_num (report.h): the one number formatter, under the name the dashboard and
 * host list call it by. */
const char *report_compare_num(double v, char *out, size_t len);
/* The verdict of compare row ROW as the table prints it (SAME, DIFFERENT worse,
 * UNKNOWN +3 reps, SAME (exact)) into OUT; returns OUT. */
const char *report_compare_verdict_text(const json_t *row, char *out, size_t len);

/* The smallest change each row of compare REPORT (analysis_compare) can resolve with the
 * n it had, from the CV of its own data (pooled stddev of both sides / |baseline mean|)
 * by stats_min_detectable_effect at the report's alpha and power 0.8: as
 * "min_detectable_pct" on every row that has two values a side, a baseline mean that is
 * not zero and is not exact. The text form prints it under the table for each UNKNOWN
 * row ("drop xdp_drop: with 5 + 5 values at 12 % CV the smallest change this can see is
 * about 21 %"). Returns 0 or -ENOMEM. */
int report_compare_add_min_detectable(json_t *report);
/* The same for each series of history REPORT (analysis_history): the pooled stddev of
 * its groups of two values or more over the first one's mean, for two groups of the
 * smallest n among them, alpha 0.05: "min_detectable_pct", "cv_pct",
 * "min_detectable_n" on the series (the text prints a line under the table). */
int report_history_add_min_detectable(json_t *report);

/* Whether the sides of compare REPORT hold runs of different plans (never by "plan";
 * the JSON's sides[].plans say which), with the sentence that says so in TEXT (LEN
 * bytes, may be 0): "baseline run '1' is of plan 'calibrate', candidate run '3' of plan
 * 'quickstart'". The text form opens with it as a note. */
bool report_compare_plans_differ(const json_t *report, char *text, size_t len);

/* Print compare REPORT (analysis_compare) in FORM ("table", "patch" or "grid"; NULL is
 * "table") to OUT. */
int report_compare_print_text(const json_t *report, const char *form, FILE *out);
/* The run-to-run notes of compare REPORT, each distinct one once, as a new JSON array of
 * strings (empty when its sides are not whole runs; NULL out of memory): the component
 * in the tests ("run-to-run spread 6.3 % (up to 12 runs of the plan on this host and
 * kernel) is in each test: ..."), or why it is not known and what was assumed. The text
 * prints them under its table; the dashboard under its own. */
json_t *report_compare_run_note_list(const json_t *report);
/* One line per compared row: baseline,candidate,metric,point,variant,subject,unit,n_a,
 * n_b,mean_a,mean_b,stddev_a,stddev_b,delta_pct,test,p,verdict,change,more_reps. */
int report_compare_print_csv(const json_t *report, FILE *out);

/* Print history REPORT (analysis_history) to OUT: per series a line per group with n,
 * mean ± stddev and delta % from the first, then its change points. */
int report_history_print_text(const json_t *report, FILE *out);
/* group,metric,point,variant,subject,unit,n,mean,stddev,spread,min,max,delta_pct. */
int report_history_print_csv(const json_t *report, FILE *out);

#endif

/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* report_compare_int.h - what report_compare.c (the compare report) shares with
 * report_history.c (the history report); private to those two, report_compare.h is the
 * public contract. Number and percent texts, the minimum-detectable-change sentence,
 * the left-out lines and the CSV fields.
 */
#ifndef BPFLAB_REPORT_COMPARE_INT_H
#define BPFLAB_REPORT_COMPARE_INT_H

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/jget.h"

#define MDE_POWER 0.8			/* compare's default (lib/analysis/compare.h) */
#define REPORT_NOTE_COLS 80		/* notes under a table: the netdev mail width */

/* The strings (or integers) of array A as "a, b" into OUT (LEN bytes); "-" when empty.
 * Returns OUT. */
const char *report_list_text(const json_t *a, char *out, size_t len);

/* report_pct (report.h): "+1.2 %" / "-81.7 %" / "-" into OUT; returns OUT. */
const char *report_compare_pct(double v, char *out, size_t len);

/* What mean a series of KIND ("rate", "time", ...) has and which way is better. */
const char *report_compare_kind_text(const char *kind);

/* "with 5 + 5 values at 12 % CV the smallest change this can see is about 21 %" after
 * LEAD ("tx b: "), on a line of its own (indented) when both do not fit in 80 columns;
 * then SUFFIX and a newline. */
void report_compare_mde_sentence(FILE *out, const char *lead, long long n_a, long long n_b,
				 double cv_pct, double mde_pct, const char *suffix);

/* The run-to-run spread (%) in compare row ROW's test: known (run_spread_pct) or
 * assumed (run_spread_assumed_pct, *ASSUMED set); NAN when none. */
double report_compare_run_spread(const json_t *row, bool *assumed);
/* Under an UNKNOWN compare row R whose run-to-run part alone is beyond the minimum
 * effect ("run_limited"): LEAD and why more repetitions will not settle it, on OUT;
 * returns whether it printed (report_compare_runs.c). */
bool report_compare_run_limited(const json_t *row, const char *lead, FILE *out);
/* The run-to-run notes of compare REPORT under its table, numbered, each distinct one
 * once: the component in the tests (its range and runs), or why it is not known. */
void report_compare_run_notes(const json_t *report, FILE *out);

/* The far-out values and the flagged results report "excluded" X left out, with the
 * options that use them. */
void report_compare_print_left_out(const json_t *x, FILE *out);

/* A CSV column: KEY of the outer object (OUTER) or of the row, written as KIND says:
 * CSV_STR a quoted-as-needed string, CSV_WORD a string as it is (a verdict, a test
 * name), CSV_INT an integer (0 when none), CSV_INT_OPT one that is empty when none,
 * CSV_NUM a double with 17 significant digits (empty when not a finite number),
 * CSV_BOOL `true` when true, else `false`. */
struct report_csv_col {
	bool outer;
	const char *key;
	enum { CSV_STR, CSV_WORD, CSV_INT, CSV_INT_OPT, CSV_NUM, CSV_BOOL } kind;
};

/* HEAD, then a line per row: for each object of the array OUTER, for each row of its
 * array ROWS, the N_COLS columns COLS separated by ','. Returns 0 or -EIO. */
int report_compare_csv(FILE *out, const char *head, const json_t *outer, const char *rows,
		       const struct report_csv_col *cols, size_t n_cols);

#endif

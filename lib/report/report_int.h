/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* report_int.h - what the parts of the run report share; private to lib/report/report_*.c
 * (the public contract is report.h).
 *
 * The parts: report_build.c (report_build: samples into the report object),
 * report_format.c (numbers, verdict markers and their legend, the run and point lines),
 * report_text.c (report_print_text: the per-section tables), report_form.c (the grid,
 * columns, cpumap and drivers forms), report_csv.c (report_print_csv), report_search.c (the
 * NDR/PDR table, the trials), report_latency.c and report_nic.c (the driver counters). All
 * are pure functions over jansson values; nothing here keeps state.
 */
#ifndef BPFLAB_REPORT_INT_H
#define BPFLAB_REPORT_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/jget.h"

#define NS_METRIC "prog.ns_per_run"

/* Bytes of one formatted number with its markers, in every table. */
#define CELL 40

/* Whether METRIC's subjects are port roles (port.*, gen.*, rx.*). */
static inline bool report_port_metric(const char *metric)
{
	return !strncmp(metric, "port.", 5) || !strncmp(metric, "gen.", 4) ||
	       !strncmp(metric, "rx.", 3);
}

/* strcmp where NULL sorts before any string. */
static inline int strcmp_null(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

/* ---- report_build.c ---- */

/* The index of KEY in TABLE (a JSON object used as an ordered set), adding it at the
 * end when new. Returns the index or -ENOMEM. */
int report_table_index(json_t *table, const char *key);

/* An array of REPEAT nulls; NULL on ENOMEM. */
json_t *report_null_values(int repeat);

/* Add n, mean, spread, min, max, median, stddev of the numbers in OBJ's "values".
 * Returns 0 or -ENOMEM. */
int report_add_stats(json_t *obj);

/* ---- report_search.c ---- */

/* REPORT's "searches" from RESULT's search samples (report_search.c's header); no member
 * when the run has no search. Returns 0 or -ENOMEM. */
int report_search_add(json_t *report, const json_t *result);

/* The NDR/PDR table of REPORT's "searches" (nothing without); 0 or -ENOMEM. */
int report_search_print(const json_t *report, FILE *out);

/* ---- report_format.c: numbers ---- */

enum num_kind { NUM_RATE, NUM_NS, NUM_PLAIN };

/* How to print a number: divided by DIV, DECIMALS after the point, then SUFFIX. */
struct num_fmt {
	double div;
	const char *suffix;
	int decimals;
};

/* The texts of one table row. */
struct row_text {
	const char *variant;		/* NULL on a variant's later rows */
	const char *subject;
	char (*cells)[CELL];		/* one per repetition */
	char mean[CELL];		/* "" for no mean column on this row */
	char spread[CELL];		/* "" for no "± spread" */
	char cv[CELL];			/* stddev / mean, beside a noise floor */
	char floor[CELL];		/* the host's noise floor of the row's metric */
};

/* The format of numbers of KIND whose largest magnitude is MAX (report_format.c's header:
 * rates in K/M/G with four significant digits, ns with one decimal, else four
 * significant digits). */
struct num_fmt report_fmt_for(enum num_kind kind, double max);

/* The format of a lone number of magnitude MAX: SI prefix, four significant digits. */
struct num_fmt report_fmt_si(double max);

/* V formatted with F into OUT (LEN bytes), "-" when not finite; returns OUT. */
const char *report_num_fmt(double v, const struct num_fmt *f, char *out, size_t len);

/* Add decimals to F until a non-zero SPREAD no longer prints as zero. */
void report_fmt_show_spread(struct num_fmt *f, double spread);

/* V formatted with F into BUF (LEN bytes), "-" when absent. Halves round away from
 * zero. */
void report_fmt_num(char *buf, size_t len, const json_t *v, const struct num_fmt *f);

/* The largest magnitude among the "values" of OBJ (0 when none). */
double report_obj_max(const json_t *obj);

/* Mean and spread texts of a row or total OBJ into RT, formatted with F (decimals raised
 * so that the spread shows). Only the mean when fewer than two values. */
void report_mean_texts(const json_t *obj, struct num_fmt f, struct row_text *rt);

/* ---- report_format.c: markers, lines ---- */

/* The verdict notes of one table: what its cells' markers refer to. Zero-initialise;
 * report_notes_release frees. */
struct report_notes {
	json_t *notes;		/* [[verdict, detail], ...]: note K + 1 is notes[K] */
	char marks[16];		/* markers shown without a detail: their meaning */
	bool oom;
};

/* Append to BUF (LEN bytes) the markers of a cell's verdicts, each once in table order
 * ('?' for unknown ones), each followed by the numbers of its notes ("*1", "*1,3");
 * VERDICTS and DETAILS are a row's per-repetition arrays ("verdicts": lists of names,
 * "details": the job's verdict -> detail or null), REP the repetition (0-based) or -1
 * for all (a cell summarising them). Notes are added to N. */
void report_notes_cell(struct report_notes *n, char *buf, size_t len, const json_t *verdicts,
		       const json_t *details, int rep);

/* The legend of N: "*1 unstable: DETAIL" per note in number order, then "* unstable:
 * MEANING" for markers shown without a detail. */
void report_notes_print(const struct report_notes *n, FILE *out);

void report_notes_release(struct report_notes *n);

/* The first line of a report or form OBJ: "run 3  quickstart  plan 0123456789ab  done". */
void report_print_run_line(const json_t *obj, FILE *out);

/* "point k=v  k=v" of a matrix POINT (an object), one line. */
void report_point_label(const json_t *point, FILE *out);

/* A matrix point as "k=v k=v" in its order ("" for none); heap string or NULL. */
char *report_point_text(const json_t *point);

/* What PRINT(OBJ, stream) writes, as a malloc'd string; NULL and errno on failure. */
char *report_print_to_string(int (*print)(const json_t *obj, FILE *out), const json_t *obj);

/* ---- report_text.c ---- */

/* The entry of host NAME in REPORT's "hosts" (the result's): the one with KERNEL when
 * given and listed, else the first of that name; NULL if none. */
const json_t *report_host_entry(const json_t *report, const char *name, const char *kernel);

/* ---- report_latency.c ---- */

/* The latency rows of RESULT (store_query_result's samples latency.* and latency_hist):
 * [{job, host, variant, rep, point, subject, port, load, FIGURE..., histogram: [[low_ns,
 * high_ns, count], ...]}] in sample order (a new reference, [] without latency), or NULL
 * with errno ENOMEM. */
json_t *report_latency_build(const json_t *result);
/* The latency table of ROWS (nothing without rows); 0 or -ENOMEM. */
int report_latency_print_text(const json_t *rows, FILE *out);

/* ---- report_nic.c ---- */

/* Up to this many rows, a group's driver counters table is printed without --all-rows;
 * above, it is counted with the record tables left out. */
#define REPORT_NIC_ROWS 8

/* Whether section SEC is a record of driver counters (nic.*, not listed by the plan). */
bool report_nic_record(const json_t *sec);
/* The rows of GROUP's driver counters table. */
int report_nic_rows(const json_t *group);
/* GROUP's driver counters table (nothing without rows); 0 or -ENOMEM. */
int report_nic_print_text(const json_t *report, const json_t *group, bool wide, FILE *out);

#endif

/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* report.h - a run's results as the tables kernel developers post.
 *
 * report_build() turns a result object (docs/protocol.md "result", as
 * store_query_result() and the coordinator's result_show return it) into a report
 * object: the samples grouped per host and matrix point, one section per (metric,
 * window), one row per variant and subject with a value per repetition and its
 * statistics, and for prog.ns_per_run a per-variant total over the variant's programs.
 * report_print_text() renders that object as plain text that fits a mail; `bpflab
 * result show --json` prints the object itself, so the text and the JSON carry the same
 * numbers. report_print_csv() writes the raw samples, one per line.
 *
 * The layout of the text and the JSON object are described in docs/cli.md
 * ("result show"). Used by the CLI; pure functions over jansson values, thread-safe.
 *
 * Folder contract (docs/architecture.md, "Layout"):
 * lib/report/ prints and exports what the store returns (tables, CSV, plots, KCIDB,
 * BMF, imports); it includes lib/base/ and lib/analysis/.
 */
#ifndef BPFLAB_REPORT_H
#define BPFLAB_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/err.h"

/* Build the report object for RESULT (not modified). Samples without a metric, a
 * numeric value or a repetition >= 1 are skipped. RESULT's "noise", when present, is
 * store_noise_list's rows: each host that has a noise floor there gets it as "noise"
 * (lib/analysis/noise.h), and the text prints each row's cv beside it. Returns a new reference, or NULL with
 * errno set (EINVAL when RESULT is not an object, ENOMEM). */
json_t *report_build(const json_t *result);

/* How report_print_text_opts() prints; REPORT_TEXT_OPTS fills one, NULL means the
 * defaults (all members zero). */
struct report_text_opts {
	bool all_rows;			/* also the rate rows that are zero (below) */
	bool wide;			/* a column per repetition however many */
};

/* Up to this many repetitions a table has a column each; above (without wide) the
 * columns n, min, median and max stand for them, so that it fits 100 columns. */
#define REPORT_SHOW_REPS 5

#define REPORT_TEXT_OPTS(NAME, ...)                                                     \
	struct report_text_opts NAME = { __VA_ARGS__ }

/* Write REPORT (from report_build) as text to OUT. In a rate table (packets/s), a row
 * whose every value prints as zero beside the table's largest (a port that receives
 * nothing by design) is left out, unless OPTS->all_rows or all rows of its variant are
 * zero, and a line under the table names the rows left out; the JSON report keeps every
 * row. OPTS may be NULL. Returns 0 or -errno. */
int report_print_text_opts(const json_t *report, const struct report_text_opts *opts,
			   FILE *out);

/* report_print_text_opts with the defaults. */
int report_print_text(const json_t *report, FILE *out);

/* The same text in a heap string the caller frees; NULL with errno set. */
char *report_text(const json_t *report);

/* Another form of REPORT (from report_build), as its own JSON object
 * (docs/cli.md, "result show --form"):
 *   "grid"     Version | Test | a column per variant: a row per host and matrix point,
 *              the mean of METRIC for SUBJECT (the netdev redirect table, rates as 9.1M);
 *              column titles from variant names ("native-2nd.xdp_prog" ->
 *              "Native + 2nd xdp_prog")
 *   "columns"  per host and point, a row per variant, a column per subject of METRIC,
 *              mean ± spread (the chain table: pps at the end of each chain)
 *   "cpumap"   per host and point, a row per variant: counter.pps rx_src, dropped
 *              (rx_src - redirect_err - rx_dst, at least 0), rx_dst
 *   "drivers"  a row per driver (hosts[].port_driver) and variant, a column per kernel,
 *              mean ± spread and the XDP mode used (hosts[].xdp); a second host of a
 *              driver and kernel goes to "left_out"
 * METRIC NULL means counter.pps when the run has it, else port.rx_pps (drivers:
 * rx.ns_per_frame, else prog.ns_per_run); SUBJECT NULL means the metric's only subject
 * (drivers: else the port every variant measured, or for prog.ns_per_run each variant's
 * first XDP program). Every cell has "values" (per repetition), the
 * statistics of report_build and "verdicts" when any. Returns a new reference, or NULL
 * with errno set (EINVAL: a message for a person in ERR; ENOMEM). */
json_t *report_form_build(const json_t *report, const char *form, const char *metric,
			  const char *subject, struct err *err);

/* Write FORM (from report_form_build) as text to OUT; 0 or -errno. */
int report_form_print_text(const json_t *form, FILE *out);

/* The same text in a heap string the caller frees; NULL with errno set. */
char *report_form_text(const json_t *form);

/* Write RESULT's search trials ("trials", store_query_result) to OUT in order, a line
 * each: host, point, variant, rep, seq, duration, target load, offered, forwarded (pps),
 * loss ratio, valid ("no: generator-bound: offered X of Y pps"). Returns 0 or -errno. */
int report_print_trials(const json_t *result, FILE *out);

/* Write RESULT's samples as CSV to OUT: a header line, then one line per sample with
 * run,job,host,variant,rep,point,metric,subject,window,value,unit (RFC 4180 quoting;
 * point as KEY=VALUE pairs joined by spaces; value with enough digits to read back the
 * same double). Returns 0 or -errno. */
int report_print_csv(const json_t *result, FILE *out);

/* `result show --seconds` (lib/report/report_seconds.c). The series of SECONDS
 * (store_query_seconds) of METRIC and SUBJECT (NULL: any): a new array of the same
 * objects, NULL on ENOMEM. */
json_t *report_seconds_select(const json_t *seconds, const char *metric,
			      const char *subject);
/* The series LIST (of SECONDS, report_seconds_select) as text to OUT: a table per
 * (metric, host, variant, point, subject), a row per second and a column per
 * repetition (ten a block). Returns 0 or -ENOMEM. */
int report_print_seconds(const json_t *seconds, const json_t *list, FILE *out);
/* The one number formatter (report_format.c) of every command and the dashboard's text:
 * V with an SI prefix (k, M, G) from 10000 up and four significant digits, "-" when not
 * finite ("16.92M", "541.4k", "1000", "35.90", "0"); returns OUT (at least 24 bytes). */
const char *report_num(double v, char *out, size_t len);
/* "V ± PM" in V's format (PM's when larger), more decimals when PM would print as zero:
 * "16.92M ± 0.54M"; V alone when PM is not finite. OUT at least 64 bytes. */
const char *report_num_pm(double v, double pm, char *out, size_t len);
/* A change in percent, the one way: "+12.3 %", "-0.4 %", "+1141 %" (no decimal from
 * 100 on), "-" when not finite. */
const char *report_pct(double v, char *out, size_t len);

#endif

/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* report_verifier.h - `bpflab result verifier`: what the verifier did with each program of
 * a run, per group (kernel.release by default), as veristat's compare prints it.
 *
 * report_verifier_build() takes the run's whole-window values (store_query_values with
 * "by") and its jobs (store_query_run's "jobs", with "kernel_release") and keeps, per
 * (variant, program) and group, the mean of each load figure (verifier.insns,
 * verifier.total_states, ... docs/agent.md "Metrics") and the load verdict: success
 * (the program has figures), failure (a job of the group failed with "cannot load program
 * 'NAME'"), mixed (both), or unknown. A program's verdict is MATCH when every group has
 * the same known verdict, MISMATCH when two known verdicts differ, N/A otherwise. DIFF is
 * the last group against the first. report_verifier_print_text() prints the table:
 *
 *   Variant  Program   Insns (A)  Insns (B)  Insns (DIFF)    ...  Verdict
 *   drop     xdp_drop        997       1700  +703 (+70.51%)  ...  MATCH
 *
 * Functions return 0 or -errno (-EIO: a write error).
 */
#ifndef BPFLAB_REPORT_VERIFIER_H
#define BPFLAB_REPORT_VERIFIER_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "base/err.h"

/* The report (a new reference): {"by", "groups": [names], "programs": [{"variant",
 * "program", "groups": [{"group", "verdict", "n", "values": {metric: mean}, "varies":
 * [metrics whose values differ], "error"?}], "verdict", "diff": {metric: {"a", "b",
 * "delta", "pct"}}}]}; NULL with ERR set when the run has no load figures and no load
 * failure, or out of memory. */
json_t *report_verifier_build(const json_t *values, const json_t *jobs, const char *by,
			      struct err *err);
/* B against A as veristat writes it, "+703 (+70.51%)" ("-" when either is NAN, "n/a"
 * for the percentage when A is 0 and B is not, a difference that is not whole with one
 * decimal: "+0.5 (+25.00%)") into OUT. Returns OUT. */
const char *report_verifier_diff(double a, double b, char *out, size_t len);
/* Print REPORT to OUT. */
int report_verifier_print_text(const json_t *report, FILE *out);

#endif

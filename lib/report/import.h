/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* import.h - numbers measured by hand, turned into the import object of store_import().
 *
 *  - bpftool snapshots: `bpftool -j prog show` taken before and after a run (with
 *    BPF stats on: `sysctl kernel.bpf_stats_enabled=1`). Per program in both (by id,
 *    same, non-empty name) whose run_cnt grew: prog.ns_per_run = delta run_time_ns /
 *    delta run_cnt, subject the program's name, one job of VARIANT. A snapshot with a
 *    program id twice or a negative counter, and a program whose run_cnt grew while its
 *    run_time_ns went down, are refused.
 *  - CSV "variant,prog,set,value" (a header line with these names is skipped): a row is
 *    one value of program PROG in repetition SET (1, 2, ... or any label: sets are
 *    numbered in order of first appearance) of VARIANT, metric prog.ns_per_run unless
 *    METRIC says otherwise. A value that is not a number or is negative, and a program
 *    with two values in one set of a variant, are refused.
 *
 * Errors name the file and line: "FILE:LINE: message". Pure, thread-safe.
 */
#ifndef BPFLAB_IMPORT_H
#define BPFLAB_IMPORT_H

#include <jansson.h>
#include <stddef.h>

#include "base/err.h"

/* The import object from two parsed bpftool snapshots BEFORE and AFTER (arrays of
 * programs). NAMES: "FILE" for messages and the source. Returns a new object
 * ({"plan", "source", "jobs"}), or NULL with errno set and ERR. */
json_t *import_bpftool(const json_t *before, const json_t *after, const char *plan,
		       const char *variant, const char *source, struct err *err);
/* The import object from the LEN bytes of CSV TEXT read from SOURCE (a NUL byte or
 * invalid UTF-8 anywhere is refused at its line); METRIC NULL: prog.ns_per_run (unit
 * ns). Returns a new object, or NULL with errno set and ERR ("FILE:LINE: message"). */
json_t *import_csv(const char *text, size_t len, const char *plan, const char *metric,
		   const char *unit, const char *source, struct err *err);

#endif

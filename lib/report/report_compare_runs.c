// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* report_compare_runs.c - what the compare text says of the run-to-run spread
 * (docs/analysis.md, "Run-to-run spread"): under an UNKNOWN row whose run-to-run part
 * alone is beyond the minimum effect, that more repetitions will not help; under the
 * table, numbered, each distinct note once (the component in the tests, or why it is
 * not known and what was assumed). Called by report_compare.c; the list of notes by the
 * dashboard too (web/web_table.c).
 */
#include "report/report_compare.h"
#include "report/report_compare_int.h"

#include <string.h>

#include "analysis/runspread.h"
#include "base/texttable.h"

double report_compare_run_spread(const json_t *row, bool *assumed)
{
	double known = jget_num(row, "run_spread_pct", NAN);

	*assumed = !isfinite(known);
	return *assumed ? jget_num(row, "run_spread_assumed_pct", NAN) : known;
}

bool report_compare_run_limited(const json_t *row, const char *lead, FILE *out)
{
	long long runs = (long long)json_integer_value(json_object_get(row, "run_spread_runs"));
	char line[320];
	bool assumed;
	double rs = report_compare_run_spread(row, &assumed);

	if (!json_is_true(json_object_get(row, "run_limited")))
		return false;
	if (assumed)
		snprintf(line, sizeof(line), "%srun-to-run spread assumed %.2g %% (%lld run%s "
			 "known, %d needed): more repetitions cannot settle it; add runs of the "
			 "plans, or compare variants of one run (interleaved)", lead, rs, runs,
			 runs == 1 ? "" : "s", RUNSPREAD_MIN_RUNS);
	else
		snprintf(line, sizeof(line), "%srun-to-run spread %.2g %% (%lld runs): more "
			 "repetitions cannot settle it; compare variants of one run (interleaved) "
			 "or add runs", lead, rs, runs);
	tt_wrap(out, line, REPORT_NOTE_COLS, "  ");
	return true;
}

/* Append TEXT to NOTES unless it is there. */
static void note_once(json_t *notes, const char *text)
{
	json_t *v;
	size_t i;

	json_array_foreach(notes, i, v)
		if (!strcmp(json_string_value(v), text))
			return;
	json_array_append_new(notes, json_string(text));
}

json_t *report_compare_run_note_list(const json_t *report)
{
	json_t *notes = json_array();
	const json_t *cmp, *r;
	double lo = INFINITY, hi = -INFINITY;
	long long runs = 0;
	char line[320];
	size_t i, k;

	if (!notes)
		return NULL;
	json_array_foreach(json_object_get(report, "comparisons"), i, cmp)
		json_array_foreach(json_object_get(cmp, "rows"), k, r) {
			double s = jget_num(r, "run_spread_pct", NAN);

			if (*jget_str(r, "run_spread_note", ""))
				note_once(notes, jget_str(r, "run_spread_note", ""));
			if (!isfinite(s))
				continue;
			lo = s < lo ? s : lo;
			hi = s > hi ? s : hi;
			if (json_integer_value(json_object_get(r, "run_spread_runs")) > runs)
				runs = json_integer_value(json_object_get(r, "run_spread_runs"));
		}
	if (isfinite(lo)) {
		if (hi - lo < 0.05)
			snprintf(line, sizeof(line), "run-to-run spread %.2g %%", hi);
		else
			snprintf(line, sizeof(line), "run-to-run spread %.2g-%.2g %%", lo, hi);
		snprintf(line + strlen(line), sizeof(line) - strlen(line), " (up to %lld runs of "
			 "the plan on this host and kernel) is in each test: repetitions of one "
			 "run are not independent draws", runs);
		note_once(notes, line);
	}
	return notes;
}

void report_compare_run_notes(const json_t *report, FILE *out)
{
	json_t *notes = report_compare_run_note_list(report), *v;
	char line[320];
	size_t i;

	json_array_foreach(notes, i, v) {
		snprintf(line, sizeof(line), "(%zu) %s", i + 1, json_string_value(v));
		tt_wrap(out, line, REPORT_NOTE_COLS, "    ");
	}
	json_decref(notes);
}

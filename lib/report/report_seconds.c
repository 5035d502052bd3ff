// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* report_seconds.c - `bpflab result show RUN --seconds`: the per-second values of each
 * repetition (store_query_seconds), what tells a warm-up or a drift from noise that the
 * whole-window mean hides. A table per (metric, host, variant, point, subject): a row
 * per second, a column per repetition (ten a block, so that a table stays within 100
 * columns), numbers as `result show` prints them (report_fmt_for over the table).
 * Pure but for the FILE written; called by cli/result.c.
 */
#include "report/report.h"
#include "report/report_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "base/jget.h"
#include "base/texttable.h"

#define REPS_PER_BLOCK 10

/* Whether series S is in the table of series T: same metric, host, variant, point,
 * subject and window. */
static bool same_table(const json_t *s, const json_t *t)
{
	static const char *const keys[] = { "metric", "host", "variant", "subject", "window" };
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(jget_str(s, keys[i], ""), jget_str(t, keys[i], "")))
			return false;
	return json_equal(json_object_get(s, "point"), json_object_get(t, "point"));
}

json_t *report_seconds_select(const json_t *seconds, const char *metric, const char *subject)
{
	json_t *out = json_array(), *s;
	size_t i;

	if (!out)
		return NULL;
	json_array_foreach(json_object_get(seconds, "series"), i, s)
		if ((!metric || !strcmp(metric, jget_str(s, "metric", ""))) &&
		    (!subject || !strcmp(subject, jget_str(s, "subject", ""))) &&
		    json_array_append(out, s)) {
			json_decref(out);
			return NULL;
		}
	return out;
}

/* The kind of numbers of UNIT, as result show formats them. */
static enum num_kind kind_of(const char *unit)
{
	switch (stats_kind_for_unit(unit)) {
	case STATS_KIND_RATE: return NUM_RATE;
	case STATS_KIND_TIME: return strcmp(unit, "ns") ? NUM_PLAIN : NUM_NS;
	default: return NUM_PLAIN;
	}
}

/* The table of the N series of LIST from index FIRST (one table, reps in order). */
static int print_table(const json_t *list, size_t first, size_t n, FILE *out)
{
	const json_t *t = json_array_get(list, first);
	const char *unit = jget_str(t, "unit", "");
	double max = 0;
	long long last = -1;
	struct num_fmt f;
	size_t i, j, b;
	char *pt;

	for (i = first; i < first + n; i++) {
		json_t *v, *secs = json_object_get(json_array_get(list, i), "seconds");

		json_array_foreach(json_object_get(json_array_get(list, i), "values"), j, v)
			if (isfinite(json_number_value(v)) && fabs(json_number_value(v)) > max)
				max = fabs(json_number_value(v));
		json_array_foreach(secs, j, v)
			if (json_integer_value(v) > last)
				last = json_integer_value(v);
	}
	f = report_fmt_for(kind_of(unit), max);
	pt = report_point_text(json_object_get(t, "point"));
	fprintf(out, "%s%s%s%s  host %s  variant %s%s%s%s%s\n", jget_str(t, "metric", ""),
		*unit ? " (" : "", unit, *unit ? ")" : "", jget_str(t, "host", ""), jget_str(t, "variant", ""),
		*jget_str(t, "subject", "") ? "  subject " : "", jget_str(t, "subject", ""),
		pt && *pt ? "  " : "", pt ? pt : "");
	free(pt);
	for (b = 0; b < n; b += REPS_PER_BLOCK) {
		size_t cols = n - b < REPS_PER_BLOCK ? n - b : REPS_PER_BLOCK;
		char cells[REPS_PER_BLOCK + 1][CELL];
		const char *row[REPS_PER_BLOCK + 1];
		struct tt_table tab;
		long long sec;
		int err = 0;

		if (tt_table_init(&tab, (int)cols + 1, NULL))
			return -ENOMEM;
		for (j = 0; j <= cols; j++) {
			tab.right[j] = true;
			row[j] = cells[j];
		}
		snprintf(cells[0], CELL, "second");
		for (j = 0; j < cols; j++)
			snprintf(cells[j + 1], CELL, "rep %lld", (long long)json_integer_value(
				json_object_get(json_array_get(list, first + b + j), "rep")));
		err = tt_table_add(&tab, row);
		for (sec = 0; sec <= last && !err; sec++) {
			snprintf(cells[0], CELL, "%lld", sec);
			for (j = 0; j < cols; j++) {
				const json_t *s = json_array_get(list, first + b + j), *v = NULL;
				json_t *q;
				size_t k;

				json_array_foreach(json_object_get(s, "seconds"), k, q)
					if (json_integer_value(q) == sec)
						v = json_array_get(json_object_get(s, "values"), k);
				report_fmt_num(cells[j + 1], CELL, v, &f);
			}
			err = tt_table_add(&tab, row);
		}
		if (!err)
			tt_table_print(&tab, out);
		tt_table_release(&tab);
		if (err)
			return err;
	}
	return 0;
}

int report_print_seconds(const json_t *seconds, const json_t *list, FILE *out)
{
	size_t i = 0, j, n = json_array_size(list);
	bool *done = calloc(n ? n : 1, sizeof(*done));
	json_t *table = json_array();
	int err = done && table ? 0 : -ENOMEM;

	fprintf(out, "run %lld  %s  per second (second 0 is the window's first)\n",
		(long long)json_integer_value(json_object_get(seconds, "run")),
		jget_str(seconds, "plan", ""));
	if (!n)
		fprintf(out, "no per-second values\n");
	/* the series of one table side by side, tables in the order first met */
	for (i = 0; i < n && !err; i++) {
		if (done[i])
			continue;
		json_array_clear(table);
		for (j = i; j < n; j++)
			if (!done[j] && same_table(json_array_get(list, j), json_array_get(list, i))) {
				done[j] = true;
				if (json_array_append(table, json_array_get(list, j)))
					err = -ENOMEM;
			}
		fputc('\n', out);
		if (!err)
			err = print_table(table, 0, json_array_size(table), out);
	}
	free(done);
	json_decref(table);
	return err;
}

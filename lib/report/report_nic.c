// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* report_nic.c - see report_int.h. The "driver counters" table of `result show`
 * (docs/cli.md, "result show"): a group's record sections nic.* (the ports' driver
 * counters over the rate window, docs/agent.md "Driver counters") as one table, a row per
 * variant, port and counter, a column per repetition and the mean. A nic.NAME the plan
 * lists ("listed" on its section) is a metric and has a table of its own instead. The
 * sections stay in the report's groups for --json.
 */
#include "report/report.h"
#include "report/report_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/texttable.h"

bool report_nic_record(const json_t *sec)
{
	const char *metric = jget_str(sec, "metric", NULL);

	return metric && !strncmp(metric, "nic.", 4) &&
	       !json_is_true(json_object_get(sec, "listed"));
}

/* One row: section SEC's row ROW, its variant's index in the plan. */
struct nic_row {
	const json_t *sec, *row;
	int vidx;
};

static int variant_index(const json_t *variants, const char *v)
{
	const json_t *x;
	size_t i;

	json_array_foreach(variants, i, x)
		if (json_is_string(x) && v && !strcmp(json_string_value(x), v))
			return (int)i;
	return (int)json_array_size(variants);
}

/* Variant (plan order), port, then counter (name order, as the sections are). */
static int cmp_row(const void *pa, const void *pb)
{
	const struct nic_row *a = pa, *b = pb;
	int d = a->vidx - b->vidx;

	if (!d)
		d = strcmp_null(jget_str(a->row, "variant", NULL), jget_str(b->row, "variant", NULL));
	if (!d)
		d = strcmp_null(jget_str(a->row, "subject", NULL), jget_str(b->row, "subject", NULL));
	if (!d)
		d = strcmp(jget_str(a->sec, "metric", NULL), jget_str(b->sec, "metric", NULL));
	return d;
}

int report_nic_rows(const json_t *group)
{
	const json_t *sec, *row;
	size_t i, j;
	int n = 0;

	json_array_foreach(json_object_get(group, "sections"), i, sec)
		if (report_nic_record(sec))
			json_array_foreach(json_object_get(sec, "rows"), j, row)
				n += jget_str(row, "subject", NULL) != NULL;
	return n;
}

int report_nic_print_text(const json_t *report, const json_t *group, bool wide, FILE *out)
{
	static const char *const summary[] = { ">n", ">min", ">median", ">max" };
	int repeat = (int)jget_int(report, "repeat", 0), n = report_nic_rows(group), k = 0, r, err;
	int cols = !wide && repeat > REPORT_SHOW_REPS ? 4 : repeat;
	const json_t *variants = json_object_get(report, "variants"), *sec, *row;
	char (*cells)[CELL] = NULL, mean[2 * CELL + 8];
	const char **head = NULL, **line = NULL;
	struct nic_row *rows = NULL;
	struct tt_table t = { 0 };
	size_t i, j;

	if (!n)
		return 0;
	err = -ENOMEM;
	rows = calloc((size_t)n, sizeof(*rows));
	head = calloc((size_t)cols + 5, sizeof(*head));
	line = calloc((size_t)cols + 5, sizeof(*line));
	cells = calloc((size_t)cols + 1, sizeof(*cells));
	if (!rows || !head || !line || !cells)
		goto out;
	json_array_foreach(json_object_get(group, "sections"), i, sec) {
		if (!report_nic_record(sec))
			continue;
		json_array_foreach(json_object_get(sec, "rows"), j, row)
			if (jget_str(row, "subject", NULL) && k < n)
				rows[k++] = (struct nic_row){ sec, row,
					variant_index(variants, jget_str(row, "variant", NULL)) };
	}
	qsort(rows, (size_t)k, sizeof(*rows), cmp_row);
	head[0] = "variant";
	head[1] = "port";
	head[2] = "counter";
	head[3] = "unit";
	for (r = 0; r < cols; r++) {
		snprintf(cells[r], CELL, ">results-%d", r + 1);
		head[4 + r] = cols < repeat ? summary[r] : cells[r];
	}
	head[4 + cols] = ">mean";
	if ((err = tt_table_init(&t, cols + 5, head)))
		goto out;
	for (i = 0; i < (size_t)k; i++) {
		const char *variant = jget_str(rows[i].row, "variant", NULL);
		struct num_fmt f = report_fmt_for(NUM_RATE, report_obj_max(rows[i].row));
		struct row_text rt = { .cells = cells };

		/* the variant once, on its first row */
		line[0] = i && !strcmp_null(variant, jget_str(rows[i - 1].row, "variant", NULL)) ? "" :
			  variant;
		line[1] = jget_str(rows[i].row, "subject", NULL);
		line[2] = jget_str(rows[i].sec, "metric", NULL) + 4;
		line[3] = jget_str(rows[i].sec, "unit", NULL);
		for (r = 0; r < cols; r++) {
			if (cols < repeat && !r)
				snprintf(cells[r], CELL, "%d", (int)jget_int(rows[i].row, "n", 0));
			else
				report_fmt_num(cells[r], CELL, cols < repeat ?
					       json_object_get(rows[i].row, summary[r] + 1) :
					       json_array_get(json_object_get(rows[i].row, "values"), r),
					       &f);
			line[4 + r] = cells[r];
		}
		report_mean_texts(rows[i].row, f, &rt);
		if (*rt.spread)
			snprintf(mean, sizeof(mean), "%s ± %s", rt.mean, rt.spread);
		else
			snprintf(mean, sizeof(mean), "%s", rt.mean);
		line[4 + cols] = mean;
		if ((err = tt_table_add(&t, line)))
			goto out;
	}
	fprintf(out, "\ndriver counters  (ethtool -S per second over the rate window; records, not compared)\n");
	tt_table_print(&t, out);
	err = 0;
out:
	tt_table_release(&t);
	free(rows);
	free(head);
	free(line);
	free(cells);
	return err;
}

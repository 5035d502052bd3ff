// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* report_form_print.c - report_form_print_text and report_form_text (report.h): a form
 * built by report_form.c (grid, columns, cpumap, drivers) as the text tables netdev posts
 * use, with the verdicts' notes, the drivers form's XDP mode marks and its legend.
 */
#include "report/report.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"
#include "base/texttable.h"
#include "base/util.h"

/* A grid cell: the mean as netdev writes rates (9.1M), then the verdict markers of all
 * its repetitions. */
static void grid_num(char *buf, size_t len, const json_t *cell, bool rate,
		     struct report_notes *notes)
{
	const json_t *mean = json_object_get(cell, "mean");
	double x = json_number_value(mean);

	if (!json_is_number(mean) || !isfinite(x)) {
		snprintf(buf, len, "-");
	} else if (rate) {
		struct num_fmt f = { 1, "", 0 };

		if (fabs(x) >= 1e9)
			f = (struct num_fmt){ 1e9, "G", 1 };
		else if (fabs(x) >= 1e6)
			f = (struct num_fmt){ 1e6, "M", 1 };
		else if (fabs(x) >= 1e3)
			f = (struct num_fmt){ 1e3, "k", 1 };
		report_fmt_num(buf, len, mean, &f);
	} else {
		struct num_fmt f = report_fmt_for(NUM_PLAIN, x);

		report_fmt_num(buf, len, mean, &f);
	}
	report_notes_cell(notes, buf, len, json_object_get(cell, "verdicts"),
			  json_object_get(cell, "details"), -1);
}

/* "5 repetitions", or "3 to 5 repetitions" where some cell averages fewer (repeat_min). */
static const char *form_repetitions(const json_t *form, char *buf, size_t len)
{
	int repeat = (int)jget_int(form, "repeat", 0);
	int min = (int)jget_int(form, "repeat_min", repeat);

	if (min < repeat)
		snprintf(buf, len, "%d to %d repetitions", min, repeat);
	else
		snprintf(buf, len, "%d repetition%s", repeat, repeat == 1 ? "" : "s");
	return buf;
}

static void form_title(const json_t *form, FILE *out)
{
	const char *metric = jget_str(form, "metric", NULL), *subject = jget_str(form, "subject", NULL);
	const char *window = jget_str(form, "window", NULL);
	char reps[48];

	fprintf(out, "%s%s%s  (%s, %s; mean of %s)\n", metric,
		subject ? " " : "", subject ? subject : "",
		jget_str(form, "unit", NULL) && !strcmp(jget_str(form, "unit", NULL), "pps") ? "packets/s" :
		(jget_str(form, "unit", NULL) ? jget_str(form, "unit", NULL) : "-"),
		!window ? "no window" : !strcmp(window, "rate") ? "bpf_stats off" :
		!strcmp(window, "cost") ? "bpf_stats on" : window,
		form_repetitions(form, reps, sizeof(reps)));
}

/* A form's text table: NC columns whose texts of up to W - 1 bytes are written into
 * cell() and added row by row, and the verdict markers of its numbers. */
struct form_table {
	struct tt_table t;
	char *buf;			/* NC cells of W bytes, zeroed for each row */
	const char **cells;		/* into BUF */
	size_t nc, w;
	struct report_notes notes;
};

static int form_table_init(struct form_table *ft, size_t nc, size_t w)
{
	size_t j;

	*ft = (struct form_table){ .nc = nc, .w = w };
	ft->buf = calloc(nc, w);
	ft->cells = calloc(nc, sizeof(*ft->cells));
	if (!ft->buf || !ft->cells || tt_table_init(&ft->t, (int)nc, NULL))
		return -ENOMEM;
	ft->t.trim = true;
	for (j = 0; j < nc; j++)
		ft->cells[j] = ft->buf + j * w;
	return 0;
}

static char *form_table_cell(struct form_table *ft, size_t j)
{
	return ft->buf + j * ft->w;
}

/* Add the row the cells hold and clear them for the next. */
static int form_table_add(struct form_table *ft)
{
	int err = tt_table_add(&ft->t, ft->cells);

	memset(ft->buf, 0, ft->nc * ft->w);
	return err;
}

/* The head row: FIRST ... then the title of each column of COLS. */
static int form_table_head(struct form_table *ft, const char *const *first, size_t n_first,
			   const json_t *cols)
{
	const json_t *col;
	size_t j;

	for (j = 0; j < n_first; j++)
		snprintf(form_table_cell(ft, j), ft->w, "%s", first[j]);
	json_array_foreach(cols, j, col)
		snprintf(form_table_cell(ft, j + n_first), ft->w, "%s", jget_str(col, "title", NULL));
	return form_table_add(ft);
}

/* The table, then the legend of its markers: each cell's own notes. */
static void form_table_print(const struct form_table *ft, const json_t *form, FILE *out)
{
	tt_table_print(&ft->t, out);
	report_notes_print(&ft->notes, out);
}

static void form_table_release(struct form_table *ft)
{
	tt_table_release(&ft->t);
	report_notes_release(&ft->notes);
	free(ft->cells);
	free(ft->buf);
}

/* The grid: Version | Test | a column per variant, left-aligned; cells hold at most
 * CELL - 1 bytes, as the texts of print_section do. */
static int print_grid(const json_t *form, FILE *out)
{
	static const char *const first[] = { "Version", "Test" };
	const json_t *cols = json_object_get(form, "columns"), *row, *col;
	bool rate = jget_str(form, "unit", NULL) && !strcmp(jget_str(form, "unit", NULL), "pps");
	size_t nc = json_array_size(cols) + 2, i, j;
	struct form_table ft;
	int err;

	err = form_table_init(&ft, nc, CELL);
	if (!err) {
		ft.t.sep = " | ";
		err = form_table_head(&ft, first, 2, cols);
	}
	json_array_foreach(json_object_get(form, "rows"), i, row) {
		if (err)
			goto out;
		snprintf(form_table_cell(&ft, 0), CELL, "%s", jget_str(row, "version", NULL));
		snprintf(form_table_cell(&ft, 1), CELL, "%s", jget_str(row, "test", NULL));
		json_array_foreach(json_object_get(row, "cells"), j, col)
			if (j + 2 < nc)
				grid_num(form_table_cell(&ft, j + 2), CELL, col, rate, &ft.notes);
		err = form_table_add(&ft);
	}
	if (err)
		goto out;
	form_title(form, out);
	form_table_print(&ft, form, out);
out:
	form_table_release(&ft);
	return err;
}

#define FCELL (2 * CELL + 8)

/* The text of a "columns" or "cpumap" form's CELL into BUF (FCELL bytes): mean ±
 * spread in format F, then the markers of its verdicts and their note numbers (notes
 * added to NOTES). */
static void by_variant_cell_text(char *buf, const json_t *cell, struct num_fmt f,
				 struct report_notes *notes)
{
	struct row_text rt = { .variant = NULL };

	report_mean_texts(cell, f, &rt);
	snprintf(buf, FCELL, "%s%s%s", rt.mean, *rt.spread ? " ± " : "", rt.spread);
	report_notes_cell(notes, buf, FCELL, json_object_get(cell, "verdicts"),
			  json_object_get(cell, "details"), -1);
}

/* The table of form group G: a row per variant, a column per form column, numbers in
 * format F; then the legend of its markers. */
static int print_by_variant_table(const json_t *form, const json_t *g, struct num_fmt f,
				  FILE *out)
{
	static const char *const first[] = { "variant" };
	const json_t *cols = json_object_get(form, "columns"), *row, *cell;
	size_t nc = json_array_size(cols), j, k;
	struct form_table ft;
	int err;

	err = form_table_init(&ft, nc + 1, FCELL);
	for (j = 0; !err && j <= nc; j++)
		ft.t.right[j] = j > 0;
	if (!err)
		err = form_table_head(&ft, first, 1, cols);
	json_array_foreach(json_object_get(g, "rows"), k, row) {
		if (err)
			goto out;
		snprintf(form_table_cell(&ft, 0), FCELL, "%s", jget_str(row, "variant", NULL));
		json_array_foreach(json_object_get(row, "cells"), j, cell)
			if (j < nc)
				by_variant_cell_text(form_table_cell(&ft, j + 1), cell, f, &ft.notes);
		err = form_table_add(&ft);
	}
	if (!err)
		form_table_print(&ft, form, out);
out:
	form_table_release(&ft);
	return err;
}

/* The largest magnitude among the cells of the rows of form group G. */
static double group_max(const json_t *g)
{
	const json_t *row, *cell;
	double max = 0;
	size_t j, k;

	json_array_foreach(json_object_get(g, "rows"), j, row)
		json_array_foreach(json_object_get(row, "cells"), k, cell)
			if (report_obj_max(cell) > max)
				max = report_obj_max(cell);
	return max;
}

/* The largest magnitude among the cells of FORM's groups. */
static double by_variant_max(const json_t *form)
{
	const json_t *g;
	double max = 0;
	size_t i;

	json_array_foreach(json_object_get(form, "groups"), i, g)
		if (group_max(g) > max)
			max = group_max(g);
	return max;
}

static int print_by_variant(const json_t *form, FILE *out)
{
	const char *unit = jget_str(form, "unit", NULL), *host = NULL;
	enum num_kind kind = NUM_PLAIN;
	struct num_fmt f;
	const json_t *g;
	size_t i;
	int err;

	if (unit && !strcmp(unit, "pps"))
		kind = NUM_RATE;
	else if (unit && !strcmp(unit, "ns"))
		kind = NUM_NS;
	f = report_fmt_for(kind, by_variant_max(form));
	form_title(form, out);
	json_array_foreach(json_object_get(form, "groups"), i, g) {
		if (!host || strcmp(host, jget_str(g, "host", NULL))) {
			fprintf(out, "\nhost %s", jget_str(g, "host", NULL));
			if (jget_str(g, "kernel_release", NULL))
				fprintf(out, "  kernel %s", jget_str(g, "kernel_release", NULL));
			fputc('\n', out);
			host = jget_str(g, "host", NULL);
		}
		if (json_is_object(json_object_get(g, "point")))
			report_point_label(json_object_get(g, "point"), out);
		if ((err = print_by_variant_table(form, g, f, out)))
			return err;
	}
	return 0;
}

/* What a drivers form's numbers are, for its title: "guest instructions per frame,
 * icount" (the units of report_text.c's section titles, per frame for rx.*). */
static const char *drivers_what(const char *metric, const char *unit)
{
	bool frame = !strncmp(metric, "rx.", 3);

	if (unit && !strcmp(unit, "insns"))
		return !strcmp(metric, NS_METRIC) ? "guest instructions per run, icount" :
		       frame ? "guest instructions per frame, icount" : "guest instructions, icount";
	if (unit && !strcmp(unit, "pkt/Ginsn"))
		return "packets per 10^9 guest instructions, icount";
	if (unit && !strcmp(unit, "bit/Ginsn"))
		return "bits per 10^9 guest instructions, icount";
	if (!strcmp(metric, NS_METRIC))
		return "ns per program run";
	if (unit && !strcmp(unit, "ns") && frame)
		return "ns per frame";
	if (unit && !strcmp(unit, "pps"))
		return "packets/s";
	return unit ? unit : "-";
}

/* "rx.ns_per_frame b  (guest instructions per frame, icount; mean of 3 repetitions, ±
 * spread)"; the window only when not the rate window (bpf_stats on for costs). */
static void drivers_title(const json_t *form, FILE *out)
{
	const char *metric = jget_str(form, "metric", NULL), *subject = jget_str(form, "subject", NULL);
	const char *window = jget_str(form, "window", NULL);
	int repeat = (int)jget_int(form, "repeat", 0);
	char reps[48];

	fprintf(out, "%s%s%s  (%s", metric, subject ? " " : "", subject ? subject : "",
		drivers_what(metric, jget_str(form, "unit", NULL)));
	if (window && !strcmp(window, "cost"))
		fputs(", bpf_stats on", out);
	else if (window && strcmp(window, "rate"))
		fprintf(out, ", window %s", window);
	fprintf(out, "; mean of %s%s)\n", form_repetitions(form, reps, sizeof(reps)),
		repeat > 1 ? ", ± spread" : "");
}

/* Without a form subject (prog.ns_per_run: each variant's first XDP program), the line
 * naming each variant's: "programs: drop xdp_drop, pass xdp_pass", wrapped before 100
 * columns. */
static void print_row_subjects(const json_t *form, FILE *out)
{
	const json_t *rows = json_object_get(form, "rows"), *row, *o;
	size_t i, j;
	int col = 0, w;

	if (jget_str(form, "subject", NULL))
		return;
	json_array_foreach(rows, i, row) {
		const char *v = jget_str(row, "variant", NULL), *subj = jget_str(row, "subject", NULL);

		for (j = 0; j < i; j++) {
			o = json_array_get(rows, j);
			if (!strcmp(jget_str(o, "variant", NULL), v) && jget_str(o, "subject", NULL))
				break;
		}
		if (!subj || j < i)
			continue;
		w = tt_width(v) + tt_width(subj) + 3;
		if (!col) {
			col = fprintf(out, "programs:");
		} else if (col + w > 99) {
			fputs(",\n ", out);
			col = 1;
		} else {
			col += fprintf(out, ",");
		}
		col += fprintf(out, " %s %s", v, subj);
	}
	if (col)
		fputc('\n', out);
}

/* The marks of the XDP modes: "n" native, "g" generic, "hw" offload. */
static const struct {
	const char *mode, *mark;
} mode_marks[] = { { "native", "n" }, { "generic", "g" }, { "offload", "hw" } };

/* Append the mark of MODE (modes joined by ',': marks joined by '/') to BUF (LEN bytes)
 * after a blank, and note each mode seen in SEEN. */
static void add_mode_mark(char *buf, size_t len, const char *mode, bool *seen)
{
	const char *p = mode;
	size_t i, n;

	if (!mode)
		return;
	snprintf(buf + strlen(buf), len - strlen(buf), " ");
	while (*p) {
		n = strcspn(p, ",");
		for (i = 0; i < ARRAY_SIZE(mode_marks); i++)
			if (strlen(mode_marks[i].mode) == n && !strncmp(p, mode_marks[i].mode, n))
				break;
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%.*s", p == mode ? "" : "/",
			 i < ARRAY_SIZE(mode_marks) ? (int)strlen(mode_marks[i].mark) : (int)n,
			 i < ARRAY_SIZE(mode_marks) ? mode_marks[i].mark : p);
		if (i < ARRAY_SIZE(mode_marks))
			seen[i] = true;
		p += n + (p[n] == ',');
	}
}

/* The line under a drivers table that says what its mode marks are. */
static void print_mode_legend(const json_t *form, const bool *seen, FILE *out)
{
	const char *metric = jget_str(form, "metric", NULL), *subject = jget_str(form, "subject", NULL);
	bool any = false;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(mode_marks); i++) {
		if (!seen[i])
			continue;
		fprintf(out, "%s%s %s", any ? ", " : "", mode_marks[i].mark, mode_marks[i].mode);
		any = true;
	}
	if (!any)
		return;
	if (report_port_metric(metric) && subject)
		fprintf(out, ": the XDP mode used on port %s\n", subject);
	else
		fputs(": the XDP mode of the program (else the variant's first XDP program)\n",
		      out);
}

/* The drivers table: driver | variant | a column per kernel, mean ± spread, verdict
 * markers, the mode mark; the driver on its first row only. Then the legends and the
 * groups left out. */
static int print_drivers(const json_t *form, FILE *out)
{
	static const char *const first[] = { "driver", "variant" };
	const json_t *cols = json_object_get(form, "columns"), *row, *cell, *o;
	const char *unit = jget_str(form, "unit", NULL), *metric = jget_str(form, "metric", NULL);
	size_t nc = json_array_size(cols) + 2, i, j;
	enum num_kind kind = NUM_PLAIN;
	const char *prev = NULL;
	bool seen[ARRAY_SIZE(mode_marks)] = { false };
	struct form_table ft;
	struct num_fmt f;
	double max = 0;
	int err;

	if ((unit && !strcmp(unit, "pps")) || strstr(metric, "_pps"))
		kind = NUM_RATE;
	else if (!strcmp(metric, NS_METRIC) || (unit && !strcmp(unit, "ns")))
		kind = NUM_NS;
	json_array_foreach(json_object_get(form, "rows"), i, row)
		json_array_foreach(json_object_get(row, "cells"), j, cell)
			if (report_obj_max(cell) > max)
				max = report_obj_max(cell);
	f = report_fmt_for(kind, max);
	err = form_table_init(&ft, nc, FCELL);
	for (j = 0; !err && j < nc; j++)
		ft.t.right[j] = j > 1;
	if (!err)
		err = form_table_head(&ft, first, 2, cols);
	json_array_foreach(json_object_get(form, "rows"), i, row) {
		const char *driver = jget_str(row, "driver", NULL);

		if (err)
			goto out;
		snprintf(form_table_cell(&ft, 0), FCELL, "%s",
			 prev && !strcmp(prev, driver) ? "" : driver);
		prev = driver;
		snprintf(form_table_cell(&ft, 1), FCELL, "%s", jget_str(row, "variant", NULL));
		json_array_foreach(json_object_get(row, "cells"), j, cell) {
			char *buf = form_table_cell(&ft, j + 2);

			if (j + 2 >= nc)
				break;
			by_variant_cell_text(buf, cell, f, &ft.notes);
			add_mode_mark(buf, FCELL, jget_str(cell, "mode", NULL), seen);
		}
		err = form_table_add(&ft);
	}
	if (err)
		goto out;
	drivers_title(form, out);
	form_table_print(&ft, form, out);
	print_row_subjects(form, out);
	print_mode_legend(form, seen, out);
	json_array_foreach(json_object_get(form, "left_out"), i, o)
		fprintf(out, "host %s left out: driver %s and kernel %s as host %s\n",
			jget_str(o, "host", NULL), jget_str(o, "driver", NULL),
			jget_str(o, "kernel", NULL) ? jget_str(o, "kernel", NULL) : "-", jget_str(o, "same_as", NULL));
out:
	form_table_release(&ft);
	return err;
}

int report_form_print_text(const json_t *form, FILE *out)
{
	int err;

	report_print_run_line(form, out);
	fputc('\n', out);
	if (!strcmp(jget_str(form, "form", NULL), "grid"))
		err = print_grid(form, out);
	else if (!strcmp(jget_str(form, "form", NULL), "drivers"))
		err = print_drivers(form, out);
	else
		err = print_by_variant(form, out);
	if (err)
		return err;
	return ferror(out) ? -EIO : 0;
}

char *report_form_text(const json_t *form)
{
	return report_print_to_string(report_form_print_text, form);
}

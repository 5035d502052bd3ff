// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* report_text.c - report_print_text (report.h): the run report as plain text that fits
 * a mail. Per host a line with its role, kernel, tc attach methods and noise floor; per
 * matrix point a label; per section (metric, window) a table with a row per variant and
 * subject, a column per repetition, mean ± spread and, beside a noise floor, the row's
 * cv; the verdicts' markers beside the numbers and their legend under the table.
 * Numbers as report_format.c writes them.
 */
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/noise.h"
#include "report/report_int.h"
#include "base/texttable.h"
#include "base/util.h"

static enum num_kind section_kind(const json_t *sec)
{
	const char *metric = jget_str(sec, "metric", NULL), *unit = jget_str(sec, "unit", NULL);
	size_t len = strlen(metric);

	if ((unit && (!strcmp(unit, "pps") || !strcmp(unit, "Bps") || !strcmp(unit, "/s"))) ||
	    (len > 4 && !strcmp(metric + len - 4, "_pps")))
		return NUM_RATE;
	if (!strcmp(metric, NS_METRIC) || (unit && !strcmp(unit, "ns")))
		return NUM_NS;
	return NUM_PLAIN;
}

/* SEC's totals by variant (a new object; the first of a variant wins), NULL on ENOMEM.
 * Looked up once per variant: a walk each time was quadratic in variants. */
static json_t *totals_by_variant(const json_t *sec)
{
	json_t *map = json_object(), *t;
	size_t i;

	json_array_foreach(json_object_get(sec, "totals"), i, t) {
		const char *v = jget_str(t, "variant", NULL);

		if (map && v && !json_object_get(map, v) && json_object_set(map, v, t)) {
			json_decref(map);
			return NULL;
		}
	}
	return map;
}

/* The entry of a host's noise floor (NOISE, lib/analysis/noise.h) for METRIC in WINDOW: the one
 * of SUBJECT, else the metric's first (a floor is the host's, measured on one program
 * and port: it stands for the metric). An entry whose mean is below NOISE_MINOR of the
 * metric's largest is noise around nothing (a port that received nothing while the
 * host was calibrated) and never taken. NULL when the host has none for the metric. */
static const json_t *noise_floor_of(const json_t *noise, const char *metric,
				    const char *window, const char *subject)
{
	const json_t *m, *any = NULL;
	double max = 0;
	size_t i;

	json_array_foreach(json_object_get(noise, "metrics"), i, m)
		if (!strcmp_null(jget_str(m, "metric", NULL), metric) &&
		    !strcmp_null(jget_str(m, "window", NULL), window) &&
		    fabs(json_number_value(json_object_get(m, "mean"))) > max)
			max = fabs(json_number_value(json_object_get(m, "mean")));
	json_array_foreach(json_object_get(noise, "metrics"), i, m) {
		if (strcmp_null(jget_str(m, "metric", NULL), metric) ||
		    strcmp_null(jget_str(m, "window", NULL), window) ||
		    fabs(json_number_value(json_object_get(m, "mean"))) < NOISE_MINOR * max)
			continue;
		if (!strcmp_null(jget_str(m, "subject", NULL), subject))
			return m;
		if (!any)
			any = m;
	}
	return any;
}

/* The cv and floor texts of a row (statistics in OBJ) beside FLOOR (noise_floor_of);
 * nothing without a floor, "-" for a cv of fewer than two values. */
static void floor_texts(const json_t *obj, const json_t *floor, struct row_text *rt)
{
	double mean = json_number_value(json_object_get(obj, "mean"));
	double sd = json_number_value(json_object_get(obj, "stddev"));

	if (!floor)
		return;
	noise_cv_text(json_is_number(json_object_get(obj, "stddev")) && mean != 0
			      ? sd / fabs(mean) : NAN, rt->cv, CELL);
	noise_cv_text(json_number_value(json_object_get(floor, "cv")), rt->floor, CELL);
}

static const char *subject_header(const char *metric)
{
	if (!strncmp(metric, "port.", 5) || !strncmp(metric, "gen.", 4) ||
	    !strncmp(metric, "nic.", 4))
		return "port";
	if (!strncmp(metric, "prog.", 5))
		return "prog";
	if (!strncmp(metric, "cpu.", 4))
		return "cpu";
	return "subject";
}

/* The line above a table: metric, what its numbers are and, for a summary of REPS
 * repetitions (0: none), that it is one. */
static void section_title(const json_t *sec, int reps, FILE *out)
{
	const char *metric = jget_str(sec, "metric", NULL), *unit = jget_str(sec, "unit", NULL);
	const char *window = jget_str(sec, "window", NULL), *what;
	char wbuf[64];

	/* icount units (schema/005_timing.sql): guest instructions, not time */
	if (unit && !strcmp(unit, "insns"))
		what = !strcmp(metric, NS_METRIC) ? "guest instructions per program run, icount"
						  : "guest instructions, icount";
	else if (unit && !strcmp(unit, "pkt/Ginsn"))
		what = "packets per 10^9 guest instructions, icount";
	else if (unit && !strcmp(unit, "bit/Ginsn"))
		what = "bits per 10^9 guest instructions, icount";
	else if (!strcmp(metric, NS_METRIC))
		what = "ns per program run";
	else if (!strcmp(metric, "prog.run_pps"))
		what = "program runs/s";
	else if (!strncmp(metric, "port.", 5) || !strncmp(metric, "gen.", 4) ||
		 (unit && !strcmp(unit, "pps")))
		what = "packets/s";
	else
		what = unit;
	if (!window)
		wbuf[0] = '\0';
	else if (!strcmp(window, "rate"))
		snprintf(wbuf, sizeof(wbuf), "bpf_stats off");
	else if (!strcmp(window, "cost"))
		snprintf(wbuf, sizeof(wbuf), "bpf_stats on");
	else
		snprintf(wbuf, sizeof(wbuf), "window %s", window);
	if (reps)
		snprintf(wbuf + strlen(wbuf), sizeof(wbuf) - strlen(wbuf), "%s%d repetitions, "
			 "--wide shows each", *wbuf ? "; " : "", reps);
	if (what && *wbuf)
		fprintf(out, "%s  (%s, %s)\n", metric, what, wbuf);
	else if (what || *wbuf)
		fprintf(out, "%s  (%s)\n", metric, what ? what : wbuf);
	else
		fprintf(out, "%s\n", metric);
}

/* Whether ROW of a rate section is zero at the section's precision F: it has a value,
 * and every value it has prints as zero beside the section's largest (ports that receive
 * nothing by design: a generator's own port, the rx of an XDP_DROP path). */
static bool row_is_zero(const json_t *row, const struct num_fmt *f)
{
	const json_t *v;
	size_t i;
	int n = 0;

	json_array_foreach(json_object_get(row, "values"), i, v) {
		if (!json_is_number(v))
			continue;
		if (!isfinite(json_number_value(v)) ||
		    round(fabs(json_number_value(v)) / f->div * pow(10, f->decimals)) != 0)
			return false;
		n++;
	}
	return n > 0;
}

/* Which rows of a section of KIND to print (SHOW[i], N rows): all with ALL_ROWS or
 * outside rate sections; otherwise not the rows that are zero (row_is_zero), unless that
 * would leave out all rows of their variant: a variant never disappears from a table,
 * and a path that delivered nothing still shows. Returns the count left out, or -ENOMEM. */
static int rows_to_show(const json_t *rows, enum num_kind kind, const struct num_fmt *f,
			bool all_rows, bool *show)
{
	size_t n = json_array_size(rows), i;
	json_t *shown;	/* the variants with a row shown: a hash, linear in rows */
	int hidden = 0;

	for (i = 0; i < n; i++) {
		show[i] = all_rows || kind != NUM_RATE ||
			  !row_is_zero(json_array_get(rows, i), f);
		hidden += !show[i];
	}
	if (!hidden)
		return 0;
	shown = json_object();
	if (!shown)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (show[i] &&
		    json_object_set_new(shown, jget_str(json_array_get(rows, i), "variant", NULL),
					json_true())) {
			json_decref(shown);
			return -ENOMEM;
		}
	for (i = 0; i < n; i++)
		if (!show[i] && !json_object_get(shown, jget_str(json_array_get(rows, i), "variant", NULL))) {
			show[i] = true;
			hidden--;
		}
	json_decref(shown);
	return hidden;
}

/* The line under a table that names the rows rows_to_show left out:
 * "zero rows left out: drop a, pass a (--all-rows shows them)". */
static void print_left_out(const json_t *rows, const bool *show, FILE *out)
{
	const char *prev = NULL;
	const json_t *row;
	size_t i;

	fputs("zero rows left out:", out);
	json_array_foreach(rows, i, row) {
		if (show[i])
			continue;
		fprintf(out, "%s %s %s", prev ? "," : "", jget_str(row, "variant", NULL),
			jget_str(row, "subject", NULL) ? jget_str(row, "subject", NULL) : "-");
		prev = jget_str(row, "variant", NULL);
	}
	fputs(" (--all-rows shows them)\n", out);
}

/* The widths of a section's columns and what they are headed. */
struct section_cols {
	const char *subject_head, *mean_head;
	int var, sub, mean, spread, cv, floor;
	int *rep;			/* one per repetition (summary: per SUMMARY_COLS) */
	int repeat;			/* columns in rep */
	bool floors;			/* a cv and a floor column */
	bool summary;			/* n, min, median, max instead of the repetitions */
};

/* The columns that stand for the repetitions of a run of more than REPORT_SHOW_REPS. */
static const char *const summary_heads[] = { "n", "min", "median", "max" };
#define SUMMARY_COLS 4

/* The head of value column R of C: "results-3", or "median" in a summary. */
static const char *rep_head(const struct section_cols *c, int r, char *buf, size_t len)
{
	if (c->summary)
		return summary_heads[r];
	snprintf(buf, len, "results-%d", r + 1);
	return buf;
}

/* The texts of ROW of section SEC into RT (its cells allocated here): a cell per
 * repetition with its verdicts' markers and note numbers (notes added to NOTES), the
 * mean and spread or, in a prog.ns_per_run section, the variant's total on the
 * variant's FIRST row (from TOTALS, totals_by_variant), and the cv beside the host's
 * noise floor (NOISE, or NULL). SEC_FMT is the section's format: a row with the same
 * divisor takes its decimals. */
static int row_texts(const json_t *sec, const json_t *row, const struct num_fmt *sec_fmt,
		     bool first, int repeat, bool summary, const json_t *noise,
		     const json_t *totals, struct report_notes *notes, struct row_text *rt)
{
	const char *metric = jget_str(sec, "metric", NULL), *window = jget_str(sec, "window", NULL);
	const char *variant = jget_str(row, "variant", NULL);
	enum num_kind kind = section_kind(sec);
	struct num_fmt f = report_fmt_for(kind, report_obj_max(row));
	const json_t *t;
	int r;

	rt->cells = calloc(summary ? SUMMARY_COLS : repeat ? repeat : 1, CELL);
	if (!rt->cells)
		return -ENOMEM;
	rt->variant = first ? variant : NULL;
	rt->subject = jget_str(row, "subject", NULL) ? jget_str(row, "subject", NULL) : "-";
	if (f.div == sec_fmt->div)
		f.decimals = sec_fmt->decimals;
	report_fmt_show_spread(&f, json_number_value(json_object_get(row, "spread")));
	if (summary) {
		/* n with the markers of every repetition, then min, median, max */
		snprintf(rt->cells[0], CELL, "%d", (int)jget_int(row, "n", 0));
		report_notes_cell(notes, rt->cells[0], CELL, json_object_get(row, "verdicts"),
				  json_object_get(row, "details"), -1);
		for (r = 1; r < SUMMARY_COLS; r++)
			report_fmt_num(rt->cells[r], CELL,
				       json_object_get(row, summary_heads[r]), &f);
	}
	for (r = 0; !summary && r < repeat; r++) {
		report_fmt_num(rt->cells[r], CELL, json_array_get(json_object_get(row, "values"), r),
			       &f);
		report_notes_cell(notes, rt->cells[r], CELL, json_object_get(row, "verdicts"),
				  json_object_get(row, "details"), r);
	}
	if (strcmp(metric, NS_METRIC)) {
		report_mean_texts(row, f, rt);
		floor_texts(row, noise_floor_of(noise, metric, window, rt->subject), rt);
		return 0;
	}
	if (!first)
		return 0;
	t = json_object_get(totals, variant);
	if (!t) {
		snprintf(rt->mean, CELL, "-");
		return 0;
	}
	report_mean_texts(t, report_fmt_for(kind, report_obj_max(t)), rt);
	floor_texts(t, noise_floor_of(noise, metric, window, rt->subject), rt);
	return 0;
}

static void widen(int *w, const char *s)
{
	if (tt_width(s) > *w)
		*w = tt_width(s);
}

/* The widths of C's columns for its heads and the N rows RT. */
static void measure_cols(const struct row_text *rt, size_t n, struct section_cols *c)
{
	char head[32];
	size_t i;
	int r;

	c->var = 7;
	c->sub = tt_width(c->subject_head);
	c->mean = tt_width(c->mean_head);
	c->spread = tt_width("spread");
	c->cv = tt_width("cv");
	c->floor = tt_width("floor");
	for (r = 0; r < c->repeat; r++)
		c->rep[r] = tt_width(rep_head(c, r, head, sizeof(head)));
	for (i = 0; i < n; i++) {
		if (rt[i].variant)
			widen(&c->var, rt[i].variant);
		widen(&c->sub, rt[i].subject);
		for (r = 0; r < c->repeat; r++)
			widen(&c->rep[r], rt[i].cells[r]);
		widen(&c->mean, rt[i].mean);
		widen(&c->spread, rt[i].spread);
		widen(&c->cv, rt[i].cv);
		widen(&c->floor, rt[i].floor);
	}
}

static void put_floor_cells(struct tt_line *l, const struct section_cols *c, const char *cv,
			    const char *floor)
{
	tt_line_spaces(l, 2);
	tt_line_cell(l, cv, c->cv, true);
	tt_line_spaces(l, 2);
	tt_line_cell(l, floor, c->floor, true);
}

static void put_head(struct tt_line *l, const struct section_cols *c, FILE *out)
{
	char head[32];
	int r;

	tt_line_cell(l, "variant", c->var + 2, false);
	tt_line_cell(l, c->subject_head, c->sub + 2, false);
	for (r = 0; r < c->repeat; r++) {
		tt_line_spaces(l, r ? (c->summary ? 2 : 1) : 0);
		tt_line_cell(l, rep_head(c, r, head, sizeof(head)), c->rep[r], true);
	}
	tt_line_spaces(l, 3);
	tt_line_cell(l, c->mean_head, c->mean, true);
	tt_line_add(l, " ± ");
	tt_line_cell(l, "spread", c->floors ? c->spread : 0, false);
	if (c->floors)
		put_floor_cells(l, c, "cv", "floor");
	tt_line_put(l, out);
}

static void put_row(struct tt_line *l, const struct section_cols *c, const struct row_text *rt,
		    FILE *out)
{
	int r;

	tt_line_cell(l, rt->variant ? rt->variant : "", c->var + 2, false);
	tt_line_cell(l, rt->subject, c->sub + 2, false);
	for (r = 0; r < c->repeat; r++) {
		tt_line_spaces(l, r ? (c->summary ? 2 : 1) : 0);
		tt_line_cell(l, rt->cells[r], c->rep[r], true);
	}
	tt_line_spaces(l, 3);
	tt_line_cell(l, rt->mean, c->mean, true);
	if (c->floors || *rt->spread) {
		tt_line_add(l, *rt->spread ? " ± " : "   ");
		tt_line_cell(l, rt->spread, c->floors ? c->spread : 0, false);
	}
	if (c->floors)
		put_floor_cells(l, c, rt->cv, rt->floor);
	tt_line_put(l, out);
}

/* Longest variant or subject name a table prints whole (without --wide). */
#define NAME_COLS 24

/* *NAME, when longer than NAME_COLS, elided into BUF (CELL bytes) as its start and a
 * key, "xdp_redirect_map_multi_p~1", the full name kept in KEYS (each once, key K + 1 is
 * KEYS[K]) for a line under the table. Returns 0 or -ENOMEM. */
static int elide_name(const char **name, char *buf, json_t *keys)
{
	const json_t *v;
	char key[16];
	size_t k;

	if (!*name || strlen(*name) <= NAME_COLS)
		return 0;
	json_array_foreach(keys, k, v)
		if (!strcmp(json_string_value(v), *name))
			break;
	if (k == json_array_size(keys) && json_array_append_new(keys, json_string(*name)))
		return -ENOMEM;
	snprintf(key, sizeof(key), "~%zu", k + 1);
	snprintf(buf, CELL, "%.*s%s", (int)(NAME_COLS - strlen(key)), *name, key);
	*name = buf;
	return 0;
}

/* The table of section SEC; NOISE is its host's noise floor (or NULL): with one for
 * the section's metric, each row's cv is printed beside it. */
static int print_section(const json_t *sec, int repeat, bool all_rows, bool wide,
			 const json_t *noise, FILE *out)
{
	const json_t *rows = json_object_get(sec, "rows"), *row;
	const char *metric = jget_str(sec, "metric", NULL), *prev = NULL;
	enum num_kind kind = section_kind(sec);
	size_t n_rows = json_array_size(rows), n = 0, k, i;
	struct section_cols c = {
		.subject_head = subject_header(metric),
		.mean_head = !strcmp(metric, NS_METRIC) ? "total = mean" : "mean",
		.repeat = !wide && repeat > REPORT_SHOW_REPS ? SUMMARY_COLS : repeat,
		.summary = !wide && repeat > REPORT_SHOW_REPS,
	};
	struct tt_line l = { .buf = NULL };
	struct row_text *rt;
	struct report_notes notes = { .notes = NULL };
	json_t *keys = json_array(), *key;
	char (*names)[2][CELL] = NULL;
	struct num_fmt sec_fmt;
	json_t *totals = NULL;
	int hidden, err = 0;
	double max = 0;
	bool *show;

	rt = calloc(n_rows ? n_rows : 1, sizeof(*rt));
	show = calloc(n_rows ? n_rows : 1, sizeof(*show));
	c.rep = calloc(c.repeat ? c.repeat : 1, sizeof(*c.rep));
	names = calloc(n_rows ? n_rows : 1, sizeof(*names));
	if (!strcmp(metric, NS_METRIC))
		totals = totals_by_variant(sec);
	if (!rt || !show || !c.rep || !names || !keys ||
	    (!totals && !strcmp(metric, NS_METRIC))) {
		err = -ENOMEM;
		goto out;
	}
	json_array_foreach(rows, k, row)
		if (report_obj_max(row) > max)
			max = report_obj_max(row);
	sec_fmt = report_fmt_for(kind, max);
	hidden = rows_to_show(rows, kind, &sec_fmt, all_rows, show);
	if (hidden < 0) {
		err = hidden;
		goto out;
	}

	json_array_foreach(rows, k, row) {
		const char *variant = jget_str(row, "variant", NULL);
		bool first = !prev || strcmp(variant, prev);

		if (!show[k])
			continue;
		prev = variant;
		err = row_texts(sec, row, &sec_fmt, first, repeat, c.summary, noise, totals,
				&notes, &rt[n++]);
		if (err)
			goto out;
		c.floors = c.floors || *rt[n - 1].floor;
		/* long names elided with a key: the table fits a mail */
		if (!wide && (elide_name(&rt[n - 1].variant, names[n - 1][0], keys) ||
			      elide_name(&rt[n - 1].subject, names[n - 1][1], keys))) {
			err = -ENOMEM;
			goto out;
		}
	}
	measure_cols(rt, n, &c);

	section_title(sec, c.summary ? repeat : 0, out);
	put_head(&l, &c, out);
	for (i = 0; i < n; i++)
		put_row(&l, &c, &rt[i], out);
	json_array_foreach(keys, i, key)
		fprintf(out, "~%zu %s\n", i + 1, json_string_value(key));
	if (hidden)
		print_left_out(rows, show, out);
	report_notes_print(&notes, out);
	if (l.oom || notes.oom)
		err = -ENOMEM;
out:
	report_notes_release(&notes);
	free(l.buf);
	json_decref(totals);
	for (i = 0; rt && i < n; i++)
		free(rt[i].cells);
	free(rt);
	free(show);
	free(c.rep);
	free(names);
	json_decref(keys);
	return err;
}

/* The role host NAME played in a two-host run ("generator", "dut"; result "hosts"), or
 * NULL. */
static const char *host_role(const json_t *report, const char *name)
{
	const json_t *h;
	size_t i;

	json_array_foreach(json_object_get(report, "hosts"), i, h)
		if (name && jget_str(h, "name", NULL) && !strcmp(jget_str(h, "name", NULL), name))
			return jget_str(h, "role", NULL);
	return NULL;
}

const json_t *report_host_entry(const json_t *report, const char *name, const char *kernel)
{
	const json_t *h, *first = NULL;
	size_t i;

	json_array_foreach(json_object_get(report, "hosts"), i, h) {
		if (!jget_str(h, "name", NULL) || strcmp(jget_str(h, "name", NULL), name))
			continue;
		if (!kernel || !strcmp_null(jget_str(h, "kernel_release", NULL), kernel))
			return h;
		if (!first)
			first = h;
	}
	return first;
}

/* How the tc programs were attached on host NAME (running KERNEL), a line per port:
 * "  port b: tc ingress clsact, egress clsact" (several methods over the run's jobs:
 * "clsact/tcx"); nothing when no tc program was attached there. */
static void print_tc_attach(const json_t *report, const char *name, const char *kernel,
			    FILE *out)
{
	static const char *const hooks[] = { "ingress", "egress" };
	const json_t *h = report_host_entry(report, name, kernel), *how;
	const char *port, *m;
	bool any;
	size_t i;

	json_object_foreach((json_t *)json_object_get(h, "tc_attach"), port, how) {
		any = false;
		for (i = 0; i < ARRAY_SIZE(hooks); i++) {
			m = jget_str(how, hooks[i], NULL);
			if (!m)
				continue;
			if (!any)
				fprintf(out, "  port %s: tc", port);
			fprintf(out, "%s %s ", any ? "," : "", hooks[i]);
			for (; *m; m++)
				fputc(*m == ',' ? '/' : *m, out);
			any = true;
		}
		if (any)
			fputc('\n', out);
	}
}

/* The XDP mode entries of mode auto used on host NAME (running KERNEL), a line per port:
 * "  port b: xdp mode auto -> generic" (several over the run's jobs: "generic/native");
 * nothing when no entry said auto. */
static void print_xdp_auto(const json_t *report, const char *name, const char *kernel,
			   FILE *out)
{
	const json_t *h = report_host_entry(report, name, kernel), *m;
	const char *port, *s;

	json_object_foreach((json_t *)json_object_get(h, "xdp_auto"), port, m) {
		s = json_string_value(m);
		if (!s)
			continue;
		fprintf(out, "  port %s: xdp mode auto -> ", port);
		for (; *s; s++)
			fputc(*s == ',' ? '/' : *s, out);
		fputc('\n', out);
	}
}

/* Under a host line, where the host has a noise floor (NOISE): where it comes from and
 * what the cv and floor columns are. "  noise floor: calibration run 4; cv = stddev /
 * mean of a row, floor = the host's run-to-run cv" (and the kernel it was measured on,
 * when not the group's KERNEL). */
static void print_noise_line(const json_t *noise, const char *kernel, FILE *out)
{
	const char *nk = jget_str(noise, "kernel_release", NULL);

	if (!noise)
		return;
	fprintf(out, "  noise floor: calibration run %lld", (long long)(int)jget_int(noise, "run", 0));
	if (nk && strcmp_null(nk, kernel))
		fprintf(out, " on kernel %s", nk);
	fprintf(out, "; cv = a row's stddev / mean, floor = the host's run-to-run cv\n");
}

/* The noise floor of group G's host (report "hosts"), or NULL. */
static const json_t *group_noise(const json_t *report, const json_t *g)
{
	return json_object_get(report_host_entry(report, jget_str(g, "host", NULL),
					  jget_str(g, "kernel_release", NULL)), "noise");
}

/* "host NAME  role R  kernel K", then how its tc programs were attached, the XDP modes
 * entries of mode auto used and where its noise floor comes from: above the first group G of a host. */
static void print_host_head(const json_t *report, const json_t *g, FILE *out)
{
	const char *h = jget_str(g, "host", NULL), *kernel = jget_str(g, "kernel_release", NULL);

	fprintf(out, "host %s", h);
	if (host_role(report, h))
		fprintf(out, "  role %s", host_role(report, h));
	if (kernel)
		fprintf(out, "  kernel %s", kernel);
	fputc('\n', out);
	print_tc_attach(report, h, kernel, out);
	print_xdp_auto(report, h, kernel, out);
	print_noise_line(group_noise(report, g), kernel, out);
}

/* Group G's point label and a table per section; the record tables are left out
 * without ALL_ROWS and counted in *RECORDS. */
static int print_group(const json_t *report, const json_t *g, bool all_rows, bool wide,
		       int *records, FILE *out)
{
	const json_t *noise = group_noise(report, g), *sec;
	size_t j;
	int err;

	if (json_is_object(json_object_get(g, "point"))) {
		fputc('\n', out);
		report_point_label(json_object_get(g, "point"), out);
	}
	json_array_foreach(json_object_get(g, "sections"), j, sec) {
		const char *metric = jget_str(sec, "metric", NULL);

		/* driver counters: one table of their own after the others */
		if (report_nic_record(sec))
			continue;
		/* the agent's records (cpu.others, rx.cpu, medians, warm-up) explain
		 * the numbers; they are not the numbers; a nic.NAME the plan lists is */
		if (!all_rows && metric && analysis_is_record(metric) &&
		    !json_is_true(json_object_get(sec, "listed"))) {
			(*records)++;
			continue;
		}
		/* latency.*: the latency table at the end (report_latency.c) */
		if (!all_rows && metric && !strncmp(metric, "latency.", 8))
			continue;
		fputc('\n', out);
		err = print_section(sec, (int)jget_int(report, "repeat", 0), all_rows, wide, noise, out);
		if (err)
			return err;
	}
	/* a handful of rows shown, more left out with the records */
	if (!all_rows && report_nic_rows(g) > REPORT_NIC_ROWS) {
		(*records)++;
		return 0;
	}
	return report_nic_print_text(report, g, wide, out);
}

int report_print_text_opts(const json_t *report, const struct report_text_opts *opts,
			   FILE *out)
{
	const json_t *groups = json_object_get(report, "groups"), *g;
	const char *host = NULL;
	int records = 0, err;
	bool all_rows;
	size_t i;

	all_rows = opts && opts->all_rows;
	report_print_run_line(report, out);
	if (!json_array_size(groups))
		fprintf(out, "no samples\n");
	json_array_foreach(groups, i, g) {
		const char *h = jget_str(g, "host", NULL);

		if (!host || strcmp(host, h)) {
			if (host)
				fputc('\n', out);
			print_host_head(report, g, out);
			host = h;
		}
		if ((err = print_group(report, g, all_rows, opts && opts->wide, &records, out)))
			return err;
	}
	if ((err = report_search_print(report, out)))
		return err;
	if ((err = report_latency_print_text(json_object_get(report, "latency"), out)))
		return err;
	if (records) {
		char text[256];

		snprintf(text, sizeof(text), "%d record table%s left out (cpu.others, rx.cpu, "
			 "medians, warm-up, search, driver counters; --all-rows shows them)",
			 records, records > 1 ? "s" : "");
		fputc('\n', out);
		tt_wrap(out, text, 80, "  ");
	}
	return ferror(out) ? -EIO : 0;
}

int report_print_text(const json_t *report, FILE *out)
{
	return report_print_text_opts(report, NULL, out);
}

char *report_text(const json_t *report)
{
	return report_print_to_string(report_print_text, report);
}

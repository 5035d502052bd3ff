// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* report_form.c - report_form_build and report_form_print_text (report.h): the run
 * report in the other forms netdev posts use. "grid": Version | Test | a column per
 * variant, a row per host and matrix point; "columns": per host and point a row per
 * variant and a column per subject; "cpumap": rx on the source CPU, dropped, rx on the
 * destination CPU; "drivers": a row per NIC driver and variant, a column per kernel, the
 * XDP mode used marked. The form is built as its own JSON object first, then printed.
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

#define FORM_METRIC_DEFAULT "counter.pps"
#define DRIVERS_METRIC_DEFAULT "rx.ns_per_frame"

/* The section of METRIC in group G, the rate window's when there are several. */
static const json_t *group_section(const json_t *g, const char *metric)
{
	const json_t *sec, *found = NULL;
	size_t i;

	json_array_foreach(json_object_get(g, "sections"), i, sec) {
		if (strcmp(get_str(sec, "metric"), metric))
			continue;
		if (!found || !strcmp_null(get_str(sec, "window"), "rate"))
			found = sec;
	}
	return found;
}

/* METRIC's subjects over all groups, in first-seen order (a JSON object used as a set). */
static json_t *metric_subjects(const json_t *report, const char *metric)
{
	json_t *subjects = json_object();
	const json_t *g, *row;
	size_t i, j;

	json_array_foreach(json_object_get(report, "groups"), i, g)
		json_array_foreach(json_object_get(group_section(g, metric), "rows"), j, row)
			if (subjects && get_str(row, "subject") &&
			    report_table_index(subjects, get_str(row, "subject")) < 0) {
				json_decref(subjects);
				return NULL;
			}
	return subjects;
}

static const json_t *section_row(const json_t *sec, const char *variant, const char *subject)
{
	const json_t *row;
	size_t i;

	json_array_foreach(json_object_get(sec, "rows"), i, row)
		if (!strcmp(get_str(row, "variant"), variant) &&
		    !strcmp_null(get_str(row, "subject"), subject))
			return row;
	return NULL;
}

/* A cell of a form: the values (per repetition) and verdicts of ROW (null values when
 * ROW is NULL), with their statistics. */
static json_t *form_cell(const json_t *row, int repeat)
{
	json_t *cell = json_pack("{s:o}", "values", row ?
				 json_deep_copy(json_object_get(row, "values")) : report_null_values(repeat));

	if (cell && row && json_object_get(row, "verdicts") &&
	    json_object_set_new(cell, "verdicts",
				json_deep_copy(json_object_get(row, "verdicts")))) {
		json_decref(cell);
		return NULL;
	}
	if (cell && (!json_object_get(cell, "values") || report_add_stats(cell))) {
		json_decref(cell);
		return NULL;
	}
	return cell;
}

/* Title of a grid column from a variant name: first letter upper case, '-' -> " + ",
 * '.' -> ' ' ("native-2nd.xdp_prog" -> "Native + 2nd xdp_prog"). */
static char *variant_title(const char *variant)
{
	size_t n = strlen(variant), i;
	char *t = malloc(3 * n + 1), *p = t;

	if (!t)
		return NULL;
	for (i = 0; i < n; i++) {
		if (variant[i] == '-') {
			memcpy(p, " + ", 3);
			p += 3;
		} else if (variant[i] == '.') {
			*p++ = ' ';
		} else {
			*p++ = i ? variant[i] : (char)toupper((unsigned char)variant[i]);
		}
	}
	*p = '\0';
	return t;
}

static int form_grid(const json_t *report, json_t *form, const char *metric,
		     const char *subject, int repeat)
{
	json_t *cols = json_object_get(form, "columns"), *rows = json_object_get(form, "rows");
	const json_t *g, *v;
	size_t i, j;

	json_array_foreach(json_object_get(report, "variants"), i, v) {
		char *title = json_is_string(v) ? variant_title(json_string_value(v)) : NULL;

		if (!title || json_array_append_new(cols, json_pack("{s:s, s:s}", "title", title,
							"variant", json_string_value(v)))) {
			free(title);
			return -ENOMEM;
		}
		free(title);
	}
	json_array_foreach(json_object_get(report, "groups"), i, g) {
		const json_t *sec = group_section(g, metric), *col;
		char *pt = report_point_text(json_object_get(g, "point")), *test = NULL;
		json_t *row, *cells;

		if (!pt || asprintf(&test, "%s on %s%s%s", get_str(report, "plan") ?
				    get_str(report, "plan") : "-", get_str(g, "host"),
				    *pt ? ", " : "", pt) < 0) {
			free(pt);
			return -ENOMEM;
		}
		free(pt);
		row = json_pack("{s:s, s:s, s:s, s:O, s:[]}", "version",
				get_str(g, "kernel_release") ? get_str(g, "kernel_release") : "-",
				"test", test, "host", get_str(g, "host"), "point",
				json_object_get(g, "point"), "cells");
		free(test);
		if (!row || json_array_append_new(rows, row))
			return -ENOMEM;
		cells = json_object_get(row, "cells");
		json_array_foreach(cols, j, col) {
			json_t *cell = form_cell(sec ? section_row(sec, get_str(col, "variant"),
							    subject) : NULL, repeat);

			if (!cell || json_array_append_new(cells, cell))
				return -ENOMEM;
		}
	}
	return 0;
}

static int append_column(json_t *cols, const char *title, const char *subject)
{
	return json_array_append_new(cols, json_pack("{s:s, s:s}", "title", title, "subject",
						     subject)) ? -ENOMEM : 0;
}

/* The columns of a "columns" form (one per subject in SUBJECTS) or a "cpumap" one. */
static int by_variant_columns(json_t *cols, const json_t *subjects, bool cpumap)
{
	const char *subj;
	json_t *idx;

	if (cpumap)
		return append_column(cols, "rx on source CPU", "rx_src") ||
		       append_column(cols, "dropped", "dropped") ||
		       append_column(cols, "rx on destination CPU", "rx_dst") ? -ENOMEM : 0;
	json_object_foreach((json_t *)subjects, subj, idx)
		if (append_column(cols, subj, subj))
			return -ENOMEM;
	return 0;
}

/* The values of SUBJECT's row of VARIANT in SEC (NULL: none), or NULL. */
static const json_t *subject_values(const json_t *sec, const char *variant,
				    const char *subject)
{
	return json_object_get(section_row(sec, variant, subject), "values");
}

/* The cpumap form's "dropped" cell of VARIANT in SEC: per repetition rx_src -
 * redirect_err - rx_dst, at least 0, with rx_src's verdicts. NULL on ENOMEM. */
static json_t *cpumap_dropped_cell(const json_t *sec, const char *variant, int repeat)
{
	const json_t *src = section_row(sec, variant, "rx_src");
	const json_t *dst = section_row(sec, variant, "rx_dst");
	const json_t *rerr = subject_values(sec, variant, "redirect_err");
	json_t *cell = form_cell(NULL, repeat);
	int r;

	for (r = 0; cell && src && dst && r < repeat; r++) {
		const json_t *a = json_array_get(json_object_get(src, "values"), r);
		const json_t *b = json_array_get(json_object_get(dst, "values"), r);
		const json_t *e = json_array_get(rerr, r);
		double d;

		if (!json_is_number(a) || !json_is_number(b))
			continue;
		d = json_number_value(a) - json_number_value(b) -
		    (json_is_number(e) ? json_number_value(e) : 0);
		json_array_set_new(json_object_get(cell, "values"), r, json_real(d > 0 ? d : 0));
	}
	if (cell && src && json_object_get(src, "verdicts"))
		json_object_set_new(cell, "verdicts",
				    json_deep_copy(json_object_get(src, "verdicts")));
	if (cell && report_add_stats(cell)) {
		json_decref(cell);
		cell = NULL;
	}
	return cell;
}

/* The row of VARIANT (NULL: none in the plan's list) in a "columns" or "cpumap" form
 * of COLS, from section SEC (or NULL), appended to ROWS. */
static int by_variant_row(json_t *rows, const json_t *cols, const json_t *sec,
			  const char *variant, bool cpumap, int repeat)
{
	json_t *out = json_pack("{s:s, s:[]}", "variant", variant ? variant : "-", "cells");
	const json_t *col;
	json_t *cell;
	size_t k;

	if (!out || json_array_append_new(rows, out))
		return -ENOMEM;
	if (!variant)
		sec = NULL;	/* section_row of a NULL section is NULL */
	json_array_foreach(cols, k, col) {
		const char *cs = get_str(col, "subject");

		if (cpumap && !strcmp(cs, "dropped"))
			cell = cpumap_dropped_cell(sec, variant, repeat);
		else
			cell = form_cell(section_row(sec, variant, cs), repeat);
		if (!cell || json_array_append_new(json_object_get(out, "cells"), cell))
			return -ENOMEM;
	}
	return 0;
}

/* The columns and groups of a "columns" or "cpumap" form; for cpumap "dropped" is
 * derived. */
static int form_by_variant(const json_t *report, json_t *form, const char *metric,
			   const json_t *subjects, bool cpumap, int repeat)
{
	json_t *cols = json_object_get(form, "columns"), *groups = json_array();
	const json_t *g, *v;
	size_t i, j;
	int err;

	if (!groups || json_object_set_new(form, "groups", groups))
		return -ENOMEM;
	if ((err = by_variant_columns(cols, subjects, cpumap)))
		return err;
	json_array_foreach(json_object_get(report, "groups"), i, g) {
		const json_t *sec = group_section(g, metric);
		json_t *grp = json_pack("{s:O, s:O?, s:O, s:[]}", "host", json_object_get(g, "host"),
					"kernel_release", json_object_get(g, "kernel_release"),
					"point", json_object_get(g, "point"), "rows");

		if (!grp || json_array_append_new(groups, grp))
			return -ENOMEM;
		json_array_foreach(json_object_get(report, "variants"), j, v)
			if ((err = by_variant_row(json_object_get(grp, "rows"), cols, sec,
						  json_string_value(v), cpumap, repeat)))
				return err;
	}
	return 0;
}

/* ---- the drivers form ---- */

/* Whether METRIC's subjects are port roles (port.*, gen.*, rx.*). */
static bool port_metric(const char *metric)
{
	return !strncmp(metric, "port.", 5) || !strncmp(metric, "gen.", 4) ||
	       !strncmp(metric, "rx.", 3);
}

/* The XDP entries of VARIANT on group G's host and kernel (result hosts[].xdp, in plan
 * order: [{"port", "program", "mode"}]), or NULL. */
static const json_t *group_xdp(const json_t *report, const json_t *g, const char *variant)
{
	const json_t *h = report_host_entry(report, get_str(g, "host"),
					    get_str(g, "kernel_release"));

	return json_object_get(json_object_get(h, "xdp"), variant);
}

/* The subject of VARIANT's cell in section SEC: SUBJECT when given, else the program of
 * the variant's first XDP entry in ENTRIES when SEC has it, else the variant's first
 * row's. NULL when none. */
static const char *drivers_subject(const json_t *sec, const json_t *entries,
				   const char *variant, const char *subject)
{
	const char *prog = get_str(json_array_get(entries, 0), "program");
	const json_t *row;
	size_t i;

	if (subject)
		return subject;
	if (prog && section_row(sec, variant, prog))
		return prog;
	json_array_foreach(json_object_get(sec, "rows"), i, row)
		if (!strcmp(get_str(row, "variant"), variant) && get_str(row, "subject"))
			return get_str(row, "subject");
	return NULL;
}

/* The XDP mode a cell of METRIC for SUBJECT marks, from its variant's ENTRIES: for a
 * port metric the mode of the entry on port SUBJECT (none when the port has no XDP
 * program), else the entry of program SUBJECT's, else the first entry's. NULL when
 * unknown. */
static const char *drivers_mode(const json_t *entries, const char *metric, const char *subject)
{
	bool port = port_metric(metric);
	const json_t *e;
	size_t i;

	json_array_foreach(entries, i, e)
		if (!strcmp_null(get_str(e, port ? "port" : "program"), subject))
			return get_str(e, "mode");
	return port ? NULL : get_str(json_array_get(entries, 0), "mode");
}

/* The driver label of group G: its host's port_driver ("-" when unknown), then its
 * matrix point when it has one. Heap string or NULL. */
static char *drivers_label(const json_t *report, const json_t *g)
{
	const json_t *h = report_host_entry(report, get_str(g, "host"),
					    get_str(g, "kernel_release"));
	const char *d = get_str(h, "port_driver");
	char *pt = report_point_text(json_object_get(g, "point")), *label = NULL;

	if (pt && asprintf(&label, "%s%s%s", d ? d : "-", *pt ? " " : "", pt) < 0)
		label = NULL;
	free(pt);
	return label;
}

/* The cell of VARIANT in group G (NULL: none) of a drivers form, for KERNEL; *SUBJECT
 * gets the subject it shows when it has one. NULL on ENOMEM. */
static json_t *drivers_cell(const json_t *report, const json_t *g, const char *kernel,
			    const char *metric, const char *subject, const char *variant,
			    int repeat, const char **cell_subject)
{
	const json_t *sec = g ? group_section(g, metric) : NULL;
	const json_t *entries = g ? group_xdp(report, g, variant) : NULL;
	const char *subj = sec ? drivers_subject(sec, entries, variant, subject) : NULL;
	const char *mode = subj ? drivers_mode(entries, metric, subj) : NULL;
	json_t *cell = form_cell(sec && subj ? section_row(sec, variant, subj) : NULL, repeat);

	if (cell && json_object_set_new(cell, "kernel", json_string(kernel)))
		goto fail;
	if (cell && (json_object_set_new(cell, "host", g ? json_string(get_str(g, "host"))
							 : json_null()) ||
		     json_object_set_new(cell, "mode", mode ? json_string(mode) : json_null())))
		goto fail;
	if (subj && !*cell_subject)
		*cell_subject = subj;
	return cell;
fail:
	json_decref(cell);
	return NULL;
}

/* The rows of a drivers form: a row per driver label (drivers_label, first seen) and
 * variant (plan order), a cell per kernel (COLS) from the first group of that label and
 * kernel; later groups of the same label and kernel go to FORM's "left_out". */
static int drivers_rows(const json_t *report, json_t *form, const json_t *labels,
			const json_t *kernels, const char *metric, const char *subject,
			int repeat)
{
	json_t *rows = json_object_get(form, "rows");
	const json_t *g, *v, *lv, *kv;
	const char *label, *kernel;
	size_t i, j;

	json_object_foreach((json_t *)labels, label, lv) {
		json_array_foreach(json_object_get(report, "variants"), i, v) {
			const char *cell_subject = NULL;
			json_t *row = json_pack("{s:s, s:O, s:s, s:n, s:[]}", "driver", label,
						"point",
						json_object_get(json_array_get(lv, 0), "point"),
						"variant", json_string_value(v), "subject", "cells");

			if (!row || !json_is_string(v) || json_array_append_new(rows, row))
				return -ENOMEM;
			json_object_foreach((json_t *)kernels, kernel, kv) {
				json_t *cell;

				g = NULL;
				json_array_foreach(lv, j, g)
					if (!strcmp(get_str(g, "kernel_release") ?
						    get_str(g, "kernel_release") : "-", kernel))
						break;
				if (j == json_array_size(lv))
					g = NULL;
				cell = drivers_cell(report, g, kernel, metric, subject,
						    json_string_value(v), repeat, &cell_subject);
				if (!cell || json_array_append_new(json_object_get(row, "cells"),
								   cell))
					return -ENOMEM;
			}
			if (json_object_set_new(row, "subject", cell_subject ?
						json_string(cell_subject) : json_null()))
				return -ENOMEM;
		}
	}
	return 0;
}

/* Group G (of driver label LABEL) in LV, the label's groups, unless one of its kernel
 * is there already: then in FORM's "left_out". */
static int drivers_file_group(json_t *form, json_t *lv, const json_t *g, const char *label)
{
	const char *k = get_str(g, "kernel_release");
	const json_t *o;
	json_t *out;
	size_t i;

	json_array_foreach(lv, i, o)
		if (!strcmp_null(get_str(o, "kernel_release"), k)) {
			out = json_object_get(form, "left_out");
			if (!out) {
				out = json_array();
				if (!out || json_object_set_new(form, "left_out", out))
					return -ENOMEM;
			}
			return json_array_append_new(out, json_pack("{s:s, s:s?, s:s, s:s}",
				"host", get_str(g, "host"), "kernel", k, "driver", label,
				"same_as", get_str(o, "host"))) ? -ENOMEM : 0;
		}
	return json_array_append(lv, (json_t *)g) ? -ENOMEM : 0;
}

/* The drivers form: columns the kernels in first-seen order, rows drivers_rows. */
static int form_drivers(const json_t *report, json_t *form, const char *metric,
			const char *subject, int repeat)
{
	json_t *cols = json_object_get(form, "columns");
	json_t *labels = json_object(), *kernels = json_object(), *lv;
	const json_t *g;
	const char *k;
	char *label;
	size_t i;
	int err = -ENOMEM;

	if (!labels || !kernels)
		goto out;
	json_array_foreach(json_object_get(report, "groups"), i, g) {
		k = get_str(g, "kernel_release") ? get_str(g, "kernel_release") : "-";
		if (!json_object_get(kernels, k) &&
		    (json_object_set_new(kernels, k, json_true()) ||
		     json_array_append_new(cols, json_pack("{s:s, s:s}", "title", k,
							   "kernel", k))))
			goto out;
		label = drivers_label(report, g);
		lv = label ? json_object_get(labels, label) : NULL;
		if (label && !lv && !json_object_set_new(labels, label, json_array()))
			lv = json_object_get(labels, label);
		err = lv ? drivers_file_group(form, lv, g, label) : -ENOMEM;
		free(label);
		if (err)
			goto out;
		err = -ENOMEM;
	}
	err = drivers_rows(report, form, labels, kernels, metric, subject, repeat);
out:
	json_decref(labels);
	json_decref(kernels);
	return err;
}

/* The one subject of METRIC in SUBJECTS that every variant measured in every group
 * (variants without any sample there aside): the receiving port of a drivers form of
 * rx.ns_per_frame, whose variants add the ports of their XDP programs. NULL when not
 * exactly one. */
static const char *common_subject(const json_t *report, const char *metric,
				  const json_t *subjects)
{
	const char *subj, *found = NULL;
	const json_t *g, *v, *sec, *row;
	json_t *idx;
	size_t i, j, k;
	bool all;

	json_object_foreach((json_t *)subjects, subj, idx) {
		all = true;
		json_array_foreach(json_object_get(report, "groups"), i, g) {
			sec = group_section(g, metric);
			json_array_foreach(json_object_get(report, "variants"), j, v) {
				bool any = false;

				json_array_foreach(json_object_get(sec, "rows"), k, row)
					if (!strcmp(get_str(row, "variant"), json_string_value(v)) &&
					    get_str(row, "subject"))
						any = true;
				if (sec && any && !section_row(sec, json_string_value(v), subj))
					all = false;
			}
		}
		if (all && found)
			return NULL;
		if (all)
			found = subj;
	}
	return found;
}

/* The subject of a grid or drivers FORM of METRIC, whose subjects are SUBJECTS:
 * *SUBJECT when given, else the metric's only one; with several and none chosen NULL
 * when PER_VARIANT (drivers of prog.ns_per_run: each variant's first XDP program).
 * Returns 0 or -EINVAL with a message in ERR (several subjects and none chosen, or one
 * the run does not have). */
static int form_subject(const json_t *subjects, const char *form, const char *metric,
			bool per_variant, const char **subject, char *err, size_t err_len)
{
	char list[512] = "";
	const char *k;
	json_t *v;

	if (!*subject && json_object_size(subjects) == 1)
		*subject = json_object_iter_key(json_object_iter((json_t *)subjects));
	if (!*subject && json_object_size(subjects) > 1 && !per_variant) {
		json_object_foreach((json_t *)subjects, k, v)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 *list ? ", " : "", k);
		snprintf(err, err_len, "form '%s' needs --subject for '%s' (one of: %s)",
			 form, metric, list);
		return -EINVAL;
	}
	if (*subject && json_object_size(subjects) && !json_object_get(subjects, *subject)) {
		snprintf(err, err_len, "the run has no '%s' samples of subject '%s'", metric,
			 *subject);
		return -EINVAL;
	}
	return 0;
}

/* The first group's section of METRIC in REPORT (its unit and window are the form's),
 * or NULL. */
static const json_t *first_section(const json_t *report, const char *metric)
{
	const json_t *g, *sec;
	size_t i;

	json_array_foreach(json_object_get(report, "groups"), i, g)
		if ((sec = group_section(g, metric)))
			return sec;
	return NULL;
}

json_t *report_form_build(const json_t *report, const char *form_name, const char *metric,
			  const char *subject, char *err, size_t err_len)
{
	json_t *form = NULL, *subjects = NULL;
	int repeat = get_int(report, "repeat"), ret = -EINVAL;
	bool grid, cpumap, drivers;
	const char *unit, *window;
	const json_t *sec;

	snprintf(err, err_len, "out of memory");
	grid = !strcmp(form_name, "grid");
	cpumap = !strcmp(form_name, "cpumap");
	drivers = !strcmp(form_name, "drivers");
	if (!grid && !cpumap && !drivers && strcmp(form_name, "columns")) {
		snprintf(err, err_len,
			 "unknown form '%s' (expected table, grid, columns, cpumap or drivers)",
			 form_name);
		goto fail;
	}
	if (!metric && drivers) {
		metric = DRIVERS_METRIC_DEFAULT;
		subjects = metric_subjects(report, metric);
		if (subjects && !json_object_size(subjects)) {
			json_decref(subjects);
			metric = NS_METRIC;
			subjects = NULL;
		}
	} else if (!metric) {
		metric = FORM_METRIC_DEFAULT;
		subjects = metric_subjects(report, metric);
		if (subjects && !json_object_size(subjects) && !cpumap) {
			json_decref(subjects);
			metric = "port.rx_pps";
			subjects = NULL;
		}
	}
	if (!subjects)
		subjects = metric_subjects(report, metric);
	if (!subjects) {
		ret = -ENOMEM;
		goto fail;
	}
	if (!json_object_size(subjects) &&
	    (drivers || json_array_size(json_object_get(report, "groups")))) {
		snprintf(err, err_len, "the run has no '%s' samples", metric);
		goto fail;
	}
	if (cpumap && (!json_object_get(subjects, "rx_src") || !json_object_get(subjects, "rx_dst"))) {
		snprintf(err, err_len, "form 'cpumap' needs '%s' subjects 'rx_src' and 'rx_dst' (the counters of bpf/xdp_cpumap.bpf.c)",
			 metric);
		goto fail;
	}
	if (drivers && !subject && json_object_size(subjects) > 1 && port_metric(metric))
		subject = common_subject(report, metric, subjects);
	if ((grid || drivers) &&
	    (ret = form_subject(subjects, form_name, metric, drivers && !strcmp(metric, NS_METRIC),
				&subject, err, err_len)))
		goto fail;
	sec = first_section(report, metric);
	unit = get_str(sec, "unit");
	window = get_str(sec, "window");
	form = json_pack("{s:s, s:O?, s:O?, s:O?, s:O?, s:i, s:s, s:s?, s:s?, s:s?, s:[]}",
			 "form", form_name, "run", json_object_get(report, "run"),
			 "plan", json_object_get(report, "plan"),
			 "plan_sha256", json_object_get(report, "plan_sha256"),
			 "state", json_object_get(report, "state"), "repeat", repeat,
			 "metric", metric, "subject", grid || drivers ? subject : NULL, "unit", unit,
			 "window", window, "columns");
	if (!form) {
		ret = -ENOMEM;
		goto fail;
	}
	if (json_object_get(report, "verdict_details") &&
	    json_object_set(form, "verdict_details", json_object_get(report, "verdict_details"))) {
		ret = -ENOMEM;
		goto fail;
	}
	if (grid || drivers) {
		if (json_object_set_new(form, "rows", json_array())) {
			ret = -ENOMEM;
			goto fail;
		}
		ret = grid ? form_grid(report, form, metric, subject, repeat)
			   : form_drivers(report, form, metric, subject, repeat);
	} else {
		ret = form_by_variant(report, form, metric, subjects, cpumap, repeat);
	}
	if (ret)
		goto fail;
	json_decref(subjects);
	return form;
fail:
	json_decref(subjects);
	json_decref(form);
	errno = -ret;
	return NULL;
}

/* A grid cell: the mean as netdev writes rates (9.1M), then the verdict markers of all
 * its repetitions. */
static void grid_num(char *buf, size_t len, const json_t *cell, bool rate, char *marks,
		     size_t marks_len)
{
	const json_t *mean = json_object_get(cell, "mean"), *v;
	double x = json_number_value(mean);
	size_t r;

	if (!json_is_number(mean) || !isfinite(x)) {
		snprintf(buf, len, "-");
	} else if (rate) {
		struct num_fmt f = { 1, "", 0 };

		if (fabs(x) >= 1e9)
			f = (struct num_fmt){ 1e9, "G", 1 };
		else if (fabs(x) >= 1e6)
			f = (struct num_fmt){ 1e6, "M", 1 };
		else if (fabs(x) >= 1e3)
			f = (struct num_fmt){ 1e3, "K", 1 };
		report_fmt_num(buf, len, mean, &f);
	} else {
		struct num_fmt f = report_fmt_for(NUM_PLAIN, x);

		report_fmt_num(buf, len, mean, &f);
	}
	json_array_foreach(json_object_get(cell, "verdicts"), r, v) {
		report_add_marks(buf, len, v);
		report_add_marks(marks, marks_len, v);
	}
}

static void form_title(const json_t *form, FILE *out)
{
	const char *metric = get_str(form, "metric"), *subject = get_str(form, "subject");
	const char *window = get_str(form, "window");
	int repeat = get_int(form, "repeat");

	fprintf(out, "%s%s%s  (%s, %s; mean of %d repetition%s)\n", metric,
		subject ? " " : "", subject ? subject : "",
		get_str(form, "unit") && !strcmp(get_str(form, "unit"), "pps") ? "packets/s" :
		(get_str(form, "unit") ? get_str(form, "unit") : "-"),
		!window ? "no window" : !strcmp(window, "rate") ? "bpf_stats off" :
		!strcmp(window, "cost") ? "bpf_stats on" : window, repeat, repeat == 1 ? "" : "s");
}

/* A form's text table: NC columns whose texts of up to W - 1 bytes are written into
 * cell() and added row by row, and the verdict markers of its numbers. */
struct form_table {
	struct tt_table t;
	char *buf;			/* NC cells of W bytes, zeroed for each row */
	const char **cells;		/* into BUF */
	size_t nc, w;
	char marks[16];
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
		snprintf(form_table_cell(ft, j + n_first), ft->w, "%s", get_str(col, "title"));
	return form_table_add(ft);
}

/* The table, then the legend of its markers from FORM's "verdict_details". */
static void form_table_print(const struct form_table *ft, const json_t *form, FILE *out)
{
	tt_table_print(&ft->t, out);
	report_print_legend(ft->marks, json_object_get(form, "verdict_details"), out);
}

static void form_table_release(struct form_table *ft)
{
	tt_table_release(&ft->t);
	free(ft->cells);
	free(ft->buf);
}

/* The grid: Version | Test | a column per variant, left-aligned; cells hold at most
 * CELL - 1 bytes, as the texts of print_section do. */
static int print_grid(const json_t *form, FILE *out)
{
	static const char *const first[] = { "Version", "Test" };
	const json_t *cols = json_object_get(form, "columns"), *row, *col;
	bool rate = get_str(form, "unit") && !strcmp(get_str(form, "unit"), "pps");
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
		snprintf(form_table_cell(&ft, 0), CELL, "%s", get_str(row, "version"));
		snprintf(form_table_cell(&ft, 1), CELL, "%s", get_str(row, "test"));
		json_array_foreach(json_object_get(row, "cells"), j, col)
			if (j + 2 < nc)
				grid_num(form_table_cell(&ft, j + 2), CELL, col, rate, ft.marks,
					 sizeof(ft.marks));
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
 * spread in format F, then the markers of its verdicts (added to MARKS, MARKS_LEN
 * bytes, too). */
static void by_variant_cell_text(char *buf, const json_t *cell, struct num_fmt f, char *marks,
				 size_t marks_len)
{
	struct row_text rt = { .variant = NULL };
	const json_t *v;
	size_t r;

	report_mean_texts(cell, f, &rt);
	snprintf(buf, FCELL, "%s%s%s", rt.mean, *rt.spread ? " ± " : "", rt.spread);
	json_array_foreach(json_object_get(cell, "verdicts"), r, v) {
		report_add_marks(buf, FCELL, v);
		report_add_marks(marks, marks_len, v);
	}
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
		snprintf(form_table_cell(&ft, 0), FCELL, "%s", get_str(row, "variant"));
		json_array_foreach(json_object_get(row, "cells"), j, cell)
			if (j < nc)
				by_variant_cell_text(form_table_cell(&ft, j + 1), cell, f, ft.marks,
						     sizeof(ft.marks));
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
	const char *unit = get_str(form, "unit"), *host = NULL;
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
		if (!host || strcmp(host, get_str(g, "host"))) {
			fprintf(out, "\nhost %s", get_str(g, "host"));
			if (get_str(g, "kernel_release"))
				fprintf(out, "  kernel %s", get_str(g, "kernel_release"));
			fputc('\n', out);
			host = get_str(g, "host");
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
	const char *metric = get_str(form, "metric"), *subject = get_str(form, "subject");
	const char *window = get_str(form, "window");
	int repeat = get_int(form, "repeat");

	fprintf(out, "%s%s%s  (%s", metric, subject ? " " : "", subject ? subject : "",
		drivers_what(metric, get_str(form, "unit")));
	if (window && !strcmp(window, "cost"))
		fputs(", bpf_stats on", out);
	else if (window && strcmp(window, "rate"))
		fprintf(out, ", window %s", window);
	fprintf(out, "; mean of %d repetition%s%s)\n", repeat, repeat == 1 ? "" : "s",
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

	if (get_str(form, "subject"))
		return;
	json_array_foreach(rows, i, row) {
		const char *v = get_str(row, "variant"), *subj = get_str(row, "subject");

		for (j = 0; j < i; j++) {
			o = json_array_get(rows, j);
			if (!strcmp(get_str(o, "variant"), v) && get_str(o, "subject"))
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
	const char *metric = get_str(form, "metric"), *subject = get_str(form, "subject");
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
	if (port_metric(metric) && subject)
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
	const char *unit = get_str(form, "unit"), *metric = get_str(form, "metric");
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
		const char *driver = get_str(row, "driver");

		if (err)
			goto out;
		snprintf(form_table_cell(&ft, 0), FCELL, "%s",
			 prev && !strcmp(prev, driver) ? "" : driver);
		prev = driver;
		snprintf(form_table_cell(&ft, 1), FCELL, "%s", get_str(row, "variant"));
		json_array_foreach(json_object_get(row, "cells"), j, cell) {
			char *buf = form_table_cell(&ft, j + 2);

			if (j + 2 >= nc)
				break;
			by_variant_cell_text(buf, cell, f, ft.marks, sizeof(ft.marks));
			add_mode_mark(buf, FCELL, get_str(cell, "mode"), seen);
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
			get_str(o, "host"), get_str(o, "driver"),
			get_str(o, "kernel") ? get_str(o, "kernel") : "-", get_str(o, "same_as"));
out:
	form_table_release(&ft);
	return err;
}

int report_form_print_text(const json_t *form, FILE *out)
{
	int err;

	report_print_run_line(form, out);
	fputc('\n', out);
	if (!strcmp(get_str(form, "form"), "grid"))
		err = print_grid(form, out);
	else if (!strcmp(get_str(form, "form"), "drivers"))
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

// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* report_form.c - report_form_build (report.h): the run
 * report in the other forms netdev posts use. "grid": Version | Test | a column per
 * variant, a row per host and matrix point; "columns": per host and point a row per
 * variant and a column per subject; "cpumap": rx on the source CPU, dropped, rx on the
 * destination CPU; "drivers": a row per NIC driver and variant, a column per kernel, the
 * XDP mode used marked. Built as its own JSON object; report_form_print.c prints it.
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
		if (strcmp(jget_str(sec, "metric", NULL), metric))
			continue;
		if (!found || !strcmp_null(jget_str(sec, "window", NULL), "rate"))
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
			if (subjects && jget_str(row, "subject", NULL) &&
			    report_table_index(subjects, jget_str(row, "subject", NULL)) < 0) {
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
		if (!strcmp(jget_str(row, "variant", NULL), variant) &&
		    !strcmp_null(jget_str(row, "subject", NULL), subject))
			return row;
	return NULL;
}

/* The one wording of an unknown metric (as `result compare` and `history` have it):
 * "no metric 'M' (its metrics: a, b)" with the metrics of REPORT's sections, first
 * measured first, into ERR. */
static void form_unknown_metric(const json_t *report, const char *metric, struct err *err)
{
	const json_t *g, *sec;
	json_t *seen = json_object();
	char text[sizeof(err->msg)];
	size_t i, j, used, len = sizeof(text);

	used = (size_t)snprintf(text, len, "no metric '%s' (its metrics:", metric);
	json_array_foreach(json_object_get(report, "groups"), i, g)
		json_array_foreach(json_object_get(g, "sections"), j, sec) {
			const char *m = jget_str(sec, "metric", NULL);

			if (!m || !seen || json_object_get(seen, m) || used >= len)
				continue;
			json_object_set_new(seen, m, json_true());
			used += snprintf(text + used, len - used, "%s %s",
					 json_object_size(seen) > 1 ? "," : "", m);
		}
	if (used < len)
		snprintf(text + used, len - used, ")");
	err_set(err, "%s", text);
	json_decref(seen);
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
	if (cell && row && json_object_get(row, "details") &&
	    json_object_set_new(cell, "details",
				json_deep_copy(json_object_get(row, "details")))) {
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

		if (!pt || asprintf(&test, "%s on %s%s%s", jget_str(report, "plan", NULL) ?
				    jget_str(report, "plan", NULL) : "-", jget_str(g, "host", NULL),
				    *pt ? ", " : "", pt) < 0) {
			free(pt);
			return -ENOMEM;
		}
		free(pt);
		row = json_pack("{s:s, s:s, s:s, s:O, s:[]}", "version",
				jget_str(g, "kernel_release", NULL) ? jget_str(g, "kernel_release", NULL) : "-",
				"test", test, "host", jget_str(g, "host", NULL), "point",
				json_object_get(g, "point"), "cells");
		free(test);
		if (!row || json_array_append_new(rows, row))
			return -ENOMEM;
		cells = json_object_get(row, "cells");
		json_array_foreach(cols, j, col) {
			json_t *cell = form_cell(sec ? section_row(sec, jget_str(col, "variant", NULL),
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
	if (cell && src && json_object_get(src, "details"))
		json_object_set_new(cell, "details",
				    json_deep_copy(json_object_get(src, "details")));
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
		const char *cs = jget_str(col, "subject", NULL);

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

/* The XDP entries of VARIANT on group G's host and kernel (result hosts[].xdp, in plan
 * order: [{"port", "program", "mode"}]), or NULL. */
static const json_t *group_xdp(const json_t *report, const json_t *g, const char *variant)
{
	const json_t *h = report_host_entry(report, jget_str(g, "host", NULL),
					    jget_str(g, "kernel_release", NULL));

	return json_object_get(json_object_get(h, "xdp"), variant);
}

/* The subject of VARIANT's cell in section SEC: SUBJECT when given, else the program of
 * the variant's first XDP entry in ENTRIES when SEC has it, else the variant's first
 * row's. NULL when none. */
static const char *drivers_subject(const json_t *sec, const json_t *entries,
				   const char *variant, const char *subject)
{
	const char *prog = jget_str(json_array_get(entries, 0), "program", NULL);
	const json_t *row;
	size_t i;

	if (subject)
		return subject;
	if (prog && section_row(sec, variant, prog))
		return prog;
	json_array_foreach(json_object_get(sec, "rows"), i, row)
		if (!strcmp(jget_str(row, "variant", NULL), variant) && jget_str(row, "subject", NULL))
			return jget_str(row, "subject", NULL);
	return NULL;
}

/* The XDP mode a cell of METRIC for SUBJECT marks, from its variant's ENTRIES: for a
 * port metric the mode of the entry on port SUBJECT (none when the port has no XDP
 * program), else the entry of program SUBJECT's, else the first entry's. NULL when
 * unknown. */
static const char *drivers_mode(const json_t *entries, const char *metric, const char *subject)
{
	bool port = report_port_metric(metric);
	const json_t *e;
	size_t i;

	json_array_foreach(entries, i, e)
		if (!strcmp_null(jget_str(e, port ? "port" : "program", NULL), subject))
			return jget_str(e, "mode", NULL);
	return port ? NULL : jget_str(json_array_get(entries, 0), "mode", NULL);
}

/* The driver label of group G: its host's port_driver ("-" when unknown), then its
 * matrix point when it has one. Heap string or NULL. */
static char *drivers_label(const json_t *report, const json_t *g)
{
	const json_t *h = report_host_entry(report, jget_str(g, "host", NULL),
					    jget_str(g, "kernel_release", NULL));
	const char *d = jget_str(h, "port_driver", NULL);
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
	if (cell && (json_object_set_new(cell, "host", g ? json_string(jget_str(g, "host", NULL))
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
					if (!strcmp(jget_str(g, "kernel_release", NULL) ?
						    jget_str(g, "kernel_release", NULL) : "-", kernel))
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
	const char *k = jget_str(g, "kernel_release", NULL);
	const json_t *o;
	json_t *out;
	size_t i;

	json_array_foreach(lv, i, o)
		if (!strcmp_null(jget_str(o, "kernel_release", NULL), k)) {
			out = json_object_get(form, "left_out");
			if (!out) {
				out = json_array();
				if (!out || json_object_set_new(form, "left_out", out))
					return -ENOMEM;
			}
			return json_array_append_new(out, json_pack("{s:s, s:s?, s:s, s:s}",
				"host", jget_str(g, "host", NULL), "kernel", k, "driver", label,
				"same_as", jget_str(o, "host", NULL))) ? -ENOMEM : 0;
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
		k = jget_str(g, "kernel_release", NULL) ? jget_str(g, "kernel_release", NULL) : "-";
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
					if (!strcmp(jget_str(row, "variant", NULL), json_string_value(v)) &&
					    jget_str(row, "subject", NULL))
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
			bool per_variant, const char **subject, struct err *err)
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
		err_set(err, "form '%s' needs --subject for '%s' (one of: %s)",
			 form, metric, list);
		return -EINVAL;
	}
	if (*subject && json_object_size(subjects) && !json_object_get(subjects, *subject)) {
		err_set(err, "the run has no '%s' samples of subject '%s'", metric,
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

/* The fewest repetitions measured in a cell of ROWS that has any (min stays as it is
 * when none has fewer). */
static void rows_fewest_values(const json_t *rows, int *min)
{
	const json_t *row, *cell, *x;
	size_t i, j, k;

	json_array_foreach(rows, i, row)
		json_array_foreach(json_object_get(row, "cells"), j, cell) {
			int n = 0;

			json_array_foreach(json_object_get(cell, "values"), k, x)
				n += !json_is_null(x);
			if (n > 0 && n < *min)
				*min = n;
		}
}

/* "repeat_min" beside "repeat" when some cell of FORM averages fewer repetitions than
 * the run's most (a variant measured again less often, or one that failed): the title
 * says "mean of 3 to 5 repetitions", not 5. */
static int form_repeat_min(json_t *form, int repeat)
{
	const json_t *g;
	int min = repeat;
	size_t i;

	rows_fewest_values(json_object_get(form, "rows"), &min);
	json_array_foreach(json_object_get(form, "groups"), i, g)
		rows_fewest_values(json_object_get(g, "rows"), &min);
	if (min >= repeat)
		return 0;
	return json_object_set_new(form, "repeat_min", json_integer(min)) ? -ENOMEM : 0;
}

json_t *report_form_build(const json_t *report, const char *form_name, const char *metric,
			  const char *subject, struct err *err)
{
	json_t *form = NULL, *subjects = NULL;
	int repeat = (int)jget_int(report, "repeat", 0), ret = -EINVAL;
	bool grid, cpumap, drivers;
	const char *unit, *window;
	const json_t *sec;

	err_set(err, "out of memory");
	grid = !strcmp(form_name, "grid");
	cpumap = !strcmp(form_name, "cpumap");
	drivers = !strcmp(form_name, "drivers");
	if (!grid && !cpumap && !drivers && strcmp(form_name, "columns")) {
		err_set(err, "unknown form '%s' (expected table, grid, columns, cpumap or drivers)",
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
		form_unknown_metric(report, metric, err);
		goto fail;
	}
	if (cpumap && (!json_object_get(subjects, "rx_src") || !json_object_get(subjects, "rx_dst"))) {
		err_set(err, "form 'cpumap' needs '%s' subjects 'rx_src' and 'rx_dst' (the counters of bpf/xdp_cpumap.bpf.c)",
			 metric);
		goto fail;
	}
	if (drivers && !subject && json_object_size(subjects) > 1 && report_port_metric(metric))
		subject = common_subject(report, metric, subjects);
	if ((grid || drivers) &&
	    (ret = form_subject(subjects, form_name, metric, drivers && !strcmp(metric, NS_METRIC),
				&subject, err)))
		goto fail;
	sec = first_section(report, metric);
	unit = jget_str(sec, "unit", NULL);
	window = jget_str(sec, "window", NULL);
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
	if (!ret)
		ret = form_repeat_min(form, repeat);
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


// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* report_verifier.c - see report_verifier.h: the per-program verifier report of a run
 * from its values and jobs, and its veristat-style table. */
#include "report/report_verifier.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/texttable.h"
#include "base/util.h"

/* The load figures, in the order the JSON lists them; the first LABELLED are the
 * table's columns. */
static const struct {
	const char *metric;
	const char *label;
} figures[] = {
	{ "verifier.insns", "Insns" },
	{ "verifier.total_states", "States" },
	{ "prog.jited_bytes", "Jited" },
	{ "prog.xlated_insns", NULL },
	{ "verifier.processed_insns", NULL },
	{ "verifier.peak_states", NULL },
	{ "verifier.time_us", NULL },
};
#define N_FIGURES (sizeof(figures) / sizeof(figures[0]))
#define LOAD_FAILED "cannot load program '"

static int figure_index(const char *metric)
{
	size_t i;

	for (i = 0; metric && i < N_FIGURES; i++)
		if (!strcmp(figures[i].metric, metric))
			return (int)i;
	return -1;
}

const char *report_verifier_diff(double a, double b, char *out, size_t len)
{
	char d[32];

	if (isnan(a) || isnan(b)) {
		snprintf(out, len, "-");
		return out;
	}
	/* whole figures as veristat prints them; a mean that is not whole with a decimal */
	snprintf(d, sizeof(d), b - a == floor(b - a) ? "%+.0f" : "%+.1f", b - a);
	if (a == 0 && b != 0)
		snprintf(out, len, "%s (n/a)", d);
	else
		snprintf(out, len, "%s (%+.2f%%)", d, a == 0 ? 0.0 : (b - a) / fabs(a) * 100);
	return out;
}

/* The index of NAME in array GROUPS, appended when new; -1 when out of memory. */
static int group_index(json_t *groups, const char *name)
{
	const json_t *g;
	size_t i;

	json_array_foreach(groups, i, g)
		if (!strcmp(json_string_value(g), name))
			return (int)i;
	return json_array_append_new(groups, json_string(name)) ? -1 :
	       (int)json_array_size(groups) - 1;
}

/* The accumulator of PROGRAM of VARIANT in group G: {"jobs": {job id: true} (those
 * with figures), "failed", "error"?, METRIC: [values]}, made (with the program's entry in PROGS) when missing. */
static json_t *acc_get(json_t *progs, const char *variant, const char *program,
		       const char *g)
{
	json_t *p = NULL, *by, *acc;
	size_t i;

	json_array_foreach(progs, i, p)
		if (!strcmp(json_string_value(json_object_get(p, "variant")), variant) &&
		    !strcmp(json_string_value(json_object_get(p, "program")), program))
			break;
	if (i == json_array_size(progs)) {
		p = json_pack("{s:s, s:s, s:{}}", "variant", variant, "program", program, "acc");
		if (!p || json_array_append_new(progs, p))
			return NULL;
	}
	by = json_object_get(p, "acc");
	acc = json_object_get(by, g);
	if (!acc) {
		acc = json_pack("{s:{}, s:i}", "jobs", "failed", 0);
		if (!acc || json_object_set_new(by, g, acc))
			return NULL;
	}
	return acc;
}

static void count(json_t *acc, const char *key)
{
	json_object_set_new(acc, key, json_integer(json_integer_value(json_object_get(acc, key)) + 1));
}

/* The group of failed job J: the field itself where the job has it, else the group of a
 * value of the same host and kernel, else its kernel. */
static const char *job_group(const json_t *j, const json_t *values, const char *by)
{
	const char *host = json_string_value(json_object_get(j, "host")) ?: "";
	const char *kr = json_string_value(json_object_get(j, "kernel_release"));
	const json_t *r;
	size_t i;

	if (!strcmp(by, "kernel.release") && kr)
		return kr;
	if (!strcmp(by, "host"))
		return host;
	if (!strcmp(by, "variant"))
		return json_string_value(json_object_get(j, "variant")) ?: "";
	json_array_foreach(values, i, r) {
		const char *rk = json_string_value(json_object_get(r, "kernel_release"));

		if (!strcmp(json_string_value(json_object_get(r, "host")) ?: "", host) &&
		    rk && kr && !strcmp(rk, kr))
			return json_string_value(json_object_get(r, "group")) ?: "";
	}
	return kr ? kr : "?";
}

/* Count failed job J's program (named by its error) as a failure, in every entry of its
 * variant that is that program (or "program@role"), or a new one. */
static int add_failure(json_t *progs, json_t *groups, const json_t *j, const char *g)
{
	const char *err = json_string_value(json_object_get(j, "error"));
	const char *variant = json_string_value(json_object_get(j, "variant")) ?: "";
	const char *s = err ? strstr(err, LOAD_FAILED) : NULL, *e;
	char name[256];
	json_t *p, *acc;
	size_t i, n;
	bool found = false;

	if (!s)
		return 0;
	s += strlen(LOAD_FAILED);
	e = strchr(s, '\'');
	n = e ? (size_t)(e - s) : 0;
	if (!n || n >= sizeof(name))
		return 0;
	memcpy(name, s, n);
	name[n] = '\0';
	if (group_index(groups, g) < 0)
		return -ENOMEM;
	json_array_foreach(progs, i, p) {
		const char *prog = json_string_value(json_object_get(p, "program"));

		if (strcmp(json_string_value(json_object_get(p, "variant")), variant) ||
		    strncmp(prog, name, n) || (prog[n] && prog[n] != '@'))
			continue;
		found = true;
		acc = acc_get(progs, variant, prog, g);
		if (!acc)
			return -ENOMEM;
		count(acc, "failed");
		if (!json_object_get(acc, "error"))
			json_object_set_new(acc, "error", json_string(err));
	}
	if (found)
		return 0;
	acc = acc_get(progs, variant, name, g);
	if (!acc)
		return -ENOMEM;
	count(acc, "failed");
	return json_object_set_new(acc, "error", json_string(err)) ? -ENOMEM : 0;
}

/* ACC of one group as the report's cell: {"group", "verdict", "n", "values", "varies"}. */
static json_t *cell(const char *g, const json_t *acc)
{
	json_t *c = json_pack("{s:s, s:{}, s:[]}", "group", g, "values", "varies");
	long long ok = (long long)json_object_size(json_object_get(acc, "jobs"));
	long long failed = json_integer_value(json_object_get(acc, "failed"));
	const char *verdict = !acc ? "unknown" : !failed ? "success" : !ok ? "failure" : "mixed";
	size_t k, i, n = 0;

	if (!c)
		return NULL;
	json_object_set_new(c, "verdict", json_string(verdict));
	for (k = 0; acc && k < N_FIGURES; k++) {
		const json_t *vals = json_object_get(acc, figures[k].metric), *v;
		double sum = 0, lo = INFINITY, hi = -INFINITY;

		if (!json_array_size(vals))
			continue;
		json_array_foreach(vals, i, v) {
			double x = json_number_value(v);

			sum += x;
			lo = x < lo ? x : lo;
			hi = x > hi ? x : hi;
		}
		n = json_array_size(vals) > n ? json_array_size(vals) : n;
		json_object_set_new(json_object_get(c, "values"), figures[k].metric,
				    json_real(sum / (double)json_array_size(vals)));
		if (hi > lo)
			json_array_append_new(json_object_get(c, "varies"),
					      json_string(figures[k].metric));
	}
	json_object_set_new(c, "n", json_integer((json_int_t)n));
	if (acc && json_object_get(acc, "error"))
		json_object_set(c, "error", json_object_get(acc, "error"));
	return c;
}

/* The program entry P (with "acc") as the report has it. */
static json_t *finish(const json_t *p, const json_t *groups)
{
	json_t *out, *cells, *diff, *first = NULL, *last = NULL, *g;
	const char *verdict = NULL;
	bool mismatch = false, unknown = false;
	size_t i, k;

	out = json_pack("{s:O, s:O, s:[], s:{}}", "variant", json_object_get(p, "variant"),
			"program", json_object_get(p, "program"), "groups", "diff");
	if (!out)
		return NULL;
	cells = json_object_get(out, "groups");
	json_array_foreach(groups, i, g) {
		const char *name = json_string_value(g);
		json_t *c = cell(name, json_object_get(json_object_get(p, "acc"), name));
		const char *v;

		if (!c || json_array_append_new(cells, c)) {
			json_decref(out);
			return NULL;
		}
		v = json_string_value(json_object_get(c, "verdict"));
		if (!strcmp(v, "unknown"))
			unknown = true;
		else if (verdict && strcmp(verdict, v))
			mismatch = true;
		else
			verdict = v;
		if (!first)
			first = c;
		last = c;
	}
	json_object_set_new(out, "verdict", json_string(mismatch ? "MISMATCH" :
							 unknown || !verdict ? "N/A" : "MATCH"));
	diff = json_object_get(out, "diff");
	for (k = 0; first && last != first && k < N_FIGURES; k++) {
		const json_t *a = json_object_get(json_object_get(first, "values"), figures[k].metric);
		const json_t *b = json_object_get(json_object_get(last, "values"), figures[k].metric);
		double va = json_number_value(a), vb = json_number_value(b);

		if (!a || !b)
			continue;
		json_object_set_new(diff, figures[k].metric,
				    json_pack("{s:f, s:f, s:f, s:o}", "a", va, "b", vb, "delta", vb - va,
					      "pct", va != 0 ? json_real((vb - va) / fabs(va) * 100) :
					      json_null()));
	}
	return out;
}

json_t *report_verifier_build(const json_t *values, const json_t *jobs, const char *by,
			      struct err *err)
{
	json_t *groups = json_array(), *progs = json_array(), *out = NULL, *list, *p;
	const json_t *r;
	size_t i;

	if (!groups || !progs)
		goto oom;
	json_array_foreach(values, i, r) {
		const char *metric = json_string_value(json_object_get(r, "metric"));
		const char *g = json_string_value(json_object_get(r, "group")) ?: "";
		json_t *acc, *vals;
		char jid[32];

		if (figure_index(metric) < 0 || !json_is_number(json_object_get(r, "value")))
			continue;
		if (group_index(groups, g) < 0)
			goto oom;
		acc = acc_get(progs, json_string_value(json_object_get(r, "variant")) ?: "",
			      json_string_value(json_object_get(r, "subject")) ?: "", g);
		if (!acc)
			goto oom;
		vals = json_object_get(acc, metric);
		if (!vals) {
			vals = json_array();
			if (!vals || json_object_set_new(acc, metric, vals))
				goto oom;
		}
		if (json_array_append(vals, json_object_get(r, "value")))
			goto oom;
		snprintf(jid, sizeof(jid), "%lld",
			 (long long)json_integer_value(json_object_get(r, "job")));
		if (json_object_set_new(json_object_get(acc, "jobs"), jid, json_true()))
			goto oom;
	}
	json_array_foreach(jobs, i, r) {
		if (strcmp(json_string_value(json_object_get(r, "state")) ?: "", "failed"))
			continue;
		if (add_failure(progs, groups, r, job_group(r, values, by)))
			goto oom;
	}
	if (!json_array_size(progs)) {
		err_set(err, "the run has no load figures (%s, ...) and no load failure",
			 figures[0].metric);
		goto out;
	}
	out = json_pack("{s:s, s:O, s:[]}", "by", by, "groups", groups, "programs");
	if (!out)
		goto oom;
	list = json_object_get(out, "programs");
	json_array_foreach(progs, i, p) {
		json_t *f = finish(p, groups);

		if (!f || json_array_append_new(list, f))
			goto oom;
	}
	goto out;
oom:
	err_set(err, "out of memory");
	json_decref(out);
	out = NULL;
out:
	json_decref(groups);
	json_decref(progs);
	return out;
}

/* A figure as the table prints it: a whole number (a mean that is not: one decimal),
 * '*' when the repetitions differ. */
static void figure_text(const json_t *c, const char *metric, char *out, size_t len)
{
	const json_t *v = json_object_get(json_object_get(c, "values"), metric), *m;
	bool varies = false;
	size_t i;

	json_array_foreach(json_object_get(c, "varies"), i, m)
		varies |= !strcmp(json_string_value(m), metric);
	if (!v)
		snprintf(out, len, "-");
	else
		snprintf(out, len, json_number_value(v) == floor(json_number_value(v)) ? "%.0f%s" :
			 "%.1f%s", json_number_value(v), varies ? "*" : "");
}

/* Whether any program of REPORT has METRIC in some group. */
static bool has_figure(const json_t *report, const char *metric)
{
	const json_t *p, *c;
	size_t i, j;

	json_array_foreach(json_object_get(report, "programs"), i, p)
		json_array_foreach(json_object_get(p, "groups"), j, c)
			if (json_object_get(json_object_get(c, "values"), metric))
				return true;
	return false;
}

static char letter(size_t g)
{
	return (char)('A' + (g % 26));
}

int report_verifier_print_text(const json_t *report, FILE *out)
{
	const json_t *groups = json_object_get(report, "groups"), *g, *p, *c;
	size_t n_groups = json_array_size(groups), i, j, k;
	bool shown[N_FIGURES] = { false }, varies = false;
	const char **head = NULL, **row = NULL;
	char (*cells)[64] = NULL;
	struct tt_table t = { 0 };
	int n_cols = 2, col, ret = -ENOMEM;

	fprintf(out, "verifier by %s\n", json_string_value(json_object_get(report, "by")));
	json_array_foreach(groups, i, g)
		fprintf(out, "  %c  %s\n", letter(i), json_string_value(g));
	for (k = 0; k < N_FIGURES; k++) {
		shown[k] = figures[k].label && has_figure(report, figures[k].metric);
		if (shown[k])
			n_cols += (int)n_groups + (n_groups > 1);
	}
	n_cols += (int)n_groups + 1;
	head = calloc((size_t)n_cols, sizeof(*head));
	row = calloc((size_t)n_cols, sizeof(*row));
	cells = calloc((size_t)n_cols, sizeof(*cells));
	if (!head || !row || !cells)
		goto out;
	head[0] = "Variant";
	head[1] = "Program";
	col = 2;
	for (k = 0; k < N_FIGURES; k++) {
		if (!shown[k])
			continue;
		for (i = 0; i < n_groups; i++) {
			snprintf(cells[col], sizeof(cells[col]), ">%s (%c)", figures[k].label, letter(i));
			head[col] = cells[col];
			col++;
		}
		if (n_groups > 1) {
			snprintf(cells[col], sizeof(cells[col]), ">%s (DIFF)", figures[k].label);
			head[col] = cells[col];
			col++;
		}
	}
	for (i = 0; i < n_groups; i++) {
		snprintf(cells[col], sizeof(cells[col]), "Verdict (%c)", letter(i));
		head[col] = cells[col];
		col++;
	}
	head[col] = "Verdict";
	if (tt_table_init(&t, n_cols, head))
		goto out;
	json_array_foreach(json_object_get(report, "programs"), j, p) {
		const json_t *cs = json_object_get(p, "groups");

		row[0] = json_string_value(json_object_get(p, "variant"));
		row[1] = json_string_value(json_object_get(p, "program"));
		col = 2;
		for (k = 0; k < N_FIGURES; k++) {
			const json_t *d = json_object_get(json_object_get(p, "diff"), figures[k].metric);

			if (!shown[k])
				continue;
			json_array_foreach(cs, i, c) {
				figure_text(c, figures[k].metric, cells[col], sizeof(cells[col]));
				varies |= strchr(cells[col], '*') != NULL;
				row[col] = cells[col];
				col++;
			}
			if (n_groups > 1) {
				report_verifier_diff(d ? json_number_value(json_object_get(d, "a")) : NAN,
						     d ? json_number_value(json_object_get(d, "b")) : NAN,
						     cells[col], sizeof(cells[col]));
				row[col] = cells[col];
				col++;
			}
		}
		json_array_foreach(cs, i, c)
			row[col++] = json_string_value(json_object_get(c, "verdict"));
		row[col] = json_string_value(json_object_get(p, "verdict"));
		if (tt_table_add(&t, row))
			goto out;
	}
	tt_table_print(&t, out);
	if (varies)
		fprintf(out, "* the repetitions differ: their mean\n");
	json_array_foreach(json_object_get(report, "programs"), j, p)
		json_array_foreach(json_object_get(p, "groups"), i, c)
			if (json_object_get(c, "error"))
				fprintf(out, "%c %s %s: %s\n", letter(i),
					json_string_value(json_object_get(p, "variant")),
					json_string_value(json_object_get(p, "program")),
					json_string_value(json_object_get(c, "error")));
	ret = ferror(out) ? -EIO : 0;
out:
	tt_table_release(&t);
	free(head);
	free(row);
	free(cells);
	return ret;
}

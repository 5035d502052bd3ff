// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* analysis_history.c - analysis_history (analysis.h): the groups of each series in
 * history order (first appearance, or by date for "day"), their statistics and delta
 * from the first, and the level shifts changepoint_find sees in the series of single
 * values. Single-threaded per call; no global state.
 */
#include "analysis/analysis.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_int.h"
#include "analysis/changepoint.h"
#include "analysis/stats.h"
#include "base/util.h"

/* The group names of SIDES in history order: first appearance, or sorted for "day". */
static const char **group_order(const json_t *sides, const char *by, size_t *n)
{
	const char **g = calloc(json_object_size(sides) + 1, sizeof(*g)), *k;
	json_t *v;

	*n = 0;
	if (!g)
		return NULL;
	json_object_foreach((json_t *)sides, k, v)
		g[(*n)++] = k;
	if (!strcmp(by, "day"))
		qsort(g, *n, sizeof(*g), analysis_cmp_str);
	return g;
}

static json_t *history_series(struct series_set *set, const struct series *key,
			      const char **groups, size_t n_groups)
{
	enum stats_kind kind = stats_kind_for_unit(key->unit);
	json_t *o, *points, *changes;
	double *all = NULL, first = NAN;
	size_t *owner = NULL, n_all = 0, i, k, n_cp = 0;
	struct changepoint *cp = NULL;
	struct stats_summary sum;
	struct series *s;
	int e = 0;

	points = json_array();
	changes = json_array();
	o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o}", "metric", key->metric,
		      "point", key->point, "variant", key->variant, "subject", key->subject,
		      "unit", key->unit, "kind", stats_kind_name(kind), "points", points,
		      "changes", changes);
	if (!o)
		return NULL;
	for (i = 0; i < n_groups; i++) {
		s = analysis_find_in(set, key, groups[i], true);
		if (s)
			n_all += s->n;
	}
	all = calloc(n_all + 1, sizeof(*all));
	owner = calloc(n_all + 1, sizeof(*owner));
	if (!all || !owner)
		goto fail;
	n_all = 0;
	for (i = 0; i < n_groups; i++) {
		double mean;
		json_t *p;

		s = analysis_find_in(set, key, groups[i], true);
		if (!s)
			continue;
		for (k = 0; k < s->n; k++) {
			all[n_all] = s->v[k];
			owner[n_all++] = json_array_size(points);
		}
		if (stats_summarize(s->v, s->n, &sum))
			goto fail;
		mean = stats_kind_mean(kind, s->v, s->n);
		if (isnan(first))
			first = mean;
		p = json_pack("{s:s, s:I}", "group", groups[i], "n", (json_int_t)s->n);
		if (!p || json_array_append_new(points, p))
			goto fail;
		json_object_set_new(p, "mean", analysis_num(mean));
		json_object_set_new(p, "stddev", analysis_num(sum.stddev));
		json_object_set_new(p, "spread", analysis_num(sum.spread));
		json_object_set_new(p, "min", analysis_num(sum.min));
		json_object_set_new(p, "max", analysis_num(sum.max));
		json_object_set_new(p, "delta_pct", analysis_num(first != 0 ? 100 * (mean - first) / first : NAN));
	}
	if (n_all <= CHANGEPOINT_MAX_N) {
		e = changepoint_find(all, n_all, NULL, &cp, &n_cp);
		if (e)
			goto fail;
	}
	for (i = 0; i < n_cp; i++) {
		size_t at = owner[cp[i].index];
		bool within = cp[i].index > 0 && owner[cp[i].index - 1] == at;
		json_t *before = json_object_get(json_array_get(points, within ? at : at - 1), "group");
		json_t *after = json_object_get(json_array_get(points, at), "group");
		json_t *c = json_pack("{s:I, s:O, s:O, s:b, s:f, s:f}", "index",
				      (json_int_t)cp[i].index, "before", before, "after", after,
				      "within", within, "stat", cp[i].stat, "p", cp[i].p);

		if (!c || json_array_append_new(changes, c))
			goto fail;
	}
	free(cp);
	free(all);
	free(owner);
	return o;
fail:
	free(cp);
	free(all);
	free(owner);
	json_decref(o);
	return NULL;
}

json_t *analysis_history(const json_t *rows, const char *by, const struct analysis_opts *opts,
			 struct err *err)
{
	struct analysis_input in = { .set = { 0 } };
	json_t *series = NULL, *report = NULL, *one, *garr;
	const char **groups = NULL;
	size_t n_groups = 0, i, k;
	int e;

	if (!by)
		by = "kernel.release";
	e = analysis_input_read(&in, rows, "", opts, false, "for this history", err);
	if (e)
		goto out;
	series = json_array();
	if (!series) {
		e = err_ret(err, -ENOMEM, "out of memory");
		goto out;
	}
	groups = group_order(in.sides, by, &n_groups);
	if (!groups) {
		e = err_ret(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < in.set.n; i++) {
		/* one series per key, at its first group's entry */
		for (k = 0; k < i; k++)
			if (analysis_same_key(&in.set.s[k], &in.set.s[i], true))
				break;
		if (k < i)
			continue;
		one = history_series(&in.set, &in.set.s[i], groups, n_groups);
		if (!one || json_array_append_new(series, one)) {
			e = err_ret(err, -ENOMEM, "cannot build the history series");
			goto out;
		}
	}
	garr = json_array();
	for (i = 0; garr && i < n_groups; i++)
		json_array_append(garr, json_object_get(in.sides, groups[i]));
	report = json_pack("{s:s, s:o, s:O, s:o}", "by", by, "groups", garr, "series", series,
			   "excluded", analysis_excluded_json(&in.x, opts && opts->include_flagged));
out:
	free(groups);
	json_decref(series);
	return analysis_input_finish(&in, report, e, err);
}

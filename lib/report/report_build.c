// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* report_build.c - report_build (report.h): a result's samples into the report object.
 *
 * Building works on jansson values only: each sample is filed into its group (host,
 * matrix point), section (metric, window) and row (variant, subject), found through a
 * hash (a JSON object keyed by the indexes: "_groups" of the tables, "_secs" of a group,
 * "_rows" of a section) and appended; each array is sorted once at the end (qsort), so
 * that the object comes out in presentation order in O(n log n) for n samples (an
 * insert at the sorted place after a walk was quadratic: 40,000 variants took minutes).
 * While building, groups and rows carry private integer members ("_h", "_p", "_v",
 * "_s": indexes into first-seen tables) that are removed before the object is returned.
 *
 * Orders: hosts as the result lists them, then others as seen; points, subjects as first
 * seen in the samples; variants in plan order (the result's "variants"); metrics
 * port.rx_pps, port.tx_pps, port.drop_pps, gen.tx_pps, prog.ns_per_run, prog.run_pps,
 * then the others by name; window rate before cost.
 */
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/noise.h"
#include "report/report_int.h"
#include "analysis/stats.h"
#include "base/util.h"

static const char *const metric_order[] = {
	"port.rx_pps", "port.tx_pps", "port.drop_pps", "gen.tx_pps", NS_METRIC,
	"prog.run_pps",
};

static int metric_rank(const char *metric)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(metric_order); i++)
		if (!strcmp(metric, metric_order[i]))
			return (int)i;
	return (int)ARRAY_SIZE(metric_order);
}

static int window_rank(const char *window)
{
	if (!window)
		return 3;
	if (!strcmp(window, "rate"))
		return 0;
	if (!strcmp(window, "cost"))
		return 1;
	return 2;
}

int report_table_index(json_t *table, const char *key)
{
	json_t *v = json_object_get(table, key);
	int idx;

	if (v)
		return (int)json_integer_value(v);
	idx = (int)json_object_size(table);
	if (json_object_set_new(table, key, json_integer(idx)))
		return -ENOMEM;
	return idx;
}

/* Identity of a matrix point: "" without a matrix, else its compact JSON with sorted
 * keys. Heap string or NULL. */
static char *point_key(const json_t *point)
{
	if (!json_is_object(point) || !json_object_size(point))
		return strdup("");
	return json_dumps(point, JSON_COMPACT | JSON_SORT_KEYS);
}

/* Append ITEM (stolen) to ARR and file it under KEY in MAP (a JSON object used as a
 * hash). Returns 0 or -ENOMEM. */
static int add_keyed(json_t *arr, json_t *map, const char *key, json_t *item)
{
	if (json_object_set(map, key, item))
		return json_decref(item), -ENOMEM;
	return json_array_append_new(arr, item) ? -ENOMEM : 0;
}

/* qsort comparators over json_t pointers; the keys they compare are unique in their
 * array, so the order is total and qsort's lack of stability does not show */
static int cmp_group(const void *pa, const void *pb)
{
	const json_t *a = *(json_t *const *)pa, *b = *(json_t *const *)pb;
	int d = (int)jget_int(a, "_h", 0) - (int)jget_int(b, "_h", 0);

	return d ? d : (int)jget_int(a, "_p", 0) - (int)jget_int(b, "_p", 0);
}

static int cmp_section(const void *pa, const void *pb)
{
	const json_t *a = *(json_t *const *)pa, *b = *(json_t *const *)pb;
	const char *ma = jget_str(a, "metric", NULL), *mb = jget_str(b, "metric", NULL);
	const char *wa = jget_str(a, "window", NULL), *wb = jget_str(b, "window", NULL);
	int d = metric_rank(ma) - metric_rank(mb);

	if (!d)
		d = strcmp(ma, mb);
	if (!d)
		d = window_rank(wa) - window_rank(wb);
	return d ? d : strcmp_null(wa, wb);
}

static int cmp_row(const void *pa, const void *pb)
{
	const json_t *a = *(json_t *const *)pa, *b = *(json_t *const *)pb;
	int d = (int)jget_int(a, "_v", 0) - (int)jget_int(b, "_v", 0);

	return d ? d : (int)jget_int(a, "_s", 0) - (int)jget_int(b, "_s", 0);
}

/* Sort the array ARR in place by CMP (over json_t pointers). Returns 0 or -ENOMEM. */
static int sort_array(json_t *arr, int (*cmp)(const void *, const void *))
{
	size_t n = json_array_size(arr), i;
	json_t **v;
	int err = 0;

	if (n < 2)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		v[i] = json_incref(json_array_get(arr, i));
	qsort(v, n, sizeof(*v), cmp);
	json_array_clear(arr);
	for (i = 0; i < n; i++)	/* appends into the cleared array's room: no failure */
		if (json_array_append_new(arr, v[i]))
			err = -ENOMEM;
	free(v);
	return err;
}

json_t *report_null_values(int repeat)
{
	json_t *values = json_array();
	int i;

	for (i = 0; values && i < repeat; i++) {
		if (json_array_append_new(values, json_null())) {
			json_decref(values);
			return NULL;
		}
	}
	return values;
}

/* Find or make the group of (HIDX, PIDX) in GROUPS, through MAP (the tables' "_groups"). */
static json_t *group_get(json_t *groups, json_t *map, int hidx, int pidx, const char *host,
			 const json_t *point, const char *kernel)
{
	char key[32];
	json_t *g;

	snprintf(key, sizeof(key), "%d %d", hidx, pidx);
	g = json_object_get(map, key);
	if (g)
		return g;
	g = json_pack("{s:s, s:s?, s:O, s:[], s:i, s:i, s:{}, s:{}}", "host", host,
		      "kernel_release", kernel, "point",
		      json_is_object(point) && json_object_size(point) ? point : json_null(),
		      "sections", "_h", hidx, "_p", pidx, "_seen", "_secs");
	if (!g || add_keyed(groups, map, key, g))
		return NULL;
	return g;
}

/* Find or make GROUP's section of (METRIC, WINDOW), through the group's "_secs". */
static json_t *section_get(json_t *group, const char *metric, const char *window,
			   const char *unit)
{
	json_t *map = json_object_get(group, "_secs"), *s;
	char *key;

	/* a metric holds no newline (lib/proto/proto_schema.c); NULL window: "\n" only */
	if (asprintf(&key, "%s\n%s%s", metric, window ? "w" : "", window ? window : "") < 0)
		return NULL;
	s = json_object_get(map, key);
	if (!s) {
		s = json_pack("{s:s, s:s?, s:s?, s:[], s:{}}", "metric", metric, "window",
			      window, "unit", unit, "rows", "_rows");
		if (!s || add_keyed(json_object_get(group, "sections"), map, key, s))
			s = NULL;
	}
	free(key);
	return s;
}

/* Find or make SECTION's row of (VIDX, SIDX), through the section's "_rows". */
static json_t *row_get(json_t *section, const char *variant, int vidx, const char *subject,
		       int sidx, int repeat)
{
	json_t *map = json_object_get(section, "_rows"), *r;
	char key[32];

	snprintf(key, sizeof(key), "%d %d", vidx, sidx);
	r = json_object_get(map, key);
	if (r)
		return r;
	r = json_pack("{s:s, s:s?, s:o, s:i, s:i}", "variant", variant, "subject", subject,
		      "values", report_null_values(repeat), "_v", vidx, "_s", sidx);
	if (!r || add_keyed(json_object_get(section, "rows"), map, key, r))
		return NULL;
	return r;
}

static json_t *number_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

int report_add_stats(json_t *obj)
{
	json_t *values = json_object_get(obj, "values"), *v;
	size_t i, n = 0;
	double *buf;
	struct stats_summary s;
	int err = 0;

	buf = calloc(json_array_size(values) + 1, sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	json_array_foreach(values, i, v)
		if (json_is_number(v))
			buf[n++] = json_number_value(v);
	if (stats_summarize(buf, n, &s) == -ENOMEM) {
		err = -ENOMEM;
		goto out;
	}
	if (json_object_set_new(obj, "n", json_integer((json_int_t)n)) ||
	    json_object_set_new(obj, "mean", number_or_null(s.mean)) ||
	    json_object_set_new(obj, "spread", number_or_null(s.spread)) ||
	    json_object_set_new(obj, "min", number_or_null(s.min)) ||
	    json_object_set_new(obj, "max", number_or_null(s.max)) ||
	    json_object_set_new(obj, "median", number_or_null(s.median)) ||
	    json_object_set_new(obj, "stddev", number_or_null(s.stddev)))
		err = -ENOMEM;
out:
	free(buf);
	return err;
}

/* A new total of VARIANT in TOTALS: no programs yet, a zero per repetition. NULL on
 * ENOMEM. */
static json_t *total_new(json_t *totals, const char *variant, int repeat)
{
	json_t *t = json_pack("{s:s, s:i, s:o}", "variant", variant, "programs", 0,
			      "values", json_array());
	int r;

	if (!t || json_array_append_new(totals, t))
		return NULL;
	for (r = 0; r < repeat; r++)
		if (json_array_append_new(json_object_get(t, "values"), json_real(0)))
			return NULL;
	return t;
}

/* Add program ROW's values to total T, repetition by repetition; a repetition where
 * either lacks a value has none in the total. A row without a subject (a variant
 * without any sample) leaves the total without values. */
static void total_add_row(json_t *t, const json_t *row, int repeat)
{
	json_t *sums = json_object_get(t, "values");
	const json_t *values = json_object_get(row, "values");
	int r;

	if (!jget_str(row, "subject", NULL)) {
		for (r = 0; r < repeat; r++)
			json_array_set_new(sums, r, json_null());
		return;
	}
	json_object_set_new(t, "programs", json_integer((int)jget_int(t, "programs", 0) + 1));
	for (r = 0; r < repeat; r++) {
		json_t *sum = json_array_get(sums, r);
		json_t *v = json_array_get(values, r);

		if (json_is_number(sum) && json_is_number(v))
			json_real_set(sum, json_real_value(sum) + json_number_value(v));
		else
			json_array_set_new(sums, r, json_null());
	}
}

/* The per-variant totals of a prog.ns_per_run section: for each repetition the sum over
 * the variant's programs, when every program has a value in it. */
static int add_totals(json_t *section, int repeat)
{
	json_t *rows = json_object_get(section, "rows"), *totals, *row, *t = NULL;
	const char *variant = NULL;
	size_t i;
	int err;

	totals = json_array();
	if (!totals || json_object_set_new(section, "totals", totals))
		return -ENOMEM;
	json_array_foreach(rows, i, row) {
		const char *rv = jget_str(row, "variant", NULL);

		if (!variant || strcmp(rv, variant)) {
			if (t && (err = report_add_stats(t)))
				return err;
			variant = rv;
			t = total_new(totals, rv, repeat);
			if (!t)
				return -ENOMEM;
		}
		total_add_row(t, row, repeat);
	}
	return t ? report_add_stats(t) : 0;
}

/* Rows for the plan's variants that have no sample at all in GROUP (all their jobs
 * failed there), so that the table shows them as "-" rather than dropping them. */
static int add_missing_variants(json_t *group, json_t *variants_tab, int repeat)
{
	json_t *seen = json_object_get(group, "_seen");
	json_t *secs = json_object_get(group, "sections"), *sec, *idx;
	const char *variant;
	size_t i;

	json_object_foreach(variants_tab, variant, idx) {
		if (json_object_get(seen, variant))
			continue;
		json_array_foreach(secs, i, sec)
			if (!row_get(sec, variant, (int)json_integer_value(idx), NULL, -1, repeat))
				return -ENOMEM;
	}
	return 0;
}

/* The job's verdicts of sample S, when it has any: on ROW at repetition REP (a
 * "verdicts" array made on first use, null where none), the job's details beside them
 * (ROW's "details", alike), and the first detail seen for each verdict in the report's
 * "verdict_details". */
static int file_verdicts(json_t *report, json_t *row, int rep, const json_t *s, int repeat)
{
	const json_t *verdicts = json_object_get(s, "verdicts");
	const json_t *details = json_object_get(s, "verdict_details"), *d;
	json_t *rv = json_object_get(row, "verdicts"), *all;
	const char *key;

	if (!json_array_size(verdicts))
		return 0;
	if (!rv) {
		rv = report_null_values(repeat);
		if (!rv || json_object_set_new(row, "verdicts", rv))
			return -ENOMEM;
	}
	if (json_is_null(json_array_get(rv, rep - 1)) &&
	    json_array_set_new(rv, rep - 1, json_deep_copy(verdicts)))
		return -ENOMEM;
	/* this job's own details beside its verdicts: a legend names each cell's */
	if (json_object_size(details) && !json_object_get(row, "details") &&
	    json_object_set_new(row, "details", report_null_values(repeat)))
		return -ENOMEM;
	if (json_object_size(details) &&
	    json_is_null(json_array_get(json_object_get(row, "details"), rep - 1)) &&
	    json_array_set_new(json_object_get(row, "details"), rep - 1,
			       json_deep_copy(details)))
		return -ENOMEM;
	all = json_object_get(report, "verdict_details");
	json_object_foreach((json_t *)details, key, d) {
		if (!json_is_string(d))
			continue;
		if (!all) {
			all = json_object();
			if (!all || json_object_set_new(report, "verdict_details", all))
				return -ENOMEM;
		}
		if (!json_object_get(all, key) && json_object_set(all, key, (json_t *)d))
			return -ENOMEM;
	}
	return 0;
}

static int file_sample(json_t *report, const json_t *s, json_t *tabs, int repeat)
{
	json_t *hosts_tab = json_object_get(tabs, "hosts");
	json_t *kernels = json_object_get(tabs, "kernels");
	const char *host = jget_str(s, "host", NULL), *variant = jget_str(s, "variant", NULL);
	const char *metric = jget_str(s, "metric", NULL), *subject = jget_str(s, "subject", NULL);
	const json_t *point = json_object_get(s, "point");
	json_t *value = json_object_get(s, "value");
	json_t *group, *sec, *row, *cell;
	long long rep = json_integer_value(json_object_get(s, "rep"));
	int hidx, pidx, vidx, sidx, err = -ENOMEM;
	char *pkey = NULL, *skey = NULL;

	if (!metric || !json_is_number(value) || rep < 1 || rep > repeat)
		return 0;
	host = host ? host : "-";
	variant = variant ? variant : "-";
	subject = subject ? subject : "-";
	pkey = point_key(point);
	if (!pkey || asprintf(&skey, "%s\n%s", metric, subject) < 0) {
		skey = NULL;
		goto out;
	}
	if ((hidx = report_table_index(hosts_tab, host)) < 0 ||
	    (pidx = report_table_index(json_object_get(tabs, "points"), pkey)) < 0 ||
	    (vidx = report_table_index(json_object_get(tabs, "variants"), variant)) < 0 ||
	    (sidx = report_table_index(json_object_get(tabs, "subjects"), skey)) < 0)
		goto out;
	group = group_get(json_object_get(report, "groups"), json_object_get(tabs, "_groups"),
			  hidx, pidx, host, point, jget_str(kernels, host, NULL));
	if (!group || json_object_set_new(json_object_get(group, "_seen"), variant,
					  json_true()))
		goto out;
	sec = section_get(group, metric, jget_str(s, "window", NULL), jget_str(s, "unit", NULL));
	if (!sec)
		goto out;
	/* a record the plan's metrics list (nic.NAME): compared, a table of its own */
	if (json_is_true(json_object_get(s, "listed")) &&
	    json_object_set_new(sec, "listed", json_true()))
		goto out;
	row = row_get(sec, variant, vidx, subject, sidx, repeat);
	if (!row)
		goto out;
	cell = json_array_get(json_object_get(row, "values"), rep - 1);
	/* the first sample for a cell wins; a result holds one per job and subject */
	if (json_is_null(cell) &&
	    json_array_set_new(json_object_get(row, "values"), rep - 1,
			       json_real(json_number_value(value))))
		goto out;
	err = file_verdicts(report, row, (int)rep, s, repeat);

out:
	free(pkey);
	free(skey);
	return err;
}

/* SEC's rows with their statistics and without their building indexes, and its totals
 * when it is prog.ns_per_run. */
static int finish_section(json_t *sec, int repeat)
{
	json_t *row;
	size_t k;
	int err;

	json_object_del(sec, "_rows");
	if ((err = sort_array(json_object_get(sec, "rows"), cmp_row)))
		return err;
	json_array_foreach(json_object_get(sec, "rows"), k, row) {
		if ((err = report_add_stats(row)))
			return err;
		json_object_del(row, "_v");
		json_object_del(row, "_s");
	}
	if (!strcmp(jget_str(sec, "metric", NULL), NS_METRIC))
		return add_totals(sec, repeat);
	return 0;
}

static int finish_groups(json_t *report, json_t *tabs, int repeat)
{
	json_t *groups = json_object_get(report, "groups"), *g, *sec;
	size_t i, j;
	int err;

	if ((err = sort_array(groups, cmp_group)))
		return err;
	json_array_foreach(groups, i, g) {
		err = add_missing_variants(g, json_object_get(tabs, "variants"), repeat);
		if (!err)
			err = sort_array(json_object_get(g, "sections"), cmp_section);
		if (err)
			return err;
		json_object_del(g, "_secs");
		json_array_foreach(json_object_get(g, "sections"), j, sec)
			if ((err = finish_section(sec, repeat)))
				return err;
		json_object_del(g, "_h");
		json_object_del(g, "_p");
		json_object_del(g, "_seen");
	}
	return 0;
}

/* REPORT's hosts (the result's, shared) replaced by a copy on which each host with a
 * noise floor in ROWS (store_noise_list's rows) has it as "noise" (lib/analysis/noise.h). */
static int hosts_with_noise(json_t *report, const json_t *rows)
{
	json_t *hosts = json_deep_copy(json_object_get(report, "hosts"));
	int err;

	if (!hosts)
		return json_object_get(report, "hosts") ? -ENOMEM : 0;
	err = noise_hosts_attach(hosts, rows);
	if (!err && json_object_set_new(report, "hosts", hosts))
		return -ENOMEM;
	if (err)
		json_decref(hosts);
	return err;
}

json_t *report_build(const json_t *result)
{
	json_t *report = NULL, *tabs = NULL, *samples, *s, *h;
	long long repeat;
	size_t i;
	int err = -ENOMEM;

	if (!json_is_object(result)) {
		errno = EINVAL;
		return NULL;
	}
	samples = json_object_get(result, "samples");
	repeat = json_integer_value(json_object_get(result, "repeat"));
	json_array_foreach(samples, i, s) {
		long long rep = json_integer_value(json_object_get(s, "rep"));

		if (rep > repeat && rep <= 10000)
			repeat = rep;
	}
	if (repeat < 0)
		repeat = 0;

	tabs = json_pack("{s:{}, s:{}, s:{}, s:{}, s:{}, s:{}}", "hosts", "kernels", "points",
			 "variants", "subjects", "_groups");
	report = json_pack("{s:O?, s:O?, s:O?, s:O?, s:I, s:O?, s:O?, s:[]}",
			   "run", json_object_get(result, "run"),
			   "plan", json_object_get(result, "plan"),
			   "plan_sha256", json_object_get(result, "plan_sha256"),
			   "state", json_object_get(result, "state"),
			   "repeat", (json_int_t)repeat,
			   "hosts", json_object_get(result, "hosts"),
			   "variants", json_object_get(result, "variants"), "groups");
	if (!tabs || !report)
		goto out;
	if (json_array_size(json_object_get(result, "noise")) &&
	    (err = hosts_with_noise(report, json_object_get(result, "noise"))))
		goto out;
	json_array_foreach(json_object_get(result, "hosts"), i, h) {
		const char *name = jget_str(h, "name", NULL), *kernel = jget_str(h, "kernel_release", NULL);

		if (!name)
			continue;
		if (report_table_index(json_object_get(tabs, "hosts"), name) < 0 ||
		    (kernel && json_object_set_new(json_object_get(tabs, "kernels"), name,
						   json_string(kernel))))
			goto out;
	}
	json_array_foreach(json_object_get(result, "variants"), i, h)
		if (json_is_string(h) &&
		    report_table_index(json_object_get(tabs, "variants"), json_string_value(h)) < 0)
			goto out;
	json_array_foreach(samples, i, s)
		if ((err = file_sample(report, s, tabs, (int)repeat)))
			goto out;
	err = finish_groups(report, tabs, (int)repeat) ?: report_search_add(report, result);
	if (!err) {
		json_t *lat = report_latency_build(result);

		err = !lat ? -ENOMEM :
		      json_array_size(lat) && json_object_set(report, "latency", lat) ? -ENOMEM : 0;
		json_decref(lat);
	}
out:
	json_decref(tabs);
	if (err) {
		json_decref(report);
		errno = -err;
		return NULL;
	}
	return report;
}

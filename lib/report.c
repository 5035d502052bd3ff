/* report.c - see report.h.
 *
 * Building works on jansson values only: each sample is filed into its group (host,
 * matrix point), section (metric, window) and row (variant, subject), each inserted at
 * its sorted place so that the object comes out in presentation order. While building,
 * groups and rows carry private integer members ("_h", "_p", "_v", "_s": indexes into
 * first-seen tables) that are removed before the object is returned.
 *
 * Orders: hosts as the result lists them, then others as seen; points, subjects as first
 * seen in the samples; variants in plan order (the result's "variants"); metrics
 * port.rx_pps, port.tx_pps, port.drop_pps, gen.tx_pps, prog.ns_per_run, prog.run_pps,
 * then the others by name; window rate before cost.
 *
 * Numbers in the text: rates in K/M/G with four significant digits of the section's
 * largest value (all rows of a section with the same unit share the decimals, so columns
 * read alike), ns with one decimal, anything else with four significant digits; a row
 * gets more decimals when its spread would otherwise print as zero, so that differences
 * show. Halves round away from zero, as when the numbers are worked out by hand.
 */
#include "report.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "noise.h"
#include "stats.h"
#include "texttable.h"
#include "util.h"

#define NS_METRIC "prog.ns_per_run"
#define MAX_DECIMALS 6

static const char *const metric_order[] = {
	"port.rx_pps", "port.tx_pps", "port.drop_pps", "gen.tx_pps", NS_METRIC,
	"prog.run_pps",
};

/* Verdicts (docs/plans.md) as one-character markers beside the numbers they concern. */
static const struct {
	const char *name;
	char mark;
	const char *meaning;
} verdict_marks[] = {
	{ "debug-kernel", '#', "measured on a kernel with debug options that spoil measurements" },
	{ "generator-bound", '^', "the receiver got all the generator sent with CPU to spare: the rate is the generator's" },
	{ "unstable", '*', "the per-second rates varied beyond the bound" },
	{ "errors", '!', "XDP redirect errors or exceptions were seen" },
	{ "disturbed", '&', "other work took more than the bound of the measured CPUs: measured again, left out of compare" },
	{ "outlier-seconds", 'o', "some seconds of the window lay outside Tukey's fences (k 1.5)" },
	{ "not-settled", '~', "repeat.max was reached with the 95 % confidence interval of the mean still wider than repeat.until" },
};

static char verdict_mark(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(verdict_marks); i++)
		if (!strcmp(name, verdict_marks[i].name))
			return verdict_marks[i].mark;
	return '?';
}

/* Append the markers of the verdicts in the JSON array VERDICTS to BUF (LEN bytes),
 * each once, in table order; unknown verdicts as '?'. */
static void add_marks(char *buf, size_t len, const json_t *verdicts)
{
	const json_t *v;
	size_t i, j, n;
	char m;

	for (i = 0; i <= ARRAY_SIZE(verdict_marks); i++) {
		m = i < ARRAY_SIZE(verdict_marks) ? verdict_marks[i].mark : '?';
		json_array_foreach(verdicts, j, v)
			if (json_is_string(v) && verdict_mark(json_string_value(v)) == m)
				break;
		n = strlen(buf);
		if (j == json_array_size(verdicts) || strchr(buf, m) || n + 2 > len)
			continue;
		buf[n] = m;
		buf[n + 1] = '\0';
	}
}

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

static int strcmp_null(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

/* The index of KEY in TABLE (a JSON object used as an ordered set), adding it at the
 * end when new. Returns the index or -ENOMEM. */
static int table_index(json_t *table, const char *key)
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

static int get_int(const json_t *obj, const char *key)
{
	return (int)json_integer_value(json_object_get(obj, key));
}

static const char *get_str(const json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

/* Identity of a matrix point: "" without a matrix, else its compact JSON with sorted
 * keys. Heap string or NULL. */
static char *point_key(const json_t *point)
{
	if (!json_is_object(point) || !json_object_size(point))
		return strdup("");
	return json_dumps(point, JSON_COMPACT | JSON_SORT_KEYS);
}

/* Insert ITEM (stolen) into the sorted array ARR before the first element that CMP puts
 * after it. Returns 0 or -ENOMEM. */
static int insert_sorted(json_t *arr, json_t *item, int (*cmp)(const json_t *, const json_t *))
{
	size_t i, n = json_array_size(arr);

	for (i = 0; i < n; i++)
		if (cmp(item, json_array_get(arr, i)) < 0)
			break;
	return json_array_insert_new(arr, i, item) ? -ENOMEM : 0;
}

static int cmp_group(const json_t *a, const json_t *b)
{
	int d = get_int(a, "_h") - get_int(b, "_h");

	return d ? d : get_int(a, "_p") - get_int(b, "_p");
}

static int cmp_section(const json_t *a, const json_t *b)
{
	const char *ma = get_str(a, "metric"), *mb = get_str(b, "metric");
	const char *wa = get_str(a, "window"), *wb = get_str(b, "window");
	int d = metric_rank(ma) - metric_rank(mb);

	if (!d)
		d = strcmp(ma, mb);
	if (!d)
		d = window_rank(wa) - window_rank(wb);
	return d ? d : strcmp_null(wa, wb);
}

static int cmp_row(const json_t *a, const json_t *b)
{
	int d = get_int(a, "_v") - get_int(b, "_v");

	return d ? d : get_int(a, "_s") - get_int(b, "_s");
}

static json_t *null_values(int repeat)
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

/* The role host NAME played in a two-host run ("generator", "dut"; result "hosts"), or
 * NULL. */
static const char *host_role(const json_t *report, const char *name)
{
	const json_t *h;
	size_t i;

	json_array_foreach(json_object_get(report, "hosts"), i, h)
		if (name && get_str(h, "name") && !strcmp(get_str(h, "name"), name))
			return get_str(h, "role");
	return NULL;
}

/* Find or make the group of (HIDX, PIDX) in GROUPS. */
static json_t *group_get(json_t *groups, int hidx, int pidx, const char *host,
			 const json_t *point, const char *kernel)
{
	json_t *g;
	size_t i;

	json_array_foreach(groups, i, g)
		if (get_int(g, "_h") == hidx && get_int(g, "_p") == pidx)
			return g;
	g = json_pack("{s:s, s:s?, s:O, s:[], s:i, s:i, s:{}}", "host", host,
		      "kernel_release", kernel, "point",
		      json_is_object(point) && json_object_size(point) ? point : json_null(),
		      "sections", "_h", hidx, "_p", pidx, "_seen");
	if (!g || insert_sorted(groups, g, cmp_group))
		return NULL;
	return g;
}

static json_t *section_get(json_t *group, const char *metric, const char *window,
			   const char *unit)
{
	json_t *secs = json_object_get(group, "sections"), *s;
	size_t i;

	json_array_foreach(secs, i, s)
		if (!strcmp(get_str(s, "metric"), metric) &&
		    !strcmp_null(get_str(s, "window"), window))
			return s;
	s = json_pack("{s:s, s:s?, s:s?, s:[]}", "metric", metric, "window", window, "unit",
		      unit, "rows");
	if (!s || insert_sorted(secs, s, cmp_section))
		return NULL;
	return s;
}

static json_t *row_get(json_t *section, const char *variant, int vidx, const char *subject,
		       int sidx, int repeat)
{
	json_t *rows = json_object_get(section, "rows"), *r;
	size_t i;

	json_array_foreach(rows, i, r)
		if (get_int(r, "_v") == vidx && get_int(r, "_s") == sidx)
			return r;
	r = json_pack("{s:s, s:s?, s:o, s:i, s:i}", "variant", variant, "subject", subject,
		      "values", null_values(repeat), "_v", vidx, "_s", sidx);
	if (!r || insert_sorted(rows, r, cmp_row))
		return NULL;
	return r;
}

static json_t *number_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* Add n, mean, spread, min, max, median, stddev of the numbers in OBJ's "values". */
static int add_stats(json_t *obj)
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

/* The per-variant totals of a prog.ns_per_run section: for each repetition the sum over
 * the variant's programs, when every program has a value in it. */
static int add_totals(json_t *section, int repeat)
{
	json_t *rows = json_object_get(section, "rows"), *totals, *row, *t = NULL;
	const char *variant = NULL;
	size_t i;
	int err = -ENOMEM, r;

	totals = json_array();
	if (!totals || json_object_set_new(section, "totals", totals))
		return -ENOMEM;
	json_array_foreach(rows, i, row) {
		const char *rv = get_str(row, "variant");
		json_t *values = json_object_get(row, "values");

		if (!variant || strcmp(rv, variant)) {
			if (t && (err = add_stats(t)))
				return err;
			variant = rv;
			t = json_pack("{s:s, s:i, s:o}", "variant", rv, "programs", 0,
				      "values", json_array());
			if (!t || json_array_append_new(totals, t))
				return -ENOMEM;
			for (r = 0; r < repeat; r++)
				if (json_array_append_new(json_object_get(t, "values"),
							  json_real(0)))
					return -ENOMEM;
		}
		if (!get_str(row, "subject")) {
			/* a variant without any sample: no total */
			for (r = 0; r < repeat; r++)
				json_array_set_new(json_object_get(t, "values"), r, json_null());
			continue;
		}
		json_object_set_new(t, "programs", json_integer(get_int(t, "programs") + 1));
		for (r = 0; r < repeat; r++) {
			json_t *sum = json_array_get(json_object_get(t, "values"), r);
			json_t *v = json_array_get(values, r);

			if (json_is_number(sum) && json_is_number(v))
				json_real_set(sum, json_real_value(sum) + json_number_value(v));
			else
				json_array_set_new(json_object_get(t, "values"), r, json_null());
		}
	}
	return t ? add_stats(t) : 0;
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
 * "verdicts" array made on first use, null where none), and their details, the first
 * seen for each verdict, in the report's "verdict_details". */
static int file_verdicts(json_t *report, json_t *row, int rep, const json_t *s, int repeat)
{
	const json_t *verdicts = json_object_get(s, "verdicts");
	const json_t *details = json_object_get(s, "verdict_details"), *d;
	json_t *rv = json_object_get(row, "verdicts"), *all;
	const char *key;

	if (!json_array_size(verdicts))
		return 0;
	if (!rv) {
		rv = null_values(repeat);
		if (!rv || json_object_set_new(row, "verdicts", rv))
			return -ENOMEM;
	}
	if (json_is_null(json_array_get(rv, rep - 1)) &&
	    json_array_set_new(rv, rep - 1, json_deep_copy(verdicts)))
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
	const char *host = get_str(s, "host"), *variant = get_str(s, "variant");
	const char *metric = get_str(s, "metric"), *subject = get_str(s, "subject");
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
	if ((hidx = table_index(hosts_tab, host)) < 0 ||
	    (pidx = table_index(json_object_get(tabs, "points"), pkey)) < 0 ||
	    (vidx = table_index(json_object_get(tabs, "variants"), variant)) < 0 ||
	    (sidx = table_index(json_object_get(tabs, "subjects"), skey)) < 0)
		goto out;
	group = group_get(json_object_get(report, "groups"), hidx, pidx, host, point,
			  get_str(kernels, host));
	if (!group || json_object_set_new(json_object_get(group, "_seen"), variant,
					  json_true()))
		goto out;
	sec = section_get(group, metric, get_str(s, "window"), get_str(s, "unit"));
	if (!sec)
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

static int finish_groups(json_t *report, json_t *tabs, int repeat)
{
	json_t *groups = json_object_get(report, "groups"), *g, *sec, *row;
	size_t i, j, k;
	int err;

	json_array_foreach(groups, i, g) {
		err = add_missing_variants(g, json_object_get(tabs, "variants"), repeat);
		if (err)
			return err;
		json_array_foreach(json_object_get(g, "sections"), j, sec) {
			json_array_foreach(json_object_get(sec, "rows"), k, row) {
				if ((err = add_stats(row)))
					return err;
				json_object_del(row, "_v");
				json_object_del(row, "_s");
			}
			if (!strcmp(get_str(sec, "metric"), NS_METRIC) &&
			    (err = add_totals(sec, repeat)))
				return err;
		}
		json_object_del(g, "_h");
		json_object_del(g, "_p");
		json_object_del(g, "_seen");
	}
	return 0;
}

/* REPORT's hosts (the result's, shared) replaced by a copy on which each host with a
 * noise floor in ROWS (store_noise_list's rows) has it as "noise" (lib/noise.h). */
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

	tabs = json_pack("{s:{}, s:{}, s:{}, s:{}, s:{}}", "hosts", "kernels", "points",
			 "variants", "subjects");
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
		const char *name = get_str(h, "name"), *kernel = get_str(h, "kernel_release");

		if (!name)
			continue;
		if (table_index(json_object_get(tabs, "hosts"), name) < 0 ||
		    (kernel && json_object_set_new(json_object_get(tabs, "kernels"), name,
						   json_string(kernel))))
			goto out;
	}
	json_array_foreach(json_object_get(result, "variants"), i, h)
		if (json_is_string(h) &&
		    table_index(json_object_get(tabs, "variants"), json_string_value(h)) < 0)
			goto out;
	json_array_foreach(samples, i, s)
		if ((err = file_sample(report, s, tabs, (int)repeat)))
			goto out;
	err = finish_groups(report, tabs, (int)repeat);
out:
	json_decref(tabs);
	if (err) {
		json_decref(report);
		errno = -err;
		return NULL;
	}
	return report;
}

/* ---- text ---- */

enum num_kind { NUM_RATE, NUM_NS, NUM_PLAIN };

struct num_fmt {
	double div;
	const char *suffix;
	int decimals;
};

static enum num_kind section_kind(const json_t *sec)
{
	const char *metric = get_str(sec, "metric"), *unit = get_str(sec, "unit");
	size_t len = strlen(metric);

	if ((unit && !strcmp(unit, "pps")) || (len > 4 && !strcmp(metric + len - 4, "_pps")))
		return NUM_RATE;
	if (!strcmp(metric, NS_METRIC) || (unit && !strcmp(unit, "ns")))
		return NUM_NS;
	return NUM_PLAIN;
}

/* Decimals that give four significant digits for a largest value of MAX. */
static int sig4_decimals(double max)
{
	if (max < 10)
		return 3;
	if (max < 100)
		return 2;
	if (max < 1000)
		return 1;
	return 0;
}

static struct num_fmt fmt_for(enum num_kind kind, double max)
{
	struct num_fmt f = { 1, "", 0 };

	max = fabs(max);
	switch (kind) {
	case NUM_RATE:
		if (max >= 1e9)
			f = (struct num_fmt){ 1e9, "G", 0 };
		else if (max >= 1e6)
			f = (struct num_fmt){ 1e6, "M", 0 };
		else if (max >= 1e3)
			f = (struct num_fmt){ 1e3, "K", 0 };
		f.decimals = f.div > 1 ? sig4_decimals(max / f.div) : 0;
		break;
	case NUM_NS:
		f.decimals = 1;
		break;
	case NUM_PLAIN:
		f.decimals = sig4_decimals(max);
		break;
	}
	return f;
}

/* Add decimals until a non-zero SPREAD no longer prints as zero. */
static void fmt_show_spread(struct num_fmt *f, double spread)
{
	while (f->decimals < MAX_DECIMALS && isfinite(spread) && spread > 0 &&
	       round(spread / f->div * pow(10, f->decimals)) == 0)
		f->decimals++;
}

/* V formatted with F, "-" when absent. Halves round away from zero as they do by hand:
 * (35.9 - 35.6) / 2 is 0.1499999... in binary and prints as 0.2, not 0.1. */
static void fmt_num(char *buf, size_t len, const json_t *v, const struct num_fmt *f)
{
	double x;

	if (!json_is_number(v) || !isfinite(json_number_value(v))) {
		snprintf(buf, len, "-");
		return;
	}
	x = json_number_value(v) / f->div;
	x += copysign(fabs(x) * 1e-9, x);
	snprintf(buf, len, "%.*f%s", f->decimals, x, f->suffix);
}

/* The largest magnitude among the "values" of OBJ (0 when none). */
static double obj_max(const json_t *obj)
{
	const json_t *v;
	double max = 0;
	size_t i;

	json_array_foreach(json_object_get(obj, "values"), i, v)
		if (json_is_number(v) && fabs(json_number_value(v)) > max)
			max = fabs(json_number_value(v));
	return max;
}

static const json_t *find_total(const json_t *sec, const char *variant)
{
	const json_t *t;
	size_t i;

	json_array_foreach(json_object_get(sec, "totals"), i, t)
		if (!strcmp(get_str(t, "variant"), variant))
			return t;
	return NULL;
}

#define CELL 40

struct row_text {
	const char *variant;		/* NULL on a variant's later rows */
	const char *subject;
	char (*cells)[CELL];		/* one per repetition */
	char mean[CELL];		/* "" for no mean column on this row */
	char spread[CELL];		/* "" for no "± spread" */
	char cv[CELL];			/* stddev / mean, beside a noise floor */
	char floor[CELL];		/* the host's noise floor of the row's metric */
};

/* Mean and spread texts of a row or total OBJ, formatted with F (decimals raised so that
 * the spread shows). Only the mean when fewer than two values. */
static void mean_texts(const json_t *obj, struct num_fmt f, struct row_text *rt)
{
	fmt_show_spread(&f, json_number_value(json_object_get(obj, "spread")));
	fmt_num(rt->mean, CELL, json_object_get(obj, "mean"), &f);
	if (json_integer_value(json_object_get(obj, "n")) >= 2)
		fmt_num(rt->spread, CELL, json_object_get(obj, "spread"), &f);
}

/* The entry of a host's noise floor (NOISE, lib/noise.h) for METRIC in WINDOW: the one
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
		if (!strcmp_null(get_str(m, "metric"), metric) &&
		    !strcmp_null(get_str(m, "window"), window) &&
		    fabs(json_number_value(json_object_get(m, "mean"))) > max)
			max = fabs(json_number_value(json_object_get(m, "mean")));
	json_array_foreach(json_object_get(noise, "metrics"), i, m) {
		if (strcmp_null(get_str(m, "metric"), metric) ||
		    strcmp_null(get_str(m, "window"), window) ||
		    fabs(json_number_value(json_object_get(m, "mean"))) < NOISE_MINOR * max)
			continue;
		if (!strcmp_null(get_str(m, "subject"), subject))
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
	if (!strncmp(metric, "port.", 5) || !strncmp(metric, "gen.", 4))
		return "port";
	if (!strncmp(metric, "prog.", 5))
		return "prog";
	if (!strncmp(metric, "cpu.", 4))
		return "cpu";
	return "subject";
}

static void section_title(const json_t *sec, FILE *out)
{
	const char *metric = get_str(sec, "metric"), *unit = get_str(sec, "unit");
	const char *window = get_str(sec, "window"), *what;
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
	if (what && *wbuf)
		fprintf(out, "%s  (%s, %s)\n", metric, what, wbuf);
	else if (what || *wbuf)
		fprintf(out, "%s  (%s)\n", metric, what ? what : wbuf);
	else
		fprintf(out, "%s\n", metric);
}

/* One legend line per marker in MARKS: "* unstable: DETAIL", the detail from DETAILS
 * (the report's "verdict_details") or else the verdict's meaning. */
static void print_legend(const char *marks, const json_t *details, FILE *out)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(verdict_marks); i++) {
		const char *d = get_str(details, verdict_marks[i].name);

		if (strchr(marks, verdict_marks[i].mark))
			fprintf(out, "%c %s: %s\n", verdict_marks[i].mark, verdict_marks[i].name,
				d ? d : verdict_marks[i].meaning);
	}
	if (strchr(marks, '?'))
		fprintf(out, "? a verdict this bpflab does not know\n");
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
 * and a path that delivered nothing still shows. Returns the count left out. */
static int rows_to_show(const json_t *rows, enum num_kind kind, const struct num_fmt *f,
			bool all_rows, bool *show)
{
	size_t n = json_array_size(rows), i, j;
	int hidden = 0;

	for (i = 0; i < n; i++)
		show[i] = all_rows || kind != NUM_RATE ||
			  !row_is_zero(json_array_get(rows, i), f);
	for (i = 0; i < n; i++) {
		const char *variant = get_str(json_array_get(rows, i), "variant");
		bool any = false;

		for (j = 0; j < n && !any; j++)
			any = show[j] && !strcmp(variant, get_str(json_array_get(rows, j), "variant"));
		for (j = 0; j < n && !any; j++)
			if (!strcmp(variant, get_str(json_array_get(rows, j), "variant")))
				show[j] = true;
	}
	for (i = 0; i < n; i++)
		hidden += !show[i];
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
		fprintf(out, "%s %s %s", prev ? "," : "", get_str(row, "variant"),
			get_str(row, "subject") ? get_str(row, "subject") : "-");
		prev = get_str(row, "variant");
	}
	fputs(" (--all-rows shows them)\n", out);
}

/* The table of section SEC; NOISE is its host's noise floor (or NULL): with one for
 * the section's metric, each row's cv is printed beside it. */
static int print_section(const json_t *sec, int repeat, const json_t *details, bool all_rows,
			 const json_t *noise, FILE *out)
{
	const json_t *rows = json_object_get(sec, "rows"), *row;
	const char *metric = get_str(sec, "metric");
	bool totals = !strcmp(metric, NS_METRIC);
	const char *mean_head = totals ? "total = mean" : "mean", *spread_head = "spread";
	enum num_kind kind = section_kind(sec);
	size_t n_rows = json_array_size(rows), n = 0, k, i;
	struct row_text *rt;
	struct num_fmt sec_fmt;
	const char *prev = NULL;
	char head[32], marks[16] = "";
	int w_var = 7, w_sub, w_mean, w_spread, w_cv, w_floor, *w_rep = NULL, r, hidden;
	int err = 0;
	bool floors = false;
	double max = 0;
	bool *show;
	struct tt_line l = { .buf = NULL };

	rt = calloc(n_rows ? n_rows : 1, sizeof(*rt));
	show = calloc(n_rows ? n_rows : 1, sizeof(*show));
	w_rep = calloc(repeat ? repeat : 1, sizeof(*w_rep));
	if (!rt || !show || !w_rep) {
		err = -ENOMEM;
		goto out;
	}
	json_array_foreach(rows, k, row)
		if (obj_max(row) > max)
			max = obj_max(row);
	sec_fmt = fmt_for(kind, max);
	hidden = rows_to_show(rows, kind, &sec_fmt, all_rows, show);

	json_array_foreach(rows, k, row) {
		const char *variant = get_str(row, "variant");
		struct num_fmt f = fmt_for(kind, obj_max(row));
		bool first = !prev || strcmp(variant, prev);

		if (!show[k])
			continue;
		i = n++;
		prev = variant;
		rt[i].cells = calloc(repeat ? repeat : 1, CELL);
		if (!rt[i].cells) {
			err = -ENOMEM;
			goto out;
		}
		rt[i].variant = first ? variant : NULL;
		rt[i].subject = get_str(row, "subject") ? get_str(row, "subject") : "-";
		if (f.div == sec_fmt.div)
			f.decimals = sec_fmt.decimals;
		fmt_show_spread(&f, json_number_value(json_object_get(row, "spread")));
		for (r = 0; r < repeat; r++) {
			const json_t *v = json_array_get(json_object_get(row, "verdicts"), r);

			fmt_num(rt[i].cells[r], CELL,
				json_array_get(json_object_get(row, "values"), r), &f);
			add_marks(rt[i].cells[r], CELL, v);
			add_marks(marks, sizeof(marks), v);
		}
		if (!totals) {
			mean_texts(row, f, &rt[i]);
			floor_texts(row, noise_floor_of(noise, metric, get_str(sec, "window"),
							rt[i].subject), &rt[i]);
		} else if (first) {
			const json_t *t = find_total(sec, variant);
			struct num_fmt tf = fmt_for(kind, t ? obj_max(t) : 0);

			if (t) {
				mean_texts(t, tf, &rt[i]);
				floor_texts(t, noise_floor_of(noise, metric, get_str(sec, "window"),
							      rt[i].subject), &rt[i]);
			} else {
				snprintf(rt[i].mean, CELL, "-");
			}
		}
		floors = floors || *rt[i].floor;
	}

	w_sub = tt_width(subject_header(metric));
	w_mean = tt_width(mean_head);
	w_spread = tt_width(spread_head);
	w_cv = tt_width("cv");
	w_floor = tt_width("floor");
	for (r = 0; r < repeat; r++) {
		snprintf(head, sizeof(head), "results-%d", r + 1);
		w_rep[r] = (int)strlen(head);
	}
	for (i = 0; i < n; i++) {
		if (rt[i].variant && tt_width(rt[i].variant) > w_var)
			w_var = tt_width(rt[i].variant);
		if (tt_width(rt[i].subject) > w_sub)
			w_sub = tt_width(rt[i].subject);
		for (r = 0; r < repeat; r++)
			if (tt_width(rt[i].cells[r]) > w_rep[r])
				w_rep[r] = tt_width(rt[i].cells[r]);
		if (tt_width(rt[i].mean) > w_mean)
			w_mean = tt_width(rt[i].mean);
		if (tt_width(rt[i].spread) > w_spread)
			w_spread = tt_width(rt[i].spread);
		if (tt_width(rt[i].cv) > w_cv)
			w_cv = tt_width(rt[i].cv);
		if (tt_width(rt[i].floor) > w_floor)
			w_floor = tt_width(rt[i].floor);
	}

	section_title(sec, out);
	tt_line_cell(&l, "variant", w_var + 2, false);
	tt_line_cell(&l, subject_header(metric), w_sub + 2, false);
	for (r = 0; r < repeat; r++) {
		snprintf(head, sizeof(head), "results-%d", r + 1);
		tt_line_spaces(&l, r ? 1 : 0);
		tt_line_cell(&l, head, w_rep[r], true);
	}
	tt_line_spaces(&l, 3);
	tt_line_cell(&l, mean_head, w_mean, true);
	tt_line_add(&l, " ± ");
	tt_line_cell(&l, spread_head, floors ? w_spread : 0, false);
	if (floors) {
		tt_line_spaces(&l, 2);
		tt_line_cell(&l, "cv", w_cv, true);
		tt_line_spaces(&l, 2);
		tt_line_cell(&l, "floor", w_floor, true);
	}
	tt_line_put(&l, out);
	for (i = 0; i < n; i++) {
		tt_line_cell(&l, rt[i].variant ? rt[i].variant : "", w_var + 2, false);
		tt_line_cell(&l, rt[i].subject, w_sub + 2, false);
		for (r = 0; r < repeat; r++) {
			tt_line_spaces(&l, r ? 1 : 0);
			tt_line_cell(&l, rt[i].cells[r], w_rep[r], true);
		}
		tt_line_spaces(&l, 3);
		tt_line_cell(&l, rt[i].mean, w_mean, true);
		if (floors || *rt[i].spread) {
			tt_line_add(&l, *rt[i].spread ? " ± " : "   ");
			tt_line_cell(&l, rt[i].spread, floors ? w_spread : 0, false);
		}
		if (floors) {
			tt_line_spaces(&l, 2);
			tt_line_cell(&l, rt[i].cv, w_cv, true);
			tt_line_spaces(&l, 2);
			tt_line_cell(&l, rt[i].floor, w_floor, true);
		}
		tt_line_put(&l, out);
	}
	if (hidden)
		print_left_out(rows, show, out);
	print_legend(marks, details, out);
	if (l.oom)
		err = -ENOMEM;
out:
	free(l.buf);
	for (i = 0; rt && i < n; i++)
		free(rt[i].cells);
	free(rt);
	free(show);
	free(w_rep);
	return err;
}

static void point_label(const json_t *point, FILE *out)
{
	const char *key;
	const json_t *v;
	bool first = true;

	fputs("point", out);
	json_object_foreach((json_t *)point, key, v) {
		fprintf(out, "%s%s=", first ? " " : "  ", key);
		if (json_is_string(v)) {
			fputs(json_string_value(v), out);
		} else {
			char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

			fputs(s ? s : "?", out);
			free(s);
		}
		first = false;
	}
	fputc('\n', out);
}

/* The entry of host NAME in the result's hosts: the one with KERNEL when given and
 * listed, else the first of that name; NULL if none. */
static const json_t *host_entry(const json_t *report, const char *name, const char *kernel)
{
	const json_t *h, *first = NULL;
	size_t i;

	json_array_foreach(json_object_get(report, "hosts"), i, h) {
		if (!get_str(h, "name") || strcmp(get_str(h, "name"), name))
			continue;
		if (!kernel || !strcmp_null(get_str(h, "kernel_release"), kernel))
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
	const json_t *h = host_entry(report, name, kernel), *how;
	const char *port, *m;
	bool any;
	size_t i;

	json_object_foreach((json_t *)json_object_get(h, "tc_attach"), port, how) {
		any = false;
		for (i = 0; i < ARRAY_SIZE(hooks); i++) {
			m = get_str(how, hooks[i]);
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

/* Under a host line, where the host has a noise floor (NOISE): where it comes from and
 * what the cv and floor columns are. "  noise floor: calibration run 4; cv = stddev /
 * mean of a row, floor = the host's run-to-run cv" (and the kernel it was measured on,
 * when not the group's KERNEL). */
static void print_noise_line(const json_t *noise, const char *kernel, FILE *out)
{
	const char *nk = get_str(noise, "kernel_release");

	if (!noise)
		return;
	fprintf(out, "  noise floor: calibration run %lld", (long long)get_int(noise, "run"));
	if (nk && strcmp_null(nk, kernel))
		fprintf(out, " on kernel %s", nk);
	fprintf(out, "; cv = stddev / mean of a row, floor = the host's run-to-run cv\n");
}

int report_print_text_opts(const json_t *report, const struct report_text_opts *opts,
			   FILE *out)
{
	const json_t *groups = json_object_get(report, "groups"), *g, *sec;
	const char *sha = get_str(report, "plan_sha256"), *host = NULL;
	int repeat = get_int(report, "repeat"), err;
	bool all_rows;
	int records = 0;
	size_t i, j;

	if (opts && opts->sz < sizeof(*opts))
		return -EINVAL;
	all_rows = opts && opts->all_rows;
	fprintf(out, "run %lld  %s", (long long)json_integer_value(json_object_get(report, "run")),
		get_str(report, "plan") ? get_str(report, "plan") : "-");
	if (sha)
		fprintf(out, "  plan %.12s", sha);
	if (get_str(report, "state"))
		fprintf(out, "  %s", get_str(report, "state"));
	fputc('\n', out);
	if (!json_array_size(groups))
		fprintf(out, "no samples\n");
	json_array_foreach(groups, i, g) {
		const char *h = get_str(g, "host");
		const json_t *noise = json_object_get(
			host_entry(report, h, get_str(g, "kernel_release")), "noise");

		if (!host || strcmp(host, h)) {
			if (host)
				fputc('\n', out);
			fprintf(out, "host %s", h);
			if (host_role(report, h))
				fprintf(out, "  role %s", host_role(report, h));
			if (get_str(g, "kernel_release"))
				fprintf(out, "  kernel %s", get_str(g, "kernel_release"));
			fputc('\n', out);
			print_tc_attach(report, h, get_str(g, "kernel_release"), out);
			print_noise_line(noise, get_str(g, "kernel_release"), out);
			host = h;
		}
		if (json_is_object(json_object_get(g, "point"))) {
			fputc('\n', out);
			point_label(json_object_get(g, "point"), out);
		}
		json_array_foreach(json_object_get(g, "sections"), j, sec) {
			const char *metric = get_str(sec, "metric");

			/* the agent's records (cpu.others, rx.cpu, medians, warm-up) explain
			 * the numbers; they are not the numbers */
			if (!all_rows && metric && analysis_is_record(metric)) {
				records++;
				continue;
			}
			fputc('\n', out);
			if ((err = print_section(sec, repeat, json_object_get(report, "verdict_details"),
						 all_rows, noise, out)))
				return err;
		}
	}
	if (records)
		fprintf(out, "\n%d record table%s left out (cpu.others, rx.cpu, medians, warm-up; --all-rows shows them)\n",
			records, records > 1 ? "s" : "");
	return ferror(out) ? -EIO : 0;
}

int report_print_text(const json_t *report, FILE *out)
{
	return report_print_text_opts(report, NULL, out);
}

/* What PRINT(OBJ, stream) writes, as a malloc'd string; NULL and errno on failure. */
static char *print_to_string(int (*print)(const json_t *obj, FILE *out), const json_t *obj)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	if (!f)
		return NULL;
	err = print(obj, f);
	if (fclose(f) && !err)
		err = -errno;
	if (err) {
		free(buf);
		errno = -err;
		return NULL;
	}
	return buf;
}

char *report_text(const json_t *report)
{
	return print_to_string(report_print_text, report);
}

/* ---- other forms: grid, columns, cpumap ---- */

#define FORM_METRIC_DEFAULT "counter.pps"

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
			    table_index(subjects, get_str(row, "subject")) < 0) {
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
				 json_deep_copy(json_object_get(row, "values")) : null_values(repeat));

	if (cell && row && json_object_get(row, "verdicts") &&
	    json_object_set_new(cell, "verdicts",
				json_deep_copy(json_object_get(row, "verdicts")))) {
		json_decref(cell);
		return NULL;
	}
	if (cell && (!json_object_get(cell, "values") || add_stats(cell))) {
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

static char *point_text(const json_t *point);

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
		char *pt = point_text(json_object_get(g, "point")), *test = NULL;
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

/* The columns of a "columns" or "cpumap" form; for cpumap "dropped" is derived. */
static int form_by_variant(const json_t *report, json_t *form, const char *metric,
			   const json_t *subjects, bool cpumap, int repeat)
{
	json_t *cols = json_object_get(form, "columns"), *groups = json_array();
	const json_t *g, *row, *col;
	const char *subj;
	json_t *idx;
	size_t i, j, k;
	int r;

	if (!groups || json_object_set_new(form, "groups", groups))
		return -ENOMEM;
	if (cpumap) {
		if (json_array_append_new(cols, json_pack("{s:s, s:s}", "title",
				"rx on source CPU", "subject", "rx_src")) ||
		    json_array_append_new(cols, json_pack("{s:s, s:s}", "title", "dropped",
				"subject", "dropped")) ||
		    json_array_append_new(cols, json_pack("{s:s, s:s}", "title",
				"rx on destination CPU", "subject", "rx_dst")))
			return -ENOMEM;
	} else {
		json_object_foreach((json_t *)subjects, subj, idx)
			if (json_array_append_new(cols, json_pack("{s:s, s:s}", "title", subj,
								  "subject", subj)))
				return -ENOMEM;
	}
	json_array_foreach(json_object_get(report, "groups"), i, g) {
		const json_t *sec = group_section(g, metric), *v;
		json_t *grp = json_pack("{s:O, s:O?, s:O, s:[]}", "host", json_object_get(g, "host"),
					"kernel_release", json_object_get(g, "kernel_release"),
					"point", json_object_get(g, "point"), "rows");

		if (!grp || json_array_append_new(groups, grp))
			return -ENOMEM;
		json_array_foreach(json_object_get(report, "variants"), j, v) {
			const char *variant = json_string_value(v);
			json_t *out = json_pack("{s:s, s:[]}", "variant", variant ? variant : "-",
						"cells"), *cells;

			if (!out || json_array_append_new(json_object_get(grp, "rows"), out))
				return -ENOMEM;
			cells = json_object_get(out, "cells");
			json_array_foreach(cols, k, col) {
				const char *cs = get_str(col, "subject");
				json_t *cell;

				row = sec && variant ? section_row(sec, variant, cs) : NULL;
				if (!cpumap || strcmp(cs, "dropped")) {
					cell = form_cell(row, repeat);
				} else {
					/* dropped = rx_src - redirect_err - rx_dst, at least 0 */
					const json_t *src = sec && variant ? section_row(sec, variant, "rx_src") : NULL;
					const json_t *dst = sec && variant ? section_row(sec, variant, "rx_dst") : NULL;
					const json_t *rerr = sec && variant ? section_row(sec, variant, "redirect_err") : NULL;

					cell = form_cell(NULL, repeat);
					for (r = 0; cell && src && dst && r < repeat; r++) {
						const json_t *a = json_array_get(json_object_get(src, "values"), r);
						const json_t *b = json_array_get(json_object_get(dst, "values"), r);
						const json_t *e = rerr ? json_array_get(json_object_get(rerr, "values"), r) : NULL;
						double d;

						if (!json_is_number(a) || !json_is_number(b))
							continue;
						d = json_number_value(a) - json_number_value(b) -
						    (json_is_number(e) ? json_number_value(e) : 0);
						json_array_set_new(json_object_get(cell, "values"), r,
								   json_real(d > 0 ? d : 0));
					}
					if (cell && src && json_object_get(src, "verdicts"))
						json_object_set_new(cell, "verdicts", json_deep_copy(
							json_object_get(src, "verdicts")));
					if (cell && add_stats(cell)) {
						json_decref(cell);
						cell = NULL;
					}
				}
				if (!cell || json_array_append_new(cells, cell))
					return -ENOMEM;
			}
		}
	}
	return 0;
}

json_t *report_form_build(const json_t *report, const char *form_name, const char *metric,
			  const char *subject, char *err, size_t err_len)
{
	json_t *form = NULL, *subjects = NULL;
	int repeat = get_int(report, "repeat"), ret = -EINVAL;
	bool grid, cpumap;
	const char *unit = NULL, *window = NULL;
	const json_t *g, *sec;
	size_t i;

	snprintf(err, err_len, "out of memory");
	grid = !strcmp(form_name, "grid");
	cpumap = !strcmp(form_name, "cpumap");
	if (!grid && !cpumap && strcmp(form_name, "columns")) {
		snprintf(err, err_len, "unknown form '%s' (expected table, grid, columns or cpumap)",
			 form_name);
		goto fail;
	}
	if (!metric) {
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
	if (!json_object_size(subjects) && json_array_size(json_object_get(report, "groups"))) {
		snprintf(err, err_len, "the run has no '%s' samples", metric);
		goto fail;
	}
	if (cpumap && (!json_object_get(subjects, "rx_src") || !json_object_get(subjects, "rx_dst"))) {
		snprintf(err, err_len, "form 'cpumap' needs '%s' subjects 'rx_src' and 'rx_dst' (the counters of bpf/xdp_cpumap.bpf.c)",
			 metric);
		goto fail;
	}
	if (grid && !subject) {
		if (json_object_size(subjects) == 1) {
			subject = json_object_iter_key(json_object_iter(subjects));
		} else if (json_object_size(subjects) > 1) {
			char list[512] = "";
			const char *k;
			json_t *v;

			json_object_foreach(subjects, k, v)
				snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
					 *list ? ", " : "", k);
			snprintf(err, err_len, "form 'grid' needs --subject for '%s' (one of: %s)",
				 metric, list);
			goto fail;
		}
	}
	if (grid && subject && json_object_size(subjects) && !json_object_get(subjects, subject)) {
		snprintf(err, err_len, "the run has no '%s' samples of subject '%s'", metric, subject);
		goto fail;
	}
	json_array_foreach(json_object_get(report, "groups"), i, g) {
		if ((sec = group_section(g, metric))) {
			unit = get_str(sec, "unit");
			window = get_str(sec, "window");
			break;
		}
	}
	form = json_pack("{s:s, s:O?, s:O?, s:O?, s:O?, s:i, s:s, s:s?, s:s?, s:s?, s:[]}",
			 "form", form_name, "run", json_object_get(report, "run"),
			 "plan", json_object_get(report, "plan"),
			 "plan_sha256", json_object_get(report, "plan_sha256"),
			 "state", json_object_get(report, "state"), "repeat", repeat,
			 "metric", metric, "subject", grid ? subject : NULL, "unit", unit,
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
	if (grid) {
		if (json_object_set_new(form, "rows", json_array())) {
			ret = -ENOMEM;
			goto fail;
		}
		ret = form_grid(report, form, metric, subject, repeat);
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
		fmt_num(buf, len, mean, &f);
	} else {
		struct num_fmt f = fmt_for(NUM_PLAIN, x);

		fmt_num(buf, len, mean, &f);
	}
	json_array_foreach(json_object_get(cell, "verdicts"), r, v) {
		add_marks(buf, len, v);
		add_marks(marks, marks_len, v);
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

/* The grid: Version | Test | a column per variant, left-aligned; cells hold at most
 * CELL - 1 bytes, as the texts of print_section do. */
static int print_grid(const json_t *form, FILE *out)
{
	const json_t *cols = json_object_get(form, "columns"), *rows = json_object_get(form, "rows");
	const json_t *row, *col;
	size_t nc = json_array_size(cols) + 2, i, j;
	char (*buf)[CELL] = calloc(nc, CELL), marks[16] = "";
	const char **cells = calloc(nc, sizeof(*cells));
	bool rate = get_str(form, "unit") && !strcmp(get_str(form, "unit"), "pps");
	struct tt_table t = { .cells = NULL };
	int err = -ENOMEM;

	if (!buf || !cells || tt_table_init(&t, (int)nc, NULL))
		goto out;
	t.sep = " | ";
	t.trim = true;
	for (j = 0; j < nc; j++)
		cells[j] = buf[j];
	snprintf(buf[0], CELL, "Version");
	snprintf(buf[1], CELL, "Test");
	json_array_foreach(cols, j, col)
		snprintf(buf[j + 2], CELL, "%s", get_str(col, "title"));
	err = tt_table_add(&t, cells);
	json_array_foreach(rows, i, row) {
		if (err)
			goto out;
		memset(buf, 0, nc * CELL);
		snprintf(buf[0], CELL, "%s", get_str(row, "version"));
		snprintf(buf[1], CELL, "%s", get_str(row, "test"));
		json_array_foreach(json_object_get(row, "cells"), j, col)
			if (j + 2 < nc)
				grid_num(buf[j + 2], CELL, col, rate, marks, sizeof(marks));
		err = tt_table_add(&t, cells);
	}
	if (err)
		goto out;
	form_title(form, out);
	tt_table_print(&t, out);
	print_legend(marks, json_object_get(form, "verdict_details"), out);
out:
	tt_table_release(&t);
	free(cells);
	free(buf);
	return err;
}

#define FCELL (2 * CELL + 8)

static int print_by_variant(const json_t *form, FILE *out)
{
	const json_t *cols = json_object_get(form, "columns"), *g, *row, *cell;
	size_t nc = json_array_size(cols), i, j, k;
	const char *host = NULL;
	enum num_kind kind = NUM_PLAIN;
	double max = 0;
	int err = 0;

	if (get_str(form, "unit") && !strcmp(get_str(form, "unit"), "pps"))
		kind = NUM_RATE;
	else if (get_str(form, "unit") && !strcmp(get_str(form, "unit"), "ns"))
		kind = NUM_NS;
	json_array_foreach(json_object_get(form, "groups"), i, g)
		json_array_foreach(json_object_get(g, "rows"), j, row)
			json_array_foreach(json_object_get(row, "cells"), k, cell)
				if (obj_max(cell) > max)
					max = obj_max(cell);
	form_title(form, out);
	json_array_foreach(json_object_get(form, "groups"), i, g) {
		char (*buf)[FCELL] = calloc(nc + 1, FCELL), marks[16] = "";
		const char **cells = calloc(nc + 1, sizeof(*cells));
		struct tt_table t = { .cells = NULL };

		if (!buf || !cells || tt_table_init(&t, (int)nc + 1, NULL)) {
			free(cells);
			free(buf);
			return -ENOMEM;
		}
		t.trim = true;
		for (j = 0; j <= nc; j++) {
			cells[j] = buf[j];
			t.right[j] = j > 0;
		}
		if (!host || strcmp(host, get_str(g, "host"))) {
			fprintf(out, "\nhost %s", get_str(g, "host"));
			if (get_str(g, "kernel_release"))
				fprintf(out, "  kernel %s", get_str(g, "kernel_release"));
			fputc('\n', out);
			host = get_str(g, "host");
		}
		if (json_is_object(json_object_get(g, "point")))
			point_label(json_object_get(g, "point"), out);
		snprintf(buf[0], FCELL, "variant");
		json_array_foreach(cols, j, cell)
			snprintf(buf[j + 1], FCELL, "%s", get_str(cell, "title"));
		err = tt_table_add(&t, cells);
		json_array_foreach(json_object_get(g, "rows"), k, row) {
			if (err)
				break;
			memset(buf, 0, (nc + 1) * FCELL);
			snprintf(buf[0], FCELL, "%s", get_str(row, "variant"));
			json_array_foreach(json_object_get(row, "cells"), j, cell) {
				struct num_fmt f = fmt_for(kind, max);
				struct row_text rt = { .variant = NULL };
				const json_t *v;
				size_t r;

				if (j >= nc)
					break;
				memset(rt.mean, 0, CELL);
				memset(rt.spread, 0, CELL);
				mean_texts(cell, f, &rt);
				snprintf(buf[j + 1], FCELL, "%s%s%s", rt.mean, *rt.spread ? " ± " : "",
					 rt.spread);
				json_array_foreach(json_object_get(cell, "verdicts"), r, v) {
					add_marks(buf[j + 1], FCELL, v);
					add_marks(marks, sizeof(marks), v);
				}
			}
			err = tt_table_add(&t, cells);
		}
		if (!err) {
			tt_table_print(&t, out);
			print_legend(marks, json_object_get(form, "verdict_details"), out);
		}
		tt_table_release(&t);
		free(cells);
		free(buf);
		if (err)
			return err;
	}
	return 0;
}

int report_form_print_text(const json_t *form, FILE *out)
{
	const char *sha = get_str(form, "plan_sha256");
	int err;

	fprintf(out, "run %lld  %s", (long long)json_integer_value(json_object_get(form, "run")),
		get_str(form, "plan") ? get_str(form, "plan") : "-");
	if (sha)
		fprintf(out, "  plan %.12s", sha);
	if (get_str(form, "state"))
		fprintf(out, "  %s", get_str(form, "state"));
	fputs("\n\n", out);
	if (!strcmp(get_str(form, "form"), "grid"))
		err = print_grid(form, out);
	else
		err = print_by_variant(form, out);
	if (err)
		return err;
	return ferror(out) ? -EIO : 0;
}

char *report_form_text(const json_t *form)
{
	return print_to_string(report_form_print_text, form);
}

/* ---- CSV ---- */

/* S as a CSV field (NULL empty), then ',' or, for the LAST of a line, '\n'. */
static void csv_field(FILE *out, const char *s, bool last)
{
	tt_csv_field(out, s);
	fputc(last ? '\n' : ',', out);
}

/* A JSON scalar as CSV text: strings as they are, numbers with enough digits to read
 * back the same double, null as empty. */
static void csv_value(FILE *out, const json_t *v, bool last)
{
	char buf[64];
	int prec;

	if (json_is_integer(v)) {
		snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
	} else if (json_is_real(v)) {
		double d = json_real_value(v);

		for (prec = 15; prec <= 17; prec++) {
			snprintf(buf, sizeof(buf), "%.*g", prec, d);
			if (strtod(buf, NULL) == d)
				break;
		}
	} else if (json_is_string(v)) {
		csv_field(out, json_string_value(v), last);
		return;
	} else {
		buf[0] = '\0';
	}
	csv_field(out, buf, last);
}

static char *point_text(const json_t *point)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const char *key;
	const json_t *v;
	bool first = true;

	if (!f)
		return NULL;
	if (json_is_object(point)) {
		json_object_foreach((json_t *)point, key, v) {
			char *s = json_is_string(v) ? NULL : json_dumps(v, JSON_ENCODE_ANY);

			fprintf(f, "%s%s=%s", first ? "" : " ", key,
				s ? s : (json_string_value(v) ? json_string_value(v) : ""));
			free(s);
			first = false;
		}
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

int report_print_csv(const json_t *result, FILE *out)
{
	const json_t *run = json_object_get(result, "run"), *s;
	size_t i;

	fputs("run,job,host,variant,rep,point,metric,subject,window,value,unit\n", out);
	json_array_foreach(json_object_get(result, "samples"), i, s) {
		char *point = point_text(json_object_get(s, "point"));

		if (!point)
			return -ENOMEM;
		csv_value(out, run, false);
		csv_value(out, json_object_get(s, "job"), false);
		csv_value(out, json_object_get(s, "host"), false);
		csv_value(out, json_object_get(s, "variant"), false);
		csv_value(out, json_object_get(s, "rep"), false);
		csv_field(out, point, false);
		csv_value(out, json_object_get(s, "metric"), false);
		csv_value(out, json_object_get(s, "subject"), false);
		csv_value(out, json_object_get(s, "window"), false);
		csv_value(out, json_object_get(s, "value"), false);
		csv_value(out, json_object_get(s, "unit"), true);
		free(point);
	}
	return ferror(out) ? -EIO : 0;
}

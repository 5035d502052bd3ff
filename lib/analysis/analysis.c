// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* analysis.c - see analysis.h. The compare report: the series of the baseline group
 * paired with those of each candidate (analysis_series.c reads them), each pair's far-out
 * values left out (Tukey's fences) and handed to compare_samples; MIXED where a side's
 * receive softirq ran on two CPUs at two levels. analysis_history.c builds the history.
 * Called by cli/result_analysis.c, single-threaded per call; no global state.
 */
#include "analysis/analysis.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_int.h"
#include "analysis/compare.h"
#include "analysis/runspread.h"
#include "analysis/stats.h"
#include "base/util.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The P-quantile of the sorted S[0..N-1], type 7. */
static double quantile7(const double *s, size_t n, double p)
{
	double h = (double)(n - 1) * p;
	size_t i = (size_t)floor(h);

	return i + 1 < n ? s[i] + (h - (double)i) * (s[i + 1] - s[i]) : s[i];
}

int analysis_tukey_fences(const double *v, size_t n, double k, double *lo, double *hi)
{
	double *s, q1, q3;

	if (n < ANALYSIS_TUKEY_MIN_N)
		return -EINVAL;
	s = malloc(n * sizeof(*s));
	if (!s)
		return -ENOMEM;
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	q1 = quantile7(s, n, 0.25);
	q3 = quantile7(s, n, 0.75);
	free(s);
	*lo = q1 - k * (q3 - q1);
	*hi = q3 + k * (q3 - q1);
	return 0;
}

static json_t *compare_row(const struct series *a, const struct series *b,
			   const struct compare_result *r)
{
	json_t *o;
	double improvement = r->delta_pct;
	char subject[256];

	if (r->kind == STATS_KIND_TIME)
		improvement = -improvement;
	else if (r->kind != STATS_KIND_RATE)
		improvement = NAN;
	if (strcmp(a->subject, b->subject))
		snprintf(subject, sizeof(subject), "%s>%s", a->subject, b->subject);
	else
		snprintf(subject, sizeof(subject), "%s", a->subject);
	o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I}",
		      "metric", a->metric, "point", a->point, "variant", a->variant,
		      "subject", subject, "unit", a->unit, "kind", stats_kind_name(r->kind),
		      "n_a", (json_int_t)r->n_a, "n_b", (json_int_t)r->n_b);
	if (!o)
		return NULL;
	if (strcmp(a->subject, b->subject)) {
		json_object_set_new(o, "baseline_subject", json_string(a->subject));
		json_object_set_new(o, "candidate_subject", json_string(b->subject));
	}
	json_object_set_new(o, "mean_a", analysis_num(r->mean_a));
	json_object_set_new(o, "mean_b", analysis_num(r->mean_b));
	json_object_set_new(o, "stddev_a", analysis_num(r->stddev_a));
	json_object_set_new(o, "stddev_b", analysis_num(r->stddev_b));
	json_object_set_new(o, "spread_a", analysis_num(r->spread_a));
	json_object_set_new(o, "spread_b", analysis_num(r->spread_b));
	json_object_set_new(o, "delta_pct", analysis_num(r->delta_pct));
	json_object_set_new(o, "improvement_pct", analysis_num(improvement));
	json_object_set_new(o, "ci_lo_pct", analysis_num(r->ci_lo_pct));
	json_object_set_new(o, "ci_hi_pct", analysis_num(r->ci_hi_pct));
	json_object_set_new(o, "test", json_string(compare_test_name(r->test)));
	json_object_set_new(o, "p", analysis_num(r->p));
	/* both sides constant (icount): no test, p 1 or 0 by convention (docs/analysis.md) */
	json_object_set_new(o, "exact", json_boolean(r->test == COMPARE_TEST_CONSTANT));
	json_object_set_new(o, "verdict", json_string(compare_verdict_name(r->verdict)));
	json_object_set_new(o, "change", json_string(compare_change_name(r->change)));
	json_object_set_new(o, "more_reps", json_integer(r->more_reps));
	json_object_set_new(o, "more_reps_capped", json_boolean(r->more_reps_capped));
	return o;
}

/* S without its far-out values (Tukey's fences, k = ANALYSIS_OUTLIER_K, from
 * ANALYSIS_OUTLIER_MIN_N values) unless KEEP: a new series in OUT (values and jobs
 * owned by it, nothing else); returns how many were left out, or -ENOMEM. */
static int drop_outliers(const struct series *s, bool keep, struct series *out)
{
	double lo = -INFINITY, hi = INFINITY;
	size_t i;

	*out = *s;
	out->v = malloc((s->n + 1) * sizeof(*out->v));
	out->job = malloc((s->n + 1) * sizeof(*out->job));
	if (!out->v || !out->job) {
		free(out->v);
		free(out->job);
		return -ENOMEM;
	}
	out->n = 0;
	if (!keep && s->n >= ANALYSIS_OUTLIER_MIN_N &&
	    analysis_tukey_fences(s->v, s->n, ANALYSIS_OUTLIER_K, &lo, &hi) == -ENOMEM)
		return -ENOMEM;
	for (i = 0; i < s->n; i++) {
		if (s->v[i] < lo || s->v[i] > hi)
			continue;
		out->job[out->n] = s->job[i];
		out->v[out->n++] = s->v[i];
	}
	return (int)(s->n - out->n);
}

/* Whether the values of S came from jobs whose receive softirq ran on different CPUs
 * (RX_CPU: job -> CPU), at least two values per CPU, whose ranges do not overlap and
 * whose means differ by MIN_EFFECT or more (two populations, the bimodal case of
 * docs/analysis.md): then "cpuA N at MEAN, cpuB ..." in OUT. */
static bool mixed_populations(const struct series *s, const json_t *rx_cpu, double min_effect,
			      char *out, size_t len)
{
	enum stats_kind kind = stats_kind_for_unit(s->unit);
	int cpus[8], n_cpus = 0, i;
	double lo = INFINITY, hi = -INFINITY, vals[s->n ? s->n : 1], rng[8][2];
	bool apart = true;
	size_t k, o = 0, m;
	char job[32];

	for (k = 0; k < s->n; k++) {
		json_t *c;

		snprintf(job, sizeof(job), "%lld", s->job[k]);
		c = json_object_get(rx_cpu, job);
		if (!c)
			return false;	/* where one value's work ran is not known */
		for (i = 0; i < n_cpus && cpus[i] != (int)json_integer_value(c); i++)
			;
		if (i == n_cpus && n_cpus < 8)
			cpus[n_cpus++] = (int)json_integer_value(c);
	}
	if (n_cpus < 2)
		return false;
	out[0] = '\0';
	for (i = 0; i < n_cpus; i++) {
		double mean, min, max;

		for (k = 0, m = 0; k < s->n; k++) {
			snprintf(job, sizeof(job), "%lld", s->job[k]);
			if (json_integer_value(json_object_get(rx_cpu, job)) == cpus[i])
				vals[m++] = s->v[k];
		}
		if (m < 2)
			return false;	/* one odd repetition is not a population */
		mean = stats_kind_mean(kind, vals, m);
		min = stats_min(vals, m);
		max = stats_max(vals, m);
		/* populations apart: no range overlaps another's */
		for (k = 0; k < (size_t)i; k++)
			if (!(max < rng[k][0] || min > rng[k][1]))
				apart = false;
		rng[i][0] = min;
		rng[i][1] = max;
		lo = mean < lo ? mean : lo;
		hi = mean > hi ? mean : hi;
		if (o < len)
			o += (size_t)snprintf(out + o, len - o, "%scpu%d %zu at %.4g", i ? ", " : "",
					      cpus[i], m, mean);
	}
	return apart && lo > 0 && (hi - lo) / lo >= min_effect;
}

/* The run-to-run component of the pair A, B from IX into the options O (a copy of the
 * caller's) and, with the note when it is not known, into row ROW later: *RS. Not known,
 * IX's assumption stands in for it (runspread.h, RUNSPREAD_ASSUMED), or with none the
 * repetitions are taken as independent; the note says which. */
static void run_component(const struct spread_index *ix, const struct series *a,
			  const struct series *b, struct compare_opts *o, struct runspread *rs,
			  char *note, size_t len)
{
	size_t at;

	analysis_spread_component(ix, a, b, rs, note, len);
	if (!rs->known && ix->assumed > 0) {
		rs->assumed = true;
		rs->rel_var = ix->assumed * ix->assumed;
		rs->df = RUNSPREAD_ASSUMED_DF;
	}
	if (rs->known || rs->assumed) {
		o->run_rel_var = rs->rel_var;
		o->run_df = rs->df;
	}
	at = strlen(note);
	if (!rs->known && at < len)
		snprintf(note + at, len - at, rs->assumed ? ": %.3g %% assumed (--run-spread)" :
			 ": repetitions taken as independent (--run-spread 0)",
			 100 * ix->assumed);
}

/* The run-to-run members of row ROW (docs/analysis.md, "Run-to-run spread"). */
static void run_members(json_t *row, const struct runspread *rs, const char *note,
			const struct compare_result *r)
{
	json_object_set_new(row, "run_spread_pct", rs->known ?
			    json_real(100 * sqrt(rs->rel_var)) : json_null());
	json_object_set_new(row, "run_spread_runs", json_integer((json_int_t)rs->runs));
	if (rs->known)
		json_object_set_new(row, "run_spread_df", json_real(rs->df));
	if (rs->assumed)
		json_object_set_new(row, "run_spread_assumed_pct",
				    json_real(100 * sqrt(rs->rel_var)));
	if (*note)
		json_object_set_new(row, "run_spread_note", json_string(note));
	if (r->run_limited)
		json_object_set_new(row, "run_limited", json_true());
}

/* Compare the values of A and B (far-out values left out and counted in X unless
 * X->all) into a row of ROWS, with the run-to-run component from IX when not NULL; a
 * side whose receive work ran on two CPUs with two levels gets the verdict MIXED
 * instead of a mean over both. */
static int compare_pair(const struct series *a, const struct series *b,
			const struct compare_opts *copts, const struct spread_index *ix,
			struct excluded *x, json_t *rows)
{
	double min_effect = copts->min_effect > 0 ? copts->min_effect : 0.02;
	struct series ka = { 0 }, kb = { 0 };
	struct compare_opts o = *copts;
	struct runspread rs = { 0 };
	struct compare_result r;
	char note[256] = "";
	char why[2][256];
	bool mixed[2];
	json_t *row;
	int na, nb, err;

	na = drop_outliers(a, x->all, &ka);
	nb = na < 0 ? -ENOMEM : drop_outliers(b, x->all, &kb);
	if (na < 0 || nb < 0) {
		err = -ENOMEM;
		goto out;
	}
	x->outliers += (size_t)na + (size_t)nb;
	if (ix)
		run_component(ix, a, b, &o, &rs, note, sizeof(note));
	err = compare_samples(ka.v, ka.n, kb.v, kb.n, stats_kind_for_unit(a->unit), &o, &r);
	if (err)
		goto out;
	row = compare_row(a, b, &r);
	if (!row || json_array_append_new(rows, row)) {
		err = -ENOMEM;
		goto out;
	}
	if (ix)
		run_members(row, &rs, note, &r);
	if (na || nb) {
		json_object_set_new(row, "outliers_a", json_integer(na));
		json_object_set_new(row, "outliers_b", json_integer(nb));
	}
	mixed[0] = mixed_populations(&ka, x->rx_cpu, min_effect, why[0], sizeof(why[0]));
	mixed[1] = mixed_populations(&kb, x->rx_cpu, min_effect, why[1], sizeof(why[1]));
	if (mixed[0] || mixed[1]) {
		char text[800];

		snprintf(text, sizeof(text), "the receive softirq ran on different CPUs across "
			 "repetitions, at different levels:%s%s%s%s", mixed[0] ? " baseline " : "",
			 mixed[0] ? why[0] : "", mixed[1] ? (mixed[0] ? "; candidate " :
			 " candidate ") : "", mixed[1] ? why[1] : "");
		json_object_set_new(row, "verdict", json_string("MIXED"));
		json_object_set_new(row, "change", json_string(""));
		json_object_set_new(row, "more_reps", json_integer(0));
		json_object_set_new(row, "mixed", json_string(text));
	}
out:
	free(ka.v);
	free(ka.job);
	free(kb.v);
	free(kb.job);
	return err;
}

/* A series of group A in the order its row is shown: metric (first measured), then as
 * the plan lists points and variants, then first measured. */
struct row_order {
	size_t metric, order, idx;
	long long point_seq, variant_idx;
};

static int cmp_row_order(const void *pa, const void *pb)
{
	const struct row_order *a = pa, *b = pb;

	if (a->metric != b->metric)
		return a->metric < b->metric ? -1 : 1;
	if (a->point_seq != b->point_seq)
		return a->point_seq < b->point_seq ? -1 : 1;
	if (a->variant_idx != b->variant_idx)
		return a->variant_idx < b->variant_idx ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* The indexes in SET of group G's series in row order (heap, *N of them), or NULL. */
static size_t *rows_in_order(const struct series_set *set, const char *g, size_t *n)
{
	struct row_order *o = calloc(set->n ? set->n : 1, sizeof(*o));
	size_t *idx = calloc(set->n ? set->n : 1, sizeof(*idx));
	size_t i, k;

	*n = 0;
	if (!o || !idx) {
		free(o);
		free(idx);
		return NULL;
	}
	for (i = 0; i < set->n; i++) {
		const struct series *s = &set->s[i];

		if (strcmp(s->group, g))
			continue;
		for (k = 0; strcmp(set->s[k].metric, s->metric); k++)
			;	/* the metric's first series */
		o[*n] = (struct row_order) { .metric = k, .order = s->order, .idx = i,
					     .point_seq = s->point_seq,
					     .variant_idx = s->variant_idx };
		(*n)++;
	}
	qsort(o, *n, sizeof(*o), cmp_row_order);
	for (i = 0; i < *n; i++)
		idx[i] = o[i].idx;
	free(o);
	return idx;
}

/* The rows of one comparison: every key with values in group A, paired with group B by
 * key; a key whose variant has exactly one subject on each side, different ones (a
 * program renamed by the patch), is paired across the subjects. Keys on one side only
 * go to ONLY_A / ONLY_B. */
static int compare_groups(struct series_set *set, const char *ga, const char *gb,
			  const struct compare_opts *copts, const struct spread_index *ix,
			  struct excluded *x, json_t *rows, json_t *only_a, json_t *only_b)
{
	struct series *a, *b;
	size_t i, n, *order = rows_in_order(set, ga, &n);
	int err = 0;

	if (!order)
		return -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		a = &set->s[order[i]];
		b = analysis_find_in(set, a, gb, true);
		if (!b && analysis_count_subjects(set, a, ga) == 1 && analysis_count_subjects(set, a, gb) == 1)
			b = analysis_find_in(set, a, gb, false);
		if (!b) {
			if (json_array_append_new(only_a, json_pack("{s:s, s:s, s:s, s:s}",
					"metric", a->metric, "point", a->point,
					"variant", a->variant, "subject", a->subject)))
				err = -ENOMEM;
			continue;
		}
		err = compare_pair(a, b, copts, ix, x, rows);
	}
	free(order);
	if (err)
		return err;
	for (i = 0; i < set->n; i++) {
		b = &set->s[i];
		if (strcmp(b->group, gb) || analysis_find_in(set, b, ga, true))
			continue;
		if (analysis_count_subjects(set, b, ga) == 1 && analysis_count_subjects(set, b, gb) == 1)
			continue;	/* paired across subjects above */
		if (json_array_append_new(only_b, json_pack("{s:s, s:s, s:s, s:s}",
				"metric", b->metric, "point", b->point,
				"variant", b->variant, "subject", b->subject)))
			return -ENOMEM;
	}
	return 0;
}

/* Whether sides A and B share no timing mode (so nothing of theirs may be compared);
 * a side with no timing recorded counts as "wall". */
static bool timing_apart(const json_t *a, const json_t *b, const char **ta, const char **tb)
{
	const json_t *ja = json_object_get(a, "timing"), *jb = json_object_get(b, "timing");
	const json_t *x, *y;
	size_t i, k;

	*ta = json_array_size(ja) ? json_string_value(json_array_get(ja, 0)) : "wall";
	*tb = json_array_size(jb) ? json_string_value(json_array_get(jb, 0)) : "wall";
	if (!json_array_size(ja) || !json_array_size(jb))
		return strcmp(*ta, *tb) != 0;
	json_array_foreach(ja, i, x)
		json_array_foreach(jb, k, y)
			if (json_equal(x, y))
				return false;
	return true;
}

static const char *groups_text(const json_t *sides, char *out, size_t len)
{
	const char *g;
	json_t *v;
	size_t off = 0;

	out[0] = '\0';
	json_object_foreach((json_t *)sides, g, v)
		if (off < len)
			off += snprintf(out + off, len - off, "%s'%s'", off ? ", " : "", g);
	return off ? out : "none";
}

/* LIST (an array of strings) as "a, b" into OUT. */
static const char *list_text(const json_t *list, char *out, size_t len)
{
	size_t i, off = 0;
	json_t *v;

	out[0] = '\0';
	json_array_foreach(list, i, v)
		if (off < len)
			off += snprintf(out + off, len - off, "%s%s", i ? ", " : "",
					json_string_value(v) ? json_string_value(v) : "?");
	return out;
}

const char *analysis_pooled_text(const json_t *entry, const char *by, char *out, size_t len)
{
	const json_t *hosts = json_object_get(entry, "hosts");
	const json_t *builds = json_object_get(entry, "builds");
	size_t nh = json_array_size(hosts), nb = json_array_size(builds);
	char h[256], b[512];

	snprintf(out, len, "%s %s '%s' holds values of %zu host%s (%s) and %zu kernel build%s "
		 "(%s)", json_string_value(json_object_get(entry, "side")), by,
		 json_string_value(json_object_get(entry, "group")), nh, nh == 1 ? "" : "s",
		 list_text(hosts, h, sizeof(h)), nb, nb == 1 ? "" : "s",
		 list_text(builds, b, sizeof(b)));
	return out;
}

/* The "pooled" entries of the sides SIDES_ARR (baseline first) that hold values of
 * several hosts or kernel builds, into a new array; NULL on ENOMEM. */
static json_t *pooled_sides(const json_t *sides_arr)
{
	json_t *out = json_array(), *side;
	size_t i;

	json_array_foreach(sides_arr, i, side) {
		json_t *hosts = json_object_get(side, "hosts"), *builds = json_object_get(side, "builds");

		if (!out || (json_array_size(hosts) < 2 && json_array_size(builds) < 2))
			continue;
		if (json_array_append_new(out, json_pack("{s:s, s:O, s:O, s:O}", "side",
				i ? "candidate" : "baseline", "group", json_object_get(side, "group"),
				"hosts", hosts, "builds", builds))) {
			json_decref(out);
			return NULL;
		}
	}
	return out;
}

json_t *analysis_compare(const json_t *rows, const char *by, const char *baseline,
			 const char *candidate, const struct analysis_opts *opts, struct err *err)
{
	struct analysis_input in = { .set = { 0 } };
	struct spread_index ix = { 0 };
	bool spread = false;
	json_t *sides, *report = NULL, *cmps = NULL, *sides_arr = NULL, *pooled = NULL;
	json_t *cmp, *crows, *only_a, *only_b, *v;
	COMPARE_OPTS(copts);
	char names[1024];
	const char *g;
	int e;

	if (!by)
		by = "run";
	e = analysis_input_read(&in, rows, by, opts, true, "to compare", err);
	if (e)
		goto out;
	sides = in.sides;
	in.x.all = opts && opts->all;
	if (opts) {
		copts.alpha = opts->alpha;
		copts.min_effect = opts->min_effect;
	}
	/* the sides are whole runs: their run-to-run spread is known to the store */
	if (opts && opts->run_spread && !strcmp(by, "run")) {
		spread = true;
		if (analysis_spread_index(opts->run_spread, &ix)) {
			e = err_ret(err, -ENOMEM, "out of memory");
			goto out;
		}
		ix.assumed = opts->run_spread_assumed < 0 ? 0 : opts->run_spread_assumed > 0 ?
			     opts->run_spread_assumed : RUNSPREAD_ASSUMED;
	}
	cmps = json_array();
	if (!cmps) {
		e = err_ret(err, -ENOMEM, "out of memory");
		goto out;
	}
	if (!baseline)
		baseline = json_object_iter_key(json_object_iter(sides));
	if (!json_object_get(sides, baseline)) {
		e = analysis_group_flagged(rows, baseline) ?
		    err_ret(err, -ENOENT, "no results for baseline %s '%s' (all of them flagged; --include-flagged to use them)",
				by, baseline) :
		    err_ret(err, -ENOENT, "no results for baseline %s '%s' (there are %s)",
				by, baseline, groups_text(sides, names, sizeof(names)));
		goto out;
	}
	if (candidate && !json_object_get(sides, candidate)) {
		e = analysis_group_flagged(rows, candidate) ?
		    err_ret(err, -ENOENT, "no results for candidate %s '%s' (all of them flagged; --include-flagged to use them)",
				by, candidate) :
		    err_ret(err, -ENOENT, "no results for candidate %s '%s' (there are %s)",
				by, candidate, groups_text(sides, names, sizeof(names)));
		goto out;
	}
	if (!candidate && json_object_size(sides) < 2) {
		e = err_ret(err, -ENOENT, "nothing to compare: only %s '%s' has results",
			   by, baseline);
		goto out;
	}
	json_object_foreach(sides, g, v) {
		const char *ta, *tb;

		if (!strcmp(g, baseline) || (candidate && strcmp(g, candidate)))
			continue;
		if (timing_apart(json_object_get(sides, baseline), v, &ta, &tb)) {
			e = err_ret(err, -EINVAL, "cannot compare %s '%s' with '%s': measured "
				   "with '%s' timing against '%s' timing (guest instructions are not "
				   "time; docs/kernels.md, Timing modes)", by, baseline, g, ta, tb);
			goto out;
		}
		crows = json_array();
		only_a = json_array();
		only_b = json_array();
		cmp = json_pack("{s:s, s:s, s:o, s:o, s:o}", "baseline", baseline, "candidate", g,
				"rows", crows, "only_baseline", only_a, "only_candidate", only_b);
		if (!cmp || json_array_append_new(cmps, cmp)) {
			e = err_ret(err, -ENOMEM, "out of memory");
			goto out;
		}
		e = compare_groups(&in.set, baseline, g, &copts, spread ? &ix : NULL, &in.x, crows,
				   only_a, only_b);
		if (e) {
			err_ret(err, e, "cannot compare %s '%s' with '%s': %s", by, baseline,
			       g, strerror(-e));
			goto out;
		}
	}
	sides_arr = json_array();
	if (!sides_arr || json_array_append(sides_arr, json_object_get(sides, baseline))) {
		e = err_ret(err, -ENOMEM, "out of memory");
		goto out;
	}
	json_object_foreach(sides, g, v)
		if (strcmp(g, baseline) && (!candidate || !strcmp(g, candidate)) &&
		    json_array_append(sides_arr, v)) {
			e = err_ret(err, -ENOMEM, "out of memory");
			goto out;
		}
	pooled = pooled_sides(sides_arr);
	if (!pooled) {
		e = err_ret(err, -ENOMEM, "out of memory");
		goto out;
	}
	if (opts && opts->strict && json_array_size(pooled)) {
		analysis_pooled_text(json_array_get(pooled, 0), by, names, sizeof(names));
		e = err_ret(err, -EDOM, "%s; --strict refuses to pool them (--by "
				"host or kernel.build, or --host, splits them)", names);
		goto out;
	}
	report = json_pack("{s:s, s:s, s:f, s:f, s:O, s:O, s:o, s:o}", "by", by,
			   "baseline", baseline,
			   "alpha", copts.alpha > 0 ? copts.alpha : 0.05,
			   "min_effect", copts.min_effect > 0 ? copts.min_effect : 0.02,
			   "sides", sides_arr, "pooled", pooled, "comparisons", json_incref(cmps),
			   "excluded", analysis_excluded_json(&in.x, opts && opts->include_flagged));
out:
	analysis_spread_release(&ix);
	json_decref(pooled);
	json_decref(sides_arr);
	json_decref(cmps);
	return analysis_input_finish(&in, report, e, err);
}


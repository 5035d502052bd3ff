/* analysis.c - see analysis.h. Groups stored values into compare and history reports.
 *
 * A "series" is the values of one (metric, matrix point, variant, subject) in one group;
 * for a compare the variant (or the subject) drops out of the key when it is what the
 * values are grouped by. Values are kept in the order the store gave them (time order).
 * Called by cli/result_analysis.c, single-threaded per call; no global state.
 */
#include "analysis.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "changepoint.h"
#include "compare.h"
#include "stats.h"
#include "util.h"

const char *const analysis_excluding_flags[ANALYSIS_N_EXCLUDING] = {
	"debug-kernel", "disturbed", "generator-bound",
};

/* One (key, group) series of values. */
struct series {
	char *metric, *point, *variant, *subject, *unit, *group;
	double *v;
	long long *job;			/* the job of each value */
	size_t n, cap;
	size_t order;			/* first appearance */
};

struct series_set {
	struct series *s;
	size_t n, cap;
};

static void set_release(struct series_set *set)
{
	size_t i;

	for (i = 0; i < set->n; i++) {
		free(set->s[i].metric);
		free(set->s[i].point);
		free(set->s[i].variant);
		free(set->s[i].subject);
		free(set->s[i].unit);
		free(set->s[i].group);
		free(set->s[i].v);
		free(set->s[i].job);
	}
	free(set->s);
	memset(set, 0, sizeof(*set));
}

static const char *str(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

unsigned int analysis_row_flags(const json_t *row)
{
	json_t *flags = json_object_get(row, "flags"), *f;
	unsigned int bits = 0;
	size_t i, k;

	json_array_foreach(flags, i, f)
		for (k = 0; k < ANALYSIS_N_EXCLUDING; k++)
			if (json_is_string(f) &&
			    !strcmp(json_string_value(f), analysis_excluding_flags[k]))
				bits |= 1u << k;
	if (json_array_size(json_object_get(row, "debug_options")) > 0)
		bits |= 1u;
	return bits;
}

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

/* Find or add the series of (metric, point, variant, subject, group). */
static struct series *series_get(struct series_set *set, const char *metric,
				 const char *point, const char *variant, const char *subject,
				 const char *unit, const char *group)
{
	struct series *s;
	size_t i;

	for (i = set->n; i-- > 0;) {
		s = &set->s[i];
		if (!strcmp(s->metric, metric) && !strcmp(s->point, point) &&
		    !strcmp(s->variant, variant) && !strcmp(s->subject, subject) &&
		    !strcmp(s->group, group))
			return s;
	}
	if (set->n == set->cap) {
		size_t cap = set->cap ? 2 * set->cap : 16;
		struct series *n = realloc(set->s, cap * sizeof(*n));

		if (!n)
			return NULL;
		set->s = n;
		set->cap = cap;
	}
	s = &set->s[set->n];
	memset(s, 0, sizeof(*s));
	s->metric = strdup(metric);
	s->point = strdup(point);
	s->variant = strdup(variant);
	s->subject = strdup(subject);
	s->unit = strdup(unit);
	s->group = strdup(group);
	s->order = set->n++;
	if (!s->metric || !s->point || !s->variant || !s->subject || !s->unit || !s->group)
		return NULL;
	return s;
}

static int series_add(struct series *s, double v, long long job)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 8;
		double *n = realloc(s->v, cap * sizeof(*n));
		long long *j;

		if (!n)
			return -ENOMEM;
		s->v = n;
		j = realloc(s->job, cap * sizeof(*j));
		if (!j)
			return -ENOMEM;
		s->job = j;
		s->cap = cap;
	}
	s->job[s->n] = job;
	s->v[s->n++] = v;
	return 0;
}

bool analysis_is_record(const char *metric)
{
	size_t n = strlen(metric);

	return !strcmp(metric, "rx.cpu") || !strcmp(metric, "cpu.others") ||
	       !strncmp(metric, "warmup.", 7) ||
	       (n > 7 && !strcmp(metric + n - 7, ".median"));
}

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A matrix point as "k=v k=v" (keys sorted), "" for none. Heap string or NULL. */
static char *point_text(const json_t *point)
{
	const char *k, **keys = NULL;
	size_t n = 0, i, len = 1;
	char *out = NULL;
	json_t *v;

	if (!json_is_object(point) || !json_object_size(point))
		return strdup("");
	keys = calloc(json_object_size(point), sizeof(*keys));
	if (!keys)
		return NULL;
	json_object_foreach((json_t *)point, k, v) {
		keys[n++] = k;
		len += strlen(k) + 2 + (json_is_string(v) ? strlen(json_string_value(v)) : 24);
	}
	qsort(keys, n, sizeof(*keys), cmp_str_ptr);
	out = calloc(1, len);
	for (i = 0; out && i < n; i++) {
		v = json_object_get(point, keys[i]);
		if (i)
			strcat(out, " ");
		strcat(out, keys[i]);
		strcat(out, "=");
		if (json_is_string(v))
			strcat(out, json_string_value(v));
		else if (json_is_integer(v))
			sprintf(out + strlen(out), "%lld", (long long)json_integer_value(v));
		else if (json_is_number(v))
			sprintf(out + strlen(out), "%g", json_number_value(v));
	}
	free(keys);
	return out;
}

/* Counts of left-out results: distinct jobs, and per excluding verdict; left-out
 * outlier values; and what the jobs record of where their receive softirq ran. */
struct excluded {
	json_t *jobs;			/* job id text -> true */
	size_t by_flag[ANALYSIS_N_EXCLUDING];
	size_t outliers;		/* values outside a side's far-out fences */
	bool all;			/* --all: outliers kept */
	json_t *rx_cpu;			/* job id text -> the CPU of its rx.cpu record */
};

static json_t *excluded_json(const struct excluded *x, bool include_flagged)
{
	json_t *o = json_object(), *by = json_object();
	size_t k;

	if (!o || !by) {
		json_decref(o);
		json_decref(by);
		return NULL;
	}
	for (k = 0; k < ANALYSIS_N_EXCLUDING; k++)
		if (x->by_flag[k])
			json_object_set_new(by, analysis_excluding_flags[k],
					    json_integer((json_int_t)x->by_flag[k]));
	json_object_set_new(o, "results", json_integer((json_int_t)json_object_size(x->jobs)));
	json_object_set_new(o, "by_flag", by);
	json_object_set_new(o, "include_flagged", json_boolean(include_flagged));
	json_object_set_new(o, "outliers", json_integer((json_int_t)x->outliers));
	json_object_set_new(o, "all", json_boolean(x->all));
	return o;
}

/* Append S to array A unless it is there already. */
static int add_unique(json_t *a, json_t *s)
{
	json_t *x;
	size_t i;

	if (!s || json_is_null(s))
		return 0;
	json_array_foreach(a, i, x)
		if (json_equal(x, s))
			return 0;
	return json_array_append(a, s);
}

/* What a group's footer line names: runs, kernels, hosts, cpus, governors, plans, and
 * how tc programs were attached. */
static json_t *side_new(const char *group)
{
	return json_pack("{s:s, s:i, s:[], s:[], s:[], s:[], s:[], s:[], s:[], s:[], s:[], "
			 "s:b}", "group", group, "results", 0, "runs", "kernels", "hosts", "cpus",
			 "governors", "plans", "plan_sha256", "timing", "tc_attach", "imported", 0);
}

static int side_add(json_t *side, const json_t *row, json_t *jobs_seen)
{
	char job[32];

	snprintf(job, sizeof(job), "%lld", (long long)json_integer_value(json_object_get(row, "job")));
	if (!json_object_get(jobs_seen, job)) {
		json_object_set_new(jobs_seen, job, json_true());
		json_object_set_new(side, "results",
				    json_integer(json_integer_value(json_object_get(side, "results")) + 1));
	}
	if (json_is_true(json_object_get(row, "imported")))
		json_object_set_new(side, "imported", json_true());
	return add_unique(json_object_get(side, "runs"), json_object_get(row, "run")) ||
	       add_unique(json_object_get(side, "kernels"), json_object_get(row, "kernel_release")) ||
	       add_unique(json_object_get(side, "hosts"), json_object_get(row, "host")) ||
	       add_unique(json_object_get(side, "cpus"), json_object_get(row, "cpu")) ||
	       add_unique(json_object_get(side, "governors"), json_object_get(row, "governor")) ||
	       add_unique(json_object_get(side, "plans"), json_object_get(row, "plan")) ||
	       add_unique(json_object_get(side, "plan_sha256"), json_object_get(row, "plan_sha256")) ||
	       add_unique(json_object_get(side, "timing"), json_object_get(row, "timing")) ||
	       add_unique(json_object_get(side, "tc_attach"), json_object_get(row, "tc_attach"))
	       ? -ENOMEM : 0;
}

/* Read ROWS into SET (keys without the BY field), SIDES (group -> side object, in order)
 * and X. */
/* Whether ROWS hold a measurement of group NAME (all of which collect() left out as
 * flagged when NAME has no side). */
static bool group_flagged(const json_t *rows, const char *name)
{
	json_t *row;
	size_t i;

	json_array_foreach(rows, i, row)
		if (!strcmp(str(row, "group"), name) && !analysis_is_record(str(row, "metric")) &&
		    analysis_row_flags(row))
			return true;
	return false;
}

static int collect(const json_t *rows, const char *by, bool include_flagged,
		   struct series_set *set, json_t *sides, struct excluded *x)
{
	bool drop_variant = !strcmp(by, "variant"), drop_subject = !strcmp(by, "subject");
	json_t *row, *side, *seen = json_object();
	unsigned int flags;
	struct series *s;
	size_t i, k;
	char *pt;
	int err = 0;

	if (!seen)
		return -ENOMEM;
	json_array_foreach(rows, i, row) {
		const char *group = str(row, "group");
		json_t *v = json_object_get(row, "value");
		char job[32];

		if (!json_is_number(v))
			continue;
		snprintf(job, sizeof(job), "%lld",
			 (long long)json_integer_value(json_object_get(row, "job")));
		if (!strcmp(str(row, "metric"), "rx.cpu") && x->rx_cpu)
			json_object_set_new(x->rx_cpu, job,
					    json_integer((json_int_t)json_number_value(v)));
		if (analysis_is_record(str(row, "metric")))
			continue;	/* records of the job, not measurements to compare */
		flags = analysis_row_flags(row);
		if (flags && !include_flagged) {
			if (!json_object_get(x->jobs, job)) {
				json_object_set_new(x->jobs, job, json_true());
				for (k = 0; k < ANALYSIS_N_EXCLUDING; k++)
					if (flags & (1u << k))
						x->by_flag[k]++;
			}
			continue;
		}
		side = json_object_get(sides, group);
		if (!side) {
			side = side_new(group);
			if (!side || json_object_set_new(sides, group, side)) {
				err = -ENOMEM;
				break;
			}
		}
		err = side_add(side, row, seen);
		if (err)
			break;
		pt = point_text(json_object_get(row, "point"));
		/* values of different timing modes are never one series: an icount value
		 * (guest instructions, docs/kernels.md) keys as its own point */
		if (pt && !strcmp(str(row, "timing"), "icount")) {
			char *t = malloc(strlen(pt) + sizeof(" timing=icount"));

			if (t)
				sprintf(t, "%s%stiming=icount", pt, *pt ? " " : "");
			free(pt);
			pt = t;
		}
		if (!pt) {
			err = -ENOMEM;
			break;
		}
		s = series_get(set, str(row, "metric"), pt, drop_variant ? "" : str(row, "variant"),
			       drop_subject ? "" : str(row, "subject"), str(row, "unit"), group);
		free(pt);
		if (!s || series_add(s, json_number_value(v),
				     (long long)json_integer_value(json_object_get(row, "job")))) {
			err = -ENOMEM;
			break;
		}
	}
	json_decref(seen);
	return err;
}

static bool same_key(const struct series *a, const struct series *b, bool subject)
{
	return !strcmp(a->metric, b->metric) && !strcmp(a->point, b->point) &&
	       !strcmp(a->variant, b->variant) && (!subject || !strcmp(a->subject, b->subject));
}

/* The series of SET in group G with the key of K (subject too when SUBJECT), or NULL. */
static struct series *find_in(struct series_set *set, const struct series *k, const char *g,
			      bool subject)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (!strcmp(set->s[i].group, g) && same_key(&set->s[i], k, subject))
			return &set->s[i];
	return NULL;
}

/* How many series of group G share K's key apart from the subject. */
static size_t count_subjects(struct series_set *set, const struct series *k, const char *g)
{
	size_t i, n = 0;

	for (i = 0; i < set->n; i++)
		n += !strcmp(set->s[i].group, g) && same_key(&set->s[i], k, false);
	return n;
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
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
	json_object_set_new(o, "mean_a", num(r->mean_a));
	json_object_set_new(o, "mean_b", num(r->mean_b));
	json_object_set_new(o, "stddev_a", num(r->stddev_a));
	json_object_set_new(o, "stddev_b", num(r->stddev_b));
	json_object_set_new(o, "spread_a", num(r->spread_a));
	json_object_set_new(o, "spread_b", num(r->spread_b));
	json_object_set_new(o, "delta_pct", num(r->delta_pct));
	json_object_set_new(o, "improvement_pct", num(improvement));
	json_object_set_new(o, "ci_lo_pct", num(r->ci_lo_pct));
	json_object_set_new(o, "ci_hi_pct", num(r->ci_hi_pct));
	json_object_set_new(o, "test", json_string(compare_test_name(r->test)));
	json_object_set_new(o, "p", num(r->p));
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

/* Compare the values of A and B (far-out values left out and counted in X unless
 * X->all) into a row of ROWS; a side whose receive work ran on two CPUs with two levels
 * gets the verdict MIXED instead of a mean over both. */
static int compare_pair(const struct series *a, const struct series *b,
			const struct compare_opts *copts, struct excluded *x, json_t *rows)
{
	double min_effect = copts->min_effect > 0 ? copts->min_effect : 0.02;
	struct series ka = { 0 }, kb = { 0 };
	struct compare_result r;
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
	err = compare_samples(ka.v, ka.n, kb.v, kb.n, stats_kind_for_unit(a->unit), copts, &r);
	if (err)
		goto out;
	row = compare_row(a, b, &r);
	if (!row || json_array_append_new(rows, row)) {
		err = -ENOMEM;
		goto out;
	}
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

/* The rows of one comparison: every key with values in group A, paired with group B by
 * key; a key whose variant has exactly one subject on each side, different ones (a
 * program renamed by the patch), is paired across the subjects. Keys on one side only
 * go to ONLY_A / ONLY_B. */
static int compare_groups(struct series_set *set, const char *ga, const char *gb,
			  const struct compare_opts *copts, struct excluded *x, json_t *rows,
			  json_t *only_a, json_t *only_b)
{
	struct series *a, *b;
	size_t i;
	int err;

	for (i = 0; i < set->n; i++) {
		a = &set->s[i];
		if (strcmp(a->group, ga))
			continue;
		b = find_in(set, a, gb, true);
		if (!b && count_subjects(set, a, ga) == 1 && count_subjects(set, a, gb) == 1)
			b = find_in(set, a, gb, false);
		if (!b) {
			if (json_array_append_new(only_a, json_pack("{s:s, s:s, s:s, s:s}",
					"metric", a->metric, "point", a->point,
					"variant", a->variant, "subject", a->subject)))
				return -ENOMEM;
			continue;
		}
		err = compare_pair(a, b, copts, x, rows);
		if (err)
			return err;
	}
	for (i = 0; i < set->n; i++) {
		b = &set->s[i];
		if (strcmp(b->group, gb) || find_in(set, b, ga, true))
			continue;
		if (count_subjects(set, b, ga) == 1 && count_subjects(set, b, gb) == 1)
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

json_t *analysis_compare(const json_t *rows, const char *by, const char *baseline,
			 const char *candidate, const struct analysis_opts *opts, char *err,
			 size_t err_len)
{
	struct series_set set = { 0 };
	struct excluded x = { .jobs = json_object(), .rx_cpu = json_object(),
			      .all = opts && opts->sz >= sizeof(*opts) && opts->all };
	json_t *sides = json_object(), *report = NULL, *cmps = json_array(), *sides_arr = NULL;
	json_t *cmp, *crows, *only_a, *only_b, *v;
	COMPARE_OPTS(copts);
	char names[512];
	const char *g;
	int e = 0;

	if (opts && opts->sz < sizeof(*opts)) {
		e = util_seterr(err, err_len, -EINVAL, "bad analysis options");
		goto out;
	}
	if (opts) {
		copts.alpha = opts->alpha;
		copts.min_effect = opts->min_effect;
	}
	if (!by)
		by = "run";
	if (!x.jobs || !x.rx_cpu || !sides || !cmps) {
		e = util_seterr(err, err_len, -ENOMEM, "out of memory");
		goto out;
	}
	e = collect(rows, by, opts && opts->include_flagged, &set, sides, &x);
	if (e) {
		util_seterr(err, err_len, e, "out of memory");
		goto out;
	}
	if (!json_object_size(sides)) {
		e = util_seterr(err, err_len, -ENOENT, "no results to compare%s",
			   json_object_size(x.jobs) ? " (all of them flagged; "
			   "--include-flagged to use them)" : "");
		goto out;
	}
	if (!baseline)
		baseline = json_object_iter_key(json_object_iter(sides));
	if (!json_object_get(sides, baseline)) {
		e = group_flagged(rows, baseline) ?
		    util_seterr(err, err_len, -ENOENT, "no results for baseline %s '%s' (all of them flagged; --include-flagged to use them)",
				by, baseline) :
		    util_seterr(err, err_len, -ENOENT, "no results for baseline %s '%s' (there are %s)",
				by, baseline, groups_text(sides, names, sizeof(names)));
		goto out;
	}
	if (candidate && !json_object_get(sides, candidate)) {
		e = group_flagged(rows, candidate) ?
		    util_seterr(err, err_len, -ENOENT, "no results for candidate %s '%s' (all of them flagged; --include-flagged to use them)",
				by, candidate) :
		    util_seterr(err, err_len, -ENOENT, "no results for candidate %s '%s' (there are %s)",
				by, candidate, groups_text(sides, names, sizeof(names)));
		goto out;
	}
	if (!candidate && json_object_size(sides) < 2) {
		e = util_seterr(err, err_len, -ENOENT, "nothing to compare: only %s '%s' has results",
			   by, baseline);
		goto out;
	}
	json_object_foreach(sides, g, v) {
		const char *ta, *tb;

		if (!strcmp(g, baseline) || (candidate && strcmp(g, candidate)))
			continue;
		if (timing_apart(json_object_get(sides, baseline), v, &ta, &tb)) {
			e = util_seterr(err, err_len, -EINVAL, "cannot compare %s '%s' with '%s': measured "
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
			e = util_seterr(err, err_len, -ENOMEM, "out of memory");
			goto out;
		}
		e = compare_groups(&set, baseline, g, &copts, &x, crows, only_a, only_b);
		if (e) {
			util_seterr(err, err_len, e, "cannot compare %s '%s' with '%s': %s", by, baseline,
			       g, strerror(-e));
			goto out;
		}
	}
	sides_arr = json_array();
	if (!sides_arr || json_array_append(sides_arr, json_object_get(sides, baseline))) {
		e = util_seterr(err, err_len, -ENOMEM, "out of memory");
		goto out;
	}
	json_object_foreach(sides, g, v)
		if (strcmp(g, baseline) && (!candidate || !strcmp(g, candidate)) &&
		    json_array_append(sides_arr, v)) {
			e = util_seterr(err, err_len, -ENOMEM, "out of memory");
			goto out;
		}
	report = json_pack("{s:s, s:s, s:f, s:f, s:O, s:o, s:o}", "by", by,
			   "baseline", baseline,
			   "alpha", copts.alpha > 0 ? copts.alpha : 0.05,
			   "min_effect", copts.min_effect > 0 ? copts.min_effect : 0.02,
			   "sides", sides_arr, "comparisons", json_incref(cmps),
			   "excluded", excluded_json(&x, opts && opts->include_flagged));
	if (!report)
		e = util_seterr(err, err_len, -ENOMEM, "out of memory");
out:
	json_decref(sides_arr);
	json_decref(cmps);
	json_decref(sides);
	json_decref(x.jobs);
	json_decref(x.rx_cpu);
	set_release(&set);
	if (e) {
		errno = -e;
		return NULL;
	}
	return report;
}

/* --- history --- */

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
		qsort(g, *n, sizeof(*g), cmp_str_ptr);
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
		s = find_in(set, key, groups[i], true);
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

		s = find_in(set, key, groups[i], true);
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
		json_object_set_new(p, "mean", num(mean));
		json_object_set_new(p, "stddev", num(sum.stddev));
		json_object_set_new(p, "spread", num(sum.spread));
		json_object_set_new(p, "min", num(sum.min));
		json_object_set_new(p, "max", num(sum.max));
		json_object_set_new(p, "delta_pct", num(first != 0 ? 100 * (mean - first) / first : NAN));
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
			 char *err, size_t err_len)
{
	struct series_set set = { 0 };
	struct excluded x = { .jobs = json_object() };
	json_t *sides = json_object(), *series = json_array(), *report = NULL, *one, *garr;
	const char **groups = NULL;
	size_t n_groups = 0, i, k;
	int e = 0;

	if (opts && opts->sz < sizeof(*opts)) {
		e = util_seterr(err, err_len, -EINVAL, "bad analysis options");
		goto out;
	}
	if (!by)
		by = "kernel.release";
	if (!x.jobs || !sides || !series) {
		e = util_seterr(err, err_len, -ENOMEM, "out of memory");
		goto out;
	}
	e = collect(rows, "", opts && opts->include_flagged, &set, sides, &x);
	if (e) {
		util_seterr(err, err_len, e, "out of memory");
		goto out;
	}
	if (!set.n) {
		e = util_seterr(err, err_len, -ENOENT, "no results for this history%s",
			   json_object_size(x.jobs) ? " (all of them flagged; "
			   "--include-flagged to use them)" : "");
		goto out;
	}
	groups = group_order(sides, by, &n_groups);
	if (!groups) {
		e = util_seterr(err, err_len, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < set.n; i++) {
		/* one series per key, at its first group's entry */
		for (k = 0; k < i; k++)
			if (same_key(&set.s[k], &set.s[i], true))
				break;
		if (k < i)
			continue;
		one = history_series(&set, &set.s[i], groups, n_groups);
		if (!one || json_array_append_new(series, one)) {
			e = util_seterr(err, err_len, -ENOMEM, "cannot build the history series");
			goto out;
		}
	}
	garr = json_array();
	for (i = 0; garr && i < n_groups; i++)
		json_array_append(garr, json_object_get(sides, groups[i]));
	report = json_pack("{s:s, s:o, s:O, s:o}", "by", by, "groups", garr, "series", series,
			   "excluded", excluded_json(&x, opts && opts->include_flagged));
	if (!report)
		e = util_seterr(err, err_len, -ENOMEM, "out of memory");
out:
	free(groups);
	json_decref(series);
	json_decref(sides);
	json_decref(x.jobs);
	set_release(&set);
	if (e) {
		errno = -e;
		return NULL;
	}
	return report;
}

// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* analysis_series.c - what compare and history share (analysis_int.h): stored value
 * rows read into series, the sides' footer facts and the counts of what was left out.
 *
 * A "series" is the values of one (metric, matrix point, variant, subject) in one group;
 * for a compare the variant (or the subject) drops out of the key when it is what the
 * values are grouped by. Values are kept in the order the store gave them (time order).
 * Single-threaded per call; no global state.
 */
#include "analysis/analysis.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_int.h"
#include "base/jget.h"
#include "base/util.h"

const char *const analysis_excluding_flags[ANALYSIS_N_EXCLUDING] = {
	"debug-kernel", "disturbed", "generator-bound",
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

	/* rx.* but the two metrics: their denominators and the hook's cost (docs/agent.md) */
	return (!strncmp(metric, "rx.", 3) && strcmp(metric, "rx.ns_per_frame") &&
		strcmp(metric, "rx.softirq_ns_per_frame")) ||
	       !strcmp(metric, "cpu.others") ||
	       !strncmp(metric, "warmup.", 7) || !strncmp(metric, "search.", 7) ||
	       !strncmp(metric, "nic.", 4) || (n > 7 && !strcmp(metric + n - 7, ".median"));
}

bool analysis_row_is_record(const json_t *row)
{
	const char *metric = json_string_value(json_object_get(row, "metric"));

	metric = metric ? metric : "";
	return analysis_is_record(metric) &&
	       !(!strncmp(metric, "nic.", 4) && json_is_true(json_object_get(row, "listed")));
}

int analysis_cmp_str(const void *a, const void *b)
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
	qsort(keys, n, sizeof(*keys), analysis_cmp_str);
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

json_t *analysis_excluded_json(const struct excluded *x, bool include_flagged)
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

/* What a group's footer line names: runs, kernels (releases, and builds by their
 * labels: lib/analysis/kbuild.h), hosts, cpus, governors, plans, and how tc programs
 * were attached. */
static json_t *side_new(const char *group)
{
	return json_pack("{s:s, s:i, s:[], s:[], s:[], s:[], s:[], s:[], s:[], s:[], s:[], "
			 "s:[], s:b}", "group", group, "results", 0, "runs", "kernels", "builds",
			 "hosts", "cpus", "governors", "plans", "plan_sha256", "timing",
			 "tc_attach", "imported", 0);
}

static int side_add(json_t *side, const json_t *row, json_t *jobs_seen)
{
	json_t *build = json_object_get(row, "kernel_build");
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
	       (json_string_length(build) &&
		add_unique(json_object_get(side, "builds"), build)) ||
	       add_unique(json_object_get(side, "hosts"), json_object_get(row, "host")) ||
	       add_unique(json_object_get(side, "cpus"), json_object_get(row, "cpu")) ||
	       add_unique(json_object_get(side, "governors"), json_object_get(row, "governor")) ||
	       add_unique(json_object_get(side, "plans"), json_object_get(row, "plan")) ||
	       add_unique(json_object_get(side, "plan_sha256"), json_object_get(row, "plan_sha256")) ||
	       add_unique(json_object_get(side, "timing"), json_object_get(row, "timing")) ||
	       add_unique(json_object_get(side, "tc_attach"), json_object_get(row, "tc_attach"))
	       ? -ENOMEM : 0;
}

bool analysis_group_flagged(const json_t *rows, const char *name)
{
	json_t *row;
	size_t i;

	json_array_foreach(rows, i, row)
		if (!strcmp(jget_str(row, "group", ""), name) && !analysis_row_is_record(row) &&
		    analysis_row_flags(row))
			return true;
	return false;
}

/* Count the job JOB of a row with excluding verdicts FLAGS as left out in X, once. */
static void exclude_job(struct excluded *x, const char *job, unsigned int flags)
{
	size_t k;

	if (json_object_get(x->jobs, job))
		return;
	json_object_set_new(x->jobs, job, json_true());
	for (k = 0; k < ANALYSIS_N_EXCLUDING; k++)
		if (flags & (1u << k))
			x->by_flag[k]++;
}

/* The side of GROUP in SIDES, made when new; NULL on ENOMEM. */
static json_t *side_of(json_t *sides, const char *group)
{
	json_t *side = json_object_get(sides, group);

	if (side)
		return side;
	side = side_new(group);
	if (!side || json_object_set_new(sides, group, side))
		return NULL;
	return side;
}

/* See analysis_int.h. */
char *analysis_series_point(const json_t *row)
{
	char *pt = point_text(json_object_get(row, "point")), *t;

	/* values of different timing modes are never one series: an icount value
	 * (guest instructions, docs/kernels.md) keys as its own point */
	if (!pt || strcmp(jget_str(row, "timing", ""), "icount"))
		return pt;
	t = malloc(strlen(pt) + sizeof(" timing=icount"));
	if (t)
		sprintf(t, "%s%stiming=icount", pt, *pt ? " " : "");
	free(pt);
	return t;
}

/* ROW's value V into its series of SET and its group's side in SIDES (JOBS_SEEN: the
 * jobs counted there). Returns 0 or -ENOMEM. */
static int collect_value(const json_t *row, double v, bool drop_variant, bool drop_subject,
			 struct series_set *set, json_t *sides, json_t *jobs_seen)
{
	const char *group = jget_str(row, "group", "");
	json_t *side = side_of(sides, group);
	long long vidx, pseq;
	struct series *s;
	char *pt;

	if (!side || side_add(side, row, jobs_seen))
		return -ENOMEM;
	pt = analysis_series_point(row);
	if (!pt)
		return -ENOMEM;
	s = series_get(set, jget_str(row, "metric", ""), pt, drop_variant ? "" : jget_str(row, "variant", ""),
		       drop_subject ? "" : jget_str(row, "subject", ""), jget_str(row, "unit", ""), group);
	free(pt);
	if (!s || series_add(s, v, (long long)json_integer_value(json_object_get(row, "job"))))
		return -ENOMEM;
	vidx = json_integer_value(json_object_get(row, "variant_idx"));
	pseq = json_integer_value(json_object_get(row, "point_seq"));
	if (s->n == 1 || vidx < s->variant_idx)
		s->variant_idx = vidx;
	if (s->n == 1 || pseq < s->point_seq)
		s->point_seq = pseq;
	return 0;
}

/* Read ROWS into SET (keys without the BY field), SIDES and X. Returns 0 or -ENOMEM. */
static int collect(const json_t *rows, const char *by, bool include_flagged,
		   struct series_set *set, json_t *sides, struct excluded *x)
{
	bool drop_variant = !strcmp(by, "variant"), drop_subject = !strcmp(by, "subject");
	json_t *row, *seen = json_object();
	unsigned int flags;
	size_t i;
	int err = 0;

	if (!seen)
		return -ENOMEM;
	json_array_foreach(rows, i, row) {
		json_t *v = json_object_get(row, "value");
		char job[32];

		if (!json_is_number(v))
			continue;
		snprintf(job, sizeof(job), "%lld",
			 (long long)json_integer_value(json_object_get(row, "job")));
		if (!strcmp(jget_str(row, "metric", ""), "rx.cpu") && x->rx_cpu)
			json_object_set_new(x->rx_cpu, job,
					    json_integer((json_int_t)json_number_value(v)));
		if (analysis_row_is_record(row))
			continue;	/* records of the job, not measurements to compare */
		flags = analysis_row_flags(row);
		if (flags && !include_flagged) {
			exclude_job(x, job, flags);
			continue;
		}
		err = collect_value(row, json_number_value(v), drop_variant, drop_subject, set,
				    sides, seen);
		if (err)
			break;
	}
	json_decref(seen);
	return err;
}

bool analysis_same_key(const struct series *a, const struct series *b, bool subject)
{
	return !strcmp(a->metric, b->metric) && !strcmp(a->point, b->point) &&
	       !strcmp(a->variant, b->variant) && (!subject || !strcmp(a->subject, b->subject));
}

/* The series of SET in group G with the key of K (subject too when SUBJECT), or NULL. */
struct series *analysis_find_in(struct series_set *set, const struct series *k,
				const char *g, bool subject)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (!strcmp(set->s[i].group, g) && analysis_same_key(&set->s[i], k, subject))
			return &set->s[i];
	return NULL;
}

/* How many series of group G share K's key apart from the subject. */
size_t analysis_count_subjects(struct series_set *set, const struct series *k,
			       const char *g)
{
	size_t i, n = 0;

	for (i = 0; i < set->n; i++)
		n += !strcmp(set->s[i].group, g) && analysis_same_key(&set->s[i], k, false);
	return n;
}

json_t *analysis_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

int analysis_input_read(struct analysis_input *in, const json_t *rows, const char *key_by,
			const struct analysis_opts *opts, bool rx_cpu, const char *what,
			struct err *err)
{
	int e;

	in->sides = json_object();
	in->x.jobs = json_object();
	in->x.rx_cpu = rx_cpu ? json_object() : NULL;
	if (!in->sides || !in->x.jobs || (rx_cpu && !in->x.rx_cpu))
		return err_ret(err, -ENOMEM, "out of memory");
	e = collect(rows, key_by, opts && opts->include_flagged, &in->set, in->sides, &in->x);
	if (e)
		return err_ret(err, e, "out of memory");
	if (!json_object_size(in->sides))
		return err_ret(err, -ENOENT, "no results %s%s", what,
				   json_object_size(in->x.jobs) ? " (all of them flagged; "
				   "--include-flagged to use them)" : "");
	return 0;
}

json_t *analysis_input_finish(struct analysis_input *in, json_t *report, int e, struct err *err)
{
	json_decref(in->sides);
	json_decref(in->x.jobs);
	json_decref(in->x.rx_cpu);
	set_release(&in->set);
	if (!e && !report)
		e = err_ret(err, -ENOMEM, "out of memory");
	if (e) {
		errno = -e;
		return NULL;
	}
	return report;
}

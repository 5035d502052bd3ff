// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* analysis_spread.c - the run-to-run component of a compare row whose sides are whole
 * runs (analysis.c, by run): from store_query_run_spread's per-run summaries, each
 * side's set (its plan sha256, host and kernel build: the runs that the compared run's
 * values of the row came from), the newest RUNSPREAD_MAX_RUNS runs up to the newer
 * compared run, handed to runspread_add_set (one set when both sides share it, else
 * both, pooled). Pure; one call's index belongs to it.
 */
#include "analysis/analysis_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/runspread.h"

static const char *str(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

int analysis_spread_index(const json_t *rows, struct spread_index *ix)
{
	const json_t *r;
	size_t i;

	ix->n = 0;
	ix->e = calloc(json_array_size(rows) + 1, sizeof(*ix->e));
	if (!ix->e)
		return -ENOMEM;
	json_array_foreach(rows, i, r) {
		struct spread_entry *e = &ix->e[ix->n];

		e->row = r;
		e->run = json_integer_value(json_object_get(r, "run"));
		e->point = analysis_series_point(r);
		if (!e->point)
			return -ENOMEM;
		ix->n++;
	}
	return 0;
}

void analysis_spread_release(struct spread_index *ix)
{
	size_t i;

	for (i = 0; ix->e && i < ix->n; i++)
		free(ix->e[i].point);
	free(ix->e);
	ix->e = NULL;
	ix->n = 0;
}

/* Whether entry E is of series S's row key. */
static bool key_of(const struct spread_entry *e, const struct series *s)
{
	return !strcmp(e->point, s->point) && !strcmp(str(e->row, "metric"), s->metric) &&
	       !strcmp(str(e->row, "variant"), s->variant) &&
	       !strcmp(str(e->row, "subject"), s->subject);
}

/* Whether entries A and B are of one set: plan, host and kernel build. */
static bool same_set(const struct spread_entry *a, const struct spread_entry *b)
{
	static const char *const k[] = { "plan_sha256", "host", "kernel_release",
					 "kernel_version", "config_sha256" };
	size_t i;

	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (strcmp(str(a->row, k[i]), str(b->row, k[i])))
			return false;
	return true;
}

/* The entry of run RUN for S's key; NULL when there is none or several (the side pools
 * hosts or builds: *POOLED). */
static const struct spread_entry *run_entry(const struct spread_index *ix,
					    const struct series *s, long long run, bool *pooled)
{
	const struct spread_entry *me = NULL;
	size_t i;

	for (i = 0; i < ix->n; i++) {
		if (ix->e[i].run != run || !key_of(&ix->e[i], s))
			continue;
		if (me) {
			*pooled = true;
			return NULL;
		}
		me = &ix->e[i];
	}
	return me;
}

/* The set of ME for S's key, runs up to NEWEST, the newest RUNSPREAD_MAX_RUNS, into R;
 * returns how many. */
static size_t set_runs(const struct spread_index *ix, const struct spread_entry *me,
		       const struct series *s, long long newest, struct runspread_run *r)
{
	size_t i, k = 0;

	/* the store gives a set's runs in id order: keep the last ones */
	for (i = 0; i < ix->n; i++) {
		const struct spread_entry *e = &ix->e[i];
		json_t *var;

		if (e->run > newest || !key_of(e, s) || !same_set(e, me))
			continue;
		if (k == RUNSPREAD_MAX_RUNS) {
			memmove(r, r + 1, (k - 1) * sizeof(*r));
			k--;
		}
		var = json_object_get(e->row, "var");
		r[k++] = (struct runspread_run){
			.n = (size_t)json_integer_value(json_object_get(e->row, "n")),
			.mean = json_number_value(json_object_get(e->row, "mean")),
			.var = json_is_number(var) ? json_number_value(var) : NAN,
		};
	}
	return k;
}

void analysis_spread_component(const struct spread_index *ix, const struct series *a,
			       const struct series *b, struct runspread *out, char *note,
			       size_t note_len)
{
	long long ra = atoll(a->group), rb = atoll(b->group), newest = ra > rb ? ra : rb;
	struct runspread_run runs[RUNSPREAD_MAX_RUNS];
	const struct spread_entry *ea, *eb;
	bool pooled = false;
	size_t ka, kb = 0;

	memset(out, 0, sizeof(*out));
	note[0] = '\0';
	ea = run_entry(ix, a, ra, &pooled);
	eb = run_entry(ix, b, rb, &pooled);
	if (!ea || !eb) {
		snprintf(note, note_len, pooled ? "run-to-run spread unknown: a side pools hosts "
			 "or kernel builds (--host splits them)" : "run-to-run spread unknown: "
			 "no summary of a side's run");
		return;
	}
	ka = set_runs(ix, ea, a, newest, runs);
	runspread_add_set(out, runs, ka);
	if (!same_set(ea, eb)) {
		kb = set_runs(ix, eb, b, newest, runs);
		runspread_add_set(out, runs, kb);
	}
	if (out->known)
		return;
	out->runs = ka + kb;	/* seen, whether or not a set could give an estimate */
	if (kb && ka == kb)
		snprintf(note, note_len, "run-to-run spread unknown (%zu run%s per side; %d "
			 "needed)", ka, ka == 1 ? "" : "s", RUNSPREAD_MIN_RUNS);
	else
		snprintf(note, note_len, "run-to-run spread unknown (%zu run%s of the plan%s on "
			 "this host and kernel; %d needed)", ka + kb, ka + kb == 1 ? "" : "s",
			 kb ? "s" : "", RUNSPREAD_MIN_RUNS);
}

/* See analysis.h. */
json_t *analysis_spread_filter(const json_t *filter, const json_t *rows, bool include_flagged)
{
	json_t *f = json_deep_copy(filter), *runs = json_array(), *seen = json_object(), *r;
	char id[32];
	size_t i;

	if (!f || !runs || !seen)
		goto fail;
	json_object_del(f, "by");
	json_array_foreach(rows, i, r) {
		json_t *run = json_object_get(r, "run");

		snprintf(id, sizeof(id), "%lld", (long long)json_integer_value(run));
		if (json_object_get(seen, id))
			continue;
		if (json_object_set_new(seen, id, json_true()) || json_array_append(runs, run))
			goto fail;
	}
	if (json_object_set_new(f, "runs", runs) ||
	    json_object_set_new(f, "include_flagged", json_boolean(include_flagged))) {
		runs = NULL;
		goto fail;
	}
	json_decref(seen);
	return f;
fail:
	json_decref(f);
	json_decref(runs);
	json_decref(seen);
	return NULL;
}

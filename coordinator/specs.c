// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* specs.c - the job specs of each run with queued jobs, decoded once and kept while it
 * runs (coord_specs.h).
 *
 * A run's jobs have few distinct specs (one a variant, repetition and matrix point; the
 * hosts of `count: all` share them), and submit has them at hand, encoded once: it
 * hands them over with the ids the store gave the jobs (coord_specs_add_run). A job not
 * in its run's table (its run was submitted before bpflabd started, or repeat.until
 * added it) brings in every queued job of the run that is not kept yet, in one read of
 * the store sorted by text, so that equal texts become one spec. A run's table goes at
 * the tick after its last queued job left the queue (dispatched, failed, cancelled).
 *
 * Each table holds its specs (heap, one each: their addresses stay while the table
 * grows) and the pairs (job id, spec) sorted by job id. Event loop thread only.
 */
#include "coord_specs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/util.h"

struct spec_job {
	int64_t job;
	struct coord_spec *spec;
};

struct coord_run_specs {
	struct coord_run_specs *next;
	int64_t run_id;
	struct coord_spec **specs;
	size_t n_specs, specs_cap;
	struct spec_job *jobs;		/* sorted by job id */
	size_t n_jobs, jobs_cap;
};

static void spec_free(struct coord_spec *s)
{
	if (!s)
		return;
	jobspec_release(&s->js);
	free(s->text);
	free(s->bad);
	free(s);
}

static void run_free(struct coord_run_specs *r)
{
	size_t i;

	for (i = 0; i < r->n_specs; i++)
		spec_free(r->specs[i]);
	free(r->specs);
	free(r->jobs);
	free(r);
}

/* A new spec of JSON (borrowed) as TEXT (taken, LEN bytes), added to R: decoded, or
 * with BAD saying why not (NOT_JSON: the stored text is not JSON). NULL when out of
 * memory (TEXT freed). */
static struct coord_spec *spec_add(struct coord_run_specs *r, const json_t *json, char *text,
				   size_t len, bool not_json)
{
	struct coord_spec *s = calloc(1, sizeof(*s)), **grown;
	struct err why = { .msg = "it is not JSON" };
	int rc;

	grown = s ? util_grow(r->specs, &r->specs_cap, r->n_specs + 1, sizeof(*r->specs)) : NULL;
	if (!grown) {
		free(s);
		free(text);
		return NULL;
	}
	r->specs = grown;
	*s = (struct coord_spec){ .text = text, .len = len };
	jobspec_init(&s->js);
	rc = not_json ? -EINVAL : jobspec_decode(json, "spec", &s->js, &why);
	if (rc) {
		s->bad = rc == -EINVAL ? strdup(why.msg) : NULL;
		if (!s->bad) {
			spec_free(s);
			return NULL;
		}
	}
	r->specs[r->n_specs++] = s;
	return s;
}

static int job_add(struct coord_run_specs *r, int64_t job, struct coord_spec *s)
{
	struct spec_job *grown = util_grow(r->jobs, &r->jobs_cap, r->n_jobs + 1,
					   sizeof(*r->jobs));

	if (!grown)
		return -ENOMEM;
	r->jobs = grown;
	r->jobs[r->n_jobs++] = (struct spec_job){ .job = job, .spec = s };
	return 0;
}

static int by_job(const void *x, const void *y)
{
	const struct spec_job *a = x, *b = y;

	return a->job < b->job ? -1 : a->job > b->job;
}

static struct spec_job *job_find(struct coord_run_specs *r, int64_t job)
{
	struct spec_job key = { .job = job };

	return r->n_jobs ? bsearch(&key, r->jobs, r->n_jobs, sizeof(*r->jobs), by_job) : NULL;
}

static struct coord_run_specs *run_new(struct coord *c, int64_t run_id)
{
	struct coord_run_specs *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->run_id = run_id;
	r->next = c->run_specs;
	c->run_specs = r;
	return r;
}

/* Take R out of the coordinator's list and free it. */
static void run_drop(struct coord *c, struct coord_run_specs *r)
{
	struct coord_run_specs **pp;

	for (pp = &c->run_specs; *pp; pp = &(*pp)->next)
		if (*pp == r) {
			*pp = r->next;
			break;
		}
	run_free(r);
}

int coord_specs_add_run(struct coord *c, int64_t run_id, json_t *const *specs, char **texts,
			const size_t *lens, int n_specs, const int64_t *job_ids,
			const int *spec_of, int n_jobs)
{
	struct coord_run_specs *r = run_new(c, run_id);
	bool sorted = true;
	int i, err = r ? 0 : -ENOMEM;

	for (i = 0; !err && i < n_specs; i++) {
		if (!spec_add(r, specs[i], texts[i], lens[i], false))
			err = -ENOMEM;
		texts[i] = NULL;
	}
	for (i = 0; !err && i < n_jobs; i++) {
		err = job_add(r, job_ids[i], r->specs[spec_of[i]]);
		sorted = sorted && (!i || job_ids[i - 1] < job_ids[i]);
	}
	for (i = 0; i < n_specs; i++) {
		free(texts[i]);
		texts[i] = NULL;
	}
	if (err) {
		if (r)
			run_drop(c, r);
		return err;
	}
	if (!sorted)
		qsort(r->jobs, r->n_jobs, sizeof(*r->jobs), by_job);
	return 0;
}

/* Reading the queued specs of a run (store_run_queued_specs): the texts come grouped by
 * their row (the jobs of one plan job share it), so a text equal to the one before
 * (PREV, as stored) is the same spec (LAST). */
struct spec_load {
	struct coord_run_specs *r;
	struct coord_spec *last;
	char *prev;
	size_t prev_len;
	bool added;
};

/* A spec for TEXT (LEN bytes, as stored) into L->last. Returns 0 or -ENOMEM. */
static int load_spec(struct spec_load *l, const char *text, size_t len)
{
	char *copy = NULL;
	json_t *json;
	size_t n = len;

	free(l->prev);
	l->prev = strndup(text, len);
	l->prev_len = len;
	/* lib/proto's parser, several times faster than jansson's; what it refuses (e.g. a
	 * duplicate key) goes to jansson, and is sent encoded again */
	json = proto_parse(text, len, NULL);
	if (json)
		copy = strndup(text, len);
	else if ((json = json_loadb(text, len, 0, NULL)))
		copy = proto_encode(json, &n);
	else
		copy = strndup(text, len);
	l->last = l->prev && copy ? spec_add(l->r, json, copy, n, !json) : NULL;
	if (!l->last && !(l->prev && copy))
		free(copy);
	json_decref(json);
	return l->last ? 0 : -ENOMEM;
}

static int load_one(void *arg, int64_t job, const char *text, size_t len)
{
	struct spec_load *l = arg;
	int err;

	if (job_find(l->r, job))
		return 0;	/* kept already */
	if (!l->last || l->prev_len != len || memcmp(l->prev, text, len)) {
		err = load_spec(l, text, len);
		if (err)
			return err;
	}
	l->added = true;
	return job_add(l->r, job, l->last);
}

/* Read run R's queued jobs that are not kept. Returns 0 or -errno (message in WHY). */
static int load_queued(struct coord *c, struct coord_run_specs *r, struct err *why)
{
	struct spec_load l = { .r = r };
	int err = store_run_queued_specs(c->store, r->run_id, load_one, &l);

	free(l.prev);
	if (err)
		err_set(why, "%s", store_err(c->store)->msg);
	if (l.added)
		qsort(r->jobs, r->n_jobs, sizeof(*r->jobs), by_job);
	return err;
}

const struct coord_spec *coord_spec_of(struct coord *c, int64_t run_id, int64_t job_id,
				       struct err *why)
{
	struct coord_run_specs *r;
	struct spec_job *j;

	for (r = c->run_specs; r && r->run_id != run_id; r = r->next)
		;
	if (r && (j = job_find(r, job_id)))
		return j->spec;
	if (!r && !(r = run_new(c, run_id))) {
		err_set(why, "out of memory");
		return NULL;
	}
	if (load_queued(c, r, why))
		return NULL;
	j = job_find(r, job_id);
	if (!j)
		err_set(why, "job %lld of run %lld is not queued", (long long)job_id,
			(long long)run_id);
	return j ? j->spec : NULL;
}

void coord_specs_tick(struct coord *c)
{
	struct coord_run_specs *r, *next;
	bool queued;

	for (r = c->run_specs; r; r = next) {
		next = r->next;
		if (store_run_has_queued(c->store, r->run_id, &queued)) {
			pr_warn("%s", store_err(c->store)->msg);
			continue;
		}
		if (!queued)
			run_drop(c, r);
	}
}

void coord_specs_release(struct coord *c)
{
	struct coord_run_specs *r, *next;

	for (r = c->run_specs; r; r = next) {
		next = r->next;
		run_free(r);
	}
	c->run_specs = NULL;
}

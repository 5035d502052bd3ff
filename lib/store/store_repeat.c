// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* store_repeat.c - the repetition controller in the store (lib/analysis/repeat.h decides,
 * schema/009_repeat.sql keeps why): after a result, inside the ingest transaction, the
 * round of the job's (run, host, point) is looked at once every job of it has ended;
 * while a variant's counted values are not settled, it and (with adaptive repetitions)
 * every other variant below max gets one more repetition, queued behind the host's
 * other jobs of the run in variant order, so that the values stay interleaved (A B C,
 * A B C, ...) to the end and drift falls on all alike, with equal counts to compare. A
 * variant that reaches max unsettled gets the verdict `not-settled` on its last job,
 * with the half-width it reached in verdict_details.
 *
 * Two-host pair jobs are left alone (their two sides are one measurement; plans with
 * `link` take a fixed count). Its statements are the store's (store_int.h), in the
 * store's thread.
 */
#include "store/store_repeat.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/repeat.h"
#include "proto/proto.h"
#include "store/store_int.h"
#include "base/util.h"

/* One (metric, subject) of a variant and its counted values. */
struct series {
	char *metric, *subject;
	double *v;
	size_t n, cap;
};

/* One variant of the round. */
struct variant {
	int64_t idx;
	int64_t last_job;		/* highest rep */
	int64_t last_rep;
	struct repeat_state st;
	struct series *s;
	size_t n_s;
};

struct round {
	struct store *st;
	struct variant *v;
	size_t n_v;
};

/* ERR from the store's helpers (its message in the store) while doing WHAT. */
static int fail(struct round *r, int err, const char *what)
{
	return sto_context(r->st, err, "repetition controller: cannot %s", what);
}

static int oom(struct round *r)
{
	return store_fail(r->st, -ENOMEM, "repetition controller: out of memory");
}

static void round_free(struct round *r)
{
	size_t i, j;

	for (i = 0; i < r->n_v; i++) {
		for (j = 0; j < r->v[i].n_s; j++) {
			free(r->v[i].s[j].metric);
			free(r->v[i].s[j].subject);
			free(r->v[i].s[j].v);
		}
		free(r->v[i].s);
	}
	free(r->v);
}

static struct variant *variant_of(struct round *r, int64_t idx)
{
	struct variant *nv;

	if (r->n_v && r->v[r->n_v - 1].idx == idx)
		return &r->v[r->n_v - 1];
	nv = realloc(r->v, (r->n_v + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	r->v = nv;
	memset(&nv[r->n_v], 0, sizeof(*nv));
	nv[r->n_v].idx = idx;
	return &nv[r->n_v++];
}

static int add_value(struct variant *v, const char *metric, const char *subject, double x)
{
	struct series *s = NULL, *ns;
	double *vals;
	size_t i;

	for (i = 0; i < v->n_s && !s; i++)
		if (!strcmp(v->s[i].metric, metric) && !strcmp(v->s[i].subject, subject))
			s = &v->s[i];
	if (!s) {
		ns = realloc(v->s, (v->n_s + 1) * sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		v->s = ns;
		s = &ns[v->n_s];
		memset(s, 0, sizeof(*s));
		s->metric = strdup(metric);
		s->subject = strdup(subject);
		v->n_s++;
		if (!s->metric || !s->subject)
			return -ENOMEM;
	}
	vals = util_grow(s->v, &s->cap, s->n + 1, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	s->v = vals;
	s->v[s->n++] = x;
	return 0;
}

/* Whether the verdicts (JSON array text) of a job make it not count. */
static bool not_counted(const char *verdicts)
{
	/* most jobs have none: no parse for those (every job of each ended round) */
	bool none = !verdicts || !strcmp(verdicts, "[]");
	json_t *arr = none ? NULL : json_loads(verdicts, 0, NULL), *x;
	bool out = false;
	size_t i;

	json_array_foreach(arr, i, x)
		out |= repeat_verdict_excluded(json_string_value(x));
	json_decref(arr);
	return out;
}

static const struct sto_stmt stmt_job_values = {
	"SELECT r.metric, r.subject, v.value FROM sample_values v "
	"JOIN series r ON r.id = v.series_id WHERE v.job_id = ?1 AND v.seq = -1",
};

/* The whole-window values of counted job JOB of variant V for the metrics of P->on. */
static int gather_values(struct round *r, const struct repeat_policy *p, struct variant *v,
			 int64_t job)
{
	sqlite3_stmt *s = NULL;
	int err = sto_query_row(r->st, &stmt_job_values, &s, "i", job), rc = SQLITE_ROW;

	if (err)
		return err == -ENOENT ? 0 : fail(r, err, "read a repetition's values");
	for (; rc == SQLITE_ROW; rc = sqlite3_step(s)) {
		const char *metric = (const char *)sqlite3_column_text(s, 0);

		if (!metric || !repeat_policy_on(p, metric))
			continue;
		if (add_value(v, metric, (const char *)sqlite3_column_text(s, 1),
			      sqlite3_column_double(s, 2))) {
			err = oom(r);
			break;
		}
	}
	if (!err && rc != SQLITE_DONE)
		err = fail(r, sto_dberr(r->st, rc), "read a repetition's values");
	sto_done(s);
	return err;
}

static const struct sto_stmt stmt_round_jobs = {
	"SELECT id, variant_idx, rep, state, verdicts FROM jobs "
	"WHERE run_id = ?1 AND host_id = ?2 AND point = ?3 ORDER BY variant_idx, rep",
};

/* Every ended job of the round, by variant and repetition, into R. */
static int read_round(struct round *r, const struct repeat_policy *p, int64_t run,
		      int64_t host, const char *point)
{
	sqlite3_stmt *s = NULL;
	int err = sto_query_row(r->st, &stmt_round_jobs, &s, "iit", run, host, point);
	int rc = SQLITE_ROW;

	if (err)
		return err == -ENOENT ? 0 : fail(r, err, "read the repetitions of a round");
	for (; !err && rc == SQLITE_ROW; rc = err ? rc : sqlite3_step(s)) {
		int64_t job = sqlite3_column_int64(s, 0), rep = sqlite3_column_int64(s, 2);
		const char *state = (const char *)sqlite3_column_text(s, 3);
		struct variant *v = variant_of(r, sqlite3_column_int64(s, 1));

		if (!v) {
			err = oom(r);
			break;
		}
		if (rep >= v->last_rep) {
			v->last_rep = rep;
			v->last_job = job;
		}
		v->st.total++;
		if (state && !strcmp(state, "failed")) {
			v->st.failed++;
		} else if (!not_counted((const char *)sqlite3_column_text(s, 4))) {
			v->st.counted++;
			if (p->until > 0)
				err = gather_values(r, p, v, job);
		}
	}
	if (!err && rc != SQLITE_DONE)
		err = fail(r, sto_dberr(r->st, rc), "read the repetitions of a round");
	sto_done(s);
	return err;
}

static const struct sto_stmt stmt_spec_more = {
	"INSERT INTO job_specs (text) SELECT json_set(s.text, '$.rep', ?2) "
	"FROM jobs j JOIN job_specs s ON s.id = j.spec_id WHERE j.id = ?1",
};
static const struct sto_stmt stmt_queue_more = {
	"INSERT INTO jobs (run_id, seq, host_id, variant, variant_idx, rep, point, spec_id, "
	"added) "
	"SELECT run_id, (SELECT max(seq) + 1 FROM jobs WHERE run_id = ?2 AND host_id = ?3), "
	"host_id, variant, variant_idx, ?4, point, ?6, ?5 FROM jobs WHERE id = ?1",
};

/* Queue one more repetition of V (a copy of its last job with rep + 1, its spec a row
 * of its own), WHY kept. */
static int queue_more(struct round *r, const struct variant *v, int64_t run, int64_t host,
		      const char *why)
{
	int64_t specs = 0;
	int err = sto_exec(r->st, &stmt_spec_more, &specs, "ii", v->last_job,
			   v->last_rep + 1);

	if (!err && specs != 1)	/* else the job would name another job's spec */
		err = store_fail(r->st, -ENOENT, "job %lld has no spec row",
				 (long long)v->last_job);
	if (!err)
		err = sto_exec(r->st, &stmt_queue_more, NULL, "iiiiti", v->last_job, run, host,
			       v->last_rep + 1, why, sqlite3_last_insert_rowid(r->st->db));
	return err ? fail(r, err, "queue a repetition") : 0;
}

static const struct sto_stmt stmt_not_settled = {
	"UPDATE jobs SET verdicts = json_insert(verdicts, '$[#]', 'not-settled'), "
	"verdict_details = json_set(verdict_details, '$.\"not-settled\"', ?2) "
	"WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM json_each(jobs.verdicts) "
	"WHERE value = 'not-settled')",
};

/* The verdict not-settled on V's last job, with WHY. */
static int mark_not_settled(struct round *r, const struct variant *v, const char *why)
{
	int err = sto_exec(r->st, &stmt_not_settled, NULL, "it", v->last_job, why);

	return err ? fail(r, err, "mark a variant not settled") : 0;
}

static const struct sto_stmt stmt_job_round = {
	"SELECT j.run_id, j.host_id, j.point, s.text, r.repeat, r.state "
	"FROM jobs j JOIN runs r ON r.id = j.run_id JOIN job_specs s ON s.id = j.spec_id "
	"WHERE j.id = ?1",
};
/* one EXISTS a state: with an IN list SQLite builds a temporary b-tree of it to seek
 * jobs_queue each time the statement runs */
static const struct sto_stmt stmt_round_has_open = {
	"SELECT CASE WHEN EXISTS (SELECT 1 FROM jobs WHERE host_id = ?2 AND "
	"state = 'queued' AND run_id = ?1 AND point = ?3) THEN 1 ELSE EXISTS (SELECT 1 "
	"FROM jobs WHERE host_id = ?2 AND state = 'running' AND run_id = ?1 AND point = ?3) "
	"END",
};

/* The job's run, host, point, spec and the run's repeat and state; *SKIP when the round
 * is not the controller's business (a pair job, a cancelled run, jobs still open). */
static int job_round(struct round *r, int64_t job, int64_t *run, int64_t *host,
		     char **point, json_t **spec, int *fixed, bool *skip)
{
	sqlite3_stmt *s = NULL;
	const char *state;
	int64_t open = 0;
	int err;

	*skip = true;
	err = sto_query_row(r->st, &stmt_job_round, &s, "i", job);
	if (err == -ENOENT)
		return 0;
	if (err)
		return fail(r, err, "read a job");
	*run = sqlite3_column_int64(s, 0);
	*host = sqlite3_column_int64(s, 1);
	*point = strdup((const char *)sqlite3_column_text(s, 2));
	/* lib/proto's parser (several times faster); what it refuses goes to jansson */
	*spec = proto_parse(sqlite3_column_text(s, 3), (size_t)sqlite3_column_bytes(s, 3), NULL);
	if (!*spec)
		*spec = json_loads((const char *)sqlite3_column_text(s, 3), 0, NULL);
	*fixed = sqlite3_column_int(s, 4);
	state = (const char *)sqlite3_column_text(s, 5);
	*skip = !state || !strcmp(state, "cancelled");
	sto_done(s);
	if (!*point || !*spec)
		return oom(r);
	if (*skip || json_object_get(*spec, "pair"))
		return *skip = true, 0;
	err = sto_query_int(r->st, &stmt_round_has_open, &open, "iit", *run, *host, *point);
	if (err)
		return fail(r, err, "count the open jobs of a round");
	*skip = open > 0;
	return 0;
}

/* Decide for variant V of the round into *D. */
static int decide(struct round *r, const struct repeat_policy *p, const struct variant *v,
		  struct repeat_decision *d)
{
	struct repeat_series *ser = calloc(v->n_s + 1, sizeof(*ser));
	size_t k;

	if (!ser)
		return oom(r);
	for (k = 0; k < v->n_s; k++)
		ser[k] = (struct repeat_series){ v->s[k].metric, v->s[k].subject, v->s[k].v,
						 v->s[k].n };
	repeat_decide(p, &v->st, ser, v->n_s, d);
	/* the decision's metric and subject point into the series, which outlive it */
	free(ser);
	return 0;
}

static const struct sto_stmt stmt_variant = { "SELECT variant FROM jobs WHERE id = ?1" };

/* The variant name of V in the round, for a reason ("'pass'"); "another variant" when
 * it cannot be read. */
static const char *first_more_name(struct round *r, const struct variant *v)
{
	static __thread char name[160];
	sqlite3_stmt *s = NULL;

	snprintf(name, sizeof(name), "another variant");
	if (!sto_query_row(r->st, &stmt_variant, &s, "i", v->last_job)) {
		snprintf(name, sizeof(name), "'%s'", (const char *)sqlite3_column_text(s, 0));
		sto_done(s);
	}
	return name;
}

int store_repeat_after_result(struct store *st, int64_t job_id, int *added)
{
	struct round r = { .st = st };
	struct repeat_decision *d = NULL;
	struct variant *first_more = NULL;
	struct repeat_policy p;
	int64_t run = 0, host = 0;
	char *point = NULL;
	json_t *spec = NULL;
	int fixed = 1, ret;
	bool skip;
	size_t i;

	*added = 0;
	ret = job_round(&r, job_id, &run, &host, &point, &spec, &fixed, &skip);
	if (ret || skip)
		goto out;
	if (repeat_policy_from_spec(spec, fixed, &p)) {
		ret = store_fail(st, -EINVAL, "repetition controller: job %lld has a malformed "
				 "'repeat'", (long long)job_id);
		goto out;
	}
	ret = read_round(&r, &p, run, host, point);
	if (!ret && r.n_v) {
		d = calloc(r.n_v, sizeof(*d));
		if (!d)
			ret = oom(&r);
	}
	for (i = 0; !ret && i < r.n_v; i++) {
		ret = decide(&r, &p, &r.v[i], &d[i]);
		if (!ret && d[i].action == REPEAT_MORE && !first_more)
			first_more = &r.v[i];
	}
	for (i = 0; !ret && i < r.n_v; i++) {
		char why[sizeof(d[i].why) + 200];

		if (d[i].action == REPEAT_MORE) {
			ret = queue_more(&r, &r.v[i], run, host, d[i].why);
			*added += !ret;
		} else if (d[i].action == REPEAT_SETTLED && first_more && p.until > 0 &&
			   r.v[i].st.total < p.max) {
			/* adaptive: every variant goes on while one does, so that the values
			 * stay interleaved (A B A B) and drift falls on all alike */
			snprintf(why, sizeof(why), "keeps the round interleaved with %s: %s",
				 first_more_name(&r, first_more),
				 d[first_more - r.v].why);
			ret = queue_more(&r, &r.v[i], run, host, why);
			*added += !ret;
		} else if (d[i].action == REPEAT_NOT_SETTLED) {
			ret = mark_not_settled(&r, &r.v[i], d[i].why);
		}
	}
out:
	free(d);
	round_free(&r);
	free(point);
	json_decref(spec);
	return ret;
}

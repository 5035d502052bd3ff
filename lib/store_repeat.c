/* store_repeat.c - the repetition controller in the store (lib/repeat.h decides,
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
 * `link` take a fixed count). Statements are prepared per call: a round ends once per
 * few seconds of measuring. Same thread as the store's connection.
 */
#include "store_repeat.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repeat.h"
#include "store_sql.h"

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
	sqlite3 *db;
	char *err;
	size_t err_len;
	struct variant *v;
	size_t n_v;
};

static int fail(struct round *r, int rc, const char *what)
{
	snprintf(r->err, r->err_len, "repetition controller: cannot %s: %s", what,
		 rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(r->db));
	return sql_errno(rc) ? sql_errno(rc) : -EIO;
}

static int oom(struct round *r)
{
	snprintf(r->err, r->err_len, "repetition controller: out of memory");
	return -ENOMEM;
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
	if (s->n == s->cap) {
		double *nvals = realloc(s->v, (s->cap ? 2 * s->cap : 8) * sizeof(*nvals));

		if (!nvals)
			return -ENOMEM;
		s->v = nvals;
		s->cap = s->cap ? 2 * s->cap : 8;
	}
	s->v[s->n++] = x;
	return 0;
}

/* Whether the verdicts (JSON array text) of a job make it not count. */
static bool not_counted(const char *verdicts)
{
	json_t *arr = verdicts ? json_loads(verdicts, 0, NULL) : NULL, *x;
	bool out = false;
	size_t i;

	json_array_foreach(arr, i, x)
		out |= repeat_verdict_excluded(json_string_value(x));
	json_decref(arr);
	return out;
}

/* The whole-window values of counted job JOB of variant V for the metrics of P->on. */
static int gather_values(struct round *r, const struct repeat_policy *p, struct variant *v,
			 int64_t job)
{
	sqlite3_stmt *s = NULL;
	int rc, err = 0;

	rc = sqlite3_prepare_v2(r->db,
				"SELECT r.metric, r.subject, v.value FROM sample_values v "
				"JOIN series r ON r.id = v.series_id "
				"WHERE v.job_id = ?1 AND v.seq = -1", -1, &s, NULL);
	if (rc == SQLITE_OK)
		rc = sql_bind(s, "i", job);
	while (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *metric = (const char *)sqlite3_column_text(s, 0);

		rc = SQLITE_OK;
		if (!metric || !repeat_policy_on(p, metric))
			continue;
		if (add_value(v, metric, (const char *)sqlite3_column_text(s, 1),
			      sqlite3_column_double(s, 2))) {
			err = oom(r);
			break;
		}
	}
	if (!err && rc != SQLITE_DONE)
		err = fail(r, rc, "read a repetition's values");
	sqlite3_finalize(s);
	return err;
}

/* Every ended job of the round, by variant and repetition, into R. */
static int read_round(struct round *r, const struct repeat_policy *p, int64_t run,
		      int64_t host, const char *point)
{
	sqlite3_stmt *s = NULL;
	int rc, err = 0;

	rc = sqlite3_prepare_v2(r->db,
				"SELECT id, variant_idx, rep, state, verdicts FROM jobs "
				"WHERE run_id = ?1 AND host_id = ?2 AND point = ?3 "
				"ORDER BY variant_idx, rep", -1, &s, NULL);
	if (rc == SQLITE_OK)
		rc = sql_bind(s, "iit", run, host, point);
	while (!err && rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t job = sqlite3_column_int64(s, 0), rep = sqlite3_column_int64(s, 2);
		const char *state = (const char *)sqlite3_column_text(s, 3);
		struct variant *v = variant_of(r, sqlite3_column_int64(s, 1));

		rc = SQLITE_OK;
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
		err = fail(r, rc, "read the repetitions of a round");
	sqlite3_finalize(s);
	return err;
}

/* Queue one more repetition of V (a copy of its last job with rep + 1), WHY kept. */
static int queue_more(struct round *r, const struct variant *v, int64_t run, int64_t host,
		      const char *why)
{
	int rc = sql_exec(r->db,
			  "INSERT INTO jobs (run_id, seq, host_id, variant, variant_idx, rep, "
			  "point, spec, added) "
			  "SELECT run_id, (SELECT max(seq) + 1 FROM jobs WHERE run_id = ?2 AND "
			  "host_id = ?3), host_id, variant, variant_idx, ?4, point, "
			  "json_set(spec, '$.rep', ?4), ?5 FROM jobs WHERE id = ?1",
			  NULL, "iiiit", v->last_job, run, host, v->last_rep + 1, why);

	return rc == SQLITE_OK ? 0 : fail(r, rc, "queue a repetition");
}

/* The verdict not-settled on V's last job, with WHY. */
static int mark_not_settled(struct round *r, const struct variant *v, const char *why)
{
	int rc = sql_exec(r->db,
			  "UPDATE jobs SET verdicts = json_insert(verdicts, '$[#]', 'not-settled'), "
			  "verdict_details = json_set(verdict_details, '$.\"not-settled\"', ?2) "
			  "WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM json_each(jobs.verdicts) "
			  "WHERE value = 'not-settled')", NULL, "it", v->last_job, why);

	return rc == SQLITE_OK ? 0 : fail(r, rc, "mark a variant not settled");
}

/* The job's run, host, point, spec and the run's repeat and state; *SKIP when the round
 * is not the controller's business (a pair job, a cancelled run, jobs still open). */
static int job_round(struct round *r, int64_t job, int64_t *run, int64_t *host,
		     char **point, json_t **spec, int *fixed, bool *skip)
{
	sqlite3_stmt *s = NULL;
	const char *state;
	int64_t open = 0;
	int rc;

	*skip = true;
	rc = sql_first(r->db,
		       "SELECT j.run_id, j.host_id, j.point, j.spec, r.repeat, r.state "
		       "FROM jobs j JOIN runs r ON r.id = j.run_id WHERE j.id = ?1", &s, "i", job);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return fail(r, rc, "read a job");
	*run = sqlite3_column_int64(s, 0);
	*host = sqlite3_column_int64(s, 1);
	*point = strdup((const char *)sqlite3_column_text(s, 2));
	*spec = json_loads((const char *)sqlite3_column_text(s, 3), 0, NULL);
	*fixed = sqlite3_column_int(s, 4);
	state = (const char *)sqlite3_column_text(s, 5);
	*skip = !state || !strcmp(state, "cancelled");
	sqlite3_finalize(s);
	if (!*point || !*spec)
		return oom(r);
	if (*skip || json_object_get(*spec, "pair"))
		return *skip = true, 0;
	rc = sql_int(r->db,
		     "SELECT EXISTS (SELECT 1 FROM jobs WHERE host_id = ?2 AND "
		     "state IN ('queued', 'running') AND run_id = ?1 AND point = ?3)", &open,
		     "iit", *run, *host, *point);
	if (rc != SQLITE_ROW)
		return fail(r, rc, "count the open jobs of a round");
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

/* The variant name of V in the round, for a reason ("'pass'"); "another variant" when
 * it cannot be read. */
static const char *first_more_name(struct round *r, const struct variant *v)
{
	static __thread char name[160];
	sqlite3_stmt *s = NULL;

	snprintf(name, sizeof(name), "another variant");
	if (sql_first(r->db, "SELECT variant FROM jobs WHERE id = ?1", &s, "i", v->last_job) ==
	    SQLITE_ROW) {
		snprintf(name, sizeof(name), "'%s'", (const char *)sqlite3_column_text(s, 0));
		sqlite3_finalize(s);
	}
	return name;
}

int store_repeat_after_result(sqlite3 *db, int64_t job_id, int *added, char *err,
			      size_t err_len)
{
	struct round r = { .db = db, .err = err, .err_len = err_len };
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
		snprintf(err, err_len, "repetition controller: job %lld has a malformed 'repeat'",
			 (long long)job_id);
		ret = -EINVAL;
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

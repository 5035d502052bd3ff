/* store_queue.c - hosts, runs and the persistent job queue of the store (store.h):
 * hellos and losses, a run's jobs created from its plan, dispatch, accept, requeue and
 * fail, cancel and recovery; each exported function one transaction.
 */
#include "store_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "samples.h"
#include "store_repeat.h"
#include "util.h"

/* --- hosts --- */

int store_host_hello(struct store *st, const char *name, const char *version,
		     const json_t *inventory, int64_t now_ms, int64_t *host_id, int *requeued)
{
	int64_t changes = 0;
	char *inv = NULL;
	int err;

	if (!name || !*name) {
		err = store_fail(st, -EINVAL, "empty host name");
		goto out;
	}
	inv = inventory ? json_dumps(inventory, JSON_COMPACT | JSON_SORT_KEYS) : strdup("{}");
	if (!inv) {
		err = store_fail(st, -ENOMEM, "out of memory");
		goto out;
	}
	err = sto_tx_begin(st);
	if (err)
		goto out;
	err = sto_query_int(st, S_HOST_UPSERT, host_id, "tttti", name, version,
			    sto_json_str_at(inventory, "kernel", "release"), inv, now_ms);
	if (!err)
		err = sto_exec(st, S_ATTEMPT_LOST_HOST, NULL, "iit", *host_id, now_ms,
			       "the agent started a new session");
	if (!err)
		err = sto_exec(st, S_HOST_REQUEUE, &changes, "i", *host_id);
	err = sto_tx_end(st, err);
	if (!err && requeued)
		*requeued = (int)changes;
out:
	free(inv);
	return err ? sto_context(st, err, "cannot register host '%s'", name ? name : "") : 0;
}

int store_host_seen(struct store *st, int64_t host_id, int64_t now_ms)
{
	int err = sto_exec(st, S_HOST_SEEN, NULL, "ii", host_id, now_ms);

	return err ? sto_context(st, err, "cannot update host %lld", (long long)host_id) : 0;
}

int store_host_gone(struct store *st, int64_t host_id, int *requeued)
{
	int64_t changes = 0;
	int err;

	err = sto_tx_begin(st);
	if (err)
		goto out;
	err = sto_exec(st, S_ATTEMPT_LOST_HOST, NULL, "iit", host_id, util_wall_ms(),
		       "the host went silent");
	if (!err)
		err = sto_exec(st, S_HOST_REQUEUE, &changes, "i", host_id);
	if (!err)
		err = sto_exec(st, S_HOST_GONE, NULL, "i", host_id);
	err = sto_tx_end(st, err);
	if (!err && requeued)
		*requeued = (int)changes;
out:
	return err ? sto_context(st, err, "cannot mark host %lld gone", (long long)host_id) : 0;
}

int store_host_pending(struct store *st, int64_t host_id, int64_t *n)
{
	int err = sto_query_int(st, S_HOST_PENDING, n, "i", host_id);

	return err ? sto_context(st, err, "cannot count jobs of host %lld", (long long)host_id) : 0;
}

/* --- runs --- */

static const struct plan_object *find_object(const struct plan_objects *objs,
					     const char *name)
{
	int i;

	for (i = 0; objs && i < objs->n; i++)
		if (!strcmp(objs->objs[i].name, name))
			return &objs->objs[i];
	return NULL;
}

static bool plan_names_object(const struct plan *plan, const char *name)
{
	int v, a;

	for (v = 0; v < plan->n_variants; v++)
		for (a = 0; a < plan->variants[v].n_attach; a++)
			if (!strcmp(plan->variants[v].attach[a].object, name))
				return true;
	return false;
}

/* Check what store_run_create is given before anything is written. */
static int run_check(struct store *st, const struct plan *plan,
		     const struct plan_objects *objs, const struct store_job_new *jobs,
		     int n_jobs)
{
	char sha[SHA256_HEX_LEN];
	int i, v, a;

	if (n_jobs <= 0)
		return store_fail(st, -EINVAL, "the run has no jobs");
	for (v = 0; v < plan->n_variants; v++) {
		for (a = 0; a < plan->variants[v].n_attach; a++) {
			const char *name = plan->variants[v].attach[a].object;

			if (!find_object(objs, name))
				return store_fail(st, -EINVAL, "object '%s' named by the plan "
						  "was not submitted", name);
		}
	}
	for (i = 0; objs && i < objs->n; i++) {
		const struct plan_object *o = &objs->objs[i];

		util_sha256_hex(o->data, o->len, sha);
		if (strcmp(sha, o->sha256))
			return store_fail(st, -EINVAL, "object '%s': sha256 %s does not match its "
					  "bytes (%s)", o->name, o->sha256, sha);
	}
	for (i = 0; i < n_jobs; i++) {
		const struct plan_job *job = jobs[i].job;
		json_t *attach, *entry;
		size_t k;

		if (!job || !json_is_object(job->spec))
			return store_fail(st, -EINVAL, "job %d has no spec", i);
		if (job->variant < 0 || job->variant >= plan->n_variants)
			return store_fail(st, -EINVAL, "job %d: variant %d out of range", i,
					  job->variant);
		attach = json_object_get(job->spec, "attach");
		json_array_foreach(attach, k, entry) {
			const char *name = json_string_value(json_object_get(entry, "object"));
			const char *hash = json_string_value(json_object_get(entry, "sha256"));
			const struct plan_object *o = name ? find_object(objs, name) : NULL;

			if (!o)
				return store_fail(st, -EINVAL, "job %d: attach entry %zu names no "
						  "submitted object", i, k);
			if (!hash || strcmp(hash, o->sha256))
				return store_fail(st, -EINVAL, "job %d: attach entry %zu: sha256 "
						  "of object '%s' missing or wrong", i, k, name);
		}
	}
	return 0;
}

static int run_insert_objects(struct store *st, const struct plan *plan,
			      const struct plan_objects *objs, int64_t run_id, int64_t now_ms)
{
	int i, err = 0;

	for (i = 0; !err && objs && i < objs->n; i++) {
		const struct plan_object *o = &objs->objs[i];

		if (!plan_names_object(plan, o->name))
			continue;
		err = sto_exec(st, S_OBJECT_INSERT, NULL, "ttibi", o->sha256, o->name,
			       (int64_t)o->len, o->data, o->len, now_ms);
		if (!err)
			err = sto_exec(st, S_RUN_OBJECT_INSERT, NULL, "itt", run_id, o->name,
				       o->sha256);
	}
	return err;
}

static int run_insert_jobs(struct store *st, const struct plan *plan, int64_t run_id,
			   const struct store_job_new *jobs, int n_jobs)
{
	char *point = NULL, *spec = NULL;
	int i, err = 0;

	for (i = 0; !err && i < n_jobs; i++) {
		const struct plan_job *job = jobs[i].job;

		point = job->point_values ?
			json_dumps(job->point_values, JSON_COMPACT | JSON_PRESERVE_ORDER) :
			strdup("{}");
		spec = json_dumps(job->spec, JSON_COMPACT | JSON_PRESERVE_ORDER);
		if (!point || !spec)
			err = store_fail(st, -ENOMEM, "out of memory");
		else
			err = sto_exec(st, S_JOB_INSERT, NULL, "iiitiitt", run_id,
				       (int64_t)job->seq, jobs[i].host_id,
				       plan->variants[job->variant].name, (int64_t)job->variant,
				       (int64_t)job->rep, point, spec);
		free(point);
		free(spec);
		point = spec = NULL;
	}
	return err;
}

int store_run_create(struct store *st, const struct plan *plan, const json_t *overrides,
		     const struct plan_objects *objs, const struct store_job_new *jobs,
		     int n_jobs, int64_t now_ms, int64_t *run_id)
{
	return store_run_create_hosts(st, plan, overrides, objs, jobs, n_jobs, NULL, 0, now_ms,
				      run_id);
}

int store_run_create_hosts(struct store *st, const struct plan *plan,
			   const json_t *overrides, const struct plan_objects *objs,
			   const struct store_job_new *jobs, int n_jobs,
			   const struct store_run_host *hosts, int n_hosts, int64_t now_ms,
			   int64_t *run_id)
{
	json_t *variants = NULL;
	char *ov = NULL, *vars = NULL;
	int64_t plan_id = 0;
	int err, i;

	err = run_check(st, plan, objs, jobs, n_jobs);
	if (err)
		goto out;
	variants = json_array();
	for (i = 0; variants && i < plan->n_variants; i++)
		if (json_array_append_new(variants, json_string(plan->variants[i].name)))
			break;
	ov = overrides ? json_dumps(overrides, JSON_COMPACT) : strdup("[]");
	vars = variants ? json_dumps(variants, JSON_COMPACT) : NULL;
	if (!ov || !vars) {
		err = store_fail(st, -ENOMEM, "out of memory");
		goto out;
	}
	err = sto_tx_begin(st);
	if (err)
		goto out;
	err = sto_exec(st, S_PLAN_INSERT, NULL, "ttti", plan->name, plan->sha256, plan->text,
		       now_ms);
	if (!err)
		err = sto_query_int(st, S_PLAN_ID, &plan_id, "t", plan->sha256);
	if (!err)
		err = sto_exec(st, S_RUN_INSERT, NULL, "itttii", plan_id,
			       plan->file ? plan->file : plan->name, ov, vars,
			       (int64_t)plan->repeat, now_ms);
	if (!err) {
		*run_id = sqlite3_last_insert_rowid(st->db);
		err = run_insert_objects(st, plan, objs, *run_id, now_ms);
	}
	if (!err)
		err = run_insert_jobs(st, plan, *run_id, jobs, n_jobs);
	for (i = 0; !err && i < n_hosts; i++)
		err = sto_exec(st, S_RUN_HOST_INSERT, NULL, "iii", *run_id, hosts[i].host_id,
			       (int64_t)hosts[i].chosen);
	err = sto_tx_end(st, err);
out:
	json_decref(variants);
	free(ov);
	free(vars);
	return err ? sto_context(st, err, "cannot store run of plan '%s'", plan->name) : 0;
}

/* Derive run RUN_ID's state from its jobs and store it if it changed. STATE (may be
 * NULL) gets the state; *FINISHED (may be NULL) whether this call finished the run. */
int sto_run_refresh(struct store *st, int64_t run_id, int64_t now_ms,
		    char state[STORE_STATE_LEN], bool *finished)
{
	int64_t total = 0, open = 0, failed = 0, started = 0, old_fin = -1;
	const char *next;
	char old[STORE_STATE_LEN] = "";
	bool fin = false;
	sqlite3_stmt *s = NULL;
	int err;

	err = sto_query_row(st, S_RUN_COUNTS, &s, "i", run_id);
	if (err)
		return err;
	total = sqlite3_column_int64(s, 0);
	open = sqlite3_column_int64(s, 1);
	failed = sqlite3_column_int64(s, 2);
	started = sqlite3_column_int64(s, 3);
	sto_done(s);

	err = sto_query_row(st, S_RUN_STATE, &s, "i", run_id);
	if (err == -ENOENT)
		return store_fail(st, -ENOENT, "unknown run %lld", (long long)run_id);
	if (err)
		return err;
	snprintf(old, sizeof(old), "%s", (const char *)sqlite3_column_text(s, 0));
	if (sqlite3_column_type(s, 1) != SQLITE_NULL)
		old_fin = sqlite3_column_int64(s, 1);
	sto_done(s);

	if (!strcmp(old, "cancelled")) {
		/* final: the results of jobs that were running still come in */
		if (state)
			snprintf(state, STORE_STATE_LEN, "%s", old);
		if (finished)
			*finished = false;
		return 0;
	}
	if (total && !open)
		next = failed ? "failed" : "done";
	else if (started)
		next = "running";
	else
		next = "queued";
	if (state)
		snprintf(state, STORE_STATE_LEN, "%s", next);
	if (finished)
		*finished = false;
	if (!strcmp(old, next))
		return 0;
	if (!strcmp(next, "done") || !strcmp(next, "failed")) {
		fin = strcmp(old, "done") && strcmp(old, "failed");
		old_fin = old_fin >= 0 && !fin ? old_fin : now_ms;
	} else {
		old_fin = -1;
	}
	if (finished)
		*finished = fin;
	return sto_exec(st, S_RUN_SET_STATE, NULL, "ito", run_id, next, old_fin);
}

/* --- the queue --- */

int sto_job_get(struct store *st, int64_t job_id, struct job_row *row)
{
	sqlite3_stmt *s = NULL;
	int err = sto_query_row(st, S_JOB_GET, &s, "i", job_id);

	if (err == -ENOENT)
		return store_fail(st, -ENOENT, "unknown job %lld", (long long)job_id);
	if (err)
		return err;
	row->run_id = sqlite3_column_int64(s, 0);
	row->host_id = sqlite3_column_int64(s, 1);
	snprintf(row->state, sizeof(row->state), "%s", (const char *)sqlite3_column_text(s, 2));
	row->has_result = sqlite3_column_type(s, 3) != SQLITE_NULL;
	sto_done(s);
	return 0;
}

int store_job_next(struct store *st, int64_t host_id, int64_t *job_id, int64_t *run_id,
		   json_t **spec)
{
	return store_job_next_text(st, host_id, job_id, run_id, spec, NULL, NULL);
}

int store_job_next_text(struct store *st, int64_t host_id, int64_t *job_id, int64_t *run_id,
			json_t **spec, char **spec_text, size_t *spec_len)
{
	json_error_t jerr;
	sqlite3_stmt *s = NULL;
	int err;

	*spec = NULL;
	if (spec_text)
		*spec_text = NULL;
	err = sto_query_row(st, S_JOB_NEXT, &s, "i", host_id);
	if (err == -ENOENT)
		return store_fail(st, -ENOENT, "nothing queued");
	if (!err) {
		const char *text = (const char *)sqlite3_column_text(s, 2);
		size_t len = (size_t)sqlite3_column_bytes(s, 2);
		char why[128];

		*job_id = sqlite3_column_int64(s, 0);
		*run_id = sqlite3_column_int64(s, 1);
		/* lib/proto.c's parser, several times faster than jansson's; what it refuses
		 * (e.g. a duplicate key) goes to jansson as before */
		*spec = text ? proto_parse(text, len, why, sizeof(why)) : NULL;
		if (*spec && spec_text && (*spec_text = malloc(len + 1))) {
			memcpy(*spec_text, text, len + 1);
			*spec_len = len;
		}
		if (!*spec)
			*spec = json_loads(text, 0, &jerr);
		if (!*spec)
			err = store_fail(st, -EBADMSG, "spec of job %lld is not JSON: %s",
					 (long long)*job_id, jerr.text);
		sto_done(s);
	}
	return err ? sto_context(st, err, "cannot read the queue of host %lld",
				 (long long)host_id) : 0;
}

/* Begin a write of the queue on job JOB_ID: a transaction, with the job's row in *ROW.
 * Returns 0, -ENOENT for an unknown job or -errno; on failure no transaction is open. */
static int job_begin(struct store *st, int64_t job_id, struct job_row *row)
{
	int err = sto_tx_begin(st);

	if (err)
		return err;
	err = sto_job_get(st, job_id, row);
	return err ? sto_tx_end(st, err) : 0;
}

/* Move a job by statement ID, an UPDATE bound by TYPES whose WHERE leaves a job in
 * another state alone: -ESTALE when it changed nothing, without a message (the caller
 * says what the job is and should have been). In the caller's transaction. */
static int job_move(struct store *st, enum stmt_id id, const char *types, ...)
{
	int64_t changes = 0;
	va_list ap;
	int err;

	va_start(ap, types);
	err = sto_exec_va(st, id, &changes, types, ap);
	va_end(ap);
	return err ? err : changes ? 0 : -ESTALE;
}

/* The running attempt of job JOB_ID (of ROW) ends at ENDED_MS with OUTCOME and ERROR, and
 * its host is idle unless another job runs there. In the caller's transaction. */
static int job_close(struct store *st, const struct job_row *row, int64_t job_id,
		     int64_t ended_ms, const char *outcome, const char *error)
{
	int err = sto_exec(st, S_ATTEMPT_CLOSE_JOB, NULL, "iitt", job_id, ended_ms, outcome, error);

	return err ? err : sto_exec(st, S_HOST_IDLE_IF_FREE, NULL, "i", row->host_id);
}

/* Hand queued job JOB_ID to its host at NOW_MS, all but its run's state (*ROW has the
 * job's row). An unknown job (-ENOENT) or one that is not queued (-ESTALE) changes
 * nothing. In the caller's transaction. */
static int job_dispatch(struct store *st, int64_t job_id, int64_t now_ms,
			struct job_row *row)
{
	int err = sto_job_get(st, job_id, row);

	if (!err)
		err = job_move(st, S_JOB_DISPATCH, "ii", job_id, now_ms);
	if (err == -ESTALE)
		err = store_fail(st, err, "job is %s, not queued", row->state);
	if (!err)
		err = sto_exec(st, S_ATTEMPT_INSERT, NULL, "ii", job_id, now_ms);
	if (!err)
		err = sto_exec(st, S_HOST_BUSY, NULL, "i", row->host_id);
	return err;
}

int store_job_dispatch(struct store *st, int64_t job_id, int64_t now_ms)
{
	struct job_row row;
	int err;

	err = sto_tx_begin(st);
	if (err)
		goto out;
	err = job_dispatch(st, job_id, now_ms, &row);
	if (!err)
		err = sto_run_refresh(st, row.run_id, now_ms, NULL, NULL);
	err = sto_tx_end(st, err);
out:
	return err ? sto_context(st, err, "cannot dispatch job %lld", (long long)job_id) : 0;
}

int store_jobs_dispatch(struct store *st, const int64_t *job_ids, int n, int64_t now_ms,
			int *errs)
{
	char first[STORE_ERR_LEN] = "";
	int64_t *runs = NULL;
	struct job_row row;
	int i, k, n_runs = 0, err;

	if (n < 1)
		return 0;
	runs = malloc(n * sizeof(*runs));
	if (!runs)
		return store_fail(st, -ENOMEM, "cannot dispatch %d jobs: out of memory", n);
	err = sto_tx_begin(st);
	for (i = 0; !err && i < n; i++) {
		errs[i] = job_dispatch(st, job_ids[i], now_ms, &row);
		if (errs[i] == -ENOENT || errs[i] == -ESTALE) {
			/* nothing of this job was written: the others go on */
			if (!first[0]) {
				sto_context(st, errs[i], "cannot dispatch job %lld",
					    (long long)job_ids[i]);
				memcpy(first, st->err, sizeof(first));
			}
			continue;
		}
		err = errs[i];
		for (k = 0; !err && k < n_runs && runs[k] != row.run_id; k++)
			;
		if (!err && k == n_runs)
			runs[n_runs++] = row.run_id;
	}
	/* each run's state once, from all its jobs as they are now */
	for (k = 0; !err && k < n_runs; k++)
		err = sto_run_refresh(st, runs[k], now_ms, NULL, NULL);
	err = sto_tx_end(st, err);
	free(runs);
	if (err) {
		for (i = 0; i < n; i++)
			errs[i] = err;
		return sto_context(st, err, "cannot dispatch %d job%s", n, n == 1 ? "" : "s");
	}
	if (first[0])
		memcpy(st->err, first, sizeof(st->err));
	return 0;
}

int store_job_accept(struct store *st, int64_t job_id, int64_t host_id, int64_t now_ms)
{
	struct job_row row;
	int64_t changes = 0;
	int err;

	err = job_begin(st, job_id, &row);
	if (err)
		goto out;
	if (row.host_id != host_id)
		err = store_fail(st, -EPERM, "job belongs to another host");
	else
		err = sto_exec(st, S_JOB_ACCEPT, &changes, "ii", job_id, now_ms);
	/* a job already finished is left alone, and so is its host */
	if (!err && changes)
		err = sto_exec(st, S_HOST_BUSY, NULL, "i", host_id);
	if (!err && changes)
		err = sto_run_refresh(st, row.run_id, now_ms, NULL, NULL);
	err = sto_tx_end(st, err);
out:
	return err ? sto_context(st, err, "cannot mark job %lld running", (long long)job_id) : 0;
}

int store_job_requeue(struct store *st, int64_t job_id)
{
	struct job_row row;
	int err;

	err = job_begin(st, job_id, &row);
	if (err)
		goto out;
	err = job_move(st, S_JOB_REQUEUE, "i", job_id);
	if (err == -ESTALE)
		err = store_fail(st, err, "job is %s, not running", row.state);
	if (!err)
		err = job_close(st, &row, job_id, util_wall_ms(), "unsent",
				"the job could not be handed to the agent");
	err = sto_tx_end(st, err);
out:
	return err ? sto_context(st, err, "cannot requeue job %lld", (long long)job_id) : 0;
}

int store_job_fail(struct store *st, int64_t job_id, const char *error, int64_t now_ms)
{
	struct job_row row;
	int err;

	err = job_begin(st, job_id, &row);
	if (err)
		goto out;
	err = job_move(st, S_JOB_FAIL, "iti", job_id, error, now_ms);
	if (err == -ESTALE)
		err = store_fail(st, err, "job is already %s", row.state);
	if (!err)
		err = job_close(st, &row, job_id, now_ms, "failed", error);
	if (!err)
		err = sto_run_refresh(st, row.run_id, now_ms, NULL, NULL);
	err = sto_tx_end(st, err);
out:
	return err ? sto_context(st, err, "cannot fail job %lld", (long long)job_id) : 0;
}

/* The (first, second) integer columns of every row of S (bound by the caller) into a new
 * array of 2 * *N int64_t. */
static int int_pairs(struct store *st, sqlite3_stmt *s, int64_t **out, int *n)
{
	int64_t *v = NULL, *nv;
	int rc, err = 0;

	*n = 0;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		nv = realloc(v, (size_t)(*n + 1) * 2 * sizeof(*v));
		if (!nv) {
			err = store_fail(st, -ENOMEM, "out of memory");
			break;
		}
		v = nv;
		v[2 * *n] = sqlite3_column_int64(s, 0);
		v[2 * *n + 1] = sqlite3_column_count(s) > 1 ? sqlite3_column_int64(s, 1) : 0;
		(*n)++;
	}
	if (!err && rc != SQLITE_DONE)
		err = sto_dberr(st, rc);
	sto_done(s);
	if (err) {
		free(v);
		v = NULL;
		*n = 0;
	}
	*out = v;
	return err;
}

static int query_pairs(struct store *st, enum stmt_id id, int64_t arg, int64_t **out, int *n)
{
	sqlite3_stmt *s = NULL;
	int err = sto_prep(st, id, &s);

	if (!err)
		err = sto_bind(st, s, "i", arg);
	if (err) {
		*out = NULL;
		*n = 0;
		return err;
	}
	return int_pairs(st, s, out, n);
}

int store_host_lost(struct store *st, int64_t host_id, int max_attempts, int64_t now_ms,
		    struct store_lost *out)
{
	struct store_lost res = { 0 };
	int64_t *jobs = NULL, *runs = NULL, lost, to, changes;
	char why[STORE_ERR_LEN];
	int n_jobs = 0, n_runs = 0, i, err;

	err = sto_tx_begin(st);
	if (err)
		goto out;
	err = query_pairs(st, S_HOST_RUNNING_JOBS, host_id, &jobs, &n_jobs);
	if (!err)
		err = sto_exec(st, S_ATTEMPT_LOST_HOST, NULL, "iit", host_id, now_ms,
			       "the host went silent");
	for (i = 0; !err && i < n_jobs; i++) {
		lost = 0;
		err = sto_query_int(st, S_ATTEMPT_LOST_COUNT, &lost, "i", jobs[2 * i]);
		if (!err && max_attempts > 0 && lost >= max_attempts) {
			snprintf(why, sizeof(why), "lost %lld times: its host went silent during "
				 "each attempt", (long long)lost);
			err = sto_exec(st, S_JOB_FAIL, NULL, "iti", jobs[2 * i], why, now_ms);
			if (!err)
				err = sto_run_refresh(st, jobs[2 * i + 1], now_ms, NULL, NULL);
			res.failed++;
		} else if (!err) {
			err = sto_exec(st, S_JOB_REQUEUE, NULL, "i", jobs[2 * i]);
			res.requeued++;
		}
	}
	if (!err)
		err = sto_exec(st, S_HOST_GONE, NULL, "i", host_id);
	if (!err)
		err = query_pairs(st, S_HOST_QUEUED_RUNS, host_id, &runs, &n_runs);
	for (i = 0; !err && i < n_runs; i++) {
		to = 0;
		err = sto_query_int(st, S_RUN_REPLACEMENT, &to, "ii", runs[2 * i], host_id);
		if (err == -ENOENT) {
			err = 0;	/* nowhere else: the jobs wait for their host */
			continue;
		}
		changes = 0;
		if (!err)
			err = sto_exec(st, S_JOBS_MOVE, &changes, "iii", runs[2 * i], host_id, to);
		if (!err)
			err = sto_exec(st, S_RUN_HOST_INSERT, NULL, "iii", runs[2 * i], to,
				       (int64_t)1);
		res.moved += (int)changes;
		res.moved_to = to;
	}
	err = sto_tx_end(st, err);
	if (!err && out)
		*out = res;
out:
	free(jobs);
	free(runs);
	return err ? sto_context(st, err, "cannot mark host %lld gone", (long long)host_id) : 0;
}

/* The jobs of a cancelled run that are still running (S_RUN_RUNNING_JOBS). */
static const struct sql_col running_cols[] = {
	{ "job", SQL_INT, 0 }, { "host_id", SQL_INT, 0 }, { "host", SQL_TEXT, 0 },
};

int store_run_cancel(struct store *st, int64_t run_id, int64_t now_ms, json_t **running)
{
	char state[STORE_STATE_LEN] = "";
	json_t *arr = NULL;
	int err;

	*running = NULL;
	err = sto_tx_begin(st);
	if (err)
		goto out;
	err = sto_run_refresh(st, run_id, now_ms, state, NULL);
	if (!err && (!strcmp(state, "done") || !strcmp(state, "failed") ||
		     !strcmp(state, "cancelled")))
		err = store_fail(st, -ESTALE, "run is already %s", state);
	if (!err)
		err = sto_exec(st, S_RUN_CANCEL_QUEUED, NULL, "ii", run_id, now_ms);
	if (!err)
		err = sto_exec(st, S_RUN_SET_STATE, NULL, "iti", run_id, "cancelled", now_ms);
	if (!err) {
		arr = sto_query_rows(st, S_RUN_RUNNING_JOBS, running_cols, ARRAY_SIZE(running_cols),
				     "i", run_id);
		err = arr ? 0 : -errno;
	}
	err = sto_tx_end(st, err);
out:
	if (err) {
		json_decref(arr);
		return sto_context(st, err, "cannot cancel run %lld", (long long)run_id);
	}
	*running = arr;
	return 0;
}

int store_recover(struct store *st, int *requeued)
{
	int64_t changes = 0;
	int err;

	err = sto_tx_begin(st);
	if (err)
		goto out;
	err = sto_exec(st, S_RECOVER_ATTEMPTS, NULL, "i", util_wall_ms());
	if (!err)
		err = sto_exec(st, S_RECOVER_JOBS, &changes, "");
	if (!err)
		err = sto_exec(st, S_RECOVER_HOSTS, NULL, "");
	err = sto_tx_end(st, err);
	if (!err && requeued)
		*requeued = (int)changes;
out:
	return err ? sto_context(st, err, "cannot recover the queue") : 0;
}

int store_object_get(struct store *st, const char *sha256, void **data, size_t *len)
{
	sqlite3_stmt *s = NULL;
	int err, n;

	*data = NULL;
	*len = 0;
	err = sto_query_row(st, S_OBJECT_GET, &s, "t", sha256);
	if (err == -ENOENT)
		err = store_fail(st, -ENOENT, "no such object");
	if (!err) {
		n = sqlite3_column_bytes(s, 0);
		*data = malloc(n ? n : 1);
		if (!*data)
			err = store_fail(st, -ENOMEM, "out of memory");
		else if (n)
			memcpy(*data, sqlite3_column_blob(s, 0), n);
		*len = n;
		sto_done(s);
	}
	return err ? sto_context(st, err, "cannot read object %s", sha256) : 0;
}

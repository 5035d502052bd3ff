// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* store_run.c - runs in the store (store.h): a run created from its plan (the plan, its
 * objects, its jobs and the hosts that matched it), its state kept up to date as its
 * jobs move, cancel, and the stored objects read back; each exported function one
 * transaction.
 */
#include "store/store_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "proto/proto.h"

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

		if (i && job == jobs[i - 1].job)
			continue;	/* the same plan job for another host: checked */
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

static const struct sto_stmt stmt_object_insert = {
	"INSERT INTO objects (sha256, name, size, bytes, created_ms) "
	"VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (sha256) DO NOTHING",
};
static const struct sto_stmt stmt_run_object_insert = {
	"INSERT INTO run_objects (run_id, name, sha256) VALUES (?1, ?2, ?3) "
	"ON CONFLICT DO NOTHING",
};

static int run_insert_objects(struct store *st, const struct plan *plan,
			      const struct plan_objects *objs, int64_t run_id, int64_t now_ms)
{
	int i, err = 0;

	for (i = 0; !err && objs && i < objs->n; i++) {
		const struct plan_object *o = &objs->objs[i];

		if (!plan_names_object(plan, o->name))
			continue;
		err = sto_exec(st, &stmt_object_insert, NULL, "ttibi", o->sha256, o->name,
			       (int64_t)o->len, o->data, o->len, now_ms);
		if (!err)
			err = sto_exec(st, &stmt_run_object_insert, NULL, "itt", run_id, o->name,
				       o->sha256);
	}
	return err;
}

static const struct sto_stmt stmt_spec_insert = {
	"INSERT INTO job_specs (text) VALUES (?1)",
};

/* Add the job spec TEXT (JSON) to the store; its id into *SPEC_ID. */
int sto_spec_insert(struct store *st, const char *text, int64_t *spec_id)
{
	int err = sto_exec(st, &stmt_spec_insert, NULL, "t", text);

	if (!err)
		*spec_id = sqlite3_last_insert_rowid(st->db);
	return err;
}

static const struct sto_stmt stmt_job_insert = {
	"INSERT INTO jobs (run_id, seq, host_id, variant, variant_idx, rep, point, spec_id) "
	"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
};

/* Add job SEQ of run RUN_ID for HOST_ID (VARIANT, number VARIANT_IDX, repetition REP, at
 * POINT, a JSON object; SPEC_ID its job spec's row, sto_spec_insert). */
int sto_job_insert(struct store *st, int64_t run_id, int64_t seq, int64_t host_id,
		   const char *variant, int64_t variant_idx, int64_t rep, const char *point,
		   int64_t spec_id)
{
	return sto_exec(st, &stmt_job_insert, NULL, "iiitiiti", run_id, seq, host_id, variant,
			variant_idx, rep, point, spec_id);
}

/* Insert the N_JOBS JOBS of run RUN_ID, each id into JOB_IDS (may be NULL). A plan job
 * given to several hosts (consecutive entries) has its point and spec written once. */
static int run_insert_jobs(struct store *st, const struct plan *plan, int64_t run_id,
			   const struct store_job_new *jobs, int n_jobs, int64_t *job_ids)
{
	const struct plan_job *prev = NULL;
	char *point = NULL, *spec = NULL;
	int64_t spec_id = 0;
	int i, err = 0;

	for (i = 0; !err && i < n_jobs; i++) {
		const struct plan_job *job = jobs[i].job;

		if (job != prev) {
			const char *text;

			free(point);
			free(spec);
			spec = NULL;
			prev = job;
			point = job->point_values ?
				json_dumps(job->point_values, JSON_COMPACT | JSON_PRESERVE_ORDER) :
				strdup("{}");
			/* the bytes json_dumps writes (jansson keeps insertion order), several
			 * times faster (lib/proto/proto_encode.c) */
			text = jobs[i].spec_text ? jobs[i].spec_text :
			       (spec = proto_encode(job->spec, NULL));
			if (!point || !text)
				err = store_fail(st, -ENOMEM, "out of memory");
			else
				err = sto_spec_insert(st, text, &spec_id);
		}
		if (!err)
			err = sto_job_insert(st, run_id, (int64_t)job->seq, jobs[i].host_id,
					     plan->variants[job->variant].name,
					     (int64_t)job->variant, (int64_t)job->rep, point, spec_id);
		if (!err && job_ids)
			job_ids[i] = sqlite3_last_insert_rowid(st->db);
	}
	free(point);
	free(spec);
	return err;
}

static const struct sto_stmt stmt_plan_insert = {
	"INSERT INTO plans (name, sha256, text, created_ms) VALUES (?1, ?2, ?3, ?4) "
	"ON CONFLICT (sha256) DO NOTHING",
};
static const struct sto_stmt stmt_plan_id = { "SELECT id FROM plans WHERE sha256 = ?1" };
static const struct sto_stmt stmt_run_insert = {
	"INSERT INTO runs (plan_id, plan_file, overrides, variants, repeat, state, "
	"submitted_ms) VALUES (?1, ?2, ?3, ?4, ?5, 'queued', ?6)",
};

/* A new run (queued) of the plan PLAN (SHA256, TEXT; a plan is stored once by its hash)
 * from FILE, with OVERRIDES and VARIANTS (JSON text) and REPEAT, into *RUN_ID. */
int sto_run_insert(struct store *st, const char *plan, const char *sha256, const char *text,
		   const char *file, const char *overrides, const char *variants,
		   int64_t repeat, int64_t now_ms, int64_t *run_id)
{
	int64_t plan_id = 0;
	int err;

	err = sto_exec(st, &stmt_plan_insert, NULL, "ttti", plan, sha256, text, now_ms);
	if (!err)
		err = sto_query_int(st, &stmt_plan_id, &plan_id, "t", sha256);
	if (!err)
		err = sto_exec(st, &stmt_run_insert, NULL, "itttii", plan_id, file, overrides,
			       variants, repeat, now_ms);
	if (!err)
		*run_id = sqlite3_last_insert_rowid(st->db);
	return err;
}

int store_run_create(struct store *st, const struct plan *plan, const json_t *overrides,
		     const struct plan_objects *objs, const struct store_job_new *jobs,
		     int n_jobs, int64_t now_ms, int64_t *run_id)
{
	return store_run_create_hosts(st, plan, overrides, objs, jobs, n_jobs, NULL, 0, now_ms,
				      run_id, NULL);
}

static const struct sto_stmt stmt_run_host_insert = {
	"INSERT INTO run_hosts (run_id, host_id, chosen) VALUES (?1, ?2, ?3) "
	"ON CONFLICT DO UPDATE SET chosen = max(chosen, excluded.chosen)",
};

/* Host HOST_ID matched run RUN_ID's plan (CHOSEN: and was chosen to run it); a host
 * chosen once stays chosen. */
int sto_run_host_add(struct store *st, int64_t run_id, int64_t host_id, bool chosen)
{
	return sto_exec(st, &stmt_run_host_insert, NULL, "iii", run_id, host_id,
			(int64_t)chosen);
}

int store_run_create_hosts(struct store *st, const struct plan *plan,
			   const json_t *overrides, const struct plan_objects *objs,
			   const struct store_job_new *jobs, int n_jobs,
			   const struct store_run_host *hosts, int n_hosts, int64_t now_ms,
			   int64_t *run_id, int64_t *job_ids)
{
	json_t *variants = NULL;
	char *ov = NULL, *vars = NULL;
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
	err = sto_run_insert(st, plan->name, plan->sha256, plan->text,
			     plan->file ? plan->file : plan->name, ov, vars, (int64_t)plan->repeat,
			     now_ms, run_id);
	if (!err)
		err = run_insert_objects(st, plan, objs, *run_id, now_ms);
	if (!err)
		err = run_insert_jobs(st, plan, *run_id, jobs, n_jobs, job_ids);
	for (i = 0; !err && i < n_hosts; i++)
		err = sto_run_host_add(st, *run_id, hosts[i].host_id, hosts[i].chosen);
	err = sto_tx_end(st, err);
out:
	json_decref(variants);
	free(ov);
	free(vars);
	return err ? sto_context(st, err, "cannot store run of plan '%s'", plan->name) : 0;
}

/* The run's stored state and finish time, and the state its jobs give it: queued (no
 * job handed out yet, or none at all), running (one open, one handed out), done or
 * failed (none open; failed when one failed). Each EXISTS is an index seek on jobs_run,
 * not a count of every job (run_refresh runs on every result and dispatch batch; a
 * count made a 10,000-job run quadratic); CASE stops at the first answer, so a running
 * run (nearly every call) costs one seek, and a cancelled one none (bench/README.md,
 * "issue 24 item 7, session 12"). One EXISTS a state: SQLite builds a temporary b-tree
 * for an IN list each time the statement runs. */
static const struct sto_stmt stmt_run_refresh = {
	"SELECT r.state, r.finished_ms, CASE "
	"WHEN r.state = 'cancelled' THEN NULL "
	"WHEN EXISTS (SELECT 1 FROM jobs WHERE run_id = ?1 AND state = 'running') "
	"THEN 'running' "
	"WHEN EXISTS (SELECT 1 FROM jobs WHERE run_id = ?1 AND state = 'queued') THEN "
	"CASE WHEN EXISTS (SELECT 1 FROM jobs WHERE run_id = ?1 AND state = 'done') OR "
	"EXISTS (SELECT 1 FROM jobs WHERE run_id = ?1 AND state = 'failed') OR "
	"EXISTS (SELECT 1 FROM jobs WHERE run_id = ?1 AND state = 'queued' AND "
	"attempts > 0) THEN 'running' ELSE 'queued' END "
	"WHEN EXISTS (SELECT 1 FROM jobs WHERE run_id = ?1 AND state = 'failed') "
	"THEN 'failed' "
	"WHEN EXISTS (SELECT 1 FROM jobs WHERE run_id = ?1) THEN 'done' "
	"ELSE 'queued' END FROM runs r WHERE r.id = ?1",
};

static const struct sto_stmt stmt_run_set_state = {
	"UPDATE runs SET state = ?2, finished_ms = ?3 WHERE id = ?1",
};

/* Set the state of run RUN_ID, and its finish time (NULL when FINISHED_MS is negative). */
int sto_run_set_state(struct store *st, int64_t run_id, const char *state, int64_t finished_ms)
{
	return sto_exec(st, &stmt_run_set_state, NULL, "ito", run_id, state, finished_ms);
}

/* Derive run RUN_ID's state from its jobs and store it if it changed. STATE (may be
 * NULL) gets the state; *FINISHED (may be NULL) whether this call finished the run. */
int sto_run_refresh(struct store *st, int64_t run_id, int64_t now_ms,
		    char state[STORE_STATE_LEN], bool *finished)
{
	char old[STORE_STATE_LEN] = "", next[STORE_STATE_LEN] = "";
	int64_t old_fin = -1;
	bool fin = false;
	sqlite3_stmt *s = NULL;
	int err;

	err = sto_query_row(st, &stmt_run_refresh, &s, "i", run_id);
	if (err == -ENOENT)
		return store_fail(st, -ENOENT, "unknown run %lld", (long long)run_id);
	if (err)
		return err;
	snprintf(old, sizeof(old), "%s", (const char *)sqlite3_column_text(s, 0));
	if (sqlite3_column_type(s, 1) != SQLITE_NULL)
		old_fin = sqlite3_column_int64(s, 1);
	if (sqlite3_column_type(s, 2) != SQLITE_NULL)
		snprintf(next, sizeof(next), "%s", (const char *)sqlite3_column_text(s, 2));
	sto_done(s);

	if (!strcmp(old, "cancelled")) {
		/* final: the results of jobs that were running still come in */
		if (state)
			snprintf(state, STORE_STATE_LEN, "%s", old);
		if (finished)
			*finished = false;
		return 0;
	}
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
	return sto_run_set_state(st, run_id, next, old_fin);
}

/* --- cancel --- */

static const struct sto_stmt stmt_run_running_jobs = {
	"SELECT j.id, j.host_id, h.name FROM jobs j JOIN hosts h ON h.id = j.host_id "
	"WHERE j.run_id = ?1 AND j.state = 'running' ORDER BY j.id",
};

/* The jobs of a cancelled run that are still running: a row of stmt_run_running_jobs. */
static const struct sql_col running_cols[] = {
	{ "job", SQL_INT, 0 }, { "host_id", SQL_INT, 0 }, { "host", SQL_TEXT, 0 },
};

static const struct sto_stmt stmt_run_cancel_queued = {
	"UPDATE jobs SET state = 'failed', error = 'cancelled', finished_ms = ?2 "
	"WHERE run_id = ?1 AND state = 'queued'",
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
		err = sto_exec(st, &stmt_run_cancel_queued, NULL, "ii", run_id, now_ms);
	if (!err)
		err = sto_run_set_state(st, run_id, "cancelled", now_ms);
	if (!err) {
		arr = sto_query_rows(st, &stmt_run_running_jobs, running_cols, ARRAY_SIZE(running_cols),
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

/* --- objects --- */

static const struct sto_stmt stmt_object_get = { "SELECT bytes FROM objects WHERE sha256 = ?1" };

int store_object_get(struct store *st, const char *sha256, void **data, size_t *len)
{
	sqlite3_stmt *s = NULL;
	int err, n;

	*data = NULL;
	*len = 0;
	err = sto_query_row(st, &stmt_object_get, &s, "t", sha256);
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

// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* store_queue.c - hosts and the persistent job queue of the store (store.h): hellos
 * and losses, dispatch, accept, requeue and fail, and recovery; each exported function
 * one transaction. Runs (created from a plan, their state, cancel) are store_run.c.
 */
#include "store/store_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/proto.h"
#include "proto/samples.h"
#include "store/store_repeat.h"
#include "base/util.h"

/* --- hosts --- */

static const struct sto_stmt stmt_host_upsert = {
	"INSERT INTO hosts (name, state, agent_version, kernel_release, inventory, "
	"first_seen_ms, last_seen_ms) VALUES (?1, 'idle', ?2, ?3, ?4, ?5, ?5) "
	"ON CONFLICT (name) DO UPDATE SET state = 'idle', "
	"agent_version = excluded.agent_version, "
	"kernel_release = excluded.kernel_release, inventory = excluded.inventory, "
	"last_seen_ms = excluded.last_seen_ms RETURNING id",
};
static const struct sto_stmt stmt_host_requeue = {
	"UPDATE jobs SET state = 'queued' WHERE host_id = ?1 AND state = 'running'",
};
static const struct sto_stmt stmt_attempt_lost_host = {
	"UPDATE job_attempts SET ended_ms = ?2, outcome = 'lost', error = ?3 "
	"WHERE host_id = ?1 AND outcome = 'running'",
};

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
	err = sto_query_int(st, &stmt_host_upsert, host_id, "tttti", name, version,
			    sto_json_str_at(inventory, "kernel", "release"), inv, now_ms);
	if (!err)
		err = sto_exec(st, &stmt_attempt_lost_host, NULL, "iit", *host_id, now_ms,
			       "the agent started a new session");
	if (!err)
		err = sto_exec(st, &stmt_host_requeue, &changes, "i", *host_id);
	err = sto_tx_end(st, err);
	if (!err && requeued)
		*requeued = (int)changes;
out:
	free(inv);
	return err ? sto_context(st, err, "cannot register host '%s'", name ? name : "") : 0;
}

static const struct sto_stmt stmt_host_seen = {
	"UPDATE hosts SET last_seen_ms = ?2 WHERE id = ?1",
};

int store_host_seen(struct store *st, int64_t host_id, int64_t now_ms)
{
	int err = sto_exec(st, &stmt_host_seen, NULL, "ii", host_id, now_ms);

	return err ? sto_context(st, err, "cannot update host %lld", (long long)host_id) : 0;
}

static const struct sto_stmt stmt_host_gone = { "UPDATE hosts SET state = 'gone' WHERE id = ?1" };

int store_host_gone(struct store *st, int64_t host_id, int *requeued)
{
	int64_t changes = 0;
	int err;

	err = sto_tx_begin(st);
	if (err)
		goto out;
	err = sto_exec(st, &stmt_attempt_lost_host, NULL, "iit", host_id, util_wall_ms(),
		       "the host went silent");
	if (!err)
		err = sto_exec(st, &stmt_host_requeue, &changes, "i", host_id);
	if (!err)
		err = sto_exec(st, &stmt_host_gone, NULL, "i", host_id);
	err = sto_tx_end(st, err);
	if (!err && requeued)
		*requeued = (int)changes;
out:
	return err ? sto_context(st, err, "cannot mark host %lld gone", (long long)host_id) : 0;
}

/* a count a state: with an IN list SQLite builds a temporary b-tree of it to seek
 * jobs_queue each time the statement runs (a submit asks once a host) */
static const struct sto_stmt stmt_host_pending = {
	"SELECT (SELECT count(*) FROM jobs WHERE host_id = ?1 AND state = 'queued') + "
	"(SELECT count(*) FROM jobs WHERE host_id = ?1 AND state = 'running')",
};

int store_host_pending(struct store *st, int64_t host_id, int64_t *n)
{
	int err = sto_query_int(st, &stmt_host_pending, n, "i", host_id);

	return err ? sto_context(st, err, "cannot count jobs of host %lld", (long long)host_id) : 0;
}

/* --- the queue --- */

static const struct sto_stmt stmt_job_get = {
	"SELECT run_id, host_id, state, result_ms, attempts FROM jobs WHERE id = ?1",
};

/* The row of a statement whose first five columns are stmt_job_get's into *ROW. */
static void job_row_of(sqlite3_stmt *s, struct job_row *row)
{
	row->run_id = sqlite3_column_int64(s, 0);
	row->host_id = sqlite3_column_int64(s, 1);
	util_strcopy(row->state, sizeof(row->state), (const char *)sqlite3_column_text(s, 2));
	row->has_result = sqlite3_column_type(s, 3) != SQLITE_NULL;
	row->attempts = sqlite3_column_int64(s, 4);
}

int sto_job_query(struct store *st, const struct sto_stmt *stmt, int64_t job_id,
		  struct job_row *row, sqlite3_stmt **s)
{
	int err = sto_query_row(st, stmt, s, "i", job_id);

	if (err == -ENOENT)
		return store_fail(st, -ENOENT, "unknown job %lld", (long long)job_id);
	if (err)
		return err;
	job_row_of(*s, row);
	return 0;
}

int sto_job_get(struct store *st, int64_t job_id, struct job_row *row)
{
	sqlite3_stmt *s = NULL;
	int err = sto_job_query(st, &stmt_job_get, job_id, row, &s);

	if (!err)
		sto_done(s);
	return err;
}

static const struct sto_stmt stmt_job_next = {
	"SELECT j.id, j.run_id, s.text FROM jobs j JOIN job_specs s ON s.id = j.spec_id "
	"WHERE j.host_id = ?1 AND j.state = 'queued' "
	"AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = j.run_id "
	"AND r.state = 'cancelled') ORDER BY j.run_id, j.seq LIMIT 1",
};

int store_job_next(struct store *st, int64_t host_id, int64_t *job_id, int64_t *run_id,
		   json_t **spec)
{
	sqlite3_stmt *s = NULL;
	json_error_t jerr;
	int err;

	*spec = NULL;
	err = sto_query_row(st, &stmt_job_next, &s, "i", host_id);
	if (err == -ENOENT)
		return store_fail(st, -ENOENT, "nothing queued");
	if (!err) {
		const char *text = (const char *)sqlite3_column_text(s, 2);

		*job_id = sqlite3_column_int64(s, 0);
		*run_id = sqlite3_column_int64(s, 1);
		*spec = json_loads(text ? text : "", 0, &jerr);
		if (!*spec)
			err = store_fail(st, -EBADMSG, "spec of job %lld is not JSON: %s",
					 (long long)*job_id, jerr.text);
		sto_done(s);
	}
	return err ? sto_context(st, err, "cannot read the queue of host %lld",
				 (long long)host_id) : 0;
}

static const struct sto_stmt stmt_job_next_id = {
	"SELECT id, run_id FROM jobs WHERE host_id = ?1 AND state = 'queued' "
	"AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = jobs.run_id "
	"AND r.state = 'cancelled') ORDER BY run_id, seq LIMIT 1",
};

int store_job_next_id(struct store *st, int64_t host_id, int64_t *job_id, int64_t *run_id)
{
	sqlite3_stmt *s = NULL;
	int err = sto_query_row(st, &stmt_job_next_id, &s, "i", host_id);

	if (err == -ENOENT)
		return store_fail(st, -ENOENT, "nothing queued");
	if (!err) {
		*job_id = sqlite3_column_int64(s, 0);
		*run_id = sqlite3_column_int64(s, 1);
		sto_done(s);
	}
	return err ? sto_context(st, err, "cannot read the queue of host %lld",
				 (long long)host_id) : 0;
}

static const struct sto_stmt stmt_run_queued_specs = {
	"SELECT j.id, s.text FROM jobs j JOIN job_specs s ON s.id = j.spec_id "
	"WHERE j.run_id = ?1 AND j.state = 'queued' ORDER BY j.spec_id, j.id",
};

int store_run_queued_specs(struct store *st, int64_t run_id,
			   int (*fn)(void *arg, int64_t job_id, const char *text, size_t len),
			   void *arg)
{
	sqlite3_stmt *s = NULL;
	int rc = SQLITE_DONE, err = sto_prep(st, &stmt_run_queued_specs, &s);

	if (!err)
		err = sto_bind(st, s, "i", run_id);
	while (!err && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *text = (const char *)sqlite3_column_text(s, 1);

		err = fn(arg, sqlite3_column_int64(s, 0), text ? text : "",
			 text ? (size_t)sqlite3_column_bytes(s, 1) : 0);
		if (err)
			store_fail(st, err, "%s", strerror(-err));
	}
	if (!err && rc != SQLITE_DONE)
		err = sto_dberr(st, rc);
	sto_done(s);
	return err ? sto_context(st, err, "cannot read the queued specs of run %lld",
				 (long long)run_id) : 0;
}

static const struct sto_stmt stmt_run_has_queued = {
	"SELECT EXISTS (SELECT 1 FROM jobs WHERE run_id = ?1 AND state = 'queued')",
};

int store_run_has_queued(struct store *st, int64_t run_id, bool *queued)
{
	int64_t v = 0;
	int err = sto_query_int(st, &stmt_run_has_queued, &v, "i", run_id);

	*queued = v != 0;
	return err ? sto_context(st, err, "cannot read the queue of run %lld",
				 (long long)run_id) : 0;
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

static const struct sto_stmt stmt_attempt_close_job = {
	"UPDATE job_attempts SET ended_ms = ?2, outcome = ?3, error = ?4 "
	"WHERE job_id = ?1 AND outcome = 'running'",
};

/* The running attempt of job JOB_ID (of ROW) ends at ENDED_MS with OUTCOME and ERROR, and
 * its host is idle unless another job runs there. In the caller's transaction. */
static const struct sto_stmt stmt_host_idle_if_free = {
	"UPDATE hosts SET state = 'idle' WHERE id = ?1 AND state = 'busy' AND NOT EXISTS "
	"(SELECT 1 FROM jobs WHERE host_id = ?1 AND state = 'running')",
};

/* Make host HOST_ID idle when it is busy and has no running job left. */
int sto_host_idle_if_free(struct store *st, int64_t host_id)
{
	return sto_exec(st, &stmt_host_idle_if_free, NULL, "i", host_id);
}

int store_hosts_idle(struct store *st, const int64_t *host_ids, int n)
{
	int i, err = n > 0 ? sto_tx_begin(st) : 0;

	if (n < 1 || err)
		goto out;
	for (i = 0; !err && i < n; i++)
		err = sto_host_idle_if_free(st, host_ids[i]);
	err = sto_tx_end(st, err);
out:
	return err ? sto_context(st, err, "cannot mark %d host%s idle", n, n == 1 ? "" : "s") :
		     0;
}

static int job_close(struct store *st, const struct job_row *row, int64_t job_id,
		     int64_t ended_ms, const char *outcome, const char *error)
{
	int err = sto_exec(st, &stmt_attempt_close_job, NULL, "iitt", job_id, ended_ms, outcome, error);

	return err ? err : sto_host_idle_if_free(st, row->host_id);
}

/* a host kept busy from its result to its next job (store_ingest_msg) keeps its row:
 * an UPDATE whose WHERE matches no row writes nothing */
static const struct sto_stmt stmt_host_busy = {
	"UPDATE hosts SET state = 'busy' WHERE id = ?1 AND state <> 'busy'",
};
static const struct sto_stmt stmt_job_dispatch = {
	"UPDATE jobs SET state = 'running', attempts = attempts + 1, started_ms = ?2 "
	"WHERE id = ?1 AND state = 'queued'",
};
/* A plain INSERT: the attempt's key (job, the row's new attempts) is new, since a job's
 * attempts are numbered by jobs.attempts and only this UPDATE raises it (a REPLACE
 * checked for a row to delete that cannot be there, schema 003). */
static const struct sto_stmt stmt_attempt_insert = {
	"INSERT INTO job_attempts (job_id, attempt, host_id, started_ms) "
	"VALUES (?1, ?2, ?3, ?4)",
};

/* Hand queued job JOB_ID to its host at NOW_MS, all but its run's state (*ROW has the
 * job's row). An unknown job (-ENOENT) or one that is not queued (-ESTALE) changes
 * nothing. In the caller's transaction. The attempt's number and host come from the row
 * read before the UPDATE, not read again (the UPDATE changed the row only if it was
 * queued, adding one attempt). */
static int job_dispatch(struct store *st, int64_t job_id, int64_t now_ms,
			struct job_row *row)
{
	int64_t moved = 0;
	int err = sto_job_get(st, job_id, row);

	if (!err)
		err = sto_exec(st, &stmt_job_dispatch, &moved, "ii", job_id, now_ms);
	if (!err && !moved)
		err = store_fail(st, -ESTALE, "job is %s, not queued", row->state);
	if (!err)
		err = sto_exec(st, &stmt_attempt_insert, NULL, "iiii", job_id, row->attempts + 1,
			       row->host_id, now_ms);
	if (!err)
		err = sto_exec(st, &stmt_host_busy, NULL, "i", row->host_id);
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
	struct err first = { 0 };
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
			if (!first.msg[0]) {
				sto_context(st, errs[i], "cannot dispatch job %lld",
					    (long long)job_ids[i]);
				first = st->err;
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
	if (first.msg[0])
		st->err = first;
	return 0;
}

static const struct sto_stmt stmt_job_accept = {
	"UPDATE jobs SET state = 'running', started_ms = ?2 "
	"WHERE id = ?1 AND state IN ('queued', 'running')",
};

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
		err = sto_exec(st, &stmt_job_accept, &changes, "ii", job_id, now_ms);
	/* a job already finished is left alone, and so is its host */
	if (!err && changes)
		err = sto_exec(st, &stmt_host_busy, NULL, "i", host_id);
	if (!err && changes)
		err = sto_run_refresh(st, row.run_id, now_ms, NULL, NULL);
	err = sto_tx_end(st, err);
out:
	return err ? sto_context(st, err, "cannot mark job %lld running", (long long)job_id) : 0;
}

static const struct sto_stmt stmt_job_requeue = {
	"UPDATE jobs SET state = 'queued' WHERE id = ?1 AND state = 'running'",
};

int store_job_requeue(struct store *st, int64_t job_id, const char *why)
{
	struct job_row row;
	int64_t moved = 0;
	int err;

	err = job_begin(st, job_id, &row);
	if (err)
		goto out;
	err = sto_exec(st, &stmt_job_requeue, &moved, "i", job_id);
	if (!err && !moved)
		err = store_fail(st, -ESTALE, "job is %s, not running", row.state);
	if (!err)
		err = job_close(st, &row, job_id, util_wall_ms(), "unsent",
				why ? why : "the job could not be handed to the agent");
	err = sto_tx_end(st, err);
out:
	return err ? sto_context(st, err, "cannot requeue job %lld", (long long)job_id) : 0;
}

static const struct sto_stmt stmt_job_fail = {
	"UPDATE jobs SET state = 'failed', error = ?2, finished_ms = ?3 "
	"WHERE id = ?1 AND state IN ('queued', 'running')",
};

int store_job_fail(struct store *st, int64_t job_id, const char *error, int64_t now_ms)
{
	struct job_row row;
	int64_t moved = 0;
	int err;

	err = job_begin(st, job_id, &row);
	if (err)
		goto out;
	err = sto_exec(st, &stmt_job_fail, &moved, "iti", job_id, error, now_ms);
	if (!err && !moved)
		err = store_fail(st, -ESTALE, "job is already %s", row.state);
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

static int query_pairs(struct store *st, const struct sto_stmt *def, int64_t arg,
		       int64_t **out, int *n)
{
	sqlite3_stmt *s = NULL;
	int err = sto_prep(st, def, &s);

	if (!err)
		err = sto_bind(st, s, "i", arg);
	if (err) {
		*out = NULL;
		*n = 0;
		return err;
	}
	return int_pairs(st, s, out, n);
}

static const struct sto_stmt stmt_attempt_lost_count = {
	"SELECT count(*) FROM job_attempts WHERE job_id = ?1 AND outcome = 'lost'",
};
static const struct sto_stmt stmt_host_running_jobs = {
	"SELECT id, run_id FROM jobs WHERE host_id = ?1 AND state = 'running' ORDER BY id",
};
static const struct sto_stmt stmt_host_queued_runs = {
	"SELECT DISTINCT j.run_id FROM jobs j JOIN runs r ON r.id = j.run_id "
	"WHERE j.host_id = ?1 AND j.state = 'queued' AND r.state != 'cancelled' "
	"ORDER BY j.run_id",
};
/* a host that matched run ?1's plan, is connected, is not ?2 and has no job of the
 * run yet (so that all of a run's comparisons on one host stay on one host); the
 * one with the least pending work, then by name (a count a state: jobs_queue holds
 * open jobs only and serves a query that names one state, not an IN list) */
static const struct sto_stmt stmt_run_replacement = {
	"SELECT rh.host_id FROM run_hosts rh JOIN hosts h ON h.id = rh.host_id "
	"WHERE rh.run_id = ?1 AND rh.host_id != ?2 AND h.state != 'gone' "
	"AND NOT EXISTS (SELECT 1 FROM jobs k WHERE k.run_id = ?1 AND k.host_id = rh.host_id) "
	"ORDER BY (SELECT count(*) FROM jobs q WHERE q.host_id = rh.host_id "
	"AND q.state = 'queued') + (SELECT count(*) FROM jobs q WHERE q.host_id = rh.host_id "
	"AND q.state = 'running'), h.name LIMIT 1",
};
static const struct sto_stmt stmt_jobs_move = {
	"UPDATE jobs SET host_id = ?3 WHERE run_id = ?1 AND host_id = ?2 AND state = 'queued'",
};

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
	err = query_pairs(st, &stmt_host_running_jobs, host_id, &jobs, &n_jobs);
	if (!err)
		err = sto_exec(st, &stmt_attempt_lost_host, NULL, "iit", host_id, now_ms,
			       "the host went silent");
	for (i = 0; !err && i < n_jobs; i++) {
		lost = 0;
		err = sto_query_int(st, &stmt_attempt_lost_count, &lost, "i", jobs[2 * i]);
		if (!err && max_attempts > 0 && lost >= max_attempts) {
			snprintf(why, sizeof(why), "lost %lld times: its host went silent during "
				 "each attempt", (long long)lost);
			err = sto_exec(st, &stmt_job_fail, NULL, "iti", jobs[2 * i], why, now_ms);
			if (!err)
				err = sto_run_refresh(st, jobs[2 * i + 1], now_ms, NULL, NULL);
			res.failed++;
		} else if (!err) {
			err = sto_exec(st, &stmt_job_requeue, NULL, "i", jobs[2 * i]);
			res.requeued++;
		}
	}
	if (!err)
		err = sto_exec(st, &stmt_host_gone, NULL, "i", host_id);
	if (!err)
		err = query_pairs(st, &stmt_host_queued_runs, host_id, &runs, &n_runs);
	for (i = 0; !err && i < n_runs; i++) {
		to = 0;
		err = sto_query_int(st, &stmt_run_replacement, &to, "ii", runs[2 * i], host_id);
		if (err == -ENOENT) {
			err = 0;	/* nowhere else: the jobs wait for their host */
			continue;
		}
		changes = 0;
		if (!err)
			err = sto_exec(st, &stmt_jobs_move, &changes, "iii", runs[2 * i], host_id, to);
		if (!err)
			err = sto_run_host_add(st, runs[2 * i], to, true);
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

static const struct sto_stmt stmt_recover_jobs = {
	"UPDATE jobs SET state = 'queued' WHERE state = 'running'",
};
static const struct sto_stmt stmt_recover_hosts = {
	"UPDATE hosts SET state = 'gone' WHERE state != 'gone'",
};
static const struct sto_stmt stmt_recover_attempts = {
	"UPDATE job_attempts SET ended_ms = ?1, outcome = 'lost', "
	"error = 'the coordinator restarted' WHERE outcome = 'running'",
};

/* an import not finished: queued, no variants yet (a submitted run always has some) */
#define UNFINISHED "SELECT id FROM runs WHERE state = 'queued' AND variants = '[]'"
static const struct sto_stmt stmt_del_unfinished_samples = {
	"DELETE FROM sample_values WHERE job_id IN (SELECT id FROM jobs WHERE run_id IN ("
	UNFINISHED "))",
};
static const struct sto_stmt stmt_del_unfinished_specs = {
	"DELETE FROM job_specs WHERE id IN (SELECT spec_id FROM jobs WHERE run_id IN ("
	UNFINISHED "))",
};
static const struct sto_stmt stmt_del_unfinished_jobs = {
	"DELETE FROM jobs WHERE run_id IN (" UNFINISHED ")",
};
static const struct sto_stmt stmt_del_unfinished_runs = {
	"DELETE FROM runs WHERE id IN (" UNFINISHED ")",
};

/* Delete the imports a stopped coordinator left unfinished (store_import.c writes them
 * in parts): their samples, specs, jobs and runs, counting the runs in *RUNS. In the
 * caller's transaction. */
static int recover_imports(struct store *st, int64_t *runs)
{
	int err = sto_exec(st, &stmt_del_unfinished_samples, NULL, "");

	if (!err)
		err = sto_exec(st, &stmt_del_unfinished_specs, NULL, "");
	if (!err)
		err = sto_exec(st, &stmt_del_unfinished_jobs, NULL, "");
	if (!err)
		err = sto_exec(st, &stmt_del_unfinished_runs, runs, "");
	return err;
}

int store_recover(struct store *st, int *requeued)
{
	int64_t changes = 0, imports = 0;
	int err;

	err = sto_tx_begin(st);
	if (err)
		goto out;
	err = recover_imports(st, &imports);
	if (!err)
		err = sto_exec(st, &stmt_recover_attempts, NULL, "i", util_wall_ms());
	if (!err)
		err = sto_exec(st, &stmt_recover_jobs, &changes, "");
	if (!err)
		err = sto_exec(st, &stmt_recover_hosts, NULL, "");
	err = sto_tx_end(st, err);
	if (!err && requeued)
		*requeued = (int)changes;
out:
	return err ? sto_context(st, err, "cannot recover the queue") : 0;
}

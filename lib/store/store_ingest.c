// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* store_ingest.c - results into the store (store.h): a job's samples, verdicts and
 * environment in one transaction (or a savepoint of a batch), and the series and
 * environment caches (also used by store_import.c).
 */
#include "store/store_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/msg_result.h"
#include "proto/proto.h"
#include "proto/samples.h"
#include "store/store_repeat.h"
#include "base/util.h"

/* --- result ingest --- */

/* The unit a sample measured under timing mode ICOUNT is stored with: under icount a
 * nanosecond is a guest instruction, so 'ns' is 'insns' and a rate per second is one per
 * 10^9 guest instructions (schema/005_timing.sql, docs/kernels.md). */
static const char *timing_unit(const char *unit, bool icount)
{
	if (!icount || !unit)
		return unit;
	if (!strcmp(unit, "ns"))
		return "insns";
	if (!strcmp(unit, "pps"))
		return "pkt/Ginsn";
	if (!strcmp(unit, "bps"))
		return "bit/Ginsn";
	if (!strcmp(unit, "Bps"))	/* driver counters (nic.*): bytes and events */
		return "B/Ginsn";
	if (!strcmp(unit, "/s"))
		return "/Ginsn";
	return unit;
}

static const struct sto_stmt stmt_series_insert = {
	"INSERT INTO series (metric, subject, window) VALUES (?1, ?2, ?3) "
	"ON CONFLICT DO NOTHING",
};
static const struct sto_stmt stmt_series_id = {
	"SELECT id FROM series WHERE metric = ?1 AND subject = ?2 AND window = ?3",
};

/* The id of series (METRIC, SUBJECT, WINDOW) into *ID, added when new; from the cache
 * when this connection has seen it (no SQL per sample). In a transaction. */
int sto_series_id(struct store *st, const char *metric, const char *subject,
		  const char *window, int64_t *id)
{
	size_t lm = strlen(metric), ls = strlen(subject), lw = strlen(window);
	size_t len = lm + ls + lw + 2;
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a over the three texts */
	struct series_ent *e = NULL;
	char key[256];
	int err;

	if (len <= sizeof(key)) {
		memcpy(key, metric, lm + 1);
		memcpy(key + lm + 1, subject, ls + 1);
		memcpy(key + lm + ls + 2, window, lw);
		for (size_t i = 0; i < len; i++)
			h = (h ^ (unsigned char)key[i]) * 1099511628211ULL;
		e = &st->series[h % SERIES_CACHE];
		if (e->key && e->key_len == len && !memcmp(e->key, key, len)) {
			*id = e->id;
			return 0;
		}
	}
	err = sto_exec(st, &stmt_series_insert, NULL, "ttt", metric, subject, window);
	if (!err)
		err = sto_query_int(st, &stmt_series_id, id, "ttt", metric, subject, window);
	if (err || len > sizeof(key))
		return err;
	free(e->key);
	e->key = malloc(len);
	if (e->key) {	/* no memory: simply not cached */
		memcpy(e->key, key, len);
		e->key_len = len;
		e->id = *id;
	}
	return 0;
}

/* schema 007: samples is a view over these two tables; seq -1 is the whole window. A
 * result's samples go in by statements of several rows, 32 a statement, then 8, then
 * one: SQLite opens the table's and the index's cursors and ends the statement once for
 * all of them (0.65x the CPU a row of one-row statements; bench/README.md, "The samples
 * insert and the batch across heartbeats"). Every parameter is anonymous, numbered in
 * order. */
#define SAMPLE_ROW "(?,?,?,?,?)"
#define SAMPLE_ROWS2 SAMPLE_ROW "," SAMPLE_ROW
#define SAMPLE_ROWS4 SAMPLE_ROWS2 "," SAMPLE_ROWS2
#define SAMPLE_ROWS8 SAMPLE_ROWS4 "," SAMPLE_ROWS4
#define SAMPLE_ROWS16 SAMPLE_ROWS8 "," SAMPLE_ROWS8
#define SAMPLE_ROWS32 SAMPLE_ROWS16 "," SAMPLE_ROWS16
/* OR FAIL: a row that breaks a constraint ends the statement and leaves its rows before
 * it, so SQLite keeps no statement journal (a copy of every page a statement of several
 * rows changes, to undo it alone); the result's transaction or savepoint is rolled back
 * on any error (store_ingest_msg), which undoes them. */
#define SAMPLE_INSERT "INSERT OR FAIL INTO sample_values (job_id, series_id, seq, value, unit) " \
	"VALUES "

static const struct sto_stmt stmt_sample_insert = { SAMPLE_INSERT SAMPLE_ROW };
static const struct sto_stmt stmt_sample_insert8 = { SAMPLE_INSERT SAMPLE_ROWS8 };
static const struct sto_stmt stmt_sample_insert32 = { SAMPLE_INSERT SAMPLE_ROWS32 };

/* Bind sample IN of job JOB_ID, series SID as row K (from 0) of statement S. */
static int sample_bind(sqlite3_stmt *s, int k, int64_t job_id, int64_t sid,
		       const struct sample *in, bool icount)
{
	const char *unit = timing_unit(in->unit, icount);
	int p = 5 * k, rc;

	rc = sqlite3_bind_int64(s, p + 1, job_id);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(s, p + 2, sid);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(s, p + 3, in->seq);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_double(s, p + 4, in->value);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(s, p + 5, unit ? unit : "", -1, SQLITE_STATIC);
	return rc;
}

/* Insert samples IN[0..N) of job JOB_ID, their series ids SID[0..N), by statement DEF
 * of N rows. Returns 0; 1 when a row breaks the unique key, the rows before it inserted
 * (*BEFORE of them; they stay until the caller rolls back), no message; or -errno with
 * the message set. The statement is left reset. */
static int samples_insert_rows(struct store *st, const struct sto_stmt *def, int64_t job_id,
			       const int64_t *sid, const struct sample *in, size_t n,
			       bool icount, size_t *before)
{
	sqlite3_stmt *s = NULL;
	int err = sto_prep(st, def, &s), rc = SQLITE_OK;
	size_t k;

	if (err)
		return err;
	for (k = 0; rc == SQLITE_OK && k < n; k++)
		rc = sample_bind(s, (int)k, job_id, sid[k], &in[k], icount);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(s);
	*before = (size_t)sqlite3_changes(st->db);	/* a statement ended by FAIL: its rows */
	sqlite3_reset(s);
	if (rc == SQLITE_DONE)
		return 0;
	return (rc & 0xff) == SQLITE_CONSTRAINT ? 1 : sto_dberr(st, rc);
}

/* Insert the N samples IN of job JOB_ID (lib/proto/samples.h) and count them in *COUNT.
 * A series id from the connection's cache (sto_series_id), looked up only when the
 * series changes. In the result's transaction, which the caller rolls back on an error:
 * a sample given twice leaves the rows before it (SAMPLE_INSERT) and is named by its
 * index, the rows its statement inserted before it (test_store_ingest_many_samples). */
static int samples_insert(struct store *st, int64_t job_id, const struct sample *in,
			  size_t n, bool icount, int *count)
{
	int64_t sid[32], last = 0;
	size_t i = 0, k, rows, before = 0;
	int err = 0;

	while (!err && i < n) {
		rows = n - i >= 32 ? 32 : n - i >= 8 ? 8 : 1;
		for (k = 0; !err && k < rows; k++) {
			const struct sample *p = &in[i + k];

			/* the texts of samples read from a message's text are shared with the
			 * sample before when equal (lib/proto/samples.c): the same series */
			if (i + k && p->metric == p[-1].metric && p->subject == p[-1].subject &&
			    p->window == p[-1].window)
				sid[k] = last;
			else
				err = sto_series_id(st, p->metric, p->subject, p->window, &sid[k]);
			last = sid[k];
		}
		if (!err)
			err = samples_insert_rows(st, rows == 32 ? &stmt_sample_insert32 :
						  rows == 8 ? &stmt_sample_insert8 :
						  &stmt_sample_insert, job_id, sid, &in[i], rows,
						  icount, &before);
		if (err == 1) {
			i += before < rows ? before : 0;
			return store_fail(st, -EINVAL, "sample %zu ('%s' of '%s', window '%s') "
					  "is given twice", i, in[i].metric, in[i].subject,
					  in[i].window);
		}
		if (!err)
			*count += (int)rows;
		i += rows;
	}
	return err;
}

static const struct sto_stmt stmt_host_inventory = { "SELECT inventory FROM hosts WHERE id = ?1" };
static const struct sto_stmt stmt_env_insert = {
	"INSERT INTO host_envs (host_id, sha256, kernel_release, kernel_version, "
	"config_sha256, debug_options, cmdline, inventory, first_seen_ms, timing) "
	"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) "
	"ON CONFLICT (host_id, sha256) DO NOTHING",
};
static const struct sto_stmt stmt_env_id = {
	"SELECT id FROM host_envs WHERE host_id = ?1 AND sha256 = ?2",
};

/* The environment cache's slot of host HOST_ID (store_int.h), the table grown first when
 * the id is beyond it; NULL when there is none (no memory: simply not cached). */
static struct env_ent *env_slot(struct store *st, int64_t host_id)
{
	size_t n = st->n_envs ? st->n_envs : ENV_CACHE_MIN, i;
	struct env_ent *v;

	while (n < ENV_CACHE_MAX && (uint64_t)host_id >= n)
		n *= 2;
	if (n != st->n_envs) {
		v = calloc(n, sizeof(*v));
		if (!v)
			return st->envs ? &st->envs[(uint64_t)host_id % st->n_envs] : NULL;
		/* ids below the old size keep their slot; the others lose theirs */
		for (i = 0; i < st->n_envs; i++) {
			struct env_ent *e = &st->envs[i];

			if (e->inventory && !v[(uint64_t)e->host_id % n].inventory)
				v[(uint64_t)e->host_id % n] = *e;
			else
				free(e->inventory);
		}
		free(st->envs);
		st->envs = v;
		st->n_envs = n;
	}
	return &st->envs[(uint64_t)host_id % n];
}

/* Find or add the environment ENV (or, when NULL, host HOST_ID's hello inventory) and
 * return its id in *ENV_ID. */
int sto_env_upsert(struct store *st, int64_t host_id, const json_t *env, int64_t now_ms,
		   int64_t *env_id, bool *icount)
{
	char sha[SHA256_HEX_LEN];
	char *text = NULL, *debug = NULL, *inv_text = NULL;
	const char *timing;
	size_t inv_len = 0;
	json_t *inv = NULL, *kernel;
	json_error_t jerr;
	sqlite3_stmt *s = NULL;
	struct env_ent *e = NULL;
	int err, rc;

	if (!json_is_object(env)) {
		err = sto_prep(st, &stmt_host_inventory, &s);
		if (!err)
			err = sto_bind(st, s, "i", host_id);
		if (err)
			goto out;
		rc = sqlite3_step(s);
		if (rc == SQLITE_ROW && sqlite3_column_text(s, 0)) {
			const char *t = (const char *)sqlite3_column_text(s, 0);

			inv_len = (size_t)sqlite3_column_bytes(s, 0);
			e = env_slot(st, host_id);
			if (e && e->inventory && e->host_id == host_id && e->len == inv_len &&
			    !memcmp(e->inventory, t, inv_len)) {
				*env_id = e->env_id;
				*icount = e->icount;
				sto_done(s);
				return 0;
			}
			inv_text = malloc(inv_len + 1);	/* no memory: simply not kept */
			if (inv_text)
				memcpy(inv_text, t, inv_len + 1);
		}
		if (rc == SQLITE_ROW)
			inv = json_loads((const char *)sqlite3_column_text(s, 0), 0, &jerr);
		sto_done(s);
		if (rc != SQLITE_ROW) {
			err = rc == SQLITE_DONE ? store_fail(st, -ENOENT, "unknown host %lld",
							     (long long)host_id)
						: sto_dberr(st, rc);
			goto out;
		}
		env = inv ? inv : json_object();
		inv = inv ? inv : (json_t *)env;
	}
	kernel = json_object_get(env, "kernel");
	text = json_dumps(env, JSON_COMPACT | JSON_SORT_KEYS);
	debug = json_is_array(json_object_get(kernel, "debug_options")) ?
		json_dumps(json_object_get(kernel, "debug_options"), JSON_COMPACT) : strdup("[]");
	if (!text || !debug) {
		err = store_fail(st, -ENOMEM, "out of memory");
		goto out;
	}
	util_sha256_hex(text, strlen(text), sha);
	/* the timing mode: "icount" when the agent says so, else "wall" */
	timing = sto_json_str_at(env, "timing", NULL);
	*icount = timing && !strcmp(timing, "icount");
	err = sto_exec(st, &stmt_env_insert, NULL, "itttttttit", host_id, sha,
		       sto_json_str_at(kernel, "release", NULL),
		       sto_json_str_at(kernel, "version", NULL),
		       sto_json_str_at(kernel, "config_sha256", NULL), debug,
		       sto_json_str_at(kernel, "cmdline", NULL), text, now_ms,
		       *icount ? "icount" : "wall");
	if (!err)
		err = sto_query_int(st, &stmt_env_id, env_id, "it", host_id, sha);
	if (!err && e && inv_text) {
		free(e->inventory);
		*e = (struct env_ent){ .inventory = inv_text, .len = inv_len, .host_id = host_id,
				       .env_id = *env_id, .icount = *icount };
		inv_text = NULL;
	}
out:
	json_decref(inv);
	free(inv_text);
	free(text);
	free(debug);
	return err;
}

/* The result's verdicts (default []) and verdict details (default {}) as JSON texts
 * (heap); msg_result_decode checked them. */
static int verdicts_text(struct store *st, const struct msg_result *r, char **verdicts,
			 char **details)
{
	*verdicts = r->verdicts ? json_dumps(r->verdicts, JSON_COMPACT) : strdup("[]");
	*details = r->verdict_details ?
		   json_dumps(r->verdict_details, JSON_COMPACT | JSON_SORT_KEYS) : strdup("{}");
	if (!*verdicts || !*details)
		return store_fail(st, -ENOMEM, "out of memory");
	return 0;
}

int store_ingest_result(struct store *st, int64_t host_id, const json_t *result,
			int64_t now_ms, struct store_ingest *out)
{
	return store_ingest_samples(st, host_id, result, NULL, now_ms, out);
}

/* The job's row as sto_job_get reads it, the state its run has stored, and whether a
 * job of the same round (run, host, point) other than this one is still to come, in one
 * statement: the result changes no other job's row before it asks, so the answer is the
 * one after (store_repeat.c has nothing to decide while it is 1). One EXISTS a state
 * (SQLite builds a temporary b-tree for an IN list each time the statement runs); CASE
 * asks for running jobs only when none is queued, as a round is mostly open by its
 * queued ones. */
static const struct sto_stmt stmt_job_result_get = {
	"SELECT j.run_id, j.host_id, j.state, j.result_ms, j.attempts, "
	"(SELECT r.state FROM runs r WHERE r.id = j.run_id), "
	"CASE WHEN EXISTS (SELECT 1 FROM jobs o WHERE o.run_id = j.run_id AND "
	"o.host_id = j.host_id AND o.point = j.point AND o.state = 'queued' AND o.id <> ?1) "
	"THEN 1 ELSE EXISTS (SELECT 1 FROM jobs o WHERE o.run_id = j.run_id AND "
	"o.host_id = j.host_id AND o.point = j.point AND o.state = 'running' AND o.id <> ?1) "
	"END FROM jobs j WHERE j.id = ?1",
};

/* Job JOB_ID's row into *ROW, its run's stored state into RUN_STATE and whether its
 * round stays open into *ROUND_OPEN (stmt_job_result_get). -ENOENT for an unknown job. */
static int job_result_get(struct store *st, int64_t job_id, struct job_row *row,
			  char run_state[STORE_STATE_LEN], int64_t *round_open)
{
	sqlite3_stmt *s = NULL;
	int err = sto_job_query(st, &stmt_job_result_get, job_id, row, &s);

	if (err)
		return err;
	util_strcopy(run_state, STORE_STATE_LEN, (const char *)sqlite3_column_text(s, 5));
	*round_open = sqlite3_column_int64(s, 6);
	sto_done(s);
	return 0;
}

/* stmt_job_result with the verdicts: a result's one write of its job's row */
static const struct sto_stmt stmt_job_result_verdicts = {
	"UPDATE jobs SET state = ?2, error = ?3, verifier_log = ?4, env_id = ?5, "
	"started_ms = ifnull(?6, started_ms), finished_ms = ?7, result_ms = ?8, "
	"verdicts = ?9, verdict_details = ?10 WHERE id = ?1",
};
/* the latest attempt of the job by the reporting host: a result that comes after
 * the attempt was thought lost still ends it. First by its key: the job row's last
 * attempt (?6), when the reporting host made it (nearly always); else by the search. */
static const struct sto_stmt stmt_attempt_result_last = {
	"UPDATE job_attempts SET ended_ms = ?3, outcome = ?4, error = ?5 "
	"WHERE job_id = ?1 AND attempt = ?6 AND host_id = ?2",
};
static const struct sto_stmt stmt_attempt_result = {
	"UPDATE job_attempts SET ended_ms = ?3, outcome = ?4, error = ?5 "
	"WHERE job_id = ?1 AND attempt = (SELECT max(attempt) FROM job_attempts "
	"WHERE job_id = ?1 AND host_id = ?2)",
};
static const struct sto_stmt stmt_attempt_by_host = {
	"SELECT count(*) FROM job_attempts WHERE job_id = ?1 AND host_id = ?2",
};

int store_ingest_samples(struct store *st, int64_t host_id, const json_t *result,
			 const struct samples *taken, int64_t now_ms, struct store_ingest *out)
{
	struct samples borrowed = taken ? *taken : (struct samples){ 0 };
	struct msg_result r;
	struct err why;
	int err;

	err = msg_result_decode(result, &borrowed, &r, &why);
	if (err) {
		memset(out, 0, sizeof(*out));
		out->job_id = r.job;
		store_fail(st, err, "%s", why.msg);
		return sto_context(st, err, "cannot store result of job %lld", (long long)r.job);
	}
	err = store_ingest_msg(st, host_id, &r, now_ms, false, out);
	if (taken && taken->taken)	/* the caller's */
		memset(&r.samples, 0, sizeof(r.samples));
	msg_result_release(&r);
	return err;
}

int store_ingest_msg(struct store *st, int64_t host_id, const struct msg_result *r,
		     int64_t now_ms, bool keep_busy, struct store_ingest *out)
{
	const char *error = r->error;
	int64_t job_id = r->job, env_id = 0, round_open = 0, ended = 0;
	int64_t started = r->has_started ? r->started_ms : -1;
	int64_t finished = r->has_finished ? r->finished_ms : now_ms;
	bool icount = false, failed = r->failed;
	char *verdicts = NULL, *details = NULL, run_state[STORE_STATE_LEN] = "";
	const char *outcome = failed ? (r->partial ? "cancelled" : "failed") : "done";
	const char *why = failed ? (error ? error : "the agent reported a failure") : NULL;
	struct job_row row = { 0 };
	int err;

	memset(out, 0, sizeof(*out));
	out->job_id = job_id;
	err = verdicts_text(st, r, &verdicts, &details);
	if (err)
		goto out;

	err = sto_tx_begin(st);
	if (err)
		goto out;
	err = job_result_get(st, job_id, &row, run_state, &round_open);
	if (!err && row.host_id != host_id) {
		/* a job moved to another host after this one was thought lost */
		int64_t tried = 0;

		err = sto_query_int(st, &stmt_attempt_by_host, &tried, "ii", job_id, host_id);
		if (!err && !tried)
			err = store_fail(st, -EPERM, "job belongs to another host");
	}
	if (!err && row.has_result) {
		out->duplicate = true;
		out->run_id = row.run_id;
		err = sto_tx_end(st, -EALREADY);	/* roll back: nothing to change */
		err = err == -EALREADY ? 0 : err;
		goto out;
	}
	out->run_id = row.run_id;
	out->failed = failed;
	if (!err)
		err = sto_env_upsert(st, host_id, r->env, now_ms, &env_id, &icount);
	if (!err)
		err = samples_insert(st, job_id, r->samples.v, r->samples.n, icount,
				     &out->n_samples);
	if (!err)
		err = sto_exec(st, &stmt_job_result_verdicts, NULL, "itttioiitt", job_id,
			       failed ? "failed" : "done", why, r->verifier_log, env_id, started,
			       finished, now_ms, verdicts, details);
	if (!err && row.host_id == host_id)
		err = sto_exec(st, &stmt_attempt_result_last, &ended, "iiitti", job_id, host_id,
			       finished, outcome, why, row.attempts);
	if (!err && !ended)
		err = sto_exec(st, &stmt_attempt_result, NULL, "iiitt", job_id, host_id, finished,
			       outcome, why);
	if (!err && row.host_id != host_id)
		err = sto_host_idle_if_free(st, row.host_id);
	if (!err && !keep_busy)
		err = sto_host_idle_if_free(st, host_id);
	/* the repetition controller once the job's round has ended (it looks itself, but
	 * a round ends once in many results) */
	if (!err && !round_open &&
	    (err = store_repeat_after_result(st, job_id, &out->reps_added)))
		out->reps_added = 0;
	/* A round still open keeps a job of the run queued or running, so a running run
	 * stays running (sto_run_refresh would find what it has): asked only otherwise. */
	if (!err && round_open && !strcmp(run_state, "running"))
		util_strcopy(out->run_state, sizeof(out->run_state), run_state);
	else if (!err)
		err = sto_run_refresh(st, row.run_id, now_ms, out->run_state, &out->run_finished);
	err = sto_tx_end(st, err);
	if (err)
		out->n_samples = 0;
out:
	free(verdicts);
	free(details);
	return err ? sto_context(st, err, "cannot store result of job %lld", (long long)job_id) : 0;
}

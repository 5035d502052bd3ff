/* store.c - see store.h. The SQLite store behind bpflabd and `bpflab --db FILE`.
 *
 * Every statement is a constant SQL text in stmt_sql[], prepared once on first use and
 * kept for the life of the connection; values are always bound, never formatted into SQL
 * (the two PRAGMAs that take a number cannot be bound and get an integer we computed).
 * Statements are reset right after use, so no read stays open across calls. A query is
 * its SELECT and the table of its columns (lib/store_sql.h), which makes the JSON rows.
 *
 * Errors: the function that fails writes a message into store->err (SQLite's text or our
 * own), and the exported function that called it puts its context in front ("cannot
 * store result of job 3: database or disk is full"), rolls back and returns -errno.
 *
 * Used from one thread per struct store: the coordinator's event loop, or the CLI.
 */
#include "store.h"

#include <errno.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "samples.h"
#include "store_repeat.h"
#include "store_sql.h"
#include "util.h"

/* Generated from schema/NNN_*.sql by scripts/embed-schema.sh. */
extern const char *const store_migrations[];
extern const int store_n_migrations;

#define STORE_BUSY_TIMEOUT_MS 5000
#define STORE_ERR_LEN 1024

enum stmt_id {
	S_BEGIN,
	S_COMMIT,
	S_ROLLBACK,
	S_SAVEPOINT,
	S_RELEASE,
	S_ROLLBACK_TO,
	S_ROUND_OPEN,
	S_USER_VERSION,
	S_PAGE_SIZE,
	S_HOST_UPSERT,
	S_HOST_REQUEUE,
	S_HOST_SEEN,
	S_HOST_GONE,
	S_HOST_BUSY,
	S_HOST_IDLE_IF_FREE,
	S_HOST_PENDING,
	S_HOST_INVENTORY,
	S_PLAN_INSERT,
	S_PLAN_ID,
	S_OBJECT_INSERT,
	S_OBJECT_GET,
	S_RUN_INSERT,
	S_RUN_OBJECT_INSERT,
	S_RUN_COUNTS,
	S_RUN_STATE,
	S_RUN_SET_STATE,
	S_JOB_INSERT,
	S_JOB_NEXT,
	S_JOB_GET,
	S_JOB_DISPATCH,
	S_JOB_ACCEPT,
	S_JOB_REQUEUE,
	S_JOB_FAIL,
	S_JOB_RESULT,
	S_JOB_VERDICTS,
	S_ENV_INSERT,
	S_ENV_ID,
	S_SERIES_INSERT,
	S_SERIES_ID,
	S_SAMPLE_INSERT,
	S_RECOVER_JOBS,
	S_RECOVER_HOSTS,
	S_ATTEMPT_INSERT,
	S_ATTEMPT_CLOSE_JOB,
	S_ATTEMPT_LOST_HOST,
	S_ATTEMPT_RESULT,
	S_ATTEMPT_BY_HOST,
	S_ATTEMPT_LOST_COUNT,
	S_RECOVER_ATTEMPTS,
	S_RUN_HOST_INSERT,
	S_HOST_RUNNING_JOBS,
	S_HOST_QUEUED_RUNS,
	S_RUN_REPLACEMENT,
	S_JOBS_MOVE,
	S_RUN_CANCEL_QUEUED,
	S_RUN_RUNNING_JOBS,
	S_HOST_NAME,
	S_Q_ATTEMPTS,
	S_Q_HOSTS,
	S_Q_RUNS,
	S_Q_RUN,
	S_Q_RUN_JOBS,
	S_Q_RESULT_HOSTS,
	S_Q_RESULT_SAMPLES,
	S_Q_VALUES,
	S_IMPORT_HOST,
	S__MAX
};

#define RUN_HEAD_SQL								\
	"SELECT r.id, p.name, p.sha256, r.state, r.submitted_ms, r.finished_ms, "	\
	"(SELECT count(*) FROM jobs j WHERE j.run_id = r.id), "			\
	"(SELECT count(*) FROM jobs j WHERE j.run_id = r.id AND j.state = 'done'), "	\
	"(SELECT count(*) FROM jobs j WHERE j.run_id = r.id AND j.state = 'failed'), " \
	"r.overrides, r.variants, r.repeat "					\
	"FROM runs r JOIN plans p ON p.id = r.plan_id "

static const char *const stmt_sql[S__MAX] = {
	[S_BEGIN] = "BEGIN IMMEDIATE",
	[S_COMMIT] = "COMMIT",
	[S_ROLLBACK] = "ROLLBACK",
	[S_SAVEPOINT] = "SAVEPOINT part",
	[S_RELEASE] = "RELEASE part",
	[S_ROLLBACK_TO] = "ROLLBACK TO part",
	/* a job of the same round (run, host, point) still to come: store_repeat.c has
	 * nothing to decide yet */
	[S_ROUND_OPEN] =
		"SELECT EXISTS (SELECT 1 FROM jobs j JOIN jobs o ON o.run_id = j.run_id AND "
		"o.host_id = j.host_id AND o.point = j.point WHERE j.id = ?1 AND "
		"o.state IN ('queued', 'running'))",
	[S_USER_VERSION] = "PRAGMA user_version",
	[S_PAGE_SIZE] = "PRAGMA page_size",
	[S_HOST_UPSERT] =
		"INSERT INTO hosts (name, state, agent_version, kernel_release, inventory, "
		"first_seen_ms, last_seen_ms) VALUES (?1, 'idle', ?2, ?3, ?4, ?5, ?5) "
		"ON CONFLICT (name) DO UPDATE SET state = 'idle', "
		"agent_version = excluded.agent_version, "
		"kernel_release = excluded.kernel_release, inventory = excluded.inventory, "
		"last_seen_ms = excluded.last_seen_ms RETURNING id",
	[S_HOST_REQUEUE] =
		"UPDATE jobs SET state = 'queued' WHERE host_id = ?1 AND state = 'running'",
	[S_HOST_SEEN] = "UPDATE hosts SET last_seen_ms = ?2 WHERE id = ?1",
	[S_HOST_GONE] = "UPDATE hosts SET state = 'gone' WHERE id = ?1",
	[S_HOST_BUSY] = "UPDATE hosts SET state = 'busy' WHERE id = ?1",
	[S_HOST_IDLE_IF_FREE] =
		"UPDATE hosts SET state = 'idle' WHERE id = ?1 AND state = 'busy' AND NOT EXISTS "
		"(SELECT 1 FROM jobs WHERE host_id = ?1 AND state = 'running')",
	[S_HOST_PENDING] =
		"SELECT count(*) FROM jobs WHERE host_id = ?1 AND state IN ('queued', 'running')",
	[S_HOST_INVENTORY] = "SELECT inventory FROM hosts WHERE id = ?1",
	[S_PLAN_INSERT] =
		"INSERT INTO plans (name, sha256, text, created_ms) VALUES (?1, ?2, ?3, ?4) "
		"ON CONFLICT (sha256) DO NOTHING",
	[S_PLAN_ID] = "SELECT id FROM plans WHERE sha256 = ?1",
	[S_OBJECT_INSERT] =
		"INSERT INTO objects (sha256, name, size, bytes, created_ms) "
		"VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (sha256) DO NOTHING",
	[S_OBJECT_GET] = "SELECT bytes FROM objects WHERE sha256 = ?1",
	[S_RUN_INSERT] =
		"INSERT INTO runs (plan_id, plan_file, overrides, variants, repeat, state, "
		"submitted_ms) VALUES (?1, ?2, ?3, ?4, ?5, 'queued', ?6)",
	[S_RUN_OBJECT_INSERT] =
		"INSERT INTO run_objects (run_id, name, sha256) VALUES (?1, ?2, ?3) "
		"ON CONFLICT DO NOTHING",
	/* whether the run has jobs, open ones, failed ones, and ones handed out: index
	 * seeks on jobs_run, not a count of every job (run_refresh runs on every dispatch
	 * and result; a count made a 10,000-job run quadratic) */
	[S_RUN_COUNTS] =
		"SELECT EXISTS (SELECT 1 FROM jobs WHERE run_id = ?1), "
		"EXISTS (SELECT 1 FROM jobs WHERE run_id = ?1 AND state IN ('queued', 'running')), "
		"EXISTS (SELECT 1 FROM jobs WHERE run_id = ?1 AND state = 'failed'), "
		"CASE WHEN EXISTS (SELECT 1 FROM jobs WHERE run_id = ?1 "
		"AND state IN ('running', 'done', 'failed')) THEN 1 ELSE EXISTS (SELECT 1 FROM jobs "
		"WHERE run_id = ?1 AND state = 'queued' AND attempts > 0) END",
	[S_RUN_STATE] = "SELECT state, finished_ms FROM runs WHERE id = ?1",
	[S_RUN_SET_STATE] = "UPDATE runs SET state = ?2, finished_ms = ?3 WHERE id = ?1",
	[S_JOB_INSERT] =
		"INSERT INTO jobs (run_id, seq, host_id, variant, variant_idx, rep, point, spec) "
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	[S_JOB_NEXT] =
		"SELECT id, run_id, spec FROM jobs WHERE host_id = ?1 AND state = 'queued' "
		"AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = jobs.run_id "
		"AND r.state = 'cancelled') ORDER BY run_id, seq LIMIT 1",
	[S_JOB_GET] = "SELECT run_id, host_id, state, result_ms FROM jobs WHERE id = ?1",
	[S_JOB_DISPATCH] =
		"UPDATE jobs SET state = 'running', attempts = attempts + 1, started_ms = ?2 "
		"WHERE id = ?1 AND state = 'queued'",
	[S_JOB_ACCEPT] =
		"UPDATE jobs SET state = 'running', started_ms = ?2 "
		"WHERE id = ?1 AND state IN ('queued', 'running')",
	[S_JOB_REQUEUE] = "UPDATE jobs SET state = 'queued' WHERE id = ?1 AND state = 'running'",
	[S_JOB_FAIL] =
		"UPDATE jobs SET state = 'failed', error = ?2, finished_ms = ?3 "
		"WHERE id = ?1 AND state IN ('queued', 'running')",
	[S_JOB_RESULT] =
		"UPDATE jobs SET state = ?2, error = ?3, verifier_log = ?4, env_id = ?5, "
		"started_ms = ifnull(?6, started_ms), finished_ms = ?7, result_ms = ?8 "
		"WHERE id = ?1",
	[S_JOB_VERDICTS] = "UPDATE jobs SET verdicts = ?2, verdict_details = ?3 WHERE id = ?1",
	[S_ENV_INSERT] =
		"INSERT INTO host_envs (host_id, sha256, kernel_release, kernel_version, "
		"config_sha256, debug_options, cmdline, inventory, first_seen_ms, timing) "
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) "
		"ON CONFLICT (host_id, sha256) DO NOTHING",
	[S_ENV_ID] = "SELECT id FROM host_envs WHERE host_id = ?1 AND sha256 = ?2",
	[S_SERIES_INSERT] =
		"INSERT INTO series (metric, subject, window) VALUES (?1, ?2, ?3) "
		"ON CONFLICT DO NOTHING",
	[S_SERIES_ID] = "SELECT id FROM series WHERE metric = ?1 AND subject = ?2 AND window = ?3",
	/* schema 007: samples is a view over these two tables; seq -1 is the whole window */
	[S_SAMPLE_INSERT] =
		"INSERT INTO sample_values (job_id, series_id, seq, value, unit) "
		"VALUES (?1, ?2, ?3, ?4, ?5)",
	[S_RECOVER_JOBS] = "UPDATE jobs SET state = 'queued' WHERE state = 'running'",
	[S_RECOVER_HOSTS] = "UPDATE hosts SET state = 'gone' WHERE state != 'gone'",
	[S_ATTEMPT_INSERT] =
		"INSERT OR REPLACE INTO job_attempts (job_id, attempt, host_id, started_ms) "
		"SELECT id, attempts, host_id, ?2 FROM jobs WHERE id = ?1",
	[S_ATTEMPT_CLOSE_JOB] =
		"UPDATE job_attempts SET ended_ms = ?2, outcome = ?3, error = ?4 "
		"WHERE job_id = ?1 AND outcome = 'running'",
	[S_ATTEMPT_LOST_HOST] =
		"UPDATE job_attempts SET ended_ms = ?2, outcome = 'lost', error = ?3 "
		"WHERE host_id = ?1 AND outcome = 'running'",
	/* the latest attempt of the job by the reporting host: a result that comes after
	 * the attempt was thought lost still ends it */
	[S_ATTEMPT_RESULT] =
		"UPDATE job_attempts SET ended_ms = ?3, outcome = ?4, error = ?5 "
		"WHERE job_id = ?1 AND attempt = (SELECT max(attempt) FROM job_attempts "
		"WHERE job_id = ?1 AND host_id = ?2)",
	[S_ATTEMPT_BY_HOST] =
		"SELECT count(*) FROM job_attempts WHERE job_id = ?1 AND host_id = ?2",
	[S_ATTEMPT_LOST_COUNT] =
		"SELECT count(*) FROM job_attempts WHERE job_id = ?1 AND outcome = 'lost'",
	[S_RECOVER_ATTEMPTS] =
		"UPDATE job_attempts SET ended_ms = ?1, outcome = 'lost', "
		"error = 'the coordinator restarted' WHERE outcome = 'running'",
	[S_RUN_HOST_INSERT] =
		"INSERT INTO run_hosts (run_id, host_id, chosen) VALUES (?1, ?2, ?3) "
		"ON CONFLICT DO UPDATE SET chosen = max(chosen, excluded.chosen)",
	[S_HOST_RUNNING_JOBS] =
		"SELECT id, run_id FROM jobs WHERE host_id = ?1 AND state = 'running' ORDER BY id",
	[S_HOST_QUEUED_RUNS] =
		"SELECT DISTINCT j.run_id FROM jobs j JOIN runs r ON r.id = j.run_id "
		"WHERE j.host_id = ?1 AND j.state = 'queued' AND r.state != 'cancelled' "
		"ORDER BY j.run_id",
	/* a host that matched run ?1's plan, is connected, is not ?2 and has no job of the
	 * run yet (so that all of a run's comparisons on one host stay on one host); the
	 * one with the least pending work, then by name */
	[S_RUN_REPLACEMENT] =
		"SELECT rh.host_id FROM run_hosts rh JOIN hosts h ON h.id = rh.host_id "
		"WHERE rh.run_id = ?1 AND rh.host_id != ?2 AND h.state != 'gone' "
		"AND NOT EXISTS (SELECT 1 FROM jobs k WHERE k.run_id = ?1 AND k.host_id = rh.host_id) "
		"ORDER BY (SELECT count(*) FROM jobs q WHERE q.host_id = rh.host_id "
		"AND q.state IN ('queued', 'running')), h.name LIMIT 1",
	[S_JOBS_MOVE] =
		"UPDATE jobs SET host_id = ?3 WHERE run_id = ?1 AND host_id = ?2 AND state = 'queued'",
	[S_RUN_CANCEL_QUEUED] =
		"UPDATE jobs SET state = 'failed', error = 'cancelled', finished_ms = ?2 "
		"WHERE run_id = ?1 AND state = 'queued'",
	[S_RUN_RUNNING_JOBS] =
		"SELECT j.id, j.host_id, h.name FROM jobs j JOIN hosts h ON h.id = j.host_id "
		"WHERE j.run_id = ?1 AND j.state = 'running' ORDER BY j.id",
	[S_HOST_NAME] = "SELECT name FROM hosts WHERE id = ?1",
	[S_Q_ATTEMPTS] =
		"SELECT a.job_id, a.attempt, h.name, a.started_ms, a.ended_ms, a.outcome, a.error "
		"FROM job_attempts a JOIN jobs j ON j.id = a.job_id JOIN hosts h ON h.id = a.host_id "
		"WHERE j.run_id = ?1 ORDER BY a.job_id, a.attempt",
	[S_Q_HOSTS] =
		"SELECT h.id, h.name, h.state, h.kernel_release, h.last_seen_ms, "
		"(SELECT j.id FROM jobs j WHERE j.host_id = h.id AND j.state = 'running' "
		"ORDER BY j.id LIMIT 1), h.inventory FROM hosts h ORDER BY h.name",
	[S_Q_RUNS] = RUN_HEAD_SQL "ORDER BY r.id",
	[S_Q_RUN] = RUN_HEAD_SQL "WHERE r.id = ?1",
	[S_Q_RUN_JOBS] =
		"SELECT j.id, j.seq, h.name, j.variant, j.rep, j.point, j.state, j.attempts, "
		"j.error, j.started_ms, j.finished_ms, j.verdicts, j.verdict_details, "
		"(SELECT e.timing FROM host_envs e WHERE e.id = j.env_id), j.added "
		"FROM jobs j JOIN hosts h ON h.id = j.host_id "
		"WHERE j.run_id = ?1 ORDER BY j.seq, h.name, j.id",
	/* The kernels the run's jobs ran on; a host none of whose jobs has reported yet
	 * shows the kernel of its latest hello. With each, how the tc programs of the
	 * run's jobs there were attached, from their envs: {"b": {"ingress": "clsact",
	 * "egress": "clsact"}} (hooks that were attached, distinct methods joined by ','),
	 * NULL when none was. */
	[S_Q_RESULT_HOSTS] =
		"SELECT x.name, x.kr, x.kv, x.role, "
		"(SELECT nullif(json_group_object(role, json(hooks)), '{}') FROM "
		"(SELECT role, json_group_object(hook, m) AS hooks FROM "
		"(SELECT role, hook, group_concat(m, ',') AS m FROM "
		"(SELECT DISTINCT json_extract(pp.value, '$.role') AS role, t.key AS hook, "
		"t.value AS m FROM host_envs f, json_each(f.inventory, '$.ports') pp, "
		"json_each(pp.value, '$.tc_attach') t WHERE f.id IN (SELECT k.env_id FROM jobs k "
		"WHERE k.run_id = ?1 AND k.host_id = x.hid) AND f.kernel_release = x.kr "
		"AND t.value <> 'none' AND role IS NOT NULL ORDER BY role, hook DESC, m) "
		"GROUP BY role, hook ORDER BY role, hook DESC) GROUP BY role ORDER BY role)) "
		"FROM (SELECT h.id AS hid, h.name AS name, e.kernel_release AS kr, "
		"e.kernel_version AS kv, json_extract(j.spec, '$.pair.role') AS role FROM jobs j "
		"JOIN hosts h ON h.id = j.host_id JOIN host_envs e ON e.id = j.env_id "
		"WHERE j.run_id = ?1 "
		"UNION "
		"SELECT h.id, h.name, h.kernel_release, json_extract(h.inventory, '$.kernel.version'), "
		"json_extract(j.spec, '$.pair.role') "
		"FROM jobs j JOIN hosts h ON h.id = j.host_id WHERE j.run_id = ?1 AND NOT EXISTS "
		"(SELECT 1 FROM jobs k WHERE k.run_id = ?1 AND k.host_id = j.host_id "
		"AND k.env_id IS NOT NULL)) x "
		"ORDER BY 1, 2, 3",
	[S_Q_RESULT_SAMPLES] =
		"SELECT s.job_id, h.name, j.variant, j.rep, j.point, r.metric, r.subject, s.value, "
		"s.unit, r.window, j.verdicts, "
		"ifnull((SELECT e.timing FROM host_envs e WHERE e.id = j.env_id), 'wall') "
		"FROM jobs j JOIN sample_values s ON s.job_id = j.id "
		"JOIN series r ON r.id = s.series_id "
		"JOIN hosts h ON h.id = j.host_id WHERE j.run_id = ?1 AND s.seq = -1 "
		"ORDER BY j.seq, h.name, j.id, s.id",
	/* store_query_values: whole-window samples with what compare and history group
	 * by; each filter is off when its parameter is NULL (?4: JSON array of run ids) */
	[S_Q_VALUES] =
		"SELECT r.id, j.id, h.name, e.kernel_release, j.variant, sr.subject, j.rep, "
		"s.value, s.unit, j.verdicts, "
		"strftime('%Y-%m-%d', ifnull(j.finished_ms, r.submitted_ms) / 1000, 'unixepoch'), "
		"p.name, p.sha256, sr.metric, sr.window, "
		"json_extract(e.inventory, '$.cpu.model'), "
		"json_extract(e.inventory, '$.cpu.governor'), "
		"(SELECT group_concat(d, ',') FROM (SELECT DISTINCT "
		"json_extract(pp.value, '$.driver') AS d FROM json_each(e.inventory, '$.ports') pp "
		"WHERE d IS NOT NULL ORDER BY d)), "
		"j.point, e.debug_options, ifnull(e.timing, 'wall'), "
		"ifnull(j.finished_ms, r.submitted_ms), substr(p.text, 1, 14) = 'imported from ', "
		/* how the job's tc programs were attached (tcx, clsact), from its env */
		"(SELECT group_concat(m, ',') FROM (SELECT DISTINCT t.value AS m "
		"FROM json_each(e.inventory, '$.ports') pp, json_each(pp.value, '$.tc_attach') t "
		"WHERE t.value <> 'none' ORDER BY m)) "
		"FROM sample_values s JOIN series sr ON sr.id = s.series_id "
		"JOIN jobs j ON j.id = s.job_id JOIN runs r ON r.id = j.run_id "
		"JOIN plans p ON p.id = r.plan_id JOIN hosts h ON h.id = j.host_id "
		"LEFT JOIN host_envs e ON e.id = j.env_id "
		"WHERE s.seq = -1 AND j.state = 'done' AND (?1 IS NULL OR p.name = ?1) "
		"AND (?2 IS NULL OR sr.metric = ?2) AND (?3 IS NULL OR sr.window = ?3) "
		"AND (?4 IS NULL OR r.id IN (SELECT value FROM json_each(?4))) "
		"AND (?5 IS NULL OR sr.subject = ?5) AND (?6 IS NULL OR j.variant = ?6) "
		"AND (?7 IS NULL OR h.name = ?7) "
		"ORDER BY ifnull(j.finished_ms, r.submitted_ms), r.id, j.seq, h.name, j.id, s.id",
	[S_IMPORT_HOST] =
		"INSERT INTO hosts (name, state, inventory, first_seen_ms, last_seen_ms) "
		"VALUES (?1, 'gone', '{}', ?2, ?2) ON CONFLICT (name) DO UPDATE SET "
		"last_seen_ms = excluded.last_seen_ms RETURNING id",
};

/* Series ids seen by this connection, direct-mapped by a hash of the key. An id is only
 * kept while the transaction that found or added it can still commit: tx_end empties
 * the cache on every rollback, and a committed series row is never changed or deleted,
 * so a cached id stays right for the life of the connection. */
#define SERIES_CACHE 256

struct series_ent {
	char *key;			/* "metric\0subject\0window", owned; NULL: empty */
	size_t key_len;
	int64_t id;
};

/* The environment a result without one is stored with, by host (direct-mapped): its
 * hello inventory's text and the id of the environment made of it. Kept like the series
 * ids: emptied on every rollback; environment rows are never changed or deleted. */
#define ENV_CACHE 64

struct env_ent {
	char *inventory;		/* owned; NULL: empty */
	size_t len;
	int64_t host_id, env_id;
	bool icount;
};

struct store {
	sqlite3 *db;
	char *path;
	sqlite3_stmt *stmt[S__MAX];
	struct series_ent series[SERIES_CACHE];
	struct env_ent envs[ENV_CACHE];
	char err[STORE_ERR_LEN];
	/* store_batch_begin: the transaction is open and each write is a savepoint in it;
	 * BATCH_LOST: SQLite rolled the whole transaction back (a full disk, an I/O error) */
	bool batch, batch_lost;
};

static void series_cache_clear(struct store *st)
{
	for (size_t i = 0; i < SERIES_CACHE; i++) {
		free(st->series[i].key);
		st->series[i].key = NULL;
	}
	for (size_t i = 0; i < ENV_CACHE; i++) {
		free(st->envs[i].inventory);
		st->envs[i].inventory = NULL;
	}
}

static int seterr(struct store *st, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int seterr(struct store *st, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->err, sizeof(st->err), fmt, ap);
	va_end(ap);
	return err;
}

int store_fail(struct store *st, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->err, sizeof(st->err), fmt, ap);
	va_end(ap);
	return err;
}

int store_fail_sql(struct store *st, int rc, const char *what)
{
	int err = sql_errno(rc ? rc : sqlite3_extended_errcode(st->db));

	return store_fail(st, err ? err : -EIO, "cannot %s: %s", what,
			  rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(st->db));
}

/* SQLite's message for a failed call that returned RC, as -errno. */
static int dberr(struct store *st, int rc)
{
	return seterr(st, sql_errno(rc) ? sql_errno(rc) : -EIO, "%s", sqlite3_errmsg(st->db));
}

/* Put CONTEXT in front of the current message: "CONTEXT: message". */
static int context(struct store *st, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int context(struct store *st, int err, const char *fmt, ...)
{
	char ctx[STORE_ERR_LEN], both[2 * STORE_ERR_LEN + 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx, sizeof(ctx), fmt, ap);
	va_end(ap);
	snprintf(both, sizeof(both), "%s: %s", ctx, st->err);
	memcpy(st->err, both, sizeof(st->err) - 1);
	st->err[sizeof(st->err) - 1] = '\0';
	return err;
}

static int prep(struct store *st, enum stmt_id id, sqlite3_stmt **s)
{
	int rc;

	if (!st->stmt[id]) {
		rc = sqlite3_prepare_v3(st->db, stmt_sql[id], -1, SQLITE_PREPARE_PERSISTENT,
					&st->stmt[id], NULL);
		if (rc != SQLITE_OK)
			return dberr(st, rc);
	}
	*s = st->stmt[id];
	return 0;
}

static void done(sqlite3_stmt *s)
{
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
}

/* Bind values by TYPES (sql_bind_va: i int64_t, o int64_t or NULL when negative, t text,
 * b blob and size, r double); on failure nothing stays bound. */
static int bind_va(struct store *st, sqlite3_stmt *s, const char *types, va_list ap)
{
	int rc = sql_bind_va(s, types, ap);

	if (rc != SQLITE_OK) {
		done(s);
		return dberr(st, rc);
	}
	return 0;
}

static int bind(struct store *st, sqlite3_stmt *s, const char *types, ...)
{
	va_list ap;
	int err;

	va_start(ap, types);
	err = bind_va(st, s, types, ap);
	va_end(ap);
	return err;
}

/* Statement ID prepared (once) and bound by TYPES (bind_va) into *S; on failure nothing
 * stays bound. The helper behind exec() and query_int(). */
static int prep_bind_va(struct store *st, enum stmt_id id, sqlite3_stmt **s, const char *types,
			va_list ap)
{
	int err = prep(st, id, s);

	return err ? err : bind_va(st, *s, types, ap);
}

/* Run statement ID with values bound by TYPES to completion. *CHANGES (may be NULL)
 * gets the number of rows it changed. */
static int exec_va(struct store *st, enum stmt_id id, int64_t *changes, const char *types,
		   va_list ap)
{
	sqlite3_stmt *s = NULL;
	int err = prep_bind_va(st, id, &s, types, ap), rc;

	if (err)
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		;
	if (rc != SQLITE_DONE)
		err = dberr(st, rc);
	else if (changes)
		*changes = sqlite3_changes64(st->db);
	done(s);
	return err;
}

static int exec(struct store *st, enum stmt_id id, int64_t *changes, const char *types, ...)
{
	va_list ap;
	int err;

	va_start(ap, types);
	err = exec_va(st, id, changes, types, ap);
	va_end(ap);
	return err;
}

/* Statement ID bound by TYPES and stepped once: 0 with *S on its first row (read the
 * columns, then done(*S)), -ENOENT when there is no row (message "no such row"), or
 * -errno; on anything but 0 the statement is already reset. */
static int query_row_va(struct store *st, enum stmt_id id, sqlite3_stmt **s,
			const char *types, va_list ap)
{
	int err = prep_bind_va(st, id, s, types, ap), rc;

	if (err)
		return err;
	rc = sqlite3_step(*s);
	if (rc == SQLITE_ROW)
		return 0;
	err = rc == SQLITE_DONE ? seterr(st, -ENOENT, "no such row") : dberr(st, rc);
	done(*s);
	return err;
}

static int query_row(struct store *st, enum stmt_id id, sqlite3_stmt **s, const char *types,
		     ...)
{
	va_list ap;
	int err;

	va_start(ap, types);
	err = query_row_va(st, id, s, types, ap);
	va_end(ap);
	return err;
}

/* The first column of the first row of statement ID as an integer into *OUT; -ENOENT
 * when there is no row (message set), or -errno. */
static int query_int(struct store *st, enum stmt_id id, int64_t *out, const char *types, ...)
{
	sqlite3_stmt *s = NULL;
	va_list ap;
	int err;

	va_start(ap, types);
	err = query_row_va(st, id, &s, types, ap);
	va_end(ap);
	if (!err) {
		*out = sqlite3_column_int64(s, 0);
		done(s);
	}
	return err;
}

/* Every row of statement ID, bound by TYPES, by the N columns of COLS (sql_row_json):
 * a new array, or NULL with errno set and the message in the store. */
static json_t *query_rows(struct store *st, enum stmt_id id, const struct sql_col *cols,
			  size_t n, const char *types, ...)
{
	sqlite3_stmt *s = NULL;
	json_t *arr = NULL;
	va_list ap;
	int err, rc;

	va_start(ap, types);
	err = prep_bind_va(st, id, &s, types, ap);
	va_end(ap);
	if (!err) {
		rc = sql_rows_json(s, cols, n, &arr);
		if (rc == SQLITE_NOMEM)
			err = seterr(st, -ENOMEM, "out of memory");
		else if (rc != SQLITE_OK)
			err = dberr(st, rc);
		done(s);
	}
	if (err)
		errno = -err;
	return arr;
}

/* Begin a write: a transaction, or in a batch (store_batch_begin) a savepoint of it. */
static int tx_begin(struct store *st)
{
	if (!st->batch)
		return exec(st, S_BEGIN, NULL, "");
	if (st->batch_lost || sqlite3_get_autocommit(st->db)) {
		st->batch_lost = true;
		return seterr(st, -EIO, "the transaction of its batch was rolled back");
	}
	return exec(st, S_SAVEPOINT, NULL, "");
}

/* Commit when ERR is 0; roll back when it is not or when the commit fails. Keeps the
 * first message. Returns the outcome. In a batch the same for the savepoint: released,
 * or rolled back to (the batch's other writes stay). */
static int tx_end(struct store *st, int err)
{
	sqlite3_stmt *s = NULL;

	if (!err)
		err = exec(st, st->batch ? S_RELEASE : S_COMMIT, NULL, "");
	if (err && !sqlite3_get_autocommit(st->db) &&
	    !prep(st, st->batch ? S_ROLLBACK_TO : S_ROLLBACK, &s)) {
		sqlite3_step(s);
		done(s);
		if (st->batch && !prep(st, S_RELEASE, &s)) {
			sqlite3_step(s);	/* ends the savepoint, now empty */
			done(s);
		}
	}
	if (err && st->batch && sqlite3_get_autocommit(st->db))
		st->batch_lost = true;
	if (err)
		series_cache_clear(st); /* ids added by the rolled-back transaction are gone */
	return err;
}

int store_batch_begin(struct store *st)
{
	int err;

	if (st->batch)
		return seterr(st, -EBUSY, "a batch is open already");
	err = tx_begin(st);
	if (err)
		return context(st, err, "cannot begin a batch of writes");
	st->batch = true;
	st->batch_lost = false;
	return 0;
}

int store_batch_end(struct store *st, int err)
{
	bool lost = st->batch_lost;

	if (!st->batch)
		return 0;
	st->batch = false;
	st->batch_lost = false;
	if (!err && lost)
		err = seterr(st, -EIO, "the transaction of its batch was rolled back after an "
			     "error");
	return tx_end(st, err);
}

/* --- open, migrate, close --- */

int store_schema_latest(void)
{
	return store_n_migrations;
}

int store_schema_version(struct store *st)
{
	int64_t v = 0;
	int err = query_int(st, S_USER_VERSION, &v, "");

	return err ? err : (int)v;
}

/* SQLITE_OK when PRAGMA foreign_key_check finds no violation, SQLITE_CONSTRAINT_FOREIGNKEY
 * (with the table named in the store's message) when it does, or the SQLite error. */
static int fk_check(struct store *st)
{
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_prepare_v2(st->db, "PRAGMA foreign_key_check", -1, &s, NULL);

	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		seterr(st, -EPROTO, "foreign key violation in table '%s' row %lld",
		       (const char *)sqlite3_column_text(s, 0),
		       (long long)sqlite3_column_int64(s, 1));
		rc = SQLITE_CONSTRAINT_FOREIGNKEY;
	} else if (rc == SQLITE_DONE) {
		rc = SQLITE_OK;
	}
	sqlite3_finalize(s);
	return rc;
}

/* Apply migrations FROM+1 .. latest, each in its own transaction. Foreign keys are off
 * while migrating (SQLite's documented way to rebuild a table that others reference: a
 * DROP TABLE would otherwise delete-and-check every row), and each migration must leave
 * PRAGMA foreign_key_check empty before it commits. */
static int migrate(struct store *st, int from)
{
	char sql[64];
	int err = 0, v, rc;

	if (from >= store_n_migrations)
		return 0;
	rc = sqlite3_exec(st->db, "PRAGMA foreign_keys = OFF", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return context(st, dberr(st, rc), "cannot migrate database '%s'", st->path);
	for (v = from + 1; v <= store_n_migrations; v++) {
		err = tx_begin(st);
		if (err)
			break;
		/* Another process may have migrated between our read and our lock. */
		rc = store_schema_version(st);
		if (rc < 0) {
			err = tx_end(st, rc);
			break;
		}
		if (rc >= v) {
			err = tx_end(st, 0);
			if (err)
				break;
			continue;
		}
		rc = sqlite3_exec(st->db, store_migrations[v - 1], NULL, NULL, NULL);
		if (rc == SQLITE_OK)
			rc = fk_check(st);
		if (rc == SQLITE_OK) {
			/* PRAGMA takes no parameters; v is our own loop counter. */
			snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", v);
			rc = sqlite3_exec(st->db, sql, NULL, NULL, NULL);
		}
		err = tx_end(st, rc == SQLITE_OK ? 0 :
				 rc == SQLITE_CONSTRAINT_FOREIGNKEY ? -EPROTO : dberr(st, rc));
		if (err) {
			context(st, err, "cannot migrate database '%s' to schema version %d",
				st->path, v);
			break;
		}
	}
	rc = sqlite3_exec(st->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
	if (!err && rc != SQLITE_OK)
		err = context(st, dberr(st, rc), "cannot migrate database '%s'", st->path);
	return err;
}

static void store_free(struct store *st)
{
	int i;

	if (!st)
		return;
	for (i = 0; i < S__MAX; i++)
		sqlite3_finalize(st->stmt[i]);
	series_cache_clear(st);
	sqlite3_close_v2(st->db);
	free(st->path);
	free(st);
}

struct store *store_open(const char *path, bool readonly, char *errbuf, size_t err_len)
{
	int flags = readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	struct store *st;
	int err = 0, rc, version;

	st = calloc(1, sizeof(*st));
	if (!st || !(st->path = strdup(path))) {
		free(st);
		snprintf(errbuf, err_len, "cannot open database '%s': out of memory", path);
		errno = ENOMEM;
		return NULL;
	}
	rc = sqlite3_open_v2(path, &st->db, flags | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		err = st->db ? dberr(st, rc) : seterr(st, -ENOMEM, "out of memory");
		goto out;
	}
	sqlite3_extended_result_codes(st->db, 1);
	sqlite3_busy_timeout(st->db, STORE_BUSY_TIMEOUT_MS);
	rc = sqlite3_exec(st->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		err = dberr(st, rc);
		goto out;
	}
	version = store_schema_version(st);
	if (version < 0) {
		err = version;
		goto out;
	}
	if (version > store_n_migrations) {
		err = seterr(st, -EPROTO, "schema version %d is newer than this bpflab's (%d): "
			     "use a newer bpflab", version, store_n_migrations);
		goto out;
	}
	if (readonly) {
		if (version == 0)
			err = seterr(st, -EPROTO, "not a bpflab database (no schema)");
		else if (version < store_n_migrations)
			err = seterr(st, -EPROTO, "schema version %d is older than this bpflab's "
				     "(%d): open it read-write once to migrate it", version,
				     store_n_migrations);
		goto out;
	}
	/* WAL: readers (the CLI on the same file) never block the coordinator. An in-memory
	 * database stays in "memory" mode, which is fine. */
	rc = sqlite3_exec(st->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(st->db, "PRAGMA synchronous = NORMAL", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		err = dberr(st, rc);
		goto out;
	}
	err = migrate(st, version);
	if (err) {
		/* migrate() gave the context; report its message as it is. */
		snprintf(errbuf, err_len, "%s", st->err);
		store_free(st);
		errno = -err;
		return NULL;
	}
out:
	if (err) {
		snprintf(errbuf, err_len, "cannot open database '%s': %s", path, st->err);
		store_free(st);
		errno = -err;
		return NULL;
	}
	return st;
}

void store_close(struct store **stp)
{
	if (!stp)
		return;
	store_free(*stp);
	*stp = NULL;
}

const char *store_errmsg(struct store *st)
{
	return st->err;
}

int store_set_size_limit(struct store *st, int64_t bytes)
{
	int64_t page_size = 4096, pages;
	char sql[64];
	int err, rc;

	err = query_int(st, S_PAGE_SIZE, &page_size, "");
	if (err)
		return context(st, err, "cannot limit the database size");
	pages = bytes > 0 ? bytes / page_size : 0xfffffffe;
	if (pages < 1)
		pages = 1;
	/* PRAGMA takes no parameters; pages is a number we computed. */
	snprintf(sql, sizeof(sql), "PRAGMA max_page_count = %lld", (long long)pages);
	rc = sqlite3_exec(st->db, sql, NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return context(st, dberr(st, rc), "cannot limit the database size");
	return 0;
}

/* --- hosts --- */

static const char *json_str_at(const json_t *obj, const char *k1, const char *k2)
{
	json_t *v = json_object_get(obj, k1);

	if (k2)
		v = json_object_get(v, k2);
	return json_string_value(v);
}

int store_host_hello(struct store *st, const char *name, const char *version,
		     const json_t *inventory, int64_t now_ms, int64_t *host_id, int *requeued)
{
	int64_t changes = 0;
	char *inv = NULL;
	int err;

	if (!name || !*name) {
		err = seterr(st, -EINVAL, "empty host name");
		goto out;
	}
	inv = inventory ? json_dumps(inventory, JSON_COMPACT | JSON_SORT_KEYS) : strdup("{}");
	if (!inv) {
		err = seterr(st, -ENOMEM, "out of memory");
		goto out;
	}
	err = tx_begin(st);
	if (err)
		goto out;
	err = query_int(st, S_HOST_UPSERT, host_id, "tttti", name, version,
			json_str_at(inventory, "kernel", "release"), inv, now_ms);
	if (!err)
		err = exec(st, S_ATTEMPT_LOST_HOST, NULL, "iit", *host_id, now_ms,
			   "the agent started a new session");
	if (!err)
		err = exec(st, S_HOST_REQUEUE, &changes, "i", *host_id);
	err = tx_end(st, err);
	if (!err && requeued)
		*requeued = (int)changes;
out:
	free(inv);
	return err ? context(st, err, "cannot register host '%s'", name ? name : "") : 0;
}

int store_host_seen(struct store *st, int64_t host_id, int64_t now_ms)
{
	int err = exec(st, S_HOST_SEEN, NULL, "ii", host_id, now_ms);

	return err ? context(st, err, "cannot update host %lld", (long long)host_id) : 0;
}

int store_host_gone(struct store *st, int64_t host_id, int *requeued)
{
	int64_t changes = 0;
	int err;

	err = tx_begin(st);
	if (err)
		goto out;
	err = exec(st, S_ATTEMPT_LOST_HOST, NULL, "iit", host_id, util_wall_ms(),
		   "the host went silent");
	if (!err)
		err = exec(st, S_HOST_REQUEUE, &changes, "i", host_id);
	if (!err)
		err = exec(st, S_HOST_GONE, NULL, "i", host_id);
	err = tx_end(st, err);
	if (!err && requeued)
		*requeued = (int)changes;
out:
	return err ? context(st, err, "cannot mark host %lld gone", (long long)host_id) : 0;
}

int store_host_pending(struct store *st, int64_t host_id, int64_t *n)
{
	int err = query_int(st, S_HOST_PENDING, n, "i", host_id);

	return err ? context(st, err, "cannot count jobs of host %lld", (long long)host_id) : 0;
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
		return seterr(st, -EINVAL, "the run has no jobs");
	for (v = 0; v < plan->n_variants; v++) {
		for (a = 0; a < plan->variants[v].n_attach; a++) {
			const char *name = plan->variants[v].attach[a].object;

			if (!find_object(objs, name))
				return seterr(st, -EINVAL, "object '%s' named by the plan was not "
					      "submitted", name);
		}
	}
	for (i = 0; objs && i < objs->n; i++) {
		const struct plan_object *o = &objs->objs[i];

		util_sha256_hex(o->data, o->len, sha);
		if (strcmp(sha, o->sha256))
			return seterr(st, -EINVAL, "object '%s': sha256 %s does not match its "
				      "bytes (%s)", o->name, o->sha256, sha);
	}
	for (i = 0; i < n_jobs; i++) {
		const struct plan_job *job = jobs[i].job;
		json_t *attach, *entry;
		size_t k;

		if (!job || !json_is_object(job->spec))
			return seterr(st, -EINVAL, "job %d has no spec", i);
		if (job->variant < 0 || job->variant >= plan->n_variants)
			return seterr(st, -EINVAL, "job %d: variant %d out of range", i,
				      job->variant);
		attach = json_object_get(job->spec, "attach");
		json_array_foreach(attach, k, entry) {
			const char *name = json_string_value(json_object_get(entry, "object"));
			const char *hash = json_string_value(json_object_get(entry, "sha256"));
			const struct plan_object *o = name ? find_object(objs, name) : NULL;

			if (!o)
				return seterr(st, -EINVAL, "job %d: attach entry %zu names no "
					      "submitted object", i, k);
			if (!hash || strcmp(hash, o->sha256))
				return seterr(st, -EINVAL, "job %d: attach entry %zu: sha256 of "
					      "object '%s' missing or wrong", i, k, name);
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
		err = exec(st, S_OBJECT_INSERT, NULL, "ttibi", o->sha256, o->name,
			   (int64_t)o->len, o->data, o->len, now_ms);
		if (!err)
			err = exec(st, S_RUN_OBJECT_INSERT, NULL, "itt", run_id, o->name,
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
			err = seterr(st, -ENOMEM, "out of memory");
		else
			err = exec(st, S_JOB_INSERT, NULL, "iiitiitt", run_id, (int64_t)job->seq,
				   jobs[i].host_id, plan->variants[job->variant].name,
				   (int64_t)job->variant, (int64_t)job->rep, point, spec);
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
		err = seterr(st, -ENOMEM, "out of memory");
		goto out;
	}
	err = tx_begin(st);
	if (err)
		goto out;
	err = exec(st, S_PLAN_INSERT, NULL, "ttti", plan->name, plan->sha256, plan->text,
		   now_ms);
	if (!err)
		err = query_int(st, S_PLAN_ID, &plan_id, "t", plan->sha256);
	if (!err)
		err = exec(st, S_RUN_INSERT, NULL, "itttii", plan_id,
			   plan->file ? plan->file : plan->name, ov, vars,
			   (int64_t)plan->repeat, now_ms);
	if (!err) {
		*run_id = sqlite3_last_insert_rowid(st->db);
		err = run_insert_objects(st, plan, objs, *run_id, now_ms);
	}
	if (!err)
		err = run_insert_jobs(st, plan, *run_id, jobs, n_jobs);
	for (i = 0; !err && i < n_hosts; i++)
		err = exec(st, S_RUN_HOST_INSERT, NULL, "iii", *run_id, hosts[i].host_id,
			   (int64_t)hosts[i].chosen);
	err = tx_end(st, err);
out:
	json_decref(variants);
	free(ov);
	free(vars);
	return err ? context(st, err, "cannot store run of plan '%s'", plan->name) : 0;
}

/* Derive run RUN_ID's state from its jobs and store it if it changed. STATE (may be
 * NULL) gets the state; *FINISHED (may be NULL) whether this call finished the run. */
static int run_refresh(struct store *st, int64_t run_id, int64_t now_ms, char state[STORE_STATE_LEN],
		       bool *finished)
{
	int64_t total = 0, open = 0, failed = 0, started = 0, old_fin = -1;
	const char *next;
	char old[STORE_STATE_LEN] = "";
	bool fin = false;
	sqlite3_stmt *s = NULL;
	int err;

	err = query_row(st, S_RUN_COUNTS, &s, "i", run_id);
	if (err)
		return err;
	total = sqlite3_column_int64(s, 0);
	open = sqlite3_column_int64(s, 1);
	failed = sqlite3_column_int64(s, 2);
	started = sqlite3_column_int64(s, 3);
	done(s);

	err = query_row(st, S_RUN_STATE, &s, "i", run_id);
	if (err == -ENOENT)
		return seterr(st, -ENOENT, "unknown run %lld", (long long)run_id);
	if (err)
		return err;
	snprintf(old, sizeof(old), "%s", (const char *)sqlite3_column_text(s, 0));
	if (sqlite3_column_type(s, 1) != SQLITE_NULL)
		old_fin = sqlite3_column_int64(s, 1);
	done(s);

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
	return exec(st, S_RUN_SET_STATE, NULL, "ito", run_id, next, old_fin);
}

/* --- the queue --- */

struct job_row {
	int64_t run_id, host_id;
	char state[8];
	bool has_result;
};

static int job_get(struct store *st, int64_t job_id, struct job_row *row)
{
	sqlite3_stmt *s = NULL;
	int err = query_row(st, S_JOB_GET, &s, "i", job_id);

	if (err == -ENOENT)
		return seterr(st, -ENOENT, "unknown job %lld", (long long)job_id);
	if (err)
		return err;
	row->run_id = sqlite3_column_int64(s, 0);
	row->host_id = sqlite3_column_int64(s, 1);
	snprintf(row->state, sizeof(row->state), "%s", (const char *)sqlite3_column_text(s, 2));
	row->has_result = sqlite3_column_type(s, 3) != SQLITE_NULL;
	done(s);
	return 0;
}

int store_job_next(struct store *st, int64_t host_id, int64_t *job_id, int64_t *run_id,
		   json_t **spec)
{
	json_error_t jerr;
	sqlite3_stmt *s = NULL;
	int err;

	*spec = NULL;
	err = query_row(st, S_JOB_NEXT, &s, "i", host_id);
	if (err == -ENOENT)
		return seterr(st, -ENOENT, "nothing queued");
	if (!err) {
		const char *text = (const char *)sqlite3_column_text(s, 2);
		char why[128];

		*job_id = sqlite3_column_int64(s, 0);
		*run_id = sqlite3_column_int64(s, 1);
		/* lib/proto.c's parser, several times faster than jansson's; what it refuses
		 * (e.g. a duplicate key) goes to jansson as before */
		*spec = text ? proto_parse(text, (size_t)sqlite3_column_bytes(s, 2), why,
					   sizeof(why)) : NULL;
		if (!*spec)
			*spec = json_loads(text, 0, &jerr);
		if (!*spec)
			err = seterr(st, -EBADMSG, "spec of job %lld is not JSON: %s",
				     (long long)*job_id, jerr.text);
		done(s);
	}
	return err ? context(st, err, "cannot read the queue of host %lld", (long long)host_id) : 0;
}

/* Begin a write of the queue on job JOB_ID: a transaction, with the job's row in *ROW.
 * Returns 0, -ENOENT for an unknown job or -errno; on failure no transaction is open. */
static int job_begin(struct store *st, int64_t job_id, struct job_row *row)
{
	int err = tx_begin(st);

	if (err)
		return err;
	err = job_get(st, job_id, row);
	return err ? tx_end(st, err) : 0;
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
	err = exec_va(st, id, &changes, types, ap);
	va_end(ap);
	return err ? err : changes ? 0 : -ESTALE;
}

/* The running attempt of job JOB_ID (of ROW) ends at ENDED_MS with OUTCOME and ERROR, and
 * its host is idle unless another job runs there. In the caller's transaction. */
static int job_close(struct store *st, const struct job_row *row, int64_t job_id,
		     int64_t ended_ms, const char *outcome, const char *error)
{
	int err = exec(st, S_ATTEMPT_CLOSE_JOB, NULL, "iitt", job_id, ended_ms, outcome, error);

	return err ? err : exec(st, S_HOST_IDLE_IF_FREE, NULL, "i", row->host_id);
}

/* Hand queued job JOB_ID to its host at NOW_MS, all but its run's state (*ROW has the
 * job's row). An unknown job (-ENOENT) or one that is not queued (-ESTALE) changes
 * nothing. In the caller's transaction. */
static int job_dispatch(struct store *st, int64_t job_id, int64_t now_ms,
			struct job_row *row)
{
	int err = job_get(st, job_id, row);

	if (!err)
		err = job_move(st, S_JOB_DISPATCH, "ii", job_id, now_ms);
	if (err == -ESTALE)
		err = seterr(st, err, "job is %s, not queued", row->state);
	if (!err)
		err = exec(st, S_ATTEMPT_INSERT, NULL, "ii", job_id, now_ms);
	if (!err)
		err = exec(st, S_HOST_BUSY, NULL, "i", row->host_id);
	return err;
}

int store_job_dispatch(struct store *st, int64_t job_id, int64_t now_ms)
{
	struct job_row row;
	int err;

	err = tx_begin(st);
	if (err)
		goto out;
	err = job_dispatch(st, job_id, now_ms, &row);
	if (!err)
		err = run_refresh(st, row.run_id, now_ms, NULL, NULL);
	err = tx_end(st, err);
out:
	return err ? context(st, err, "cannot dispatch job %lld", (long long)job_id) : 0;
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
		return seterr(st, -ENOMEM, "cannot dispatch %d jobs: out of memory", n);
	err = tx_begin(st);
	for (i = 0; !err && i < n; i++) {
		errs[i] = job_dispatch(st, job_ids[i], now_ms, &row);
		if (errs[i] == -ENOENT || errs[i] == -ESTALE) {
			/* nothing of this job was written: the others go on */
			if (!first[0]) {
				context(st, errs[i], "cannot dispatch job %lld",
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
		err = run_refresh(st, runs[k], now_ms, NULL, NULL);
	err = tx_end(st, err);
	free(runs);
	if (err) {
		for (i = 0; i < n; i++)
			errs[i] = err;
		return context(st, err, "cannot dispatch %d job%s", n, n == 1 ? "" : "s");
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
		err = seterr(st, -EPERM, "job belongs to another host");
	else
		err = exec(st, S_JOB_ACCEPT, &changes, "ii", job_id, now_ms);
	/* a job already finished is left alone, and so is its host */
	if (!err && changes)
		err = exec(st, S_HOST_BUSY, NULL, "i", host_id);
	if (!err && changes)
		err = run_refresh(st, row.run_id, now_ms, NULL, NULL);
	err = tx_end(st, err);
out:
	return err ? context(st, err, "cannot mark job %lld running", (long long)job_id) : 0;
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
		err = seterr(st, err, "job is %s, not running", row.state);
	if (!err)
		err = job_close(st, &row, job_id, util_wall_ms(), "unsent",
				"the job could not be handed to the agent");
	err = tx_end(st, err);
out:
	return err ? context(st, err, "cannot requeue job %lld", (long long)job_id) : 0;
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
		err = seterr(st, err, "job is already %s", row.state);
	if (!err)
		err = job_close(st, &row, job_id, now_ms, "failed", error);
	if (!err)
		err = run_refresh(st, row.run_id, now_ms, NULL, NULL);
	err = tx_end(st, err);
out:
	return err ? context(st, err, "cannot fail job %lld", (long long)job_id) : 0;
}

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
	return unit;
}

/* The id of series (METRIC, SUBJECT, WINDOW) into *ID, added when new; from the cache
 * when this connection has seen it (no SQL per sample). In a transaction. */
static int series_id(struct store *st, const char *metric, const char *subject,
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
	err = exec(st, S_SERIES_INSERT, NULL, "ttt", metric, subject, window);
	if (!err)
		err = query_int(st, S_SERIES_ID, id, "ttt", metric, subject, window);
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

/* Insert the N samples IN of job JOB_ID (lib/samples.h) and count them in *COUNT.
 * One statement for all, job id bound once; a series id from the connection's cache
 * (series_id). In the result's transaction. */
static int samples_insert(struct store *st, int64_t job_id, const struct sample *in,
			  size_t n, bool icount, int *count)
{
	sqlite3_stmt *s = NULL;
	const char *unit;
	int64_t sid = 0;
	size_t i;
	int err, rc;

	if (!n)
		return 0;
	err = prep(st, S_SAMPLE_INSERT, &s);
	if (!err)
		err = bind(st, s, "i", job_id);
	for (i = 0; !err && i < n; i++) {
		/* the texts of samples read from a message's text are shared with the sample
		 * before when equal (lib/samples.c): the same series, no lookup */
		if (!i || in[i].metric != in[i - 1].metric || in[i].subject != in[i - 1].subject ||
		    in[i].window != in[i - 1].window)
			err = series_id(st, in[i].metric, in[i].subject, in[i].window, &sid);
		if (err)
			break;
		unit = timing_unit(in[i].unit, icount);
		rc = sqlite3_bind_int64(s, 2, sid);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_int64(s, 3, in[i].seq);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_double(s, 4, in[i].value);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_text(s, 5, unit ? unit : "", -1, SQLITE_STATIC);
		if (rc == SQLITE_OK)
			rc = sqlite3_step(s);
		if (rc == SQLITE_DONE)
			(*count)++;
		else
			err = dberr(st, rc);
		sqlite3_reset(s);
		if ((rc & 0xff) == SQLITE_CONSTRAINT)
			err = seterr(st, -EINVAL, "sample %zu ('%s' of '%s', window '%s') is given "
				     "twice", i, in[i].metric, in[i].subject, in[i].window);
	}
	if (s)
		done(s);
	return err;
}

/* Find or add the environment ENV (or, when NULL, host HOST_ID's hello inventory) and
 * return its id in *ENV_ID. */
static int env_upsert(struct store *st, int64_t host_id, const json_t *env, int64_t now_ms,
		      int64_t *env_id, bool *icount)
{
	char sha[SHA256_HEX_LEN];
	char *text = NULL, *debug = NULL, *inv_text = NULL;
	size_t inv_len = 0;
	json_t *inv = NULL, *kernel;
	json_error_t jerr;
	sqlite3_stmt *s = NULL;
	struct env_ent *e = NULL;
	int err, rc;

	if (!json_is_object(env)) {
		err = prep(st, S_HOST_INVENTORY, &s);
		if (!err)
			err = bind(st, s, "i", host_id);
		if (err)
			goto out;
		rc = sqlite3_step(s);
		if (rc == SQLITE_ROW && sqlite3_column_text(s, 0)) {
			const char *t = (const char *)sqlite3_column_text(s, 0);

			inv_len = (size_t)sqlite3_column_bytes(s, 0);
			e = &st->envs[(uint64_t)host_id % ENV_CACHE];
			if (e->inventory && e->host_id == host_id && e->len == inv_len &&
			    !memcmp(e->inventory, t, inv_len)) {
				*env_id = e->env_id;
				*icount = e->icount;
				done(s);
				return 0;
			}
			inv_text = malloc(inv_len + 1);	/* no memory: simply not kept */
			if (inv_text)
				memcpy(inv_text, t, inv_len + 1);
		}
		if (rc == SQLITE_ROW)
			inv = json_loads((const char *)sqlite3_column_text(s, 0), 0, &jerr);
		done(s);
		if (rc != SQLITE_ROW) {
			err = rc == SQLITE_DONE ? seterr(st, -ENOENT, "unknown host %lld",
							 (long long)host_id) : dberr(st, rc);
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
		err = seterr(st, -ENOMEM, "out of memory");
		goto out;
	}
	util_sha256_hex(text, strlen(text), sha);
	/* the timing mode: "icount" when the agent says so, else "wall" */
	*icount = !strcmp(json_str_at(env, "timing", NULL) ? json_str_at(env, "timing", NULL)
							   : "", "icount");
	err = exec(st, S_ENV_INSERT, NULL, "itttttttit", host_id, sha,
		   json_str_at(kernel, "release", NULL), json_str_at(kernel, "version", NULL),
		   json_str_at(kernel, "config_sha256", NULL), debug,
		   json_str_at(kernel, "cmdline", NULL), text, now_ms,
		   *icount ? "icount" : "wall");
	if (!err)
		err = query_int(st, S_ENV_ID, env_id, "it", host_id, sha);
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

/* The result's "verdicts" (array of names, default []) and "verdict_details" (object of
 * texts, default {}) as JSON texts (heap) after checking them. */
static int verdicts_text(struct store *st, const json_t *result, char **verdicts,
			 char **details)
{
	const json_t *v = json_object_get(result, "verdicts");
	const json_t *d = json_object_get(result, "verdict_details");
	const char *key;
	json_t *item;
	size_t i;

	if (v && !json_is_array(v))
		return seterr(st, -EINVAL, "'verdicts' is not an array");
	json_array_foreach(v, i, item) {
		if (!json_is_string(item) || !json_string_length(item) ||
		    json_string_length(item) > 64)
			return seterr(st, -EINVAL, "verdict %zu is not a name", i);
	}
	if (d && !json_is_object(d))
		return seterr(st, -EINVAL, "'verdict_details' is not an object");
	json_object_foreach((json_t *)d, key, item) {
		if (!json_is_string(item))
			return seterr(st, -EINVAL, "verdict detail '%s' is not a text", key);
	}
	*verdicts = v ? json_dumps(v, JSON_COMPACT) : strdup("[]");
	*details = d ? json_dumps(d, JSON_COMPACT | JSON_SORT_KEYS) : strdup("{}");
	if (!*verdicts || !*details)
		return seterr(st, -ENOMEM, "out of memory");
	return 0;
}

int store_ingest_result(struct store *st, int64_t host_id, const json_t *result,
			int64_t now_ms, struct store_ingest *out)
{
	return store_ingest_samples(st, host_id, result, NULL, now_ms, out);
}

int store_ingest_samples(struct store *st, int64_t host_id, const json_t *result,
			 const struct samples *taken, int64_t now_ms, struct store_ingest *out)
{
	const char *status = json_string_value(json_object_get(result, "status"));
	const char *error = json_string_value(json_object_get(result, "error"));
	int64_t job_id, env_id = 0, started, finished, round_open = 0;
	bool icount = false;
	char *verdicts = NULL, *details = NULL;
	struct samples read = { 0 };
	const struct samples *in = taken && taken->taken ? taken : &read;
	char why[STORE_ERR_LEN];
	struct job_row row = { 0 };
	bool failed;
	int err;

	memset(out, 0, sizeof(*out));
	job_id = json_is_integer(json_object_get(result, "job")) ?
		 json_integer_value(json_object_get(result, "job")) : -1;
	out->job_id = job_id;
	if (job_id < 0) {
		err = seterr(st, -EINVAL, "result without a 'job' id");
		goto out;
	}
	if (!status || (strcmp(status, "ok") && strcmp(status, "failed"))) {
		err = seterr(st, -EINVAL, "'status' must be 'ok' or 'failed'");
		goto out;
	}
	failed = !strcmp(status, "failed");
	err = in != &read ? 0 : samples_from_json(json_object_get(result, "samples"), &read, why,
						   sizeof(why));
	if (err)
		err = seterr(st, err, "%s", why);
	if (!err)
		err = verdicts_text(st, result, &verdicts, &details);
	if (err)
		goto out;
	started = json_is_integer(json_object_get(result, "started_ms")) ?
		  json_integer_value(json_object_get(result, "started_ms")) : -1;
	finished = json_is_integer(json_object_get(result, "finished_ms")) ?
		   json_integer_value(json_object_get(result, "finished_ms")) : now_ms;

	err = tx_begin(st);
	if (err)
		goto out;
	err = job_get(st, job_id, &row);
	if (!err && row.host_id != host_id) {
		/* a job moved to another host after this one was thought lost */
		int64_t tried = 0;

		err = query_int(st, S_ATTEMPT_BY_HOST, &tried, "ii", job_id, host_id);
		if (!err && !tried)
			err = seterr(st, -EPERM, "job belongs to another host");
	}
	if (!err && row.has_result) {
		out->duplicate = true;
		out->run_id = row.run_id;
		err = tx_end(st, -EALREADY);	/* roll back: nothing to change */
		err = err == -EALREADY ? 0 : err;
		goto out;
	}
	out->run_id = row.run_id;
	out->failed = failed;
	if (!err)
		err = env_upsert(st, host_id, json_object_get(result, "env"), now_ms, &env_id,
				 &icount);
	if (!err)
		err = samples_insert(st, job_id, in->v, in->n, icount, &out->n_samples);
	if (!err)
		err = exec(st, S_JOB_RESULT, NULL, "itttioii", job_id, failed ? "failed" : "done",
			   failed ? (error ? error : "the agent reported a failure") : NULL,
			   json_string_value(json_object_get(result, "verifier_log")), env_id,
			   started, finished, now_ms);
	if (!err)
		err = exec(st, S_JOB_VERDICTS, NULL, "itt", job_id, verdicts, details);
	if (!err)
		err = exec(st, S_ATTEMPT_RESULT, NULL, "iiitt", job_id, host_id, finished,
			   failed ? (json_is_true(json_object_get(result, "partial")) ?
				     "cancelled" : "failed") : "done",
			   failed ? (error ? error : "the agent reported a failure") : NULL);
	if (!err && row.host_id != host_id)
		err = exec(st, S_HOST_IDLE_IF_FREE, NULL, "i", row.host_id);
	if (!err)
		err = exec(st, S_HOST_IDLE_IF_FREE, NULL, "i", host_id);
	/* the repetition controller once the job's round has ended (it looks itself, but
	 * with statements prepared for each call: a round ends once in many results) */
	if (!err)
		err = query_int(st, S_ROUND_OPEN, &round_open, "i", job_id);
	if (!err && !round_open &&
	    (err = store_repeat_after_result(st->db, job_id, &out->reps_added, st->err,
					     sizeof(st->err))))
		out->reps_added = 0;
	if (!err)
		err = run_refresh(st, row.run_id, now_ms, out->run_state, &out->run_finished);
	err = tx_end(st, err);
	if (err)
		out->n_samples = 0;
out:
	samples_release(&read);
	free(verdicts);
	free(details);
	return err ? context(st, err, "cannot store result of job %lld", (long long)job_id) : 0;
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
			err = seterr(st, -ENOMEM, "out of memory");
			break;
		}
		v = nv;
		v[2 * *n] = sqlite3_column_int64(s, 0);
		v[2 * *n + 1] = sqlite3_column_count(s) > 1 ? sqlite3_column_int64(s, 1) : 0;
		(*n)++;
	}
	if (!err && rc != SQLITE_DONE)
		err = dberr(st, rc);
	done(s);
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
	int err = prep(st, id, &s);

	if (!err)
		err = bind(st, s, "i", arg);
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

	err = tx_begin(st);
	if (err)
		goto out;
	err = query_pairs(st, S_HOST_RUNNING_JOBS, host_id, &jobs, &n_jobs);
	if (!err)
		err = exec(st, S_ATTEMPT_LOST_HOST, NULL, "iit", host_id, now_ms,
			   "the host went silent");
	for (i = 0; !err && i < n_jobs; i++) {
		lost = 0;
		err = query_int(st, S_ATTEMPT_LOST_COUNT, &lost, "i", jobs[2 * i]);
		if (!err && max_attempts > 0 && lost >= max_attempts) {
			snprintf(why, sizeof(why), "lost %lld times: its host went silent during "
				 "each attempt", (long long)lost);
			err = exec(st, S_JOB_FAIL, NULL, "iti", jobs[2 * i], why, now_ms);
			if (!err)
				err = run_refresh(st, jobs[2 * i + 1], now_ms, NULL, NULL);
			res.failed++;
		} else if (!err) {
			err = exec(st, S_JOB_REQUEUE, NULL, "i", jobs[2 * i]);
			res.requeued++;
		}
	}
	if (!err)
		err = exec(st, S_HOST_GONE, NULL, "i", host_id);
	if (!err)
		err = query_pairs(st, S_HOST_QUEUED_RUNS, host_id, &runs, &n_runs);
	for (i = 0; !err && i < n_runs; i++) {
		to = 0;
		err = query_int(st, S_RUN_REPLACEMENT, &to, "ii", runs[2 * i], host_id);
		if (err == -ENOENT) {
			err = 0;	/* nowhere else: the jobs wait for their host */
			continue;
		}
		changes = 0;
		if (!err)
			err = exec(st, S_JOBS_MOVE, &changes, "iii", runs[2 * i], host_id, to);
		if (!err)
			err = exec(st, S_RUN_HOST_INSERT, NULL, "iii", runs[2 * i], to, (int64_t)1);
		res.moved += (int)changes;
		res.moved_to = to;
	}
	err = tx_end(st, err);
	if (!err && out)
		*out = res;
out:
	free(jobs);
	free(runs);
	return err ? context(st, err, "cannot mark host %lld gone", (long long)host_id) : 0;
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
	err = tx_begin(st);
	if (err)
		goto out;
	err = run_refresh(st, run_id, now_ms, state, NULL);
	if (!err && (!strcmp(state, "done") || !strcmp(state, "failed") ||
		     !strcmp(state, "cancelled")))
		err = seterr(st, -ESTALE, "run is already %s", state);
	if (!err)
		err = exec(st, S_RUN_CANCEL_QUEUED, NULL, "ii", run_id, now_ms);
	if (!err)
		err = exec(st, S_RUN_SET_STATE, NULL, "iti", run_id, "cancelled", now_ms);
	if (!err) {
		arr = query_rows(st, S_RUN_RUNNING_JOBS, running_cols, ARRAY_SIZE(running_cols),
				 "i", run_id);
		err = arr ? 0 : -errno;
	}
	err = tx_end(st, err);
out:
	if (err) {
		json_decref(arr);
		return context(st, err, "cannot cancel run %lld", (long long)run_id);
	}
	*running = arr;
	return 0;
}

int store_recover(struct store *st, int *requeued)
{
	int64_t changes = 0;
	int err;

	err = tx_begin(st);
	if (err)
		goto out;
	err = exec(st, S_RECOVER_ATTEMPTS, NULL, "i", util_wall_ms());
	if (!err)
		err = exec(st, S_RECOVER_JOBS, &changes, "");
	if (!err)
		err = exec(st, S_RECOVER_HOSTS, NULL, "");
	err = tx_end(st, err);
	if (!err && requeued)
		*requeued = (int)changes;
out:
	return err ? context(st, err, "cannot recover the queue") : 0;
}

int store_object_get(struct store *st, const char *sha256, void **data, size_t *len)
{
	sqlite3_stmt *s = NULL;
	int err, n;

	*data = NULL;
	*len = 0;
	err = query_row(st, S_OBJECT_GET, &s, "t", sha256);
	if (err == -ENOENT)
		err = seterr(st, -ENOENT, "no such object");
	if (!err) {
		n = sqlite3_column_bytes(s, 0);
		*data = malloc(n ? n : 1);
		if (!*data)
			err = seterr(st, -ENOMEM, "out of memory");
		else if (n)
			memcpy(*data, sqlite3_column_blob(s, 0), n);
		*len = n;
		done(s);
	}
	return err ? context(st, err, "cannot read object %s", sha256) : 0;
}

/* --- queries: a SELECT of stmt_sql[] and the table of its columns, in order --- */

/* RUN_HEAD_SQL: a run of the list; the "run" of run_show adds overrides. Columns 10 and
 * 11 (variants, repeat) are read by run_get. */
static const struct sql_col run_cols[] = {
	{ "id", SQL_INT, 0 }, { "plan", SQL_TEXT, 0 }, { "plan_sha256", SQL_TEXT, 0 },
	{ "state", SQL_TEXT, 0 }, { "submitted_ms", SQL_INT, 0 },
	{ "finished_ms", SQL_INT, 0 }, { "jobs_total", SQL_INT, 0 },
	{ "jobs_done", SQL_INT, 0 }, { "jobs_failed", SQL_INT, 0 },
	{ "overrides", SQL_JSON, 0 },
};
#define RUN_LIST_COLS 9		/* run_cols without overrides */

static const struct sql_col host_cols[] = {	/* S_Q_HOSTS */
	{ "id", SQL_INT, 0 }, { "name", SQL_TEXT, 0 }, { "state", SQL_TEXT, 0 },
	{ "kernel_release", SQL_TEXT, 0 }, { "last_seen_ms", SQL_INT, 0 },
	{ "job", SQL_INT, 0 }, { "inventory", SQL_JSON, 0 },
};

static const struct sql_col job_cols[] = {	/* S_Q_RUN_JOBS */
	{ "id", SQL_INT, 0 }, { "seq", SQL_INT, 0 }, { "host", SQL_TEXT, 0 },
	{ "variant", SQL_TEXT, 0 }, { "rep", SQL_INT, 0 }, { "point", SQL_JSON, 0 },
	{ "state", SQL_TEXT, 0 }, { "attempts", SQL_INT, 0 }, { "error", SQL_TEXT, 0 },
	{ "started_ms", SQL_INT, 0 }, { "finished_ms", SQL_INT, 0 },
	{ "verdicts", SQL_JSON, 0 }, { "verdict_details", SQL_JSON, 0 },
	{ "timing", SQL_TEXT, 0 }, { "added", SQL_TEXT, SQL_OMIT_NULL },
};

static const struct sql_col result_host_cols[] = {	/* S_Q_RESULT_HOSTS */
	{ "name", SQL_TEXT, 0 }, { "kernel_release", SQL_TEXT, 0 },
	{ "kernel_version", SQL_TEXT, 0 },
	/* two-host plans: the role it played (generator, dut) */
	{ "role", SQL_TEXT, SQL_OMIT_NULL },
	/* per port role and hook: tcx, clsact; none attached: absent */
	{ "tc_attach", SQL_JSON, SQL_OMIT_NULL },
};

static const struct sql_col sample_cols[] = {	/* S_Q_RESULT_SAMPLES */
	{ "job", SQL_INT, 0 }, { "host", SQL_TEXT, 0 }, { "variant", SQL_TEXT, 0 },
	{ "rep", SQL_INT, 0 }, { "point", SQL_JSON, 0 }, { "metric", SQL_TEXT, 0 },
	{ "subject", SQL_TEXT, 0 }, { "value", SQL_REAL, 0 }, { "unit", SQL_TEXT, 0 },
	{ "window", SQL_TEXT, 0 }, { "verdicts", SQL_JSON, 0 }, { "timing", SQL_TEXT, 0 },
};

static const struct sql_col attempt_cols[] = {	/* S_Q_ATTEMPTS */
	{ "job", SQL_INT, 0 }, { "attempt", SQL_INT, 0 }, { "host", SQL_TEXT, 0 },
	{ "started_ms", SQL_INT, 0 }, { "ended_ms", SQL_INT, 0 },
	{ "outcome", SQL_TEXT, 0 }, { "error", SQL_TEXT, 0 },
};

static const struct sql_col value_cols[] = {	/* S_Q_VALUES */
	{ "run", SQL_INT, 0 }, { "job", SQL_INT, 0 }, { "host", SQL_TEXT, 0 },
	{ "kernel_release", SQL_TEXT, 0 }, { "variant", SQL_TEXT, 0 },
	{ "subject", SQL_TEXT, 0 }, { "rep", SQL_INT, 0 }, { "value", SQL_REAL, 0 },
	{ "unit", SQL_TEXT, 0 }, { "flags", SQL_JSON, 0 }, { "day", SQL_TEXT, 0 },
	{ "plan", SQL_TEXT, 0 }, { "plan_sha256", SQL_TEXT, 0 },
	{ "metric", SQL_TEXT, 0 }, { "window", SQL_TEXT, 0 }, { "cpu", SQL_TEXT, 0 },
	{ "governor", SQL_TEXT, 0 }, { "port_driver", SQL_TEXT, 0 },
	{ "point", SQL_JSON, 0 }, { "debug_options", SQL_JSON, 0 },
	{ "timing", SQL_TEXT, 0 }, { "time_ms", SQL_INT, 0 },
	/* imported results say so in their plan text (store_import) */
	{ "imported", SQL_FLAG, 0 },
	/* "clsact", "tcx" or "clsact,tcx" when tc programs were attached */
	{ "tc_attach", SQL_TEXT, SQL_OMIT_NULL },
};

json_t *store_query_hosts(struct store *st)
{
	json_t *r = query_rows(st, S_Q_HOSTS, host_cols, ARRAY_SIZE(host_cols), "");

	if (!r)
		context(st, -errno, "cannot list hosts");
	return r;
}

json_t *store_query_runs(struct store *st)
{
	json_t *r = query_rows(st, S_Q_RUNS, run_cols, RUN_LIST_COLS, "");

	if (!r)
		context(st, -errno, "cannot list runs");
	return r;
}

/* The head of run RUN_ID (FULL: with overrides), or NULL: errno ENOENT for no such run.
 * *VARIANTS and *REPEAT (may be NULL) get the run's variants and repeat. */
static json_t *run_get(struct store *st, int64_t run_id, bool full, json_t **variants,
		       int64_t *repeat)
{
	sqlite3_stmt *s = NULL;
	json_t *r;
	int err = query_row(st, S_Q_RUN, &s, "i", run_id);

	if (err) {
		if (err == -ENOENT)
			seterr(st, -ENOENT, "unknown run %lld", (long long)run_id);
		errno = -err;
		return NULL;
	}
	r = sql_row_json(s, run_cols, full ? ARRAY_SIZE(run_cols) : RUN_LIST_COLS);
	if (variants)
		*variants = sql_column(s, 10, SQL_JSON);
	if (repeat)
		*repeat = sqlite3_column_int64(s, 11);
	done(s);
	if (!r) {
		seterr(st, -ENOMEM, "out of memory");
		errno = ENOMEM;
	}
	return r;
}

json_t *store_query_run(struct store *st, int64_t run_id)
{
	json_t *run, *jobs;
	int err = 0;

	run = run_get(st, run_id, true, NULL, NULL);
	if (!run) {
		err = -errno;
		goto out;
	}
	jobs = query_rows(st, S_Q_RUN_JOBS, job_cols, ARRAY_SIZE(job_cols), "i", run_id);
	if (!jobs)
		err = -(errno ? errno : EIO);
	else if (json_object_set_new(run, "jobs", jobs))
		err = seterr(st, -ENOMEM, "out of memory");
	if (err) {
		json_decref(run);
		run = NULL;
	}
out:
	if (err && err != -ENOENT) {
		context(st, err, "cannot read run %lld", (long long)run_id);
		errno = -err;
	}
	return run;
}

json_t *store_query_result(struct store *st, int64_t run_id)
{
	json_t *head = NULL, *res = NULL, *variants = NULL, *hosts = NULL, *samples = NULL;
	int64_t repeat = 0;
	int err = 0;

	head = run_get(st, run_id, false, &variants, &repeat);
	if (!head) {
		err = -errno;
		goto out;
	}
	hosts = query_rows(st, S_Q_RESULT_HOSTS, result_host_cols, ARRAY_SIZE(result_host_cols),
			   "i", run_id);
	samples = hosts ? query_rows(st, S_Q_RESULT_SAMPLES, sample_cols,
				     ARRAY_SIZE(sample_cols), "i", run_id) : NULL;
	if (!hosts || !samples) {
		err = -(errno ? errno : EIO);
		goto out;
	}
	if (!json_is_array(variants)) {
		json_decref(variants);
		variants = json_array();
	}
	/* "o" steals hosts, variants and samples, also on failure. */
	res = json_pack("{s:O, s:O, s:O, s:O, s:o, s:o, s:I, s:o}",
			"run", json_object_get(head, "id"), "plan", json_object_get(head, "plan"),
			"plan_sha256", json_object_get(head, "plan_sha256"),
			"state", json_object_get(head, "state"), "hosts", hosts,
			"variants", variants, "repeat", (json_int_t)repeat, "samples", samples);
	hosts = variants = samples = NULL;
	if (!res)
		err = seterr(st, -ENOMEM, "out of memory");
out:
	if (err) {
		json_decref(res);
		res = NULL;
	}
	json_decref(head);
	json_decref(hosts);
	json_decref(samples);
	json_decref(variants);
	if (err && err != -ENOENT)
		context(st, err, "cannot read the result of run %lld", (long long)run_id);
	if (err)
		errno = -err;
	return res;
}

json_t *store_query_attempts(struct store *st, int64_t run_id)
{
	json_t *r = query_rows(st, S_Q_ATTEMPTS, attempt_cols, ARRAY_SIZE(attempt_cols), "i",
			       run_id);

	if (!r)
		context(st, -errno, "cannot list the attempts of run %lld", (long long)run_id);
	return r;
}

/* --- compare, history and import (issue 5: lib/analysis.c, cli/result_analysis.c) --- */

/* The value of row R that store_query_values groups BY ("" when absent). */
static const char *values_group(const json_t *r, const char *by)
{
	static const struct { const char *by, *member; } keys[] = {
		{ "kernel.release", "kernel_release" }, { "port.driver", "port_driver" },
		{ "host", "host" }, { "variant", "variant" }, { "plan", "plan" },
		{ "day", "day" }, { "subject", "subject" },
	};
	const char *v = NULL;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++)
		if (!strcmp(by, keys[i].by))
			v = json_string_value(json_object_get(r, keys[i].member));
	return v ? v : "";
}

bool store_values_by_known(const char *by)
{
	static const char *const known[] = { "kernel.release", "port.driver", "host", "variant",
					     "plan", "day", "subject", "run" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(known); i++)
		if (!strcmp(by, known[i]))
			return true;
	return false;
}

json_t *store_query_values(struct store *st, const json_t *filter)
{
	const char *by = json_string_value(json_object_get(filter, "by"));
	json_t *runs = json_object_get(filter, "runs"), *arr = NULL, *r;
	char *runs_text = NULL;
	size_t i;
	int err;

	if (by && !store_values_by_known(by)) {
		err = seterr(st, -EINVAL, "cannot group by '%s' (expected kernel.release, "
			     "port.driver, host, variant, plan, day, subject or run)", by);
		goto fail;
	}
	if (runs && !json_is_null(runs)) {
		json_array_foreach(runs, i, r)
			if (!json_is_integer(r)) {
				err = seterr(st, -EINVAL, "'runs' must be an array of run ids");
				goto fail;
			}
		if (!json_is_array(runs)) {
			err = seterr(st, -EINVAL, "'runs' must be an array of run ids");
			goto fail;
		}
		runs_text = json_dumps(runs, JSON_COMPACT);
		if (!runs_text) {
			err = seterr(st, -ENOMEM, "out of memory");
			goto fail;
		}
	}
	arr = query_rows(st, S_Q_VALUES, value_cols, ARRAY_SIZE(value_cols), "ttttttt",
			 json_string_value(json_object_get(filter, "plan")),
			 json_string_value(json_object_get(filter, "metric")),
			 json_string_value(json_object_get(filter, "window")), runs_text,
			 json_string_value(json_object_get(filter, "subject")),
			 json_string_value(json_object_get(filter, "variant")),
			 json_string_value(json_object_get(filter, "host")));
	if (!arr) {
		err = -errno;
		goto fail;
	}
	json_array_foreach(arr, i, r) {
		const char *g;
		char run[32];

		if (!by)
			continue;
		if (!strcmp(by, "run")) {
			snprintf(run, sizeof(run), "%lld",
				 (long long)json_integer_value(json_object_get(r, "run")));
			g = run;
		} else {
			g = values_group(r, by);
		}
		if (json_object_set_new(r, "group", json_string(g))) {
			err = seterr(st, -ENOMEM, "out of memory");
			goto fail;
		}
	}
	free(runs_text);
	return arr;
fail:
	free(runs_text);
	json_decref(arr);
	context(st, err, "cannot query values");
	errno = -err;
	return NULL;
}

/* One sample of an import: checks it and stores it for job JOB_ID. */
static int import_sample(struct store *st, int64_t job_id, const json_t *smp)
{
	const char *metric = json_string_value(json_object_get(smp, "metric"));
	const char *subject = json_string_value(json_object_get(smp, "subject"));
	const char *unit = json_string_value(json_object_get(smp, "unit"));
	const char *window = json_string_value(json_object_get(smp, "window"));
	json_t *v = json_object_get(smp, "value");
	int64_t sid;
	int err;

	if (!metric || !*metric || !json_is_number(v))
		return seterr(st, -EINVAL, "a sample needs a 'metric' and a numeric 'value'");
	if (!window)
		window = !strncmp(metric, "prog.", 5) ? "cost" : "rate";
	err = series_id(st, metric, subject ? subject : "", window, &sid);
	return err ? err : exec(st, S_SAMPLE_INSERT, NULL, "iiirt", job_id, sid, (int64_t)-1,
				json_number_value(v), unit ? unit : "");
}

int store_import(struct store *st, const json_t *imp, int64_t now_ms, int64_t *run_id)
{
	const char *plan = json_string_value(json_object_get(imp, "plan"));
	const char *source = json_string_value(json_object_get(imp, "source"));
	const char *host = json_string_value(json_object_get(imp, "host"));
	json_t *jobs = json_object_get(imp, "jobs"), *job, *variants = NULL, *smp;
	char *text = NULL, *vars = NULL, sha[SHA256_HEX_LEN];
	int64_t plan_id = 0, host_id = 0, job_id, max_rep = 1;
	size_t i, k, n_samples = 0;
	int err = 0;

	if (!plan || !*plan || !source || !json_is_array(jobs) || !json_array_size(jobs)) {
		err = seterr(st, -EINVAL, "an import needs 'plan', 'source' and a non-empty "
			     "'jobs' array");
		goto out;
	}
	if (!host || !*host)
		host = "imported";
	variants = json_array();
	if (asprintf(&text, "imported from %s\n# plan %s, imported by bpflab result import\n",
		     source, plan) < 0) {
		text = NULL;
		err = seterr(st, -ENOMEM, "out of memory");
		goto out;
	}
	json_array_foreach(jobs, i, job) {
		const char *v = json_string_value(json_object_get(job, "variant"));
		json_t *x;

		if (!v || !*v || !json_is_array(json_object_get(job, "samples"))) {
			err = seterr(st, -EINVAL, "jobs[%zu]: needs 'variant' and 'samples'", i);
			goto out;
		}
		json_array_foreach(variants, k, x)
			if (!strcmp(json_string_value(x), v))
				break;
		if (k == json_array_size(variants) && json_array_append_new(variants, json_string(v))) {
			err = seterr(st, -ENOMEM, "out of memory");
			goto out;
		}
		if (json_integer_value(json_object_get(job, "rep")) > max_rep)
			max_rep = json_integer_value(json_object_get(job, "rep"));
	}
	vars = variants ? json_dumps(variants, JSON_COMPACT) : NULL;
	if (!vars) {
		err = seterr(st, -ENOMEM, "out of memory");
		goto out;
	}
	util_sha256_hex(text, strlen(text), sha);
	err = tx_begin(st);
	if (err)
		goto out;
	err = exec(st, S_PLAN_INSERT, NULL, "ttti", plan, sha, text, now_ms);
	if (!err)
		err = query_int(st, S_PLAN_ID, &plan_id, "t", sha);
	if (!err)
		err = query_int(st, S_IMPORT_HOST, &host_id, "ti", host, now_ms);
	if (!err)
		err = exec(st, S_RUN_INSERT, NULL, "itttii", plan_id, source, "[]", vars, max_rep,
			   now_ms);
	if (!err)
		*run_id = sqlite3_last_insert_rowid(st->db);
	json_array_foreach(jobs, i, job) {
		const char *v = json_string_value(json_object_get(job, "variant"));
		json_t *x, *point = json_object_get(job, "point");
		char *pt = NULL;
		int64_t rep = json_integer_value(json_object_get(job, "rep"));

		if (err)
			break;
		json_array_foreach(variants, k, x)
			if (!strcmp(json_string_value(x), v))
				break;
		pt = json_is_object(point) ? json_dumps(point, JSON_COMPACT | JSON_SORT_KEYS) :
		     strdup("{}");
		if (!pt) {
			err = seterr(st, -ENOMEM, "out of memory");
			break;
		}
		err = exec(st, S_JOB_INSERT, NULL, "iiitiitt", *run_id, (int64_t)i, host_id, v,
			   (int64_t)k, rep > 0 ? rep : 1, pt, "{\"imported\":true}");
		free(pt);
		if (err)
			break;
		job_id = sqlite3_last_insert_rowid(st->db);
		err = exec(st, S_JOB_RESULT, NULL, "itttoiii", job_id, "done", NULL, NULL,
			   (int64_t)-1, now_ms, now_ms, now_ms);
		json_array_foreach(json_object_get(job, "samples"), k, smp) {
			if (err)
				break;
			err = import_sample(st, job_id, smp);
			n_samples++;
		}
	}
	if (!err && !n_samples)
		err = seterr(st, -EINVAL, "nothing to import: no samples");
	if (!err)
		err = exec(st, S_RUN_SET_STATE, NULL, "iti", *run_id, "done", now_ms);
	err = tx_end(st, err);
out:
	free(text);
	free(vars);
	json_decref(variants);
	return err ? context(st, err, "cannot import '%s'", source ? source : "?") : 0;
}

struct sqlite3 *store_db(struct store *st)
{
	return st->db;
}

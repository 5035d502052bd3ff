/* store_stmt.c - the SQL of every statement of the store (store_int.h), by stmt_id: a
 * constant text, prepared once on first use (sto_prep) and kept for the connection. */
#include "store_int.h"

#define RUN_HEAD_SQL								\
	"SELECT r.id, p.name, p.sha256, r.state, r.submitted_ms, r.finished_ms, "	\
	"(SELECT count(*) FROM jobs j WHERE j.run_id = r.id), "			\
	"(SELECT count(*) FROM jobs j WHERE j.run_id = r.id AND j.state = 'done'), "	\
	"(SELECT count(*) FROM jobs j WHERE j.run_id = r.id AND j.state = 'failed'), " \
	"r.overrides, r.variants, r.repeat "					\
	"FROM runs r JOIN plans p ON p.id = r.plan_id "

const char *const store_stmt_sql[S__MAX] = {
	[S_BEGIN] = "BEGIN IMMEDIATE",
	[S_COMMIT] = "COMMIT",
	[S_ROLLBACK] = "ROLLBACK",
	[S_SAVEPOINT] = "SAVEPOINT part",
	[S_RELEASE] = "RELEASE part",
	[S_ROLLBACK_TO] = "ROLLBACK TO part",
	/* a job of the same round (run, host, point) still to come: store_repeat.c has
	 * nothing to decide yet */
	/* (one EXISTS a state, here and in S_RUN_COUNTS: SQLite builds a temporary b-tree
	 * for an IN list each time the statement runs) */
	[S_ROUND_OPEN] =
		"SELECT EXISTS (SELECT 1 FROM jobs j JOIN jobs o ON o.run_id = j.run_id AND "
		"o.host_id = j.host_id AND o.point = j.point WHERE j.id = ?1 AND "
		"o.state = 'queued') OR EXISTS (SELECT 1 FROM jobs j JOIN jobs o ON "
		"o.run_id = j.run_id AND o.host_id = j.host_id AND o.point = j.point "
		"WHERE j.id = ?1 AND o.state = 'running')",
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
		"EXISTS (SELECT 1 FROM jobs WHERE run_id = ?1 AND state = 'queued') OR "
		"EXISTS (SELECT 1 FROM jobs WHERE run_id = ?1 AND state = 'running'), "
		"EXISTS (SELECT 1 FROM jobs WHERE run_id = ?1 AND state = 'failed'), "
		"CASE WHEN EXISTS (SELECT 1 FROM jobs WHERE run_id = ?1 AND state = 'running') OR "
		"EXISTS (SELECT 1 FROM jobs WHERE run_id = ?1 AND state = 'done') OR "
		"EXISTS (SELECT 1 FROM jobs WHERE run_id = ?1 AND state = 'failed') THEN 1 "
		"ELSE EXISTS (SELECT 1 FROM jobs WHERE run_id = ?1 AND state = 'queued' AND "
		"attempts > 0) END",
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
	/* S_JOB_RESULT with the verdicts: a result's one write of its job's row */
	[S_JOB_RESULT_VERDICTS] =
		"UPDATE jobs SET state = ?2, error = ?3, verifier_log = ?4, env_id = ?5, "
		"started_ms = ifnull(?6, started_ms), finished_ms = ?7, result_ms = ?8, "
		"verdicts = ?9, verdict_details = ?10 WHERE id = ?1",
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

-- 003_attempts.sql - fault tolerance and cancel: every hand-out of a job to an agent is
-- an attempt (job_attempts); the hosts that matched a run's plan when it was submitted
-- (run_hosts) are where a job lost with its host may be retried; and a run may be
-- 'cancelled'. docs/store.md explains each table.

-- One hand-out of a job to an agent, numbered 1, 2, ... per job (jobs.attempts is the
-- latest number). outcome: running until the attempt ends; done or failed when its
-- result is stored (even if it comes after the attempt was thought lost); lost when the
-- host went gone, said hello again or the coordinator restarted; unsent when the job
-- message could not be sent; cancelled when the run was cancelled.
CREATE TABLE job_attempts (
	job_id         INTEGER NOT NULL REFERENCES jobs (id),
	attempt        INTEGER NOT NULL CHECK (attempt >= 1),
	host_id        INTEGER NOT NULL REFERENCES hosts (id),
	started_ms     INTEGER NOT NULL,
	ended_ms       INTEGER,
	outcome        TEXT NOT NULL DEFAULT 'running'
	               CHECK (outcome IN ('running', 'done', 'failed', 'lost', 'unsent',
	                                  'cancelled')),
	error          TEXT,
	PRIMARY KEY (job_id, attempt)
) WITHOUT ROWID;
CREATE INDEX job_attempts_host ON job_attempts (host_id, job_id);

-- The hosts a run may use: those that matched its plan (or were named with --hosts) when
-- it was submitted. chosen: the run's jobs were created for it.
CREATE TABLE run_hosts (
	run_id         INTEGER NOT NULL REFERENCES runs (id),
	host_id        INTEGER NOT NULL REFERENCES hosts (id),
	chosen         INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (run_id, host_id)
) WITHOUT ROWID;

-- runs.state gains 'cancelled': SQLite cannot change a CHECK constraint, so the table is
-- rebuilt with the same columns and ids. Foreign keys from jobs and run_objects name the
-- table, so they refer to the new one; they are checked at commit.
PRAGMA defer_foreign_keys = ON;
CREATE TABLE runs_new (
	id             INTEGER PRIMARY KEY,
	plan_id        INTEGER NOT NULL REFERENCES plans (id),
	plan_file      TEXT NOT NULL,
	overrides      TEXT NOT NULL DEFAULT '[]',
	variants       TEXT NOT NULL DEFAULT '[]',
	repeat         INTEGER NOT NULL DEFAULT 1,
	state          TEXT NOT NULL DEFAULT 'queued'
	               CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
	submitted_ms   INTEGER NOT NULL,
	finished_ms    INTEGER
);
INSERT INTO runs_new (id, plan_id, plan_file, overrides, variants, repeat, state,
	submitted_ms, finished_ms)
	SELECT id, plan_id, plan_file, overrides, variants, repeat, state, submitted_ms,
	finished_ms FROM runs;
DROP TABLE runs;
ALTER TABLE runs_new RENAME TO runs;

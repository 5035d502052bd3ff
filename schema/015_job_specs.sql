-- 015_job_specs.sql - a job's spec in a table of its own (job_specs), the jobs row naming
-- it (spec_id). The spec (JSON, ~450 bytes for a short plan) made a jobs row ~550 bytes,
-- seven to a page; a dispatch round and a result batch each update ~64 jobs of a wave of
-- a thousand, so each commit wrote ~50 pages of jobs to the WAL for the two columns that
-- change (bench/README.md, "What is left, measured (session 18)"). A run writes one
-- spec row per plan job, which the hosts of `count: all` share, and never changes it (an
-- added repetition gets a row of its own). spec_id is not a foreign key: the store
-- writes a spec row in the transaction that inserts its jobs, and every DELETE of jobs
-- deletes their specs just before (a foreign key would want an index of jobs.spec_id
-- for that). In the same rebuild, the three checks session 15 measured (bench/README.md,
-- "issue 24 item 7") go the way 013's did: jobs.env_id and job_attempts' job_id and
-- host_id are written by the store from rows it read in the same transaction.
-- Existing jobs keep their spec text, each under the id of its job.
PRAGMA defer_foreign_keys = ON;

CREATE TABLE job_specs (
	id             INTEGER PRIMARY KEY,
	text           TEXT NOT NULL               -- JSON job spec, attach entries with sha256
);
INSERT INTO job_specs (id, text) SELECT id, spec FROM jobs ORDER BY id;

CREATE TABLE jobs_new (
	id             INTEGER PRIMARY KEY,
	run_id         INTEGER NOT NULL REFERENCES runs (id),
	seq            INTEGER NOT NULL,           -- dispatch order within (run, host)
	host_id        INTEGER NOT NULL REFERENCES hosts (id),
	variant        TEXT NOT NULL,
	variant_idx    INTEGER NOT NULL,           -- index into runs.variants
	rep            INTEGER NOT NULL,           -- 1-based
	point          TEXT NOT NULL DEFAULT '{}', -- JSON object, matrix key -> value text
	spec_id        INTEGER NOT NULL,           -- a job_specs.id (checked by the store)
	state          TEXT NOT NULL DEFAULT 'queued'
	               CHECK (state = 'queued' OR state = 'running' OR state = 'done' OR
	                      state = 'failed'),
	attempts       INTEGER NOT NULL DEFAULT 0, -- times handed to an agent
	error          TEXT,
	verifier_log   TEXT,
	env_id         INTEGER,                    -- a host_envs.id (checked by the store)
	started_ms     INTEGER,
	finished_ms    INTEGER,
	result_ms      INTEGER,                    -- when a result was stored; set once
	verdicts       TEXT NOT NULL DEFAULT '[]',
	verdict_details TEXT NOT NULL DEFAULT '{}',
	added          TEXT,                       -- 009: why the controller added it
	UNIQUE (run_id, host_id, seq)
);
INSERT INTO jobs_new (id, run_id, seq, host_id, variant, variant_idx, rep, point, spec_id,
	state, attempts, error, verifier_log, env_id, started_ms, finished_ms, result_ms,
	verdicts, verdict_details, added)
	SELECT id, run_id, seq, host_id, variant, variant_idx, rep, point, id, state,
	attempts, error, verifier_log, env_id, started_ms, finished_ms, result_ms, verdicts,
	verdict_details, added FROM jobs ORDER BY id;
DROP TABLE jobs;
ALTER TABLE jobs_new RENAME TO jobs;
CREATE INDEX jobs_queue ON jobs (host_id, state, run_id, seq)
	WHERE state = 'queued' OR state = 'running';
CREATE INDEX jobs_run ON jobs (run_id, state);

CREATE TABLE job_attempts_new (
	job_id         INTEGER NOT NULL,           -- a jobs.id (checked by the store)
	attempt        INTEGER NOT NULL CHECK (attempt >= 1),
	host_id        INTEGER NOT NULL,           -- a hosts.id (checked by the store)
	started_ms     INTEGER NOT NULL,
	ended_ms       INTEGER,
	outcome        TEXT NOT NULL DEFAULT 'running'
	               CHECK (outcome = 'running' OR outcome = 'done' OR outcome = 'failed' OR
	                      outcome = 'lost' OR outcome = 'unsent' OR outcome = 'cancelled'),
	error          TEXT,
	PRIMARY KEY (job_id, attempt)
) WITHOUT ROWID;
INSERT INTO job_attempts_new (job_id, attempt, host_id, started_ms, ended_ms, outcome,
	error)
	SELECT job_id, attempt, host_id, started_ms, ended_ms, outcome, error FROM job_attempts;
DROP TABLE job_attempts;
ALTER TABLE job_attempts_new RENAME TO job_attempts;
CREATE INDEX job_attempts_host ON job_attempts (host_id, job_id);

-- 012_state_checks.sql - the state checks of hosts, jobs and job_attempts written as
-- comparisons joined by OR instead of IN lists: the same rule, far cheaper to check.
-- SQLite checks `x IN ('a', 'b', 'c')` (more than two constants) by building a temporary
-- b-tree of the list each time a row is written, and these three tables take several
-- such writes a job (dispatch and result): a quarter of bpflabd's instructions in
-- bench/coordinator (bench/README.md). SQLite cannot change a CHECK constraint, so each
-- table is rebuilt with the same columns, ids, defaults and indexes (as 003 did for
-- runs); foreign keys of other tables name these tables, so they refer to the new ones.
PRAGMA defer_foreign_keys = ON;

CREATE TABLE hosts_new (
	id             INTEGER PRIMARY KEY,
	name           TEXT NOT NULL UNIQUE,
	state          TEXT NOT NULL DEFAULT 'gone'
	               CHECK (state = 'idle' OR state = 'busy' OR state = 'gone'),
	agent_version  TEXT,
	kernel_release TEXT,
	inventory      TEXT NOT NULL,              -- the inventory of its latest hello
	first_seen_ms  INTEGER NOT NULL,
	last_seen_ms   INTEGER NOT NULL
);
INSERT INTO hosts_new (id, name, state, agent_version, kernel_release, inventory,
	first_seen_ms, last_seen_ms)
	SELECT id, name, state, agent_version, kernel_release, inventory, first_seen_ms,
	last_seen_ms FROM hosts;
DROP TABLE hosts;
ALTER TABLE hosts_new RENAME TO hosts;

CREATE TABLE jobs_new (
	id             INTEGER PRIMARY KEY,
	run_id         INTEGER NOT NULL REFERENCES runs (id),
	seq            INTEGER NOT NULL,           -- dispatch order within (run, host)
	host_id        INTEGER NOT NULL REFERENCES hosts (id),
	variant        TEXT NOT NULL,
	variant_idx    INTEGER NOT NULL,           -- index into runs.variants
	rep            INTEGER NOT NULL,           -- 1-based
	point          TEXT NOT NULL DEFAULT '{}', -- JSON object, matrix key -> value text
	spec           TEXT NOT NULL,              -- JSON job spec, attach entries with sha256
	state          TEXT NOT NULL DEFAULT 'queued'
	               CHECK (state = 'queued' OR state = 'running' OR state = 'done' OR
	                      state = 'failed'),
	attempts       INTEGER NOT NULL DEFAULT 0, -- times handed to an agent
	error          TEXT,
	verifier_log   TEXT,
	env_id         INTEGER REFERENCES host_envs (id),
	started_ms     INTEGER,
	finished_ms    INTEGER,
	result_ms      INTEGER,                    -- when a result was stored; set once
	verdicts       TEXT NOT NULL DEFAULT '[]',
	verdict_details TEXT NOT NULL DEFAULT '{}',
	added          TEXT,                       -- 009: why the controller added it
	UNIQUE (run_id, host_id, seq)
);
INSERT INTO jobs_new (id, run_id, seq, host_id, variant, variant_idx, rep, point, spec,
	state, attempts, error, verifier_log, env_id, started_ms, finished_ms, result_ms,
	verdicts, verdict_details, added)
	SELECT id, run_id, seq, host_id, variant, variant_idx, rep, point, spec, state,
	attempts, error, verifier_log, env_id, started_ms, finished_ms, result_ms, verdicts,
	verdict_details, added FROM jobs;
DROP TABLE jobs;
ALTER TABLE jobs_new RENAME TO jobs;
CREATE INDEX jobs_queue ON jobs (host_id, state, run_id, seq);
CREATE INDEX jobs_run ON jobs (run_id, state);

CREATE TABLE job_attempts_new (
	job_id         INTEGER NOT NULL REFERENCES jobs (id),
	attempt        INTEGER NOT NULL CHECK (attempt >= 1),
	host_id        INTEGER NOT NULL REFERENCES hosts (id),
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

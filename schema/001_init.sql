-- 001_init.sql - the first bpflab schema: hosts and their environments, plans, objects,
-- runs, jobs (the persistent queue) and samples. docs/store.md explains each table.
-- Applied by lib/store/store.c in one transaction, which then sets PRAGMA user_version = 1.
-- Times are wall-clock milliseconds since the epoch; JSON columns hold compact JSON text.

-- A machine running bpflab-agent, registered by its agent name on hello.
CREATE TABLE hosts (
	id             INTEGER PRIMARY KEY,
	name           TEXT NOT NULL UNIQUE,
	state          TEXT NOT NULL DEFAULT 'gone' CHECK (state IN ('idle', 'busy', 'gone')),
	agent_version  TEXT,
	kernel_release TEXT,
	inventory      TEXT NOT NULL,              -- the inventory of its latest hello
	first_seen_ms  INTEGER NOT NULL,
	last_seen_ms   INTEGER NOT NULL
);

-- A host's environment as seen when a job ran, stored once per distinct content.
CREATE TABLE host_envs (
	id             INTEGER PRIMARY KEY,
	host_id        INTEGER NOT NULL REFERENCES hosts (id),
	sha256         TEXT NOT NULL,              -- of the compact, key-sorted inventory JSON
	kernel_release TEXT,
	kernel_version TEXT,
	config_sha256  TEXT,
	debug_options  TEXT NOT NULL DEFAULT '[]', -- JSON array, e.g. ["LOCKDEP"]
	cmdline        TEXT,
	inventory      TEXT NOT NULL,
	first_seen_ms  INTEGER NOT NULL,
	UNIQUE (host_id, sha256)
);

-- The exact text of every plan ever submitted, once per distinct text.
CREATE TABLE plans (
	id             INTEGER PRIMARY KEY,
	name           TEXT NOT NULL,
	sha256         TEXT NOT NULL UNIQUE,
	text           TEXT NOT NULL,
	created_ms     INTEGER NOT NULL
);

-- BPF object files by content; name is the one it was first submitted under.
CREATE TABLE objects (
	sha256         TEXT PRIMARY KEY,
	name           TEXT NOT NULL,
	size           INTEGER NOT NULL,
	bytes          BLOB NOT NULL,
	created_ms     INTEGER NOT NULL
) WITHOUT ROWID;

-- One submission of a plan.
CREATE TABLE runs (
	id             INTEGER PRIMARY KEY,
	plan_id        INTEGER NOT NULL REFERENCES plans (id),
	plan_file      TEXT NOT NULL,              -- as the submitter named it
	overrides      TEXT NOT NULL DEFAULT '[]', -- JSON array of "KEY=VALUE"
	variants       TEXT NOT NULL DEFAULT '[]', -- JSON array of variant names, plan order
	repeat         INTEGER NOT NULL DEFAULT 1,
	state          TEXT NOT NULL DEFAULT 'queued'
	               CHECK (state IN ('queued', 'running', 'done', 'failed')),
	submitted_ms   INTEGER NOT NULL,
	finished_ms    INTEGER
);

-- The objects a run shipped, by the names its plan uses.
CREATE TABLE run_objects (
	run_id         INTEGER NOT NULL REFERENCES runs (id),
	name           TEXT NOT NULL,
	sha256         TEXT NOT NULL REFERENCES objects (sha256),
	PRIMARY KEY (run_id, name)
) WITHOUT ROWID;

-- One (host, variant, matrix point, repetition) of a run: the persistent queue.
CREATE TABLE jobs (
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
	               CHECK (state IN ('queued', 'running', 'done', 'failed')),
	attempts       INTEGER NOT NULL DEFAULT 0, -- times handed to an agent
	error          TEXT,
	verifier_log   TEXT,
	env_id         INTEGER REFERENCES host_envs (id),
	started_ms     INTEGER,
	finished_ms    INTEGER,
	result_ms      INTEGER,                    -- when a result was stored; set once
	UNIQUE (run_id, host_id, seq)
);
CREATE INDEX jobs_queue ON jobs (host_id, state, run_id, seq);
CREATE INDEX jobs_run ON jobs (run_id, state);

-- One measured value. seq is the second within the window, NULL for the whole window.
CREATE TABLE samples (
	id             INTEGER PRIMARY KEY,
	job_id         INTEGER NOT NULL REFERENCES jobs (id),
	metric         TEXT NOT NULL,
	subject        TEXT NOT NULL DEFAULT '',
	value          REAL NOT NULL,
	unit           TEXT NOT NULL DEFAULT '',
	window         TEXT NOT NULL CHECK (window IN ('rate', 'cost')),
	seq            INTEGER CHECK (seq IS NULL OR seq >= 0)
);
-- UNIQUE (job, metric, subject, window, seq) with NULL seq counted as one value: a plain
-- UNIQUE constraint would let any number of NULL-seq rows through.
CREATE UNIQUE INDEX samples_key ON samples (job_id, metric, subject, window, ifnull(seq, -1));
CREATE INDEX samples_metric ON samples (metric, window) WHERE seq IS NULL;

-- 004_bisect.sql - bisection sessions and their steps (docs/bisect.md, "Sessions").
-- A session is one `bpflab bisect start` .. done / failed / reset; its steps are the
-- bisect_record() calls of lib/analysis/bisect.c in order, so that replaying them rebuilds the
-- engine's state (a coordinator or CLI restart loses nothing). IF NOT EXISTS: databases
-- made by bpflab before this migration existed may have the tables already.

CREATE TABLE IF NOT EXISTS bisect_sessions (
	id             INTEGER PRIMARY KEY,
	plan           TEXT NOT NULL,              -- plan file as given
	plan_sha256    TEXT,                       -- of its text when the session started
	metric         TEXT NOT NULL,
	variant        TEXT,                       -- NULL: the plan's first variant
	subject        TEXT,                       -- NULL: the metric's only subject
	kernels        TEXT NOT NULL,              -- JSON array of names, oldest first
	good           TEXT NOT NULL,
	bad            TEXT NOT NULL,
	opts           TEXT NOT NULL DEFAULT '{}', -- JSON: reps, min_effect, overrides, ...
	state          TEXT NOT NULL DEFAULT 'active'
	               CHECK (state IN ('active', 'done', 'failed', 'reset')),
	result         TEXT,                       -- JSON, when done or failed
	created_ms     INTEGER NOT NULL,
	updated_ms     INTEGER NOT NULL
);
-- At most one active session, as git has one bisection per work tree.
CREATE UNIQUE INDEX IF NOT EXISTS bisect_sessions_active ON bisect_sessions (state)
	WHERE state = 'active';

CREATE TABLE IF NOT EXISTS bisect_steps (
	id             INTEGER PRIMARY KEY,
	session_id     INTEGER NOT NULL REFERENCES bisect_sessions (id),
	seq            INTEGER NOT NULL,           -- 1, 2, ... in record order
	kernel         TEXT NOT NULL,
	runs           TEXT NOT NULL DEFAULT '[]', -- JSON array of the run ids measured
	values_json    TEXT NOT NULL DEFAULT '[]', -- JSON array of the values recorded
	verdict        TEXT NOT NULL,              -- bisect_mark_name: good, bad, skip, more, ...
	p              REAL,                       -- against the good end
	note           TEXT,                       -- the engine's reason
	at_ms          INTEGER NOT NULL,
	UNIQUE (session_id, seq)
);

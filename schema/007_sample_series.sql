-- 007_sample_series.sql - samples stored by series id (docs/store.md, "Samples").
-- A sample's text key (metric, subject, window) is stored once in `series`; the rows
-- live in `sample_values` (job_id, series_id, seq, value, unit) with seq -1 for the
-- whole window and a plain UNIQUE (job_id, series_id, seq): the same guarantee as the
-- old expression index on (job_id, metric, subject, window, ifnull(seq, -1)), but an
-- index of three integers (bench/sqlite_insert.c: 1.3x the insert rate). The old
-- partial index samples(metric, window) WHERE seq IS NULL goes: no query used it.
-- `samples` becomes a view with the old columns (seq NULL for the whole window), so that
-- every reader keeps working; inserting into it (tests, hand-made fixtures) goes through
-- an INSTEAD OF trigger. Rows keep their ids; bpflab itself writes sample_values.

CREATE TABLE series (
	id             INTEGER PRIMARY KEY,
	metric         TEXT NOT NULL,
	subject        TEXT NOT NULL DEFAULT '',
	window         TEXT NOT NULL CHECK (window IN ('rate', 'cost')),
	UNIQUE (metric, subject, window)
);

CREATE TABLE sample_values (
	id             INTEGER PRIMARY KEY,
	job_id         INTEGER NOT NULL REFERENCES jobs (id),
	series_id      INTEGER NOT NULL REFERENCES series (id),
	seq            INTEGER NOT NULL DEFAULT -1 CHECK (seq >= -1), -- -1: the whole window
	value          REAL NOT NULL,
	unit           TEXT NOT NULL DEFAULT '',
	UNIQUE (job_id, series_id, seq)
);

INSERT INTO series (metric, subject, window)
	SELECT DISTINCT metric, subject, window FROM samples ORDER BY 1, 2, 3;
INSERT INTO sample_values (id, job_id, series_id, seq, value, unit)
	SELECT s.id, s.job_id, r.id, ifnull(s.seq, -1), s.value, s.unit FROM samples s
	JOIN series r ON r.metric = s.metric AND r.subject = s.subject AND r.window = s.window
	ORDER BY s.id;
DROP TABLE samples;

CREATE VIEW samples (id, job_id, metric, subject, value, unit, window, seq) AS
	SELECT v.id, v.job_id, r.metric, r.subject, v.value, v.unit, r.window,
	nullif(v.seq, -1) FROM sample_values v JOIN series r ON r.id = v.series_id;

CREATE TRIGGER samples_insert INSTEAD OF INSERT ON samples BEGIN
	INSERT OR IGNORE INTO series (metric, subject, window)
		VALUES (NEW.metric, ifnull(NEW.subject, ''), NEW.window);
	INSERT INTO sample_values (id, job_id, series_id, seq, value, unit)
		VALUES (NEW.id, NEW.job_id, (SELECT id FROM series WHERE metric = NEW.metric
		AND subject = ifnull(NEW.subject, '') AND window = NEW.window),
		ifnull(NEW.seq, -1), NEW.value, ifnull(NEW.unit, ''));
END;

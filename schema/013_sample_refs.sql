-- 013_sample_refs.sql - sample_values without its two foreign keys (job_id -> jobs,
-- series_id -> series): the same columns, ids, defaults, checks and unique key.
-- With foreign keys on, SQLite looked up the job and the series of every sample row it
-- inserted, a quarter of the instructions of the row (bench/README.md, "issue 24 item
-- 7"); a result's samples are 100 to 1,000 rows. Both are known good when the rows are
-- written: the store writes a job's samples in the transaction that reads the job
-- (lib/store/store_ingest.c) or creates it (lib/store/store_import.c), with series ids
-- it took from the series table in that transaction; the samples view's trigger takes
-- the series id from the table too. Every DELETE of jobs deletes their samples first.
-- The view reads the table, so it goes first and comes back as 007 wrote it.
DROP VIEW samples;

CREATE TABLE sample_values_new (
	id             INTEGER PRIMARY KEY,
	job_id         INTEGER NOT NULL,            -- a jobs.id (checked by the store)
	series_id      INTEGER NOT NULL,            -- a series.id (checked by the store)
	seq            INTEGER NOT NULL DEFAULT -1 CHECK (seq >= -1), -- -1: the whole window
	value          REAL NOT NULL,
	unit           TEXT NOT NULL DEFAULT '',
	UNIQUE (job_id, series_id, seq)
);
INSERT INTO sample_values_new (id, job_id, series_id, seq, value, unit)
	SELECT id, job_id, series_id, seq, value, unit FROM sample_values ORDER BY id;
DROP TABLE sample_values;
ALTER TABLE sample_values_new RENAME TO sample_values;

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

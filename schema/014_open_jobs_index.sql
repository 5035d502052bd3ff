-- 014_open_jobs_index.sql - jobs_queue holds the open jobs only (queued or running): the
-- same columns, partial. Every query of a host's queue names one of the two states, and
-- a job that ends leaves the index instead of moving to a new entry there: a result's
-- UPDATE of the job row wrote two entries of it for nothing, and done jobs, most of the
-- table in time, made every seek of the queue deeper (bench/README.md, "issue 24 item
-- 7, session 13"). SQLite uses a partial index for a query whose WHERE has a term
-- implying the index's (state = 'queued' implies state = 'queued' OR ...).
DROP INDEX jobs_queue;
CREATE INDEX jobs_queue ON jobs (host_id, state, run_id, seq)
	WHERE state = 'queued' OR state = 'running';

-- 010_host_noise.sql - a host's noise floor (`bpflab host calibrate HOST`; lib/store/store_noise.c,
-- coordinator/noise_req.c, docs/analysis.md "Noise floor"). One row per (calibration run,
-- host, environment, metric, subject, window): the run-to-run coefficient of variation
-- (stddev / mean) of the metric's whole-window values over the run's finished
-- repetitions, pooled over the run's variants and matrix points when it has several.
-- A run recorded again replaces its rows in the same transaction; rows of other runs stay
-- (the latest calibration of a host is its noise floor, the older ones its history).

CREATE TABLE host_noise (
	id             INTEGER PRIMARY KEY,
	run_id         INTEGER NOT NULL REFERENCES runs (id),
	host_id        INTEGER NOT NULL REFERENCES hosts (id),
	env_id         INTEGER NOT NULL REFERENCES host_envs (id),
	metric         TEXT NOT NULL,
	subject        TEXT NOT NULL DEFAULT '',   -- '' when none
	window         TEXT NOT NULL CHECK (window IN ('rate', 'cost')),
	unit           TEXT,
	n              INTEGER NOT NULL CHECK (n >= 3),  -- values behind the CV
	mean           REAL NOT NULL,              -- arithmetic, of those values
	cv             REAL NOT NULL CHECK (cv >= 0),    -- a fraction: 0.031 for 3.1 %
	measured_ms    INTEGER NOT NULL,           -- when it was recorded
	UNIQUE (run_id, host_id, env_id, metric, subject, window)
);
CREATE INDEX host_noise_host ON host_noise (host_id, measured_ms);

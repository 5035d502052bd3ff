-- 005_timing.sql - the timing mode of every measurement (docs/kernels.md, "Timing modes").
-- An agent says in its inventory what its time means: "wall" (real time) or "icount" (a
-- QEMU guest under -icount shift=0, where a nanosecond is one guest instruction). The
-- mode is kept per environment, so every job (jobs.env_id) and sample has one; compare,
-- history and bisect group by it and never compare values of different modes. Samples
-- measured under icount are stored with units that say so (lib/store/store.c, at ingest):
-- 'ns' -> 'insns' (guest instructions), 'pps' -> 'pkt/Ginsn' (per 10^9 guest
-- instructions), 'bps' -> 'bit/Ginsn'.

ALTER TABLE host_envs ADD COLUMN timing TEXT NOT NULL DEFAULT 'wall'
	CHECK (timing IN ('wall', 'icount'));

UPDATE host_envs SET timing = 'icount' WHERE json_extract(inventory, '$.timing') = 'icount';

UPDATE samples SET unit = CASE unit WHEN 'ns' THEN 'insns' WHEN 'pps' THEN 'pkt/Ginsn'
	WHEN 'bps' THEN 'bit/Ginsn' ELSE unit END
	WHERE unit IN ('ns', 'pps', 'bps') AND job_id IN (SELECT j.id FROM jobs j
	JOIN host_envs e ON e.id = j.env_id WHERE e.timing = 'icount');

-- 009_repeat.sql - repetitions added by the coordinator's repetition controller
-- (docs/plans.md "repeat", lib/store/store_repeat.c). A job the plan expanded at submit has
-- `added` NULL; one the controller queued after a round of a (host, point) has the
-- reason: the metric whose 95 % confidence interval was still wider than repeat.until
-- ("prog.ns_per_run of 'xdp_drop': 95 % CI +-3.4 % > 2 %"), or the repetitions that did
-- not count (disturbed). Jobs stored before keep NULL.
ALTER TABLE jobs ADD COLUMN added TEXT;

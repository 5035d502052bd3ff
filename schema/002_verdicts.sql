-- 002_verdicts.sql - the verdicts an agent computed for a job (docs/store.md, "Verdicts").
-- verdicts: JSON array of names ("debug-kernel", "generator-bound", "unstable", "errors");
-- verdict_details: JSON object, verdict name -> why. Jobs stored before keep '[]' / '{}'.
ALTER TABLE jobs ADD COLUMN verdicts TEXT NOT NULL DEFAULT '[]';
ALTER TABLE jobs ADD COLUMN verdict_details TEXT NOT NULL DEFAULT '{}';

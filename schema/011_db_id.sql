-- 011_db_id.sql - the database's own id, so that what it exports is told apart from what
-- another database exports (docs/store.md, "Tables"; `bpflab result export`, docs/cli.md:
-- KCIDB test ids are ORIGIN:DB_ID...). One row, made once: a new database gets a random
-- id when this migration runs at its creation, an existing one when it migrates. Never
-- changed afterwards (a copy of the file keeps the id, as it holds the same results).

CREATE TABLE db_info (
	one            INTEGER PRIMARY KEY CHECK (one = 1),
	db_id          TEXT NOT NULL CHECK (length(db_id) = 16 AND db_id NOT GLOB '*[^0-9a-f]*')
);

INSERT INTO db_info (one, db_id) VALUES (1, lower(hex(randomblob(8))));

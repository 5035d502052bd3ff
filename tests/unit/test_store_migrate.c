// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_store_migrate.c - unit tests for lib/store's schema migrations on real SQLite:
 * every migration from an empty file, refusal of a newer schema, old databases with rows
 * (samples, a table other tables reference) migrated in place, the state checks the
 * migrations add, sample_values without foreign keys (013) and the spec in a table of
 * its own (015). The fixture:
 * store_fixture.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/proto.h"
#include "proto/samples.h"
#include "analysis/analysis.h"
#include "store/store.h"
#include "store/store_sql.h"
#include "base/util.h"
#include "helpers.h"
#include "store_fixture.h"

static void test_store_migrations(void **state)
{
	struct store_fix *f = *state;
	struct err err;
	struct store *st;
	long long tables;
	sqlite3 *c;

	assert_true(store_schema_latest() >= 1);
	st = store_open(f->db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_schema_version(st), store_schema_latest());
	store_close(&st);
	assert_null(st);
	store_close(&st);		/* safe twice */
	tables = store_fix_count(f->db, "sqlite_master");
	assert_true(tables >= 7);

	/* reopening migrates nothing */
	st = store_open(f->db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_schema_version(st), store_schema_latest());
	store_close(&st);
	assert_int_equal(store_fix_count(f->db, "sqlite_master"), tables);

	/* read-only works on a migrated file */
	st = store_open(f->db, true, &err);
	assert_non_null(st);
	store_close(&st);

	/* a database from a newer bpflab is refused, and left alone */
	assert_int_equal(sqlite3_open(f->db, &c), SQLITE_OK);
	assert_int_equal(sqlite3_exec(c, "PRAGMA user_version = 999", NULL, NULL, NULL), 0);
	sqlite3_close(c);
	st = store_open(f->db, false, &err);
	assert_null(st);
	assert_int_equal(errno, EPROTO);
	assert_non_null(strstr(err.msg, "schema version 999 is newer than this bpflab's"));
	assert_non_null(strstr(err.msg, f->db));
	assert_int_equal(store_fix_count(f->db, "sqlite_master"), tables);

	/* not a database at all */
	{
		char junk[160];
		FILE *fp;

		snprintf(junk, sizeof(junk), "%s/junk.db", f->dir);
		fp = fopen(junk, "w");
		fputs("this is not sqlite, just some text long enough to have a header....\n"
		      "....................................................................\n",
		      fp);
		fclose(fp);
		st = store_open(junk, false, &err);
		assert_null(st);
		assert_non_null(strstr(err.msg, "not a database"));
		/* a read-only open of an empty database is refused */
		snprintf(junk, sizeof(junk), "%s/empty.db", f->dir);
		fclose(fopen(junk, "w"));
		st = store_open(junk, true, &err);
		assert_null(st);
		assert_non_null(strstr(err.msg, "not a bpflab database"));
	}
}

/* Migration 007 on a schema-6 database with samples: every row keeps its id, job, value,
 * unit and key (NULL seq = whole window); the samples view reads as before; inserting
 * into the view works; the unique key still refuses a sample given twice. */
extern const char *const store_migrations[];

/* Make PATH a database at schema VERSION (migrations 1..VERSION applied by hand, as an
 * older bpflab would have left it) holding the rows of ROWS_SQL. */
static void old_database(const char *path, int version, const char *rows_sql)
{
	char sql[64];
	sqlite3 *c;
	int v;

	assert_int_equal(sqlite3_open(path, &c), SQLITE_OK);
	for (v = 1; v <= version; v++)
		assert_int_equal(sqlite3_exec(c, store_migrations[v - 1], NULL, NULL, NULL), 0);
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", version);
	assert_int_equal(sqlite3_exec(c, sql, NULL, NULL, NULL), 0);
	assert_int_equal(sqlite3_exec(c, rows_sql, NULL, NULL, NULL), 0);
	sqlite3_close(c);
}

static void test_store_migrate_samples(void **state)
{
	struct store_fix *f = *state;
	struct err err;
	struct store *st;
	sqlite3 *c;
	sqlite3_stmt *q;

	old_database(f->db, 6,
		"INSERT INTO plans VALUES (1, 'p', 'x', 'x', 0);"
		"INSERT INTO runs (id, plan_id, plan_file, submitted_ms) VALUES (1, 1, 'p', 0);"
		"INSERT INTO hosts (id, name, inventory, first_seen_ms, last_seen_ms) "
		"VALUES (1, 'h', '{}', 0, 0);"
		"INSERT INTO jobs (id, run_id, seq, host_id, variant, variant_idx, rep, spec) "
		"VALUES (1, 1, 1, 1, 'a', 0, 1, '{}');"
		"INSERT INTO samples (id, job_id, metric, subject, value, unit, window, seq) VALUES "
		"(5, 1, 'port.rx_pps', 'b', 10.5, 'pps', 'rate', NULL),"
		"(7, 1, 'port.rx_pps', 'b', 11.5, 'pps', 'rate', 0),"
		"(9, 1, 'prog.ns_per_run', 'xdp', 30, 'ns', 'cost', NULL);");

	st = store_open(f->db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_schema_version(st), store_schema_latest());
	store_close(&st);

	assert_int_equal(sqlite3_open(f->db, &c), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(c, "SELECT group_concat(id || ':' || metric || ':' || "
		"subject || ':' || value || ':' || unit || ':' || window || ':' || "
		"ifnull(seq, 'null'), ' ') FROM (SELECT * FROM samples ORDER BY id)", -1, &q,
		NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(q, 0),
			    "5:port.rx_pps:b:10.5:pps:rate:null 7:port.rx_pps:b:11.5:pps:rate:0 "
			    "9:prog.ns_per_run:xdp:30.0:ns:cost:null");
	sqlite3_finalize(q);
	assert_int_equal(store_fix_count(f->db, "series"), 2);
	/* the view takes inserts; the key still holds, NULL seq counted as one value */
	assert_int_equal(sqlite3_exec(c, "INSERT INTO samples (job_id, metric, subject, value, "
		"unit, window) VALUES (1, 'port.tx_pps', 'a', 1, 'pps', 'rate')", NULL, NULL,
		NULL), SQLITE_OK);
	assert_int_not_equal(sqlite3_exec(c, "INSERT INTO samples (job_id, metric, subject, "
		"value, unit, window) VALUES (1, 'port.rx_pps', 'b', 2, 'pps', 'rate')", NULL,
		NULL, NULL), SQLITE_OK);
	sqlite3_close(c);
	assert_int_equal(store_fix_count(f->db, "samples"), 4);
}

/* Open DB, a database at schema FROM, with the store (migrating it to the latest
 * schema), close it, and return a plain connection to it. */
static sqlite3 *migrated(const char *db, int from)
{
	struct err err;
	struct store *st = store_open(db, false, &err);
	sqlite3 *c;

	if (!st)
		fail_msg("migration from schema %d failed: %s", from, err.msg);
	assert_int_equal(store_schema_version(st), store_schema_latest());
	store_close(&st);
	assert_int_equal(sqlite3_open(db, &c), SQLITE_OK);
	return c;
}

/* Check that PRAGMA foreign_key_check finds nothing on C, and close it. */
static void close_fk_clean(sqlite3 *c)
{
	sqlite3_stmt *q;

	assert_int_equal(sqlite3_prepare_v2(c, "PRAGMA foreign_key_check", -1, &q, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_DONE);
	sqlite3_finalize(q);
	sqlite3_close(c);
}

/* A database with runs, jobs and samples at schema 2 migrates to the newest schema: 003
 * rebuilds the runs table that jobs reference, which only works with foreign keys off
 * during the migration (a bpflabd of the first release upgraded in place). */
static void test_store_migrate_rebuilds_referenced_table(void **state)
{
	struct store_fix *f = *state;
	sqlite3 *c;
	sqlite3_stmt *q;

	old_database(f->db, 2,
		"INSERT INTO plans VALUES (1, 'p', 'x', 'x', 0);"
		"INSERT INTO runs (id, plan_id, plan_file, submitted_ms, state) "
		"VALUES (1, 1, 'p', 0, 'done');"
		"INSERT INTO hosts (id, name, inventory, first_seen_ms, last_seen_ms) "
		"VALUES (1, 'h', '{}', 0, 0);"
		"INSERT INTO jobs (id, run_id, seq, host_id, variant, variant_idx, rep, spec, state) "
		"VALUES (1, 1, 1, 1, 'a', 0, 1, '{}', 'done');"
		"INSERT INTO samples (id, job_id, metric, subject, value, unit, window, seq) VALUES "
		"(5, 1, 'port.rx_pps', 'b', 10.5, 'pps', 'rate', NULL);");

	c = migrated(f->db, 2);
	assert_int_equal(sqlite3_prepare_v2(c, "SELECT (SELECT state FROM runs WHERE id = 1) || "
		"':' || (SELECT count(*) FROM jobs WHERE run_id = 1) || ':' || "
		"(SELECT value FROM samples WHERE id = 5)", -1, &q, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(q, 0), "done:1:10.5");
	sqlite3_finalize(q);
	close_fk_clean(c);
}

/* Migration 012 (state checks as comparisons) on a schema-10 database: hosts, jobs and
 * job_attempts keep every row, column and id (job 2 with its added reason, attempt 1
 * lost with its error, a sample pointing at job 1); the indexes are back; each state
 * of the old lists is still taken and anything else still refused; nothing writes an
 * IN list's temporary b-tree any more (no OpenEphemeral in the hot UPDATEs). */
static void test_store_migrate_state_checks(void **state)
{
	static const char *const bad[] = {
		"UPDATE hosts SET state = 'idle ' WHERE id = 1",
		"UPDATE jobs SET state = 'cancelled' WHERE id = 1",
		"UPDATE job_attempts SET outcome = 'ok' WHERE job_id = 1",
		"UPDATE hosts SET state = NULL WHERE id = 1",
	};
	static const char *const good[] = {
		"UPDATE hosts SET state = 'busy' WHERE id = 1",
		"UPDATE hosts SET state = 'gone' WHERE id = 1",
		"UPDATE jobs SET state = 'running' WHERE id = 1",
		"UPDATE jobs SET state = 'failed' WHERE id = 1",
		"UPDATE jobs SET state = 'queued' WHERE id = 1",
		"UPDATE job_attempts SET outcome = 'unsent' WHERE job_id = 1",
		"UPDATE job_attempts SET outcome = 'cancelled' WHERE job_id = 1",
		"UPDATE job_attempts SET outcome = 'running' WHERE job_id = 1",
	};
	struct store_fix *f = *state;
	char sql[160];
	sqlite3 *c;
	sqlite3_stmt *q;
	size_t i;

	old_database(f->db, 10,
		"INSERT INTO plans VALUES (1, 'p', 'x', 'x', 0);"
		"INSERT INTO runs (id, plan_id, plan_file, submitted_ms, state) "
		"VALUES (1, 1, 'p', 0, 'running');"
		"INSERT INTO hosts VALUES (1, 'h', 'idle', '1.0', '6.1', '{\"a\":1}', 5, 6);"
		"INSERT INTO jobs (id, run_id, seq, host_id, variant, variant_idx, rep, point, spec, "
		"state, attempts, error, started_ms, finished_ms, result_ms, verdicts, added) VALUES "
		"(1, 1, 1, 1, 'a', 0, 1, '{}', '{}', 'done', 2, NULL, 10, 11, 12, '[\"x\"]', NULL),"
		"(2, 1, 2, 1, 'a', 0, 2, '{}', '{}', 'queued', 0, NULL, NULL, NULL, NULL, '[]', "
		"'wide');"
		"INSERT INTO job_attempts VALUES (1, 1, 1, 10, 11, 'lost', 'gone'),"
		"(1, 2, 1, 12, NULL, 'running', NULL);"
		"INSERT INTO samples (id, job_id, metric, subject, value, unit, window, seq) VALUES "
		"(5, 1, 'port.rx_pps', 'b', 10.5, 'pps', 'rate', NULL);");

	c = migrated(f->db, 10);
	assert_int_equal(sqlite3_exec(c, "PRAGMA foreign_keys = ON", NULL, NULL, NULL), 0);
	assert_int_equal(sqlite3_prepare_v2(c, "SELECT "
		"(SELECT group_concat(id || ':' || name || ':' || state || ':' || agent_version || "
		"':' || kernel_release || ':' || inventory || ':' || first_seen_ms || ':' || "
		"last_seen_ms) FROM hosts) || ' ' || "
		"(SELECT group_concat(id || ':' || seq || ':' || rep || ':' || state || ':' || "
		"attempts || ':' || ifnull(started_ms, '-') || ':' || ifnull(result_ms, '-') || "
		"':' || verdicts || ':' || ifnull(added, '-'), ',') FROM (SELECT * FROM jobs "
		"ORDER BY id)) || ' ' || "
		"(SELECT group_concat(job_id || ':' || attempt || ':' || outcome || ':' || "
		"ifnull(error, '-'), ',') FROM (SELECT * FROM job_attempts ORDER BY attempt)) || "
		"' ' || (SELECT job_id FROM samples WHERE id = 5) || ' ' || "
		"(SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_master WHERE "
		"type = 'index' AND name NOT LIKE 'sqlite_%' AND tbl_name IN ('jobs', "
		"'job_attempts') ORDER BY name))", -1, &q, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(q, 0),
			    "1:h:idle:1.0:6.1:{\"a\":1}:5:6 "
			    "1:1:1:done:2:10:12:[\"x\"]:-,2:2:2:queued:0:-:-:[]:wide "
			    "1:1:lost:gone,1:2:running:- 1 job_attempts_host,jobs_queue,jobs_run");
	sqlite3_finalize(q);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		if (sqlite3_exec(c, bad[i], NULL, NULL, NULL) == SQLITE_OK)
			fail_msg("taken: %s", bad[i]);
	for (i = 0; i < ARRAY_SIZE(good); i++)
		if (sqlite3_exec(c, good[i], NULL, NULL, NULL) != SQLITE_OK)
			fail_msg("refused: %s: %s", good[i], sqlite3_errmsg(c));
	/* a job still needs its host: the foreign keys name the new tables */
	assert_int_not_equal(sqlite3_exec(c, "UPDATE jobs SET host_id = 9 WHERE id = 1", NULL,
					  NULL, NULL), SQLITE_OK);
	for (i = 0; i < ARRAY_SIZE(good); i += 3) {	/* hosts, jobs, job_attempts */
		snprintf(sql, sizeof(sql), "EXPLAIN %s", good[i]);
		assert_int_equal(sqlite3_prepare_v2(c, sql, -1, &q, NULL), SQLITE_OK);
		while (sqlite3_step(q) == SQLITE_ROW)
			assert_string_not_equal((const char *)sqlite3_column_text(q, 1),
						"OpenEphemeral");
		sqlite3_finalize(q);
	}
	sqlite3_close(c);
}

/* Migration 013 (sample_values without its foreign keys) on a schema-12 database: every
 * sample keeps its id, job, series, seq, value and unit, the samples view reads them as
 * before and its trigger still inserts; the unique key still refuses a sample given
 * twice; the table names no foreign key any more, so an insert looks up neither the
 * job nor the series (no OpenRead of a parent table in its program). */
static void test_store_migrate_sample_refs(void **state)
{
	struct store_fix *f = *state;
	sqlite3 *c;
	sqlite3_stmt *q;
	bool parent_read = false;

	old_database(f->db, 12,
		"INSERT INTO plans VALUES (1, 'p', 'x', 'x', 0);"
		"INSERT INTO runs (id, plan_id, plan_file, submitted_ms) VALUES (1, 1, 'p', 0);"
		"INSERT INTO hosts VALUES (1, 'h', 'idle', '1.0', '6.1', '{}', 5, 6);"
		"INSERT INTO jobs (id, run_id, seq, host_id, variant, variant_idx, rep, spec) "
		"VALUES (1, 1, 1, 1, 'a', 0, 1, '{}');"
		"INSERT INTO samples (id, job_id, metric, subject, value, unit, window, seq) VALUES "
		"(5, 1, 'port.rx_pps', 'b', 10.5, 'pps', 'rate', NULL),"
		"(9, 1, 'port.rx_pps', 'b', 11.5, 'pps', 'rate', 0),"
		"(12, 1, 'prog.ns', '', 30, 'ns', 'cost', NULL);");

	c = migrated(f->db, 12);
	assert_int_equal(sqlite3_exec(c, "PRAGMA foreign_keys = ON", NULL, NULL, NULL), 0);
	assert_int_equal(sqlite3_exec(c, "INSERT INTO samples (job_id, metric, subject, value, "
				      "unit, window, seq) VALUES (1, 'prog.ns', '', 31, 'ns', "
				      "'cost', 1)", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(c, "SELECT group_concat(id || ':' || job_id || ':' "
		"|| metric || ':' || subject || ':' || value || ':' || unit || ':' || window || "
		"':' || ifnull(seq, '-'), ',') FROM (SELECT * FROM samples ORDER BY id)", -1, &q,
		NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(q, 0),
			    "5:1:port.rx_pps:b:10.5:pps:rate:-,9:1:port.rx_pps:b:11.5:pps:rate:0,"
			    "12:1:prog.ns::30.0:ns:cost:-,13:1:prog.ns::31.0:ns:cost:1");
	sqlite3_finalize(q);
	assert_int_not_equal(sqlite3_exec(c, "INSERT INTO sample_values (job_id, series_id, "
					  "seq, value) VALUES (1, 1, 0, 1)", NULL, NULL, NULL),
			     SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(c, "PRAGMA foreign_key_list(sample_values)", -1, &q,
					    NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_DONE);
	sqlite3_finalize(q);
	assert_int_equal(sqlite3_prepare_v2(c, "EXPLAIN INSERT INTO sample_values (job_id, "
		"series_id, seq, value) VALUES (1, 1, 7, 1)", -1, &q, NULL), SQLITE_OK);
	while (sqlite3_step(q) == SQLITE_ROW)
		parent_read |= !strcmp((const char *)sqlite3_column_text(q, 1), "OpenRead");
	sqlite3_finalize(q);
	assert_false(parent_read);
	close_fk_clean(c);
}

/* The plan SQLite picks for SQL on C, as its details joined by "; ". */
static void query_plan(sqlite3 *c, const char *sql, char *out, size_t len)
{
	char eqp[512];
	sqlite3_stmt *q;
	size_t n = 0;

	snprintf(eqp, sizeof(eqp), "EXPLAIN QUERY PLAN %s", sql);
	assert_int_equal(sqlite3_prepare_v2(c, eqp, -1, &q, NULL), SQLITE_OK);
	out[0] = '\0';
	while (sqlite3_step(q) == SQLITE_ROW && n < len)
		n += (size_t)snprintf(out + n, len - n, "%s; ", sqlite3_column_text(q, 3));
	sqlite3_finalize(q);
}

/* Migration 014 (jobs_queue over open jobs only) on a schema-13 database: the jobs stay,
 * the index holds the queued and running ones only, a host's queue (one state named)
 * is still read through it, and a job that ends leaves it. */
static void test_store_migrate_open_jobs_index(void **state)
{
	struct store_fix *f = *state;
	char plan[1024];
	int64_t n = 0;
	sqlite3 *c;

	old_database(f->db, 13,
		"INSERT INTO plans VALUES (1, 'p', 'x', 'x', 0);"
		"INSERT INTO runs (id, plan_id, plan_file, submitted_ms) VALUES (1, 1, 'p', 0);"
		"INSERT INTO hosts VALUES (1, 'h', 'busy', '1.0', '6.1', '{}', 5, 6);"
		"INSERT INTO jobs (id, run_id, seq, host_id, variant, variant_idx, rep, spec, state) "
		"VALUES (1, 1, 1, 1, 'a', 0, 1, '{}', 'done'), (2, 1, 2, 1, 'a', 0, 2, '{}', "
		"'failed'), (3, 1, 3, 1, 'a', 0, 3, '{}', 'running'), (4, 1, 4, 1, 'a', 0, 4, "
		"'{}', 'queued'), (5, 1, 5, 1, 'a', 0, 5, '{}', 'queued');");

	c = migrated(f->db, 13);
	assert_int_equal(sql_int(c, "SELECT count(*) FROM jobs", &n, ""), SQLITE_ROW);
	assert_int_equal(n, 5);
	assert_int_equal(sql_int(c, "SELECT count(*) FROM jobs INDEXED BY jobs_queue "
				 "WHERE host_id = 1 AND (state = 'queued' OR state = 'running')",
				 &n, ""), SQLITE_ROW);
	assert_int_equal(n, 3);
	query_plan(c, "SELECT id, run_id FROM jobs WHERE host_id = 1 AND state = 'queued' "
		   "ORDER BY run_id, seq LIMIT 1", plan, sizeof(plan));
	assert_non_null(strstr(plan, "jobs_queue (host_id=? AND state=?)"));
	query_plan(c, "SELECT count(*) FROM jobs WHERE host_id = 1 AND state = 'done'", plan,
		   sizeof(plan));
	assert_null(strstr(plan, "jobs_queue"));
	assert_int_equal(sqlite3_exec(c, "UPDATE jobs SET state = 'done' WHERE id = 3", NULL,
				      NULL, NULL), SQLITE_OK);
	assert_int_equal(sql_int(c, "SELECT count(*) FROM jobs INDEXED BY jobs_queue "
				 "WHERE host_id = 1 AND (state = 'queued' OR state = 'running')",
				 &n, ""), SQLITE_ROW);
	assert_int_equal(n, 2);
	close_fk_clean(c);
}


/* Migration 015 (the spec in job_specs) on a schema-14 database: every job keeps its
 * columns and its spec text (under its own id), the indexes come back, jobs names no
 * foreign key but its run and host, job_attempts none, and the store reads the queue
 * and a job's spec through the new table. */
static void test_store_migrate_job_specs(void **state)
{
	struct store_fix *f = *state;
	int64_t n = 0, job = 0, run = 0;
	json_t *spec = NULL;
	struct store *st;
	struct err err;
	sqlite3_stmt *q;
	sqlite3 *c;

	old_database(f->db, 14,
		"INSERT INTO plans VALUES (1, 'p', 'x', 'x', 0);"
		"INSERT INTO runs (id, plan_id, plan_file, submitted_ms) VALUES (1, 1, 'p', 0);"
		"INSERT INTO hosts VALUES (1, 'h', 'busy', '1.0', '6.1', '{}', 5, 6);"
		"INSERT INTO jobs (id, run_id, seq, host_id, variant, variant_idx, rep, point, spec, "
		"state, attempts, verdicts, added) VALUES "
		"(1, 1, 1, 1, 'a', 0, 1, '{\"n\":\"1\"}', '{\"variant\":\"a\",\"rep\":1}', "
		"'done', 1, '[\"x\"]', NULL), "
		"(2, 1, 2, 1, 'b', 1, 1, '{}', '{\"variant\":\"b\",\"rep\":1}', 'queued', 0, "
		"'[]', 'wide');"
		"INSERT INTO job_attempts VALUES (1, 1, 1, 10, 11, 'done', NULL);");

	c = migrated(f->db, 14);
	assert_int_equal(sqlite3_prepare_v2(c, "SELECT "
		"(SELECT group_concat(j.id || ':' || j.seq || ':' || j.variant || ':' || "
		"j.variant_idx || ':' || j.point || ':' || j.spec_id || ':' || s.text || ':' || "
		"j.state || ':' || j.attempts || ':' || j.verdicts || ':' || ifnull(j.added, '-'), "
		"' ') FROM jobs j JOIN job_specs s ON s.id = j.spec_id) || ' ' || "
		"(SELECT group_concat(job_id || ':' || host_id || ':' || outcome) FROM job_attempts)"
		" || ' ' || (SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_master "
		"WHERE type = 'index' AND name NOT LIKE 'sqlite_%' AND tbl_name IN ('jobs', "
		"'job_attempts') ORDER BY name)) || ' ' || "
		"(SELECT group_concat(\"table\", ',') FROM (SELECT \"table\" FROM "
		"pragma_foreign_key_list('jobs') ORDER BY 1)) || ' ' || "
		"(SELECT count(*) FROM pragma_foreign_key_list('job_attempts'))", -1, &q, NULL),
		SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(q, 0),
			    "1:1:a:0:{\"n\":\"1\"}:1:{\"variant\":\"a\",\"rep\":1}:done:1:[\"x\"]:- "
			    "2:2:b:1:{}:2:{\"variant\":\"b\",\"rep\":1}:queued:0:[]:wide "
			    "1:1:done job_attempts_host,jobs_queue,jobs_run hosts,runs 0");
	sqlite3_finalize(q);
	assert_int_equal(sql_int(c, "SELECT count(*) FROM job_specs", &n, ""), SQLITE_ROW);
	assert_int_equal(n, 2);
	close_fk_clean(c);

	st = store_open(f->db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_job_next(st, 1, &job, &run, &spec), 0);
	assert_int_equal(job, 2);
	assert_int_equal(run, 1);
	assert_string_equal(json_string_value(json_object_get(spec, "variant")), "b");
	json_decref(spec);
	store_close(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_store_migrations, store_fix_setup,
						store_fix_teardown),
		cmocka_unit_test_setup_teardown(test_store_migrate_samples, store_fix_setup,
						store_fix_teardown),
		cmocka_unit_test_setup_teardown(test_store_migrate_rebuilds_referenced_table, store_fix_setup,
						store_fix_teardown),
		cmocka_unit_test_setup_teardown(test_store_migrate_state_checks, store_fix_setup,
						store_fix_teardown),
		cmocka_unit_test_setup_teardown(test_store_migrate_sample_refs, store_fix_setup,
						store_fix_teardown),
		cmocka_unit_test_setup_teardown(test_store_migrate_open_jobs_index, store_fix_setup,
						store_fix_teardown),
		cmocka_unit_test_setup_teardown(test_store_migrate_job_specs, store_fix_setup,
						store_fix_teardown),
	};

	return cmocka_run_group_tests_name("store_migrate", tests, NULL, NULL);
}

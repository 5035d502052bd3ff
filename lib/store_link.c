/* store_link.c - see store_link.h. Statements are prepared per call (lib/store_sql.c):
 * discovery and pairs are rare next to samples. */
#include "store_link.h"

#include <errno.h>
#include <stdbool.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "store_sql.h"
#include "util.h"

/* Commit when ERR is 0; roll back when it is not or when the commit fails (WHAT: the
 * work, for that message). Returns the outcome. */
static int tx_end(struct store *store, int err, const char *what)
{
	sqlite3 *db = store_db(store);

	if (!err && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		err = store_fail_sql(store, 0, what);
	if (err)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return err;
}

int store_links_replace(struct store *store, const struct store_link *links, int n,
			int64_t now_ms)
{
	sqlite3 *db = store_db(store);
	sqlite3_stmt *ins = NULL;
	int i, err = 0;

	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return store_fail_sql(store, 0, "store the links");
	if (sqlite3_exec(db, "DELETE FROM links", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO links (host_a, port_a, host_b, port_b, "
			       "discovered_ms) VALUES (?, ?, ?, ?, ?)", -1, &ins, NULL) != SQLITE_OK) {
		err = store_fail_sql(store, 0, "store the links");
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct store_link *l = &links[i];
		bool swap = l->host_a > l->host_b ||
			    (l->host_a == l->host_b && strcmp(l->port_a, l->port_b) > 0);

		if (sql_bind(ins, "ititi", swap ? l->host_b : l->host_a,
			     swap ? l->port_b : l->port_a, swap ? l->host_a : l->host_b,
			     swap ? l->port_a : l->port_b, now_ms) != SQLITE_OK ||
		    sqlite3_step(ins) != SQLITE_DONE) {
			err = store_fail_sql(store, 0, "store a link");
			goto out;
		}
		sqlite3_reset(ins);
	}
out:
	sqlite3_finalize(ins);
	return tx_end(store, err, "store the links");
}

/* A row of store_query_links. */
static const struct sql_col link_cols[] = {
	{ "id", SQL_INT, 0 }, { "host_a", SQL_TEXT, 0 }, { "port_a", SQL_TEXT, 0 },
	{ "host_b", SQL_TEXT, 0 }, { "port_b", SQL_TEXT, 0 }, { "host_a_id", SQL_INT, 0 },
	{ "host_b_id", SQL_INT, 0 }, { "discovered_ms", SQL_INT, 0 },
};

json_t *store_query_links(struct store *store)
{
	sqlite3 *db = store_db(store);
	json_t *arr = NULL;
	int rc;

	rc = sql_rows(db, "SELECT l.id, ha.name, l.port_a, hb.name, l.port_b, l.host_a, "
		      "l.host_b, l.discovered_ms FROM links l JOIN hosts ha ON ha.id = l.host_a "
		      "JOIN hosts hb ON hb.id = l.host_b ORDER BY l.id", link_cols,
		      ARRAY_SIZE(link_cols), &arr, "");
	/* SQLITE_NOMEM: a row that could not be made, not SQLite's error */
	if (rc != SQLITE_OK)
		errno = -store_fail_sql(store, rc == SQLITE_NOMEM ? rc : 0, "read the links");
	return arr;
}

int store_job_partner(struct store *store, int64_t job_id, int64_t *partner, int64_t *host)
{
	sqlite3 *db = store_db(store);
	sqlite3_stmt *st = NULL;
	int rc;

	rc = sql_first(db, "SELECT o.id, o.host_id FROM jobs j JOIN jobs o ON o.run_id = "
		       "j.run_id AND o.seq = j.seq AND o.id != j.id WHERE j.id = ?1 AND "
		       "json_type(j.spec, '$.pair') = 'object' AND json_type(o.spec, "
		       "'$.pair') = 'object' LIMIT 1", &st, "i", job_id);
	if (rc == SQLITE_DONE) {
		return store_fail(store, -ENOENT, "job %lld is not one side of a pair",
				  (long long)job_id);
	}
	if (rc != SQLITE_ROW)
		return store_fail_sql(store, 0, "find a job's pair");
	*partner = sqlite3_column_int64(st, 0);
	*host = sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	return 0;
}

int store_job_error(struct store *store, int64_t job_id, char *out, size_t len)
{
	sqlite3 *db = store_db(store);
	sqlite3_stmt *st = NULL;
	const char *e;
	int rc;

	if (len)
		out[0] = '\0';
	rc = sql_first(db, "SELECT coalesce(error, '') FROM jobs WHERE id = ?1", &st, "i",
		       job_id);
	if (rc == SQLITE_DONE)
		return store_fail(store, -ENOENT, "unknown job %lld", (long long)job_id);
	if (rc != SQLITE_ROW)
		return store_fail_sql(store, 0, "read a job's error");
	e = (const char *)sqlite3_column_text(st, 0);
	snprintf(out, len, "%.*s", (int)strcspn(e ? e : "", "\n"), e ? e : "");
	sqlite3_finalize(st);
	return 0;
}

int store_job_last_attempt(struct store *store, int64_t job_id, char outcome[16],
			   int64_t *lost)
{
	sqlite3 *db = store_db(store);
	sqlite3_stmt *st = NULL;
	int rc;

	rc = sql_first(db, "SELECT outcome, (SELECT count(*) FROM job_attempts WHERE job_id = "
		       "?1 AND outcome = 'lost') FROM job_attempts WHERE job_id = ?1 "
		       "ORDER BY attempt DESC LIMIT 1", &st, "i", job_id);
	if (rc == SQLITE_DONE) {
		return store_fail(store, -ENOENT, "job %lld has no attempt", (long long)job_id);
	}
	if (rc != SQLITE_ROW)
		return store_fail_sql(store, 0, "read a job's attempts");
	snprintf(outcome, 16, "%s", (const char *)sqlite3_column_text(st, 0));
	if (lost)
		*lost = sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	return 0;
}

int store_pair_requeue(struct store *store, int64_t job_id, const char *why)
{
	static const char *const steps[] = {
		"UPDATE jobs SET state = 'queued', error = NULL, verifier_log = NULL, "
		"env_id = NULL, started_ms = NULL, finished_ms = NULL, result_ms = NULL, "
		"verdicts = '[]', verdict_details = '{}' WHERE id = ?1 AND state = 'failed' AND "
		"NOT EXISTS (SELECT 1 FROM samples WHERE job_id = ?1) AND (SELECT r.state FROM "
		"runs r WHERE r.id = jobs.run_id) != 'cancelled'",
		"UPDATE job_attempts SET outcome = 'lost', error = ?2 WHERE job_id = ?1 AND "
		"attempt = (SELECT max(attempt) FROM job_attempts WHERE job_id = ?1)",
		"UPDATE runs SET state = 'running', finished_ms = NULL WHERE id = (SELECT run_id "
		"FROM jobs WHERE id = ?1) AND state IN ('done', 'failed')",
	};
	sqlite3 *db = store_db(store);
	int64_t changes = 0, samples = 0;
	size_t i;
	int err = 0;

	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return store_fail_sql(store, 0, "requeue a pair job");
	for (i = 0; !err && i < ARRAY_SIZE(steps); i++) {
		if (sql_exec(db, steps[i], &changes, i == 1 ? "it" : "i", job_id,
			     why ? why : "its pair was lost") != SQLITE_OK)
			err = store_fail_sql(store, 0, "requeue a pair job");
		else if (i == 0 && changes != 1)
			err = -ENOENT;
	}
	if (err == -ENOENT) {
		/* tell "not failed" from "has samples" */
		if (sql_int(db, "SELECT count(*) FROM samples WHERE job_id = ?1", &samples, "i",
			    job_id) == SQLITE_ROW && samples > 0)
			err = -EEXIST;
		store_fail(store, err, "job %lld %s", (long long)job_id,
			   err == -EEXIST ? "has samples: not requeued" : "is not a failed job");
	}
	return tx_end(store, err, "requeue a pair job");
}

int store_job_state(struct store *store, int64_t job_id, char state[16])
{
	sqlite3 *db = store_db(store);
	sqlite3_stmt *st = NULL;
	int rc;

	rc = sql_first(db, "SELECT state FROM jobs WHERE id = ?1", &st, "i", job_id);
	if (rc == SQLITE_DONE)
		return store_fail(store, -ENOENT, "unknown job %lld", (long long)job_id);
	if (rc != SQLITE_ROW)
		return store_fail_sql(store, 0, "read a job's state");
	snprintf(state, 16, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return 0;
}

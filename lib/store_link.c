/* store_link.c - see store_link.h. Statements are prepared per call: discovery and
 * pairs are rare next to samples. */
#include "store_link.h"

#include <errno.h>
#include <stdbool.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

static __thread char errbuf[512];

const char *store_link_errmsg(void)
{
	return errbuf;
}

static int sql_err(sqlite3 *db, const char *what)
{
	int rc = sqlite3_extended_errcode(db);

	snprintf(errbuf, sizeof(errbuf), "cannot %s: %s", what, sqlite3_errmsg(db));
	switch (rc & 0xff) {
	case SQLITE_FULL: return -ENOSPC;
	case SQLITE_READONLY: return -EROFS;
	case SQLITE_NOMEM: return -ENOMEM;
	case SQLITE_BUSY: return -EBUSY;
	default: return -EIO;
	}
}

int store_links_replace(struct store *store, const struct store_link *links, int n,
			int64_t now_ms)
{
	sqlite3 *db = store_db(store);
	sqlite3_stmt *ins = NULL;
	int i, err = 0;

	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return sql_err(db, "store the links");
	if (sqlite3_exec(db, "DELETE FROM links", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO links (host_a, port_a, host_b, port_b, "
			       "discovered_ms) VALUES (?, ?, ?, ?, ?)", -1, &ins, NULL) != SQLITE_OK) {
		err = sql_err(db, "store the links");
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct store_link *l = &links[i];
		bool swap = l->host_a > l->host_b ||
			    (l->host_a == l->host_b && strcmp(l->port_a, l->port_b) > 0);

		sqlite3_bind_int64(ins, 1, swap ? l->host_b : l->host_a);
		sqlite3_bind_text(ins, 2, swap ? l->port_b : l->port_a, -1, SQLITE_STATIC);
		sqlite3_bind_int64(ins, 3, swap ? l->host_a : l->host_b);
		sqlite3_bind_text(ins, 4, swap ? l->port_a : l->port_b, -1, SQLITE_STATIC);
		sqlite3_bind_int64(ins, 5, now_ms);
		if (sqlite3_step(ins) != SQLITE_DONE) {
			err = sql_err(db, "store a link");
			goto out;
		}
		sqlite3_reset(ins);
	}
out:
	sqlite3_finalize(ins);
	if (err) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return err;
	}
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		err = sql_err(db, "store the links");
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	}
	return err;
}

json_t *store_query_links(struct store *store)
{
	sqlite3 *db = store_db(store);
	sqlite3_stmt *st = NULL;
	json_t *arr = json_array();
	int rc;

	if (!arr) {
		errno = ENOMEM;
		return NULL;
	}
	if (sqlite3_prepare_v2(db, "SELECT l.id, ha.name, l.port_a, hb.name, l.port_b, l.host_a, "
			       "l.host_b, l.discovered_ms FROM links l JOIN hosts ha ON ha.id = "
			       "l.host_a JOIN hosts hb ON hb.id = l.host_b ORDER BY l.id", -1, &st,
			       NULL) != SQLITE_OK)
		goto fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *o = json_pack("{s:I, s:s, s:s, s:s, s:s, s:I, s:I, s:I}",
				      "id", (json_int_t)sqlite3_column_int64(st, 0),
				      "host_a", (const char *)sqlite3_column_text(st, 1),
				      "port_a", (const char *)sqlite3_column_text(st, 2),
				      "host_b", (const char *)sqlite3_column_text(st, 3),
				      "port_b", (const char *)sqlite3_column_text(st, 4),
				      "host_a_id", (json_int_t)sqlite3_column_int64(st, 5),
				      "host_b_id", (json_int_t)sqlite3_column_int64(st, 6),
				      "discovered_ms", (json_int_t)sqlite3_column_int64(st, 7));

		if (!o || json_array_append_new(arr, o)) {
			errno = ENOMEM;
			goto out_fail;
		}
	}
	if (rc != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	return arr;
fail:
	errno = -sql_err(db, "read the links");
out_fail:
	sqlite3_finalize(st);
	json_decref(arr);
	return NULL;
}

int store_job_partner(struct store *store, int64_t job_id, int64_t *partner, int64_t *host)
{
	sqlite3 *db = store_db(store);
	sqlite3_stmt *st = NULL;
	int rc, err = -ENOENT;

	if (sqlite3_prepare_v2(db, "SELECT o.id, o.host_id FROM jobs j JOIN jobs o ON o.run_id = "
			       "j.run_id AND o.seq = j.seq AND o.id != j.id WHERE j.id = ? AND "
			       "json_type(j.spec, '$.pair') = 'object' AND json_type(o.spec, "
			       "'$.pair') = 'object' LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return sql_err(db, "find a job's pair");
	sqlite3_bind_int64(st, 1, job_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*partner = sqlite3_column_int64(st, 0);
		*host = sqlite3_column_int64(st, 1);
		err = 0;
	} else if (rc != SQLITE_DONE) {
		err = sql_err(db, "find a job's pair");
	} else {
		snprintf(errbuf, sizeof(errbuf), "job %lld is not one side of a pair",
			 (long long)job_id);
	}
	sqlite3_finalize(st);
	return err;
}

int store_job_error(struct store *store, int64_t job_id, char *out, size_t len)
{
	sqlite3 *db = store_db(store);
	sqlite3_stmt *st = NULL;
	int rc, err = -ENOENT;

	if (len)
		out[0] = '\0';
	if (sqlite3_prepare_v2(db, "SELECT coalesce(error, '') FROM jobs WHERE id = ?", -1, &st,
			       NULL) != SQLITE_OK)
		return sql_err(db, "read a job's error");
	sqlite3_bind_int64(st, 1, job_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const char *e = (const char *)sqlite3_column_text(st, 0);

		snprintf(out, len, "%.*s", (int)strcspn(e ? e : "", "\n"), e ? e : "");
		err = 0;
	} else if (rc != SQLITE_DONE) {
		err = sql_err(db, "read a job's error");
	}
	sqlite3_finalize(st);
	return err;
}

int store_job_last_attempt(struct store *store, int64_t job_id, char outcome[16],
			   int64_t *lost)
{
	sqlite3 *db = store_db(store);
	sqlite3_stmt *st = NULL;
	int rc, err = -ENOENT;

	if (sqlite3_prepare_v2(db, "SELECT outcome, (SELECT count(*) FROM job_attempts WHERE "
			       "job_id = ?1 AND outcome = 'lost') FROM job_attempts WHERE job_id = "
			       "?1 ORDER BY attempt DESC LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return sql_err(db, "read a job's attempts");
	sqlite3_bind_int64(st, 1, job_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		snprintf(outcome, 16, "%s", (const char *)sqlite3_column_text(st, 0));
		if (lost)
			*lost = sqlite3_column_int64(st, 1);
		err = 0;
	} else if (rc != SQLITE_DONE) {
		err = sql_err(db, "read a job's attempts");
	} else {
		snprintf(errbuf, sizeof(errbuf), "job %lld has no attempt", (long long)job_id);
	}
	sqlite3_finalize(st);
	return err;
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
	sqlite3_stmt *st = NULL;
	size_t i;
	int err = 0;

	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return sql_err(db, "requeue a pair job");
	for (i = 0; !err && i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (sqlite3_prepare_v2(db, steps[i], -1, &st, NULL) != SQLITE_OK) {
			err = sql_err(db, "requeue a pair job");
			break;
		}
		sqlite3_bind_int64(st, 1, job_id);
		if (i == 1)
			sqlite3_bind_text(st, 2, why ? why : "its pair was lost", -1,
					  SQLITE_TRANSIENT);
		if (sqlite3_step(st) != SQLITE_DONE)
			err = sql_err(db, "requeue a pair job");
		else if (i == 0 && sqlite3_changes(db) != 1)
			err = -ENOENT;
		sqlite3_finalize(st);
		st = NULL;
	}
	if (err == -ENOENT) {
		/* tell "not failed" from "has samples" */
		if (sqlite3_prepare_v2(db, "SELECT count(*) FROM samples WHERE job_id = ?1", -1,
				       &st, NULL) == SQLITE_OK) {
			sqlite3_bind_int64(st, 1, job_id);
			if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0)
				err = -EEXIST;
			sqlite3_finalize(st);
		}
		snprintf(errbuf, sizeof(errbuf), "job %lld %s", (long long)job_id,
			 err == -EEXIST ? "has samples: not requeued" : "is not a failed job");
	}
	if (err) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return err;
	}
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		err = sql_err(db, "requeue a pair job");
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	}
	return err;
}

int store_job_state(struct store *store, int64_t job_id, char state[16])
{
	sqlite3 *db = store_db(store);
	sqlite3_stmt *st = NULL;
	int rc, err = -ENOENT;

	if (sqlite3_prepare_v2(db, "SELECT state FROM jobs WHERE id = ?", -1, &st, NULL) !=
	    SQLITE_OK)
		return sql_err(db, "read a job's state");
	sqlite3_bind_int64(st, 1, job_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		snprintf(state, 16, "%s", (const char *)sqlite3_column_text(st, 0));
		err = 0;
	} else if (rc != SQLITE_DONE) {
		err = sql_err(db, "read a job's state");
	}
	sqlite3_finalize(st);
	return err;
}

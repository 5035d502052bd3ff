// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* store_link.c - see store_link.h. Its statements are the store's (store_int.h). */
#include "store/store_link.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "store/store_int.h"
#include "base/util.h"

static const struct sto_stmt stmt_links_clear = { "DELETE FROM links" };
static const struct sto_stmt stmt_link_insert = {
	"INSERT OR IGNORE INTO links (host_a, port_a, host_b, port_b, discovered_ms) "
	"VALUES (?, ?, ?, ?, ?)",
};

int store_links_replace(struct store *store, const struct store_link *links, int n,
			int64_t now_ms)
{
	int i, err;

	err = sto_write_begin(store, "store the links");
	if (err)
		return err;
	err = sto_exec(store, &stmt_links_clear, NULL, "");
	if (err)
		err = sto_context(store, err, "cannot store the links");
	for (i = 0; !err && i < n; i++) {
		const struct store_link *l = &links[i];
		bool swap = l->host_a > l->host_b ||
			    (l->host_a == l->host_b && strcmp(l->port_a, l->port_b) > 0);

		err = sto_exec(store, &stmt_link_insert, NULL, "ititi",
			       swap ? l->host_b : l->host_a, swap ? l->port_b : l->port_a,
			       swap ? l->host_a : l->host_b, swap ? l->port_a : l->port_b, now_ms);
		if (err)
			err = sto_context(store, err, "cannot store a link");
	}
	return sto_write_end(store, err, "store the links");
}

/* A row of store_query_links. */
static const struct sql_col link_cols[] = {
	{ "id", SQL_INT, 0 }, { "host_a", SQL_TEXT, 0 }, { "port_a", SQL_TEXT, 0 },
	{ "host_b", SQL_TEXT, 0 }, { "port_b", SQL_TEXT, 0 }, { "host_a_id", SQL_INT, 0 },
	{ "host_b_id", SQL_INT, 0 }, { "discovered_ms", SQL_INT, 0 },
};

static const struct sto_stmt stmt_links = {
	"SELECT l.id, ha.name, l.port_a, hb.name, l.port_b, l.host_a, l.host_b, "
	"l.discovered_ms FROM links l JOIN hosts ha ON ha.id = l.host_a "
	"JOIN hosts hb ON hb.id = l.host_b ORDER BY l.id",
};

json_t *store_query_links(struct store *store)
{
	json_t *arr = sto_query_rows(store, &stmt_links, link_cols, ARRAY_SIZE(link_cols), "");

	if (!arr)
		errno = -sto_context(store, -errno, "cannot read the links");
	return arr;
}

static const struct sto_stmt stmt_partner = {
	"SELECT o.id, o.host_id FROM jobs j JOIN jobs o ON o.run_id = j.run_id AND "
	"o.seq = j.seq AND o.id != j.id JOIN job_specs js ON js.id = j.spec_id "
	"JOIN job_specs os ON os.id = o.spec_id WHERE j.id = ?1 AND "
	"json_type(js.text, '$.pair') = 'object' AND json_type(os.text, '$.pair') = 'object' "
	"LIMIT 1",
};

int store_job_partner(struct store *store, int64_t job_id, int64_t *partner, int64_t *host)
{
	sqlite3_stmt *st = NULL;
	int err = sto_query_row(store, &stmt_partner, &st, "i", job_id);

	if (err == -ENOENT) {
		return store_fail(store, -ENOENT, "job %lld is not one side of a pair",
				  (long long)job_id);
	}
	if (err)
		return sto_context(store, err, "cannot find a job's pair");
	*partner = sqlite3_column_int64(st, 0);
	*host = sqlite3_column_int64(st, 1);
	sto_done(st);
	return 0;
}

static const struct sto_stmt stmt_job_error = {
	"SELECT coalesce(error, '') FROM jobs WHERE id = ?1",
};

int store_job_error(struct store *store, int64_t job_id, char *out, size_t len)
{
	sqlite3_stmt *st = NULL;
	const char *e;
	int err;

	if (len)
		out[0] = '\0';
	err = sto_query_row(store, &stmt_job_error, &st, "i", job_id);
	if (err == -ENOENT)
		return store_fail(store, -ENOENT, "unknown job %lld", (long long)job_id);
	if (err)
		return sto_context(store, err, "cannot read a job's error");
	e = (const char *)sqlite3_column_text(st, 0);
	snprintf(out, len, "%.*s", (int)strcspn(e ? e : "", "\n"), e ? e : "");
	sto_done(st);
	return 0;
}

static const struct sto_stmt stmt_last_attempt = {
	"SELECT outcome, (SELECT count(*) FROM job_attempts WHERE job_id = ?1 AND "
	"outcome = 'lost') FROM job_attempts WHERE job_id = ?1 ORDER BY attempt DESC LIMIT 1",
};

int store_job_last_attempt(struct store *store, int64_t job_id, char outcome[16],
			   int64_t *lost)
{
	sqlite3_stmt *st = NULL;
	int err = sto_query_row(store, &stmt_last_attempt, &st, "i", job_id);

	if (err == -ENOENT) {
		return store_fail(store, -ENOENT, "job %lld has no attempt", (long long)job_id);
	}
	if (err)
		return sto_context(store, err, "cannot read a job's attempts");
	snprintf(outcome, 16, "%s", (const char *)sqlite3_column_text(st, 0));
	if (lost)
		*lost = sqlite3_column_int64(st, 1);
	sto_done(st);
	return 0;
}

/* store_pair_requeue's steps: the job back to the queue (failed, no samples, its run
 * not cancelled), its last attempt lost (?2 why), its run running again. */
static const struct sto_stmt stmt_requeue_job = {
	"UPDATE jobs SET state = 'queued', error = NULL, verifier_log = NULL, "
	"env_id = NULL, started_ms = NULL, finished_ms = NULL, result_ms = NULL, "
	"verdicts = '[]', verdict_details = '{}' WHERE id = ?1 AND state = 'failed' AND "
	"NOT EXISTS (SELECT 1 FROM samples WHERE job_id = ?1) AND (SELECT r.state FROM "
	"runs r WHERE r.id = jobs.run_id) != 'cancelled'",
};
static const struct sto_stmt stmt_requeue_attempt = {
	"UPDATE job_attempts SET outcome = 'lost', error = ?2 WHERE job_id = ?1 AND "
	"attempt = (SELECT max(attempt) FROM job_attempts WHERE job_id = ?1)",
};
static const struct sto_stmt stmt_requeue_run = {
	"UPDATE runs SET state = 'running', finished_ms = NULL WHERE id = (SELECT run_id "
	"FROM jobs WHERE id = ?1) AND state IN ('done', 'failed')",
};
static const struct sto_stmt stmt_job_samples = {
	"SELECT count(*) FROM samples WHERE job_id = ?1",
};

int store_pair_requeue(struct store *store, int64_t job_id, const char *why)
{
	static const struct sto_stmt *const steps[] = {
		&stmt_requeue_job, &stmt_requeue_attempt, &stmt_requeue_run,
	};
	int64_t changes = 0, samples = 0;
	size_t i;
	int err;

	err = sto_write_begin(store, "requeue a pair job");
	if (err)
		return err;
	for (i = 0; !err && i < ARRAY_SIZE(steps); i++) {
		err = sto_exec(store, steps[i], &changes, i == 1 ? "it" : "i", job_id,
			       why ? why : "its pair was lost");
		if (err)
			err = sto_context(store, err, "cannot requeue a pair job");
		else if (i == 0 && changes != 1)
			err = -ENOENT;
	}
	if (err == -ENOENT) {
		/* tell "not failed" from "has samples" */
		if (!sto_query_int(store, &stmt_job_samples, &samples, "i", job_id) &&
		    samples > 0)
			err = -EEXIST;
		store_fail(store, err, "job %lld %s", (long long)job_id,
			   err == -EEXIST ? "has samples: not requeued" : "is not a failed job");
	}
	return sto_write_end(store, err, "requeue a pair job");
}

static const struct sto_stmt stmt_job_state = { "SELECT state FROM jobs WHERE id = ?1" };

int store_job_state(struct store *store, int64_t job_id, char state[16])
{
	sqlite3_stmt *st = NULL;
	int err = sto_query_row(store, &stmt_job_state, &st, "i", job_id);

	if (err == -ENOENT)
		return store_fail(store, -ENOENT, "unknown job %lld", (long long)job_id);
	if (err)
		return sto_context(store, err, "cannot read a job's state");
	snprintf(state, 16, "%s", (const char *)sqlite3_column_text(st, 0));
	sto_done(st);
	return 0;
}

// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* store_bisect.c - see store_bisect.h. Bisection sessions in the store, with their
 * statements (store_int.h).
 */
#include "store/store_bisect.h"

#include <errno.h>
#include <stdbool.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_int.h"
#include "base/util.h"

static const char *const what = "update the bisect session";

static const struct sto_stmt stmt_active = {
	"SELECT id FROM bisect_sessions WHERE state = 'active'",
};

/* The id of the active session into *ID (0 when none). */
static int active_id(struct store *st, int64_t *id)
{
	int err;

	*id = 0;
	err = sto_query_int(st, &stmt_active, id, "");
	if (err == -ENOENT)
		return 0;
	return err ? sto_context(st, err, "cannot read the sessions") : 0;
}

/* A write transaction: checks and writes see one database. */
static int begin(struct store *st)
{
	return sto_write_begin(st, what);
}

/* Commit, or roll back after ERR (or a COMMIT that failed): nothing half done stays. */
static int tx_end(struct store *st, int err)
{
	return sto_write_end(st, err, what);
}

static const struct sto_stmt stmt_session_insert = {
	"INSERT INTO bisect_sessions (plan, plan_sha256, metric, variant, subject, kernels, "
	"good, bad, opts, created_ms, updated_ms) "
	"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ifnull(?9, '{}'), ?10, ?10)",
};

int store_bisect_start(struct store *st, const json_t *ses, int64_t now_ms, int64_t *id)
{
	const char *plan = json_string_value(json_object_get(ses, "plan"));
	const char *metric = json_string_value(json_object_get(ses, "metric"));
	const char *good = json_string_value(json_object_get(ses, "good"));
	const char *bad = json_string_value(json_object_get(ses, "bad"));
	const json_t *kernels = json_object_get(ses, "kernels"), *opts;
	int64_t active;
	int err;

	if (!plan || !metric || !good || !bad || json_array_size(kernels) < 2)
		return store_fail(st, -EINVAL, "a bisect session needs 'plan', 'metric', 'good', "
				  "'bad' and at least two 'kernels'");
	opts = json_object_get(ses, "opts");
	err = begin(st);
	if (err)
		return err;
	err = active_id(st, &active);
	if (!err && active)
		err = store_fail(st, -EEXIST, "bisect session %lld is active: 'bpflab bisect "
				 "reset' ends it", (long long)active);
	if (!err)
		err = sto_exec(st, &stmt_session_insert, NULL, "tttttjttji", plan,
			       json_string_value(json_object_get(ses, "plan_sha256")), metric,
			       json_string_value(json_object_get(ses, "variant")),
			       json_string_value(json_object_get(ses, "subject")), kernels, good,
			       bad, json_is_object(opts) ? opts : NULL, now_ms);
	if (err)
		err = sto_context(st, err, "cannot %s", what);
	else
		*id = sqlite3_last_insert_rowid(st->db);
	return tx_end(st, err);
}

/* A session of store_bisect_get and its steps: the SELECTs and their columns. */
#define SESSION_SQL								\
	"SELECT id, plan, plan_sha256, metric, variant, subject, kernels, good, bad, opts, " \
	"state, result, created_ms, updated_ms FROM bisect_sessions "

static const struct sql_col session_cols[] = {
	{ "id", SQL_INT, 0 }, { "plan", SQL_TEXT, 0 }, { "plan_sha256", SQL_TEXT, 0 },
	{ "metric", SQL_TEXT, 0 }, { "variant", SQL_TEXT, 0 }, { "subject", SQL_TEXT, 0 },
	{ "kernels", SQL_JSON, 0 }, { "good", SQL_TEXT, 0 }, { "bad", SQL_TEXT, 0 },
	{ "opts", SQL_JSON, 0 }, { "state", SQL_TEXT, 0 }, { "result", SQL_JSON, 0 },
	{ "created_ms", SQL_INT, 0 }, { "updated_ms", SQL_INT, 0 },
};

static const struct sql_col step_cols[] = {
	{ "seq", SQL_INT, 0 }, { "kernel", SQL_TEXT, 0 }, { "runs", SQL_JSON, 0 },
	{ "values", SQL_JSON, 0 }, { "verdict", SQL_TEXT, 0 }, { "p", SQL_REAL, 0 },
	{ "note", SQL_TEXT, 0 }, { "at_ms", SQL_INT, 0 },
};

static const struct sto_stmt stmt_session_by_id = { SESSION_SQL "WHERE id = ?1" };
static const struct sto_stmt stmt_session_latest = {
	SESSION_SQL "ORDER BY state = 'active' DESC, id DESC LIMIT 1",
};
static const struct sto_stmt stmt_steps = {
	"SELECT seq, kernel, runs, values_json, verdict, p, note, at_ms "
	"FROM bisect_steps WHERE session_id = ?1 ORDER BY seq",
};

json_t *store_bisect_get(struct store *st, int64_t id)
{
	sqlite3_stmt *s = NULL;
	json_t *out = NULL, *steps = NULL;
	int err;

	err = id ? sto_query_row(st, &stmt_session_by_id, &s, "i", id)
		 : sto_query_row(st, &stmt_session_latest, &s, "");
	if (err == -ENOENT) {
		if (id)
			store_fail(st, -ENOENT, "no bisect session %lld", (long long)id);
		else
			store_fail(st, -ENOENT,
				   "no bisect session: 'bpflab bisect start' begins one");
		errno = ENOENT;
		return NULL;
	}
	if (err)
		goto dberr;
	out = sql_row_json(s, session_cols, ARRAY_SIZE(session_cols));
	id = sqlite3_column_int64(s, 0);
	sto_done(s);
	if (!out)
		goto nomem;
	steps = sto_query_rows(st, &stmt_steps, step_cols, ARRAY_SIZE(step_cols), "i", id);
	if (!steps) {
		err = -errno;
		if (err == -ENOMEM)
			goto nomem;
		goto dberr;
	}
	if (json_object_set_new(out, "steps", steps))
		goto nomem;
	return out;
dberr:
	errno = -sto_context(st, err, "cannot read the bisect session");
	json_decref(out);
	return NULL;
nomem:
	store_fail(st, -ENOMEM, "out of memory");
	errno = ENOMEM;
	json_decref(out);
	return NULL;
}

static const struct sql_col list_cols[] = {
	{ "id", SQL_INT, 0 }, { "plan", SQL_TEXT, 0 }, { "metric", SQL_TEXT, 0 },
	{ "variant", SQL_TEXT, 0 }, { "subject", SQL_TEXT, 0 }, { "good", SQL_TEXT, 0 },
	{ "bad", SQL_TEXT, 0 }, { "state", SQL_TEXT, 0 }, { "result", SQL_JSON, 0 },
	{ "created_ms", SQL_INT, 0 }, { "updated_ms", SQL_INT, 0 },
	{ "n_kernels", SQL_INT, 0 }, { "n_steps", SQL_INT, 0 },
};

static const struct sto_stmt stmt_list = {
	"SELECT id, plan, metric, variant, subject, good, bad, state, result, created_ms, "
	"updated_ms, json_array_length(kernels), "
	"(SELECT count(*) FROM bisect_steps WHERE session_id = s.id) "
	"FROM bisect_sessions s ORDER BY id",
};

json_t *store_bisect_list(struct store *st)
{
	json_t *out = sto_query_rows(st, &stmt_list, list_cols, ARRAY_SIZE(list_cols), "");

	if (!out && errno != ENOMEM)
		errno = -sto_context(st, -errno, "cannot list the bisect sessions");
	return out;
}

static const struct sto_stmt stmt_session_exists = {
	"SELECT 1 FROM bisect_sessions WHERE id = ?1",
};

/* Check that session ID exists and is active, inside a transaction. */
static int check_active(struct store *st, int64_t id)
{
	int64_t active;
	int err = active_id(st, &active);

	if (err)
		return err;
	if (active != id) {
		int64_t one = 0;
		bool exists = !sto_query_int(st, &stmt_session_exists, &one, "i", id);

		return exists ? store_fail(st, -ESTALE, "bisect session %lld is not active",
					   (long long)id)
			      : store_fail(st, -ENOENT, "no bisect session %lld", (long long)id);
	}
	return 0;
}

static const struct sto_stmt stmt_step_count = {
	"SELECT count(*) FROM bisect_steps WHERE session_id = ?1",
};

/* The number of steps of session ID into *N. */
static int step_count(struct store *st, int64_t id, int64_t *n)
{
	int err;

	*n = 0;
	err = sto_query_int(st, &stmt_step_count, n, "i", id);
	return err ? sto_context(st, err, "cannot count the bisect steps") : 0;
}

static bool end_state_ok(const char *state)
{
	return state && (!strcmp(state, "done") || !strcmp(state, "failed"));
}

static const struct sto_stmt stmt_session_end = {
	"UPDATE bisect_sessions SET state = ?2, result = ?3, updated_ms = ?4 WHERE id = ?1",
};

/* End session ID (active, checked) with STATE and RESULT, inside a transaction. */
static int end_session(struct store *st, int64_t id, const char *state, const json_t *result,
		       int64_t now_ms)
{
	int err = sto_exec(st, &stmt_session_end, NULL, "itji", id, state, result, now_ms);

	return err ? sto_context(st, err, "cannot %s", what) : 0;
}

static const struct sto_stmt stmt_step_insert = {
	"INSERT INTO bisect_steps (session_id, seq, kernel, runs, values_json, verdict, p, "
	"note, at_ms) VALUES (?1, ?2, ?3, ifnull(?4, '[]'), ?5, ?6, ?7, ?8, ?9)",
};
static const struct sto_stmt stmt_session_touch = {
	"UPDATE bisect_sessions SET updated_ms = ?2 WHERE id = ?1",
};

int store_bisect_add_step(struct store *st, int64_t id, int64_t seq, const json_t *step,
			  const char *end, const json_t *result, int64_t now_ms)
{
	const char *kernel = json_string_value(json_object_get(step, "kernel"));
	const char *verdict = json_string_value(json_object_get(step, "verdict"));
	const json_t *vals = json_object_get(step, "values"), *runs = json_object_get(step, "runs");
	const json_t *p = json_object_get(step, "p"), *v;
	int64_t n = 0;
	size_t i;
	int err;

	if (!kernel || !verdict || !json_is_array(vals) || (runs && !json_is_array(runs)))
		return store_fail(st, -EINVAL,
				  "a bisect step needs 'kernel', 'verdict' and 'values'");
	json_array_foreach(vals, i, v)
		if (!json_is_number(v))
			return store_fail(st, -EINVAL,
					  "values[%zu] of a bisect step is not a number", i);
	if (seq < 0)
		return store_fail(st, -EINVAL, "bisect step number %lld is not 1 or more",
				  (long long)seq);
	if (end && !end_state_ok(end))
		return store_fail(st, -EINVAL,
				  "a bisect session ends 'done' or 'failed', not '%s'", end);
	err = begin(st);
	if (err)
		return err;
	err = check_active(st, id);
	if (!err)
		err = step_count(st, id, &n);
	if (!err && seq && seq != n + 1)
		err = seq <= n ? store_fail(st, -EALREADY, "step %lld of bisect session %lld is "
					    "already recorded (another 'bpflab bisect step' "
					    "recorded it first): 'bpflab bisect status' shows "
					    "where the session is now", (long long)seq,
					    (long long)id)
			       : store_fail(st, -EALREADY, "bisect session %lld has %lld steps: "
					    "step %lld cannot come next", (long long)id,
					    (long long)n, (long long)seq);
	if (!err) {
		err = sto_exec(st, &stmt_step_insert, NULL,
			       json_is_number(p) ? "iitjjtrti" : "iitjjtnti", id, n + 1, kernel,
			       runs, vals, verdict, json_is_number(p) ? json_number_value(p) : 0.0,
			       json_string_value(json_object_get(step, "note")), now_ms);
		if (!err)
			err = sto_exec(st, &stmt_session_touch, NULL, "ii", id, now_ms);
		if (err)
			err = sto_context(st, err, "cannot %s", what);
	}
	if (!err && end)
		err = end_session(st, id, end, result, now_ms);
	return tx_end(st, err);
}

int store_bisect_end(struct store *st, int64_t id, int64_t steps, const char *state,
		     const json_t *result, int64_t now_ms)
{
	int64_t n = 0;
	int err;

	if (!end_state_ok(state))
		return store_fail(st, -EINVAL,
				  "a bisect session ends 'done' or 'failed', not '%s'",
				  state ? state : "");
	err = begin(st);
	if (err)
		return err;
	err = check_active(st, id);
	if (!err && steps >= 0)
		err = step_count(st, id, &n);
	if (!err && steps >= 0 && n != steps)
		err = store_fail(st, -EALREADY, "bisect session %lld has %lld steps, not %lld "
				 "(another client recorded one): not ended", (long long)id,
				 (long long)n, (long long)steps);
	if (!err)
		err = end_session(st, id, state, result, now_ms);
	return tx_end(st, err);
}

static const struct sto_stmt stmt_session_reset = {
	"UPDATE bisect_sessions SET state = 'reset', updated_ms = ?2 WHERE id = ?1",
};

int store_bisect_reset(struct store *st, int64_t id, int64_t now_ms, int64_t *out)
{
	int64_t active;
	int err;

	err = begin(st);
	if (err)
		return err;
	err = active_id(st, &active);
	if (!err && !active)
		err = store_fail(st, -ENOENT, "no bisect session is active");
	if (!err && id && id != active)
		err = store_fail(st, -ESTALE,
				 "bisect session %lld is not the active one (%lld is)",
				 (long long)id, (long long)active);
	if (!err) {
		err = sto_exec(st, &stmt_session_reset, NULL, "ii", active, now_ms);
		if (err)
			err = sto_context(st, err, "cannot %s", what);
	}
	if (!err && out)
		*out = active;
	return tx_end(st, err);
}

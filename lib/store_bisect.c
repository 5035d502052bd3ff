/* store_bisect.c - see store_bisect.h. Bisection sessions on the store's SQLite
 * connection (store_db), with statements prepared per call (a session makes a few
 * dozen of them; the hot paths of store.c keep their cached statements).
 */
#include "store_bisect.h"

#include <errno.h>
#include <stdbool.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_sql.h"
#include "util.h"

/* Run SQL with the values of TYPES (sql_bind_va); *CHANGES (may be NULL) gets the rows
 * changed. */
static int run(struct store *st, const char *sql, int64_t *changes, const char *types, ...)
{
	sqlite3 *db = store_db(st);
	va_list ap;
	int rc;

	va_start(ap, types);
	rc = sql_exec_va(db, sql, changes, types, ap);
	va_end(ap);
	return rc == SQLITE_OK ? 0 : store_fail_sql(st, rc, "update the bisect session");
}

/* The id of the active session into *ID (0 when none). */
static int active_id(struct store *st, int64_t *id)
{
	sqlite3 *db = store_db(st);
	int rc;

	*id = 0;
	rc = sql_int(db, "SELECT id FROM bisect_sessions WHERE state = 'active'", id, "");
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0
						      : store_fail_sql(st, rc, "read the sessions");
}

static int tx(struct store *st, const char *what)
{
	int rc = sqlite3_exec(store_db(st), what, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : store_fail_sql(st, rc, "update the bisect session");
}

/* Commit, or roll back after ERR (or a COMMIT that failed): nothing half done stays. */
static int tx_end(struct store *st, int err)
{
	sqlite3 *db = store_db(st);

	if (!err)
		err = tx(st, "COMMIT");
	if (err && !sqlite3_get_autocommit(db))
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return err;
}

/* A write transaction: checks and writes see one database. */
static int begin(struct store *st)
{
	return tx(st, "BEGIN IMMEDIATE");
}

int store_bisect_start(struct store *st, const json_t *ses, int64_t now_ms, int64_t *id)
{
	sqlite3 *db = store_db(st);
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
		err = run(st, "INSERT INTO bisect_sessions (plan, plan_sha256, metric, variant, "
			  "subject, kernels, good, bad, opts, created_ms, updated_ms) "
			  "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ifnull(?9, '{}'), ?10, ?10)",
			  NULL, "tttttjttji", plan,
			  json_string_value(json_object_get(ses, "plan_sha256")), metric,
			  json_string_value(json_object_get(ses, "variant")),
			  json_string_value(json_object_get(ses, "subject")), kernels, good, bad,
			  json_is_object(opts) ? opts : NULL, now_ms);
	if (!err)
		*id = sqlite3_last_insert_rowid(db);
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

json_t *store_bisect_get(struct store *st, int64_t id)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *s = NULL;
	json_t *out = NULL, *steps = NULL;
	int rc;

	rc = id ? sql_first(db, SESSION_SQL "WHERE id = ?1", &s, "i", id)
		: sql_first(db, SESSION_SQL "ORDER BY state = 'active' DESC, id DESC LIMIT 1",
			    &s, "");
	if (rc == SQLITE_DONE) {
		if (id)
			store_fail(st, -ENOENT, "no bisect session %lld", (long long)id);
		else
			store_fail(st, -ENOENT,
				   "no bisect session: 'bpflab bisect start' begins one");
		errno = ENOENT;
		return NULL;
	}
	if (rc != SQLITE_ROW)
		goto dberr;
	out = sql_row_json(s, session_cols, ARRAY_SIZE(session_cols));
	id = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	if (!out)
		goto nomem;
	rc = sql_rows(db, "SELECT seq, kernel, runs, values_json, verdict, p, note, at_ms "
		      "FROM bisect_steps WHERE session_id = ?1 ORDER BY seq", step_cols,
		      ARRAY_SIZE(step_cols), &steps, "i", id);
	if (rc == SQLITE_NOMEM || (rc == SQLITE_OK && json_object_set_new(out, "steps", steps)))
		goto nomem;
	if (rc != SQLITE_OK)
		goto dberr;
	return out;
dberr:
	errno = -store_fail_sql(st, rc, "read the bisect session");
	json_decref(out);
	return NULL;
nomem:
	store_fail(st, -ENOMEM, "out of memory");
	errno = ENOMEM;
	json_decref(out);
	return NULL;
}

/* Check that session ID exists and is active, inside a transaction. */
static int check_active(struct store *st, int64_t id)
{
	sqlite3 *db = store_db(st);
	int64_t active;
	int err = active_id(st, &active);

	if (err)
		return err;
	if (active != id) {
		int64_t one = 0;
		bool exists = sql_int(db, "SELECT 1 FROM bisect_sessions WHERE id = ?1", &one, "i",
				      id) == SQLITE_ROW;

		return exists ? store_fail(st, -ESTALE, "bisect session %lld is not active",
					   (long long)id)
			      : store_fail(st, -ENOENT, "no bisect session %lld", (long long)id);
	}
	return 0;
}

/* The number of steps of session ID into *N. */
static int step_count(struct store *st, int64_t id, int64_t *n)
{
	sqlite3 *db = store_db(st);
	int rc;

	*n = 0;
	rc = sql_int(db, "SELECT count(*) FROM bisect_steps WHERE session_id = ?1", n, "i", id);
	return rc == SQLITE_ROW ? 0 : store_fail_sql(st, rc, "count the bisect steps");
}

static bool end_state_ok(const char *state)
{
	return state && (!strcmp(state, "done") || !strcmp(state, "failed"));
}

/* End session ID (active, checked) with STATE and RESULT, inside a transaction. */
static int end_session(struct store *st, int64_t id, const char *state, const json_t *result,
		       int64_t now_ms)
{
	return run(st, "UPDATE bisect_sessions SET state = ?2, result = ?3, updated_ms = ?4 "
		   "WHERE id = ?1", NULL, "itji", id, state, result, now_ms);
}

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
	if (!err)
		err = run(st, "INSERT INTO bisect_steps (session_id, seq, kernel, runs, "
			  "values_json, verdict, p, note, at_ms) VALUES (?1, ?2, ?3, "
			  "ifnull(?4, '[]'), ?5, ?6, ?7, ?8, ?9)", NULL,
			  json_is_number(p) ? "iitjjtrti" : "iitjjtnti", id, n + 1, kernel, runs,
			  vals, verdict, json_is_number(p) ? json_number_value(p) : 0.0,
			  json_string_value(json_object_get(step, "note")), now_ms);
	if (!err)
		err = run(st, "UPDATE bisect_sessions SET updated_ms = ?2 WHERE id = ?1", NULL,
			  "ii", id, now_ms);
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
	if (!err)
		err = run(st, "UPDATE bisect_sessions SET state = 'reset', updated_ms = ?2 "
			  "WHERE id = ?1", NULL, "ii", active, now_ms);
	if (!err && out)
		*out = active;
	return tx_end(st, err);
}

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

/* The text of schema/004_bisect.sql; keep the two equal (a check is still to come:
 * tests/unit/test_store_bisect.c). */
const char store_bisect_schema[] =
	"-- 004_bisect.sql - bisection sessions and their steps (docs/bisect.md, \"Sessions\").\n"
	"-- A session is one `bpflab bisect start` .. done / failed / reset; its steps are the\n"
	"-- bisect_record() calls of lib/bisect.c in order, so that replaying them rebuilds the\n"
	"-- engine's state (a coordinator or CLI restart loses nothing). IF NOT EXISTS: the same\n"
	"-- text is run by lib/store_bisect.c on a database that has not had this migration yet.\n"
	"\n"
	"CREATE TABLE IF NOT EXISTS bisect_sessions (\n"
	"	id             INTEGER PRIMARY KEY,\n"
	"	plan           TEXT NOT NULL,              -- plan file as given\n"
	"	plan_sha256    TEXT,                       -- of its text when the session started\n"
	"	metric         TEXT NOT NULL,\n"
	"	variant        TEXT,                       -- NULL: the plan's first variant\n"
	"	subject        TEXT,                       -- NULL: the metric's only subject\n"
	"	kernels        TEXT NOT NULL,              -- JSON array of names, oldest first\n"
	"	good           TEXT NOT NULL,\n"
	"	bad            TEXT NOT NULL,\n"
	"	opts           TEXT NOT NULL DEFAULT '{}', -- JSON: reps, min_effect, overrides, ...\n"
	"	state          TEXT NOT NULL DEFAULT 'active'\n"
	"	               CHECK (state IN ('active', 'done', 'failed', 'reset')),\n"
	"	result         TEXT,                       -- JSON, when done or failed\n"
	"	created_ms     INTEGER NOT NULL,\n"
	"	updated_ms     INTEGER NOT NULL\n"
	");\n"
	"-- At most one active session, as git has one bisection per work tree.\n"
	"CREATE UNIQUE INDEX IF NOT EXISTS bisect_sessions_active ON bisect_sessions (state)\n"
	"	WHERE state = 'active';\n"
	"\n"
	"CREATE TABLE IF NOT EXISTS bisect_steps (\n"
	"	id             INTEGER PRIMARY KEY,\n"
	"	session_id     INTEGER NOT NULL REFERENCES bisect_sessions (id),\n"
	"	seq            INTEGER NOT NULL,           -- 1, 2, ... in record order\n"
	"	kernel         TEXT NOT NULL,\n"
	"	runs           TEXT NOT NULL DEFAULT '[]', -- JSON array of the run ids measured\n"
	"	values_json    TEXT NOT NULL DEFAULT '[]', -- JSON array of the values recorded\n"
	"	verdict        TEXT NOT NULL,              -- bisect_mark_name: good, bad, skip, more, ...\n"
	"	p              REAL,                       -- against the good end\n"
	"	note           TEXT,                       -- the engine's reason\n"
	"	at_ms          INTEGER NOT NULL,\n"
	"	UNIQUE (session_id, seq)\n"
	");\n";

static __thread char errbuf[512];

const char *store_bisect_errmsg(void)
{
	return errbuf;
}

static int errno_of(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_ROW:
	case SQLITE_DONE:
		return 0;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_READONLY:
		return -EROFS;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_CONSTRAINT:
	case SQLITE_MISMATCH:
		return -EINVAL;
	default:
		return -EIO;
	}
}

static int fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(errbuf, sizeof(errbuf), fmt, ap);
	va_end(ap);
	return err;
}

static int dbfail(sqlite3 *db, int rc, const char *what)
{
	return fail(errno_of(rc) ? errno_of(rc) : -EIO, "cannot %s: %s", what,
		    sqlite3_errmsg(db));
}

/* The tables, created from store_bisect_schema when the migration is not there yet. */
static int ensure(sqlite3 *db)
{
	sqlite3_stmt *s = NULL;
	int rc, have;

	rc = sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' "
				"AND name IN ('bisect_sessions', 'bisect_steps')", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return dbfail(db, rc, "read the schema");
	rc = sqlite3_step(s);
	have = rc == SQLITE_ROW ? sqlite3_column_int(s, 0) : -1;
	sqlite3_finalize(s);
	if (have < 0)
		return dbfail(db, rc, "read the schema");
	if (have == 2)
		return 0;
	rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, store_bisect_schema, NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		int err = dbfail(db, rc, "create the bisect tables");

		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return err;
	}
	rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : dbfail(db, rc, "create the bisect tables");
}

/* Bind "i" int64, "t" text (NULL: null), "d" double, "j" json_t * as compact text
 * (NULL: null), "n" null. */
static int bindv(sqlite3_stmt *s, const char *types, va_list ap)
{
	int i, rc = SQLITE_OK;

	for (i = 0; types[i] && rc == SQLITE_OK; i++) {
		switch (types[i]) {
		case 'i':
			rc = sqlite3_bind_int64(s, i + 1, va_arg(ap, int64_t));
			break;
		case 't': {
			const char *t = va_arg(ap, const char *);

			rc = t ? sqlite3_bind_text(s, i + 1, t, -1, SQLITE_TRANSIENT)
			       : sqlite3_bind_null(s, i + 1);
			break;
		}
		case 'd':
			rc = sqlite3_bind_double(s, i + 1, va_arg(ap, double));
			break;
		case 'j': {
			const json_t *j = va_arg(ap, const json_t *);
			char *t = j ? json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;

			if (j && !t)
				return SQLITE_NOMEM;
			rc = t ? sqlite3_bind_text(s, i + 1, t, -1, free)
			       : sqlite3_bind_null(s, i + 1);
			break;
		}
		default:
			rc = sqlite3_bind_null(s, i + 1);
		}
	}
	return rc;
}

/* Run SQL with the values of TYPES; *CHANGES (may be NULL) gets the rows changed. */
static int run(sqlite3 *db, const char *sql, int64_t *changes, const char *types, ...)
{
	sqlite3_stmt *s = NULL;
	va_list ap;
	int rc;

	rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
	if (rc == SQLITE_OK) {
		va_start(ap, types);
		rc = bindv(s, types, ap);
		va_end(ap);
	}
	if (rc == SQLITE_OK)
		rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return dbfail(db, rc, "update the bisect session");
	if (changes)
		*changes = sqlite3_changes64(db);
	return 0;
}

/* The id of the active session into *ID (0 when none). */
static int active_id(sqlite3 *db, int64_t *id)
{
	sqlite3_stmt *s = NULL;
	int rc;

	*id = 0;
	rc = sqlite3_prepare_v2(db, "SELECT id FROM bisect_sessions WHERE state = 'active'",
				-1, &s, NULL);
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(s);
		if (rc == SQLITE_ROW)
			*id = sqlite3_column_int64(s, 0);
	}
	sqlite3_finalize(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : dbfail(db, rc, "read the sessions");
}

static int tx(sqlite3 *db, const char *what)
{
	int rc = sqlite3_exec(db, what, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : dbfail(db, rc, "update the bisect session");
}

static int tx_end(sqlite3 *db, int err)
{
	if (err) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return err;
	}
	return tx(db, "COMMIT");
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
		return fail(-EINVAL, "a bisect session needs 'plan', 'metric', 'good', 'bad' "
			    "and at least two 'kernels'");
	opts = json_object_get(ses, "opts");
	err = ensure(db);
	if (err)
		return err;
	err = tx(db, "BEGIN IMMEDIATE");
	if (err)
		return err;
	err = active_id(db, &active);
	if (!err && active)
		err = fail(-EEXIST, "bisect session %lld is active: 'bpflab bisect reset' "
			   "ends it", (long long)active);
	if (!err)
		err = run(db, "INSERT INTO bisect_sessions (plan, plan_sha256, metric, variant, "
			  "subject, kernels, good, bad, opts, created_ms, updated_ms) "
			  "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ifnull(?9, '{}'), ?10, ?10)",
			  NULL, "tttttjttji", plan,
			  json_string_value(json_object_get(ses, "plan_sha256")), metric,
			  json_string_value(json_object_get(ses, "variant")),
			  json_string_value(json_object_get(ses, "subject")), kernels, good, bad,
			  json_is_object(opts) ? opts : NULL, now_ms);
	if (!err)
		*id = sqlite3_last_insert_rowid(db);
	return tx_end(db, err);
}

static json_t *col_json(sqlite3_stmt *s, int i)
{
	const char *t = (const char *)sqlite3_column_text(s, i);

	return t ? json_loads(t, JSON_DECODE_ANY, NULL) : json_null();
}

static json_t *col_str(sqlite3_stmt *s, int i)
{
	const char *t = (const char *)sqlite3_column_text(s, i);

	return t ? json_string(t) : json_null();
}

json_t *store_bisect_get(struct store *st, int64_t id)
{
	static const char *const keys[] = { "id", "plan", "plan_sha256", "metric", "variant",
					    "subject", "kernels", "good", "bad", "opts",
					    "state", "result", "created_ms", "updated_ms" };
	static const char *const step_keys[] = { "seq", "kernel", "runs", "values",
						 "verdict", "p", "note", "at_ms" };
	sqlite3 *db = store_db(st);
	sqlite3_stmt *s = NULL;
	json_t *out = NULL, *steps = NULL;
	int rc, err, i;

	err = ensure(db);
	if (err) {
		errno = -err;
		return NULL;
	}
	rc = sqlite3_prepare_v2(db, id ? "SELECT id, plan, plan_sha256, metric, variant, "
				"subject, kernels, good, bad, opts, state, result, created_ms, "
				"updated_ms FROM bisect_sessions WHERE id = ?1"
				: "SELECT id, plan, plan_sha256, metric, variant, subject, "
				"kernels, good, bad, opts, state, result, created_ms, updated_ms "
				"FROM bisect_sessions ORDER BY state = 'active' DESC, id DESC "
				"LIMIT 1", -1, &s, NULL);
	if (rc == SQLITE_OK && id)
		rc = sqlite3_bind_int64(s, 1, id);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(s);
	if (rc == SQLITE_DONE) {
		if (id)
			fail(-ENOENT, "no bisect session %lld", (long long)id);
		else
			fail(-ENOENT, "no bisect session: 'bpflab bisect start' begins one");
		errno = ENOENT;
		goto out;
	}
	if (rc != SQLITE_ROW)
		goto dberr;
	out = json_object();
	for (i = 0; out && i < 14; i++) {
		json_t *v;

		if (i == 0 || i >= 12)
			v = json_integer(sqlite3_column_int64(s, i));
		else if (i == 6 || i == 9 || i == 11)
			v = col_json(s, i);
		else
			v = col_str(s, i);
		if (json_object_set_new(out, keys[i], v ? v : json_null()))
			goto nomem;
	}
	if (!out)
		goto nomem;
	id = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	s = NULL;
	steps = json_array();
	rc = sqlite3_prepare_v2(db, "SELECT seq, kernel, runs, values_json, verdict, p, note, "
				"at_ms FROM bisect_steps WHERE session_id = ?1 ORDER BY seq",
				-1, &s, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(s, 1, id);
	while (rc == SQLITE_OK && steps && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		json_t *row = json_object();

		for (i = 0; row && i < 8; i++) {
			json_t *v;

			if (i == 0 || i == 7)
				v = json_integer(sqlite3_column_int64(s, i));
			else if (i == 2 || i == 3)
				v = col_json(s, i);
			else if (i == 5)
				v = sqlite3_column_type(s, i) == SQLITE_NULL ? json_null()
					: json_real(sqlite3_column_double(s, i));
			else
				v = col_str(s, i);
			if (json_object_set_new(row, step_keys[i], v ? v : json_null())) {
				json_decref(row);
				row = NULL;
			}
		}
		if (!row || json_array_append_new(steps, row))
			goto nomem;
		rc = SQLITE_OK;
	}
	if (!steps)
		goto nomem;
	if (rc != SQLITE_DONE)
		goto dberr;
	if (json_object_set_new(out, "steps", steps)) {
		steps = NULL;
		goto nomem;
	}
	sqlite3_finalize(s);
	return out;
dberr:
	errno = -dbfail(db, rc, "read the bisect session");
	goto out;
nomem:
	fail(-ENOMEM, "out of memory");
	errno = ENOMEM;
out:
	sqlite3_finalize(s);
	json_decref(steps);
	json_decref(out);
	return NULL;
}

/* Check that session ID exists and is active, inside a transaction. */
static int check_active(sqlite3 *db, int64_t id)
{
	int64_t active;
	int err = active_id(db, &active);

	if (err)
		return err;
	if (active != id) {
		sqlite3_stmt *s = NULL;
		bool exists = false;

		if (sqlite3_prepare_v2(db, "SELECT 1 FROM bisect_sessions WHERE id = ?1", -1, &s,
				       NULL) == SQLITE_OK &&
		    sqlite3_bind_int64(s, 1, id) == SQLITE_OK)
			exists = sqlite3_step(s) == SQLITE_ROW;
		sqlite3_finalize(s);
		return exists ? fail(-ESTALE, "bisect session %lld is not active",
				     (long long)id)
			      : fail(-ENOENT, "no bisect session %lld", (long long)id);
	}
	return 0;
}

int store_bisect_add_step(struct store *st, int64_t id, const json_t *step, int64_t now_ms)
{
	sqlite3 *db = store_db(st);
	const char *kernel = json_string_value(json_object_get(step, "kernel"));
	const char *verdict = json_string_value(json_object_get(step, "verdict"));
	const json_t *vals = json_object_get(step, "values"), *runs = json_object_get(step, "runs");
	const json_t *p = json_object_get(step, "p"), *v;
	size_t i;
	int err;

	if (!kernel || !verdict || !json_is_array(vals) || (runs && !json_is_array(runs)))
		return fail(-EINVAL, "a bisect step needs 'kernel', 'verdict' and 'values'");
	json_array_foreach(vals, i, v)
		if (!json_is_number(v))
			return fail(-EINVAL, "values[%zu] of a bisect step is not a number", i);
	err = ensure(db);
	if (err)
		return err;
	err = tx(db, "BEGIN IMMEDIATE");
	if (err)
		return err;
	err = check_active(db, id);
	if (!err)
		err = run(db, "INSERT INTO bisect_steps (session_id, seq, kernel, runs, "
			  "values_json, verdict, p, note, at_ms) SELECT ?1, ifnull(max(seq), 0) + 1, "
			  "?2, ifnull(?3, '[]'), ?4, ?5, ?6, ?7, ?8 FROM bisect_steps "
			  "WHERE session_id = ?1", NULL, json_is_number(p) ? "itjjtdti" : "itjjtnti",
			  id, kernel, runs, vals, verdict,
			  json_is_number(p) ? json_number_value(p) : 0.0,
			  json_string_value(json_object_get(step, "note")), now_ms);
	if (!err)
		err = run(db, "UPDATE bisect_sessions SET updated_ms = ?2 WHERE id = ?1", NULL,
			  "ii", id, now_ms);
	return tx_end(db, err);
}

int store_bisect_end(struct store *st, int64_t id, const char *state, const json_t *result,
		     int64_t now_ms)
{
	sqlite3 *db = store_db(st);
	int err;

	if (!state || (strcmp(state, "done") && strcmp(state, "failed")))
		return fail(-EINVAL, "a bisect session ends 'done' or 'failed', not '%s'",
			    state ? state : "");
	err = ensure(db);
	if (err)
		return err;
	err = tx(db, "BEGIN IMMEDIATE");
	if (err)
		return err;
	err = check_active(db, id);
	if (!err)
		err = run(db, "UPDATE bisect_sessions SET state = ?2, result = ?3, updated_ms = ?4 "
			  "WHERE id = ?1", NULL, "itji", id, state, result, now_ms);
	return tx_end(db, err);
}

int store_bisect_reset(struct store *st, int64_t now_ms, int64_t *id)
{
	sqlite3 *db = store_db(st);
	int64_t active;
	int err;

	err = ensure(db);
	if (err)
		return err;
	err = tx(db, "BEGIN IMMEDIATE");
	if (err)
		return err;
	err = active_id(db, &active);
	if (!err && !active)
		err = fail(-ENOENT, "no bisect session is active");
	if (!err)
		err = run(db, "UPDATE bisect_sessions SET state = 'reset', updated_ms = ?2 "
			  "WHERE id = ?1", NULL, "ii", active, now_ms);
	if (!err && id)
		*id = active;
	return tx_end(db, err);
}

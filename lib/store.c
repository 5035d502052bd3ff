/* store.c - see store.h. The SQLite store behind bpflabd and `bpflab --db FILE`: open,
 * migrate and close, the statement and transaction helpers its parts share
 * (store_int.h), and the error channel of the store and its companions.
 *
 * The parts, one job each: store_stmt.c (the SQL), store_queue.c (hosts, runs, the job
 * queue), store_ingest.c (results and imports), store_query.c (the query objects).
 * Used from one thread per struct store: the coordinator's event loop, or the CLI.
 */
#include "store_int.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "samples.h"
#include "store_repeat.h"
#include "util.h"

/* Generated from schema/NNN_*.sql by scripts/embed-schema.sh. */
extern const char *const store_migrations[];
extern const int store_n_migrations;

void sto_caches_clear(struct store *st)
{
	for (size_t i = 0; i < SERIES_CACHE; i++) {
		free(st->series[i].key);
		st->series[i].key = NULL;
	}
	for (size_t i = 0; i < ENV_CACHE; i++) {
		free(st->envs[i].inventory);
		st->envs[i].inventory = NULL;
	}
}

int store_fail(struct store *st, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->err, sizeof(st->err), fmt, ap);
	va_end(ap);
	return err;
}

int store_fail_sql(struct store *st, int rc, const char *what)
{
	int err = sql_errno(rc ? rc : sqlite3_extended_errcode(st->db));

	return store_fail(st, err ? err : -EIO, "cannot %s: %s", what,
			  rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(st->db));
}

const char *sto_json_str_at(const json_t *obj, const char *k1, const char *k2)
{
	json_t *v = json_object_get(obj, k1);

	if (k2)
		v = json_object_get(v, k2);
	return json_string_value(v);
}

/* SQLite's message for a failed call that returned RC, as -errno. */
int sto_dberr(struct store *st, int rc)
{
	return store_fail(st, sql_errno(rc) ? sql_errno(rc) : -EIO, "%s", sqlite3_errmsg(st->db));
}

/* Put CONTEXT in front of the current message: "CONTEXT: message". */
int sto_context(struct store *st, int err, const char *fmt, ...)
{
	char ctx[STORE_ERR_LEN], both[2 * STORE_ERR_LEN + 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx, sizeof(ctx), fmt, ap);
	va_end(ap);
	snprintf(both, sizeof(both), "%s: %s", ctx, st->err);
	memcpy(st->err, both, sizeof(st->err) - 1);
	st->err[sizeof(st->err) - 1] = '\0';
	return err;
}

int sto_prep(struct store *st, enum stmt_id id, sqlite3_stmt **s)
{
	int rc;

	if (!st->stmt[id]) {
		rc = sqlite3_prepare_v3(st->db, store_stmt_sql[id], -1, SQLITE_PREPARE_PERSISTENT,
					&st->stmt[id], NULL);
		if (rc != SQLITE_OK)
			return sto_dberr(st, rc);
	}
	*s = st->stmt[id];
	return 0;
}

void sto_done(sqlite3_stmt *s)
{
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
}

/* Bind values by TYPES (sql_bind_va: i int64_t, o int64_t or NULL when negative, t text,
 * b blob and size, r double); on failure nothing stays bound. */
int sto_bind_va(struct store *st, sqlite3_stmt *s, const char *types, va_list ap)
{
	int rc = sql_bind_va(s, types, ap);

	if (rc != SQLITE_OK) {
		sto_done(s);
		return sto_dberr(st, rc);
	}
	return 0;
}

int sto_bind(struct store *st, sqlite3_stmt *s, const char *types, ...)
{
	va_list ap;
	int err;

	va_start(ap, types);
	err = sto_bind_va(st, s, types, ap);
	va_end(ap);
	return err;
}

/* Statement ID prepared (once) and bound by TYPES (bind_va) into *S; on failure nothing
 * stays bound. The helper behind sto_exec() and sto_query_int(). */
int sto_prep_bind_va(struct store *st, enum stmt_id id, sqlite3_stmt **s, const char *types,
		     va_list ap)
{
	int err = sto_prep(st, id, s);

	return err ? err : sto_bind_va(st, *s, types, ap);
}

/* Run statement ID with values bound by TYPES to completion. *CHANGES (may be NULL)
 * gets the number of rows it changed. */
int sto_exec_va(struct store *st, enum stmt_id id, int64_t *changes, const char *types,
		va_list ap)
{
	sqlite3_stmt *s = NULL;
	int err = sto_prep_bind_va(st, id, &s, types, ap), rc;

	if (err)
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		;
	if (rc != SQLITE_DONE)
		err = sto_dberr(st, rc);
	else if (changes)
		*changes = sqlite3_changes64(st->db);
	sto_done(s);
	return err;
}

int sto_exec(struct store *st, enum stmt_id id, int64_t *changes, const char *types, ...)
{
	va_list ap;
	int err;

	va_start(ap, types);
	err = sto_exec_va(st, id, changes, types, ap);
	va_end(ap);
	return err;
}

/* Statement ID bound by TYPES and stepped once: 0 with *S on its first row (read the
 * columns, then sto_done(*S)), -ENOENT when there is no row (message "no such row"), or
 * -errno; on anything but 0 the statement is already reset. */
int sto_query_row_va(struct store *st, enum stmt_id id, sqlite3_stmt **s,
		     const char *types, va_list ap)
{
	int err = sto_prep_bind_va(st, id, s, types, ap), rc;

	if (err)
		return err;
	rc = sqlite3_step(*s);
	if (rc == SQLITE_ROW)
		return 0;
	err = rc == SQLITE_DONE ? store_fail(st, -ENOENT, "no such row") : sto_dberr(st, rc);
	sto_done(*s);
	return err;
}

int sto_query_row(struct store *st, enum stmt_id id, sqlite3_stmt **s, const char *types,
		  ...)
{
	va_list ap;
	int err;

	va_start(ap, types);
	err = sto_query_row_va(st, id, s, types, ap);
	va_end(ap);
	return err;
}

/* The first column of the first row of statement ID as an integer into *OUT; -ENOENT
 * when there is no row (message set), or -errno. */
int sto_query_int(struct store *st, enum stmt_id id, int64_t *out, const char *types, ...)
{
	sqlite3_stmt *s = NULL;
	va_list ap;
	int err;

	va_start(ap, types);
	err = sto_query_row_va(st, id, &s, types, ap);
	va_end(ap);
	if (!err) {
		*out = sqlite3_column_int64(s, 0);
		sto_done(s);
	}
	return err;
}

/* Every row of statement ID, bound by TYPES, by the N columns of COLS (sql_row_json):
 * a new array, or NULL with errno set and the message in the store. */
json_t *sto_query_rows(struct store *st, enum stmt_id id, const struct sql_col *cols,
		       size_t n, const char *types, ...)
{
	sqlite3_stmt *s = NULL;
	json_t *arr = NULL;
	va_list ap;
	int err, rc;

	va_start(ap, types);
	err = sto_prep_bind_va(st, id, &s, types, ap);
	va_end(ap);
	if (!err) {
		rc = sql_rows_json(s, cols, n, &arr);
		if (rc == SQLITE_NOMEM)
			err = store_fail(st, -ENOMEM, "out of memory");
		else if (rc != SQLITE_OK)
			err = sto_dberr(st, rc);
		sto_done(s);
	}
	if (err)
		errno = -err;
	return arr;
}

/* Begin a write: a transaction, or in a batch (store_batch_begin) a savepoint of it. */
int sto_tx_begin(struct store *st)
{
	if (!st->batch)
		return sto_exec(st, S_BEGIN, NULL, "");
	if (st->batch_lost || sqlite3_get_autocommit(st->db)) {
		st->batch_lost = true;
		return store_fail(st, -EIO, "the transaction of its batch was rolled back");
	}
	return sto_exec(st, S_SAVEPOINT, NULL, "");
}

/* Commit when ERR is 0; roll back when it is not or when the commit fails. Keeps the
 * first message. Returns the outcome. In a batch the same for the savepoint: released,
 * or rolled back to (the batch's other writes stay). */
int sto_tx_end(struct store *st, int err)
{
	sqlite3_stmt *s = NULL;

	if (!err)
		err = sto_exec(st, st->batch ? S_RELEASE : S_COMMIT, NULL, "");
	if (err && !sqlite3_get_autocommit(st->db) &&
	    !sto_prep(st, st->batch ? S_ROLLBACK_TO : S_ROLLBACK, &s)) {
		sqlite3_step(s);
		sto_done(s);
		if (st->batch && !sto_prep(st, S_RELEASE, &s)) {
			sqlite3_step(s);	/* ends the savepoint, now empty */
			sto_done(s);
		}
	}
	if (err && st->batch && sqlite3_get_autocommit(st->db))
		st->batch_lost = true;
	if (err)
		sto_caches_clear(st); /* ids added by the rolled-back transaction are gone */
	return err;
}

int store_batch_begin(struct store *st)
{
	int err;

	if (st->batch)
		return store_fail(st, -EBUSY, "a batch is open already");
	err = sto_tx_begin(st);
	if (err)
		return sto_context(st, err, "cannot begin a batch of writes");
	st->batch = true;
	st->batch_lost = false;
	return 0;
}

int store_batch_end(struct store *st, int err)
{
	bool lost = st->batch_lost;

	if (!st->batch)
		return 0;
	st->batch = false;
	st->batch_lost = false;
	if (!err && lost)
		err = store_fail(st, -EIO, "the transaction of its batch was rolled back after an "
				 "error");
	return sto_tx_end(st, err);
}

/* --- open, migrate, close --- */

int store_schema_latest(void)
{
	return store_n_migrations;
}

int store_schema_version(struct store *st)
{
	int64_t v = 0;
	int err = sto_query_int(st, S_USER_VERSION, &v, "");

	return err ? err : (int)v;
}

/* SQLITE_OK when PRAGMA foreign_key_check finds no violation, SQLITE_CONSTRAINT_FOREIGNKEY
 * (with the table named in the store's message) when it does, or the SQLite error. */
static int fk_check(struct store *st)
{
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_prepare_v2(st->db, "PRAGMA foreign_key_check", -1, &s, NULL);

	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		store_fail(st, -EPROTO, "foreign key violation in table '%s' row %lld",
			   (const char *)sqlite3_column_text(s, 0),
			   (long long)sqlite3_column_int64(s, 1));
		rc = SQLITE_CONSTRAINT_FOREIGNKEY;
	} else if (rc == SQLITE_DONE) {
		rc = SQLITE_OK;
	}
	sqlite3_finalize(s);
	return rc;
}

/* Apply migrations FROM+1 .. latest, each in its own transaction. Foreign keys are off
 * while migrating (SQLite's documented way to rebuild a table that others reference: a
 * DROP TABLE would otherwise delete-and-check every row), and each migration must leave
 * PRAGMA foreign_key_check empty before it commits. */
static int migrate(struct store *st, int from)
{
	char sql[64];
	int err = 0, v, rc;

	if (from >= store_n_migrations)
		return 0;
	rc = sqlite3_exec(st->db, "PRAGMA foreign_keys = OFF", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return sto_context(st, sto_dberr(st, rc), "cannot migrate database '%s'", st->path);
	for (v = from + 1; v <= store_n_migrations; v++) {
		err = sto_tx_begin(st);
		if (err)
			break;
		/* Another process may have migrated between our read and our lock. */
		rc = store_schema_version(st);
		if (rc < 0) {
			err = sto_tx_end(st, rc);
			break;
		}
		if (rc >= v) {
			err = sto_tx_end(st, 0);
			if (err)
				break;
			continue;
		}
		rc = sqlite3_exec(st->db, store_migrations[v - 1], NULL, NULL, NULL);
		if (rc == SQLITE_OK)
			rc = fk_check(st);
		if (rc == SQLITE_OK) {
			/* PRAGMA takes no parameters; v is our own loop counter. */
			snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", v);
			rc = sqlite3_exec(st->db, sql, NULL, NULL, NULL);
		}
		err = sto_tx_end(st, rc == SQLITE_OK ? 0 :
				 rc == SQLITE_CONSTRAINT_FOREIGNKEY ? -EPROTO : sto_dberr(st, rc));
		if (err) {
			sto_context(st, err, "cannot migrate database '%s' to schema version %d",
				    st->path, v);
			break;
		}
	}
	rc = sqlite3_exec(st->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
	if (!err && rc != SQLITE_OK)
		err = sto_context(st, sto_dberr(st, rc), "cannot migrate database '%s'", st->path);
	return err;
}

static void store_free(struct store *st)
{
	int i;

	if (!st)
		return;
	for (i = 0; i < S__MAX; i++)
		sqlite3_finalize(st->stmt[i]);
	sto_caches_clear(st);
	sqlite3_close_v2(st->db);
	free(st->path);
	free(st);
}

/* SQLite's process-wide settings, before its first use (sqlite3_config refuses them
 * after, harmlessly): no memory statistics, which nothing reads and which cost a global
 * mutex around every allocation SQLite makes (about a dozen a stored sample). */
static void sqlite_setup(void)
{
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

struct store *store_open(const char *path, bool readonly, char *errbuf, size_t err_len)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	int flags = readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	struct store *st;
	int err = 0, rc, version;

	pthread_once(&once, sqlite_setup);
	st = calloc(1, sizeof(*st));
	if (!st || !(st->path = strdup(path))) {
		free(st);
		snprintf(errbuf, err_len, "cannot open database '%s': out of memory", path);
		errno = ENOMEM;
		return NULL;
	}
	rc = sqlite3_open_v2(path, &st->db, flags | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		err = st->db ? sto_dberr(st, rc) : store_fail(st, -ENOMEM, "out of memory");
		goto out;
	}
	sqlite3_extended_result_codes(st->db, 1);
	sqlite3_busy_timeout(st->db, STORE_BUSY_TIMEOUT_MS);
	rc = sqlite3_exec(st->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		err = sto_dberr(st, rc);
		goto out;
	}
	version = store_schema_version(st);
	if (version < 0) {
		err = version;
		goto out;
	}
	if (version > store_n_migrations) {
		err = store_fail(st, -EPROTO, "schema version %d is newer than this bpflab's (%d): "
				 "use a newer bpflab", version, store_n_migrations);
		goto out;
	}
	if (readonly) {
		if (version == 0)
			err = store_fail(st, -EPROTO, "not a bpflab database (no schema)");
		else if (version < store_n_migrations)
			err = store_fail(st, -EPROTO, "schema version %d is older than this "
					 "bpflab's (%d): open it read-write once to migrate "
					 "it", version, store_n_migrations);
		goto out;
	}
	/* WAL: readers (the CLI on the same file) never block the coordinator. An in-memory
	 * database stays in "memory" mode, which is fine. */
	rc = sqlite3_exec(st->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(st->db, "PRAGMA synchronous = NORMAL", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		err = sto_dberr(st, rc);
		goto out;
	}
	err = migrate(st, version);
	if (err) {
		/* migrate() gave the context; report its message as it is. */
		snprintf(errbuf, err_len, "%s", st->err);
		store_free(st);
		errno = -err;
		return NULL;
	}
out:
	if (err) {
		snprintf(errbuf, err_len, "cannot open database '%s': %s", path, st->err);
		store_free(st);
		errno = -err;
		return NULL;
	}
	return st;
}

void store_close(struct store **stp)
{
	if (!stp)
		return;
	store_free(*stp);
	*stp = NULL;
}

const char *store_errmsg(struct store *st)
{
	return st->err;
}

int store_set_size_limit(struct store *st, int64_t bytes)
{
	int64_t page_size = 4096, pages;
	char sql[64];
	int err, rc;

	err = sto_query_int(st, S_PAGE_SIZE, &page_size, "");
	if (err)
		return sto_context(st, err, "cannot limit the database size");
	pages = bytes > 0 ? bytes / page_size : 0xfffffffe;
	if (pages < 1)
		pages = 1;
	/* PRAGMA takes no parameters; pages is a number we computed. */
	snprintf(sql, sizeof(sql), "PRAGMA max_page_count = %lld", (long long)pages);
	rc = sqlite3_exec(st->db, sql, NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return sto_context(st, sto_dberr(st, rc), "cannot limit the database size");
	return 0;
}

struct sqlite3 *store_db(struct store *st)
{
	return st->db;
}

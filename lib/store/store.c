// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* store.c - see store.h. The SQLite store behind bpflabd and `bpflab --db FILE`: open,
 * migrate and close, the statement and transaction helpers its parts share
 * (store_int.h), and the error channel of the store and its companions.
 *
 * The parts, one job each, each with the SQL of its statements: store_queue.c (hosts,
 * the job queue), store_run.c (runs), store_ingest.c (results and imports),
 * store_query.c (the query objects).
 * Used from one thread per struct store: the coordinator's event loop, or the CLI.
 */
#include "store/store_int.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/proto.h"
#include "proto/samples.h"
#include "store/store_alloc.h"
#include "store/store_repeat.h"
#include "base/util.h"

/* The writer's lookaside (store_open): slots of this many bytes, this many of them */
#define STORE_LOOKASIDE_SLOT 1200
#define STORE_LOOKASIDE_SLOTS 1024
/* The sub-journal (the pages a savepoint or a statement of several rows changed, as
 * they were before it) stays in memory up to this many bytes, then goes to a temporary
 * file. SQLite's default, 64 KiB, is 16 pages: a result stored in a batch puts more
 * there (its savepoint, and each statement of several rows in it, the pages they
 * change; store_ingest.c), and once the sub-journal has gone to a file it stays one
 * until the transaction ends, so the batch's later results wrote every page they
 * changed to it with pwrite64 (bench/README.md, "The sub-journal in memory"). Bounded,
 * for an import or a delete that changes many pages. */
#define STORE_SUBJOURNAL_SPILL (8 << 20)
/* A writer's commit that leaves the WAL at this many pages or more checkpoints it
 * (SQLite's default: 1,000). Fewer checkpoints copy a page changed by many commits
 * (the samples' last pages, the job and host rows' pages and indexes) once, not once a
 * checkpoint: about 16 MiB of WAL between checkpoints, a fourth of the fdatasync calls
 * (bench/README.md, "The sub-journal in memory"). */
#define STORE_WAL_CHECKPOINT_PAGES 4000

/* Generated from schema/NNN_*.sql by scripts/embed-schema.sh. */
extern const char *const store_migrations[];
extern const int store_n_migrations;

void sto_caches_clear(struct store *st)
{
	for (size_t i = 0; i < SERIES_CACHE; i++) {
		free(st->series[i].key);
		st->series[i].key = NULL;
	}
	for (size_t i = 0; i < st->n_envs; i++) {
		free(st->envs[i].inventory);
		st->envs[i].inventory = NULL;
	}
}

int store_fail(struct store *st, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset(&st->err, fmt, ap);
	va_end(ap);
	return err;
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
	char ctx[STORE_ERR_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx, sizeof(ctx), fmt, ap);
	va_end(ap);
	err_prefix(&st->err, "%s", ctx);
	return err;
}

/* The slot of DEF in the statement cache: its own, or the empty one where it goes. */
static struct stmt_ent *stmt_slot(struct store *st, const struct sto_stmt *def)
{
	size_t i = (size_t)(((uintptr_t)def >> 3) * UINT64_C(0x9e3779b97f4a7c15) >> 32);

	for (;; i++) {
		struct stmt_ent *e = &st->stmts[i % STMT_CACHE];

		if (e->def == def || !e->def)
			return e;
	}
}

int sto_prep(struct store *st, const struct sto_stmt *def, sqlite3_stmt **s)
{
	struct stmt_ent *e = stmt_slot(st, def);
	int rc;

	if (!e->def) {
		/* at most half full, so that a probe stays short and always ends */
		assert(st->n_stmts < STMT_CACHE / 2);
		rc = sqlite3_prepare_v3(st->db, def->sql, -1, SQLITE_PREPARE_PERSISTENT, &e->s,
					NULL);
		if (rc != SQLITE_OK)
			return sto_dberr(st, rc);
		e->def = def;
		st->n_stmts++;
	}
	*s = e->s;
	return 0;
}

void sto_done(sqlite3_stmt *s)
{
	sql_reset(s);
}

/* Bind values by TYPES (sql_bind_va: i int64_t, o int64_t or NULL when negative, t text,
 * b blob and size, r double); on failure nothing stays bound. */
int sto_bind(struct store *st, sqlite3_stmt *s, const char *types, ...)
{
	int rc = SQL_VA(types, sql_bind_va(s, types, ap));

	if (rc == SQLITE_OK)
		return 0;
	sql_reset(s);
	return sto_dberr(st, rc);
}

/* Run statement DEF with values bound by TYPES to completion. *CHANGES (may be NULL)
 * gets the number of rows it changed. */
int sto_exec(struct store *st, const struct sto_stmt *def, int64_t *changes,
	     const char *types, ...)
{
	sqlite3_stmt *s = NULL;
	int err = sto_prep(st, def, &s), rc;

	if (err)
		return err;
	rc = SQL_VA(types, sql_run_va(s, changes, types, ap));
	return rc == SQLITE_OK ? 0 : sto_dberr(st, rc);
}

/* Statement DEF bound by TYPES and stepped once: 0 with *S on its first row (read the
 * columns, then sto_done(*S)), -ENOENT when there is no row (message "no such row"), or
 * -errno; on anything but 0 the statement is already reset. */
static int query_row_va(struct store *st, const struct sto_stmt *def, sqlite3_stmt **s,
			const char *types, va_list ap)
{
	int err = sto_prep(st, def, s), rc;

	if (err)
		return err;
	rc = sql_step_va(*s, types, ap);
	if (rc == SQLITE_ROW)
		return 0;
	return rc == SQLITE_DONE ? store_fail(st, -ENOENT, "no such row") : sto_dberr(st, rc);
}

int sto_query_row(struct store *st, const struct sto_stmt *def, sqlite3_stmt **s,
		  const char *types, ...)
{
	return SQL_VA(types, query_row_va(st, def, s, types, ap));
}

/* The first column of the first row of statement DEF as an integer into *OUT; -ENOENT
 * when there is no row (message set), or -errno. */
int sto_query_int(struct store *st, const struct sto_stmt *def, int64_t *out,
		  const char *types, ...)
{
	sqlite3_stmt *s = NULL;
	int err = SQL_VA(types, query_row_va(st, def, &s, types, ap));

	if (!err) {
		*out = sqlite3_column_int64(s, 0);
		sql_reset(s);
	}
	return err;
}

/* Every row of statement DEF, bound by TYPES, by the N columns of COLS (sql_row_json):
 * a new array, or NULL with errno set and the message in the store. */
json_t *sto_query_rows(struct store *st, const struct sto_stmt *def,
		       const struct sql_col *cols, size_t n, const char *types, ...)
{
	sqlite3_stmt *s = NULL;
	json_t *arr = NULL;
	int err, rc;

	err = sto_prep(st, def, &s);
	if (!err) {
		rc = SQL_VA(types, sql_bind_va(s, types, ap));
		if (rc == SQLITE_OK)
			rc = sql_rows_json(s, cols, n, &arr);
		sql_reset(s);
		if (rc == SQLITE_NOMEM)
			err = store_fail(st, -ENOMEM, "out of memory");
		else if (rc != SQLITE_OK)
			err = sto_dberr(st, rc);
	}
	if (err)
		errno = -err;
	return arr;
}

static const struct sto_stmt stmt_begin = { "BEGIN IMMEDIATE" };
static const struct sto_stmt stmt_savepoint = { "SAVEPOINT part" };

/* Begin a write: a transaction, or in a batch (store_batch_begin) a savepoint of it. */
int sto_tx_begin(struct store *st)
{
	if (!st->batch)
		return sto_exec(st, &stmt_begin, NULL, "");
	if (st->batch_lost || sqlite3_get_autocommit(st->db)) {
		st->batch_lost = true;
		return store_fail(st, -EIO, "the transaction of its batch was rolled back");
	}
	return sto_exec(st, &stmt_savepoint, NULL, "");
}

static const struct sto_stmt stmt_commit = { "COMMIT" };
static const struct sto_stmt stmt_rollback = { "ROLLBACK" };
static const struct sto_stmt stmt_release = { "RELEASE part" };
static const struct sto_stmt stmt_rollback_to = { "ROLLBACK TO part" };

/* Commit when ERR is 0; roll back when it is not or when the commit fails. Keeps the
 * first message. Returns the outcome. In a batch the same for the savepoint: released,
 * or rolled back to (the batch's other writes stay). */
int sto_tx_end(struct store *st, int err)
{
	sqlite3_stmt *s = NULL;

	if (!err)
		err = sto_exec(st, st->batch ? &stmt_release : &stmt_commit, NULL, "");
	if (err && !sqlite3_get_autocommit(st->db) &&
	    !sto_prep(st, st->batch ? &stmt_rollback_to : &stmt_rollback, &s)) {
		sqlite3_step(s);
		sto_done(s);
		if (st->batch && !sto_prep(st, &stmt_release, &s)) {
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

int sto_write_begin(struct store *st, const char *what)
{
	int err = sto_tx_begin(st);

	return err ? sto_context(st, err, "cannot %s", what) : 0;
}

int sto_write_end(struct store *st, int err, const char *what)
{
	int end = sto_tx_end(st, err);

	return end && !err ? sto_context(st, end, "cannot %s", what) : end;
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

static const struct sto_stmt stmt_user_version = { "PRAGMA user_version" };

int store_schema_version(struct store *st)
{
	int64_t v = 0;
	int err = sto_query_int(st, &stmt_user_version, &v, "");

	return err ? err : (int)v;
}

static const struct sto_stmt stmt_db_id = { "SELECT db_id FROM db_info WHERE one = 1" };

int store_db_id(struct store *st, char out[STORE_DB_ID_LEN])
{
	sqlite3_stmt *s = NULL;
	const char *id;
	int err = sto_query_row(st, &stmt_db_id, &s, "");

	if (err)
		return sto_context(st, err, "cannot read the database's id");
	id = (const char *)sqlite3_column_text(s, 0);
	snprintf(out, STORE_DB_ID_LEN, "%s", id ? id : "");
	sto_done(s);
	return 0;
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
	if (!st)
		return;
	for (size_t i = 0; i < STMT_CACHE; i++)
		sqlite3_finalize(st->stmts[i].s);
	sto_caches_clear(st);
	free(st->envs);
	sqlite3_close_v2(st->db);
	free(st->path);
	free(st);
}

/* SQLite's process-wide settings, before its first use (sqlite3_config refuses them
 * after, harmlessly): no memory statistics, which nothing reads and which cost a global
 * mutex around every allocation SQLite makes (about a dozen a stored sample); the
 * sub-journal in memory up to STORE_SUBJOURNAL_SPILL; the store's allocator
 * (store_alloc.c), for bpflabd and the CLI alike. */
static void sqlite_setup(void)
{
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, STORE_SUBJOURNAL_SPILL);
	store_alloc_install();
}

/* Whether PATH's companion PATH SUFFIX ("-wal") exists. SQLite names the companions
 * after the file a symbolic link PATH leads to, and so does this. */
static bool companion_exists(const char *path, const char *suffix)
{
	char p[PATH_MAX], real[PATH_MAX];

	if (realpath(path, real))
		path = real;
	return (size_t)snprintf(p, sizeof(p), "%s%s", path, suffix) < sizeof(p) &&
	       access(p, F_OK) == 0;
}

/* The URI of a read-only open of PATH, IMMUTABLE or not (docs/store.md, "Read-only
 * opens"), heap, or NULL for PATH as it is (":memory:", an empty name). '%', '?' and
 * '#' of the name are escaped. */
static char *ro_uri(const char *path, bool immutable)
{
	size_t n = 0, len = strlen(path);
	char *uri, *o;

	if (!len || !strcmp(path, ":memory:"))
		return NULL;
	uri = malloc(3 * len + 48);
	if (!uri)
		return NULL;
	o = uri + sprintf(uri, path[0] == '/' ? "file://" : "file:");
	for (; n < len; n++)
		o += strchr("%?#", path[n]) ? sprintf(o, "%%%02X", (unsigned char)path[n]) :
		     sprintf(o, "%c", path[n]);
	sprintf(o, "?mode=ro%s", immutable ? "&immutable=1" : "");
	return uri;
}

/* Whether the main file of DB is in WAL mode (header bytes 18 and 19 both 2), read
 * through SQLite's own handle: a descriptor of our own, once closed, would drop every
 * POSIX lock this process holds on the file, SQLite's too (bpflabd's dashboard reads
 * the file its coordinator writes), and another process could then fold the -wal in and
 * delete it under the writer. */
static bool db_is_wal(sqlite3 *db)
{
	sqlite3_file *f = NULL;
	unsigned char h[20];

	return sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &f) == SQLITE_OK &&
	       f && f->pMethods && f->pMethods->xRead(f, h, sizeof(h), 0) == SQLITE_OK &&
	       !memcmp(h, "SQLite format 3", 16) && h[18] == 2 && h[19] == 2;
}

/* Open PATH read-only into ST->db, creating no file (docs/store.md, "Read-only opens"):
 * a WAL file without its -wal immutable (no connection has it open, so there is no log
 * to read; immutable is the only way SQLite reads a WAL file without making -wal and
 * -shm: refused in a read-only directory, left behind in a writable one); a WAL file
 * with its -wal (a live writer's, or a crashed one's commits) shared, through its -shm,
 * so that they are seen; any other file (a rollback journal: a writer changes the file
 * itself, under locks) shared. *IMMUTABLE says which. Returns SQLite's code. */
static int open_ro(struct store *st, const char *path, bool *immutable)
{
	const int flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI;
	char *uri = NULL;
	int rc;

	*immutable = !companion_exists(path, "-wal");
	uri = ro_uri(path, *immutable);
	if (!uri)	/* ":memory:", or no memory for the URI: the name as it is */
		return sqlite3_open_v2(path, &st->db, flags & ~SQLITE_OPEN_URI, NULL);
	rc = sqlite3_open_v2(uri, &st->db, flags, NULL);
	free(uri);
	if (rc != SQLITE_OK || !*immutable || db_is_wal(st->db))
		return rc;
	/* not WAL: locks, not immutable (closing SQLite's handle keeps others' locks) */
	sqlite3_close_v2(st->db);
	st->db = NULL;
	*immutable = false;
	uri = ro_uri(path, false);
	if (!uri)
		return SQLITE_NOMEM;
	rc = sqlite3_open_v2(uri, &st->db, flags, NULL);
	free(uri);
	return rc;
}

/* Refuse a write open of PATH that SQLite would take read-only and fail at its first
 * write with "attempt to write a readonly database": a file we may not write, or one in
 * a directory where its -wal and -shm cannot be made. 0 or -EROFS with the message. */
static int writable_check(struct store *st, const char *path)
{
	char dir[PATH_MAX];
	char *slash;
	int why;

	if (!strcmp(path, ":memory:") || access(path, F_OK))
		return 0;	/* new files: SQLite says why it cannot create one */
	if (access(path, W_OK))
		return store_fail(st, -EROFS, "the file is read-only (%s), and this command "
				  "writes to it", strerror(errno));
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		slash[slash == dir] = '\0';
	if (!access(dir, W_OK))
		return 0;
	why = errno;
	if (companion_exists(path, "-wal") && companion_exists(path, "-shm"))
		return 0;
	return store_fail(st, -EROFS, "its directory '%s' is not writable (%s), and a write "
			  "needs its '-wal' and '-shm' files beside it", dir, strerror(why));
}

struct store *store_open(const char *path, bool readonly, struct err *e)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	int flags = readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	bool immutable = false;
	struct store *st;
	int err = 0, rc, version;

	err_clear(e);
	pthread_once(&once, sqlite_setup);
	st = calloc(1, sizeof(*st));
	if (!st || !(st->path = strdup(path))) {
		free(st);
		err_set(e, "cannot open database '%s': out of memory", path);
		errno = ENOMEM;
		return NULL;
	}
	if (!readonly)
		err = writable_check(st, path);
	if (err)
		goto out;
	rc = readonly ? open_ro(st, path, &immutable) :
	     sqlite3_open_v2(path, &st->db, flags | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		err = st->db ? sto_dberr(st, rc) : store_fail(st, -ENOMEM, "out of memory");
		goto out;
	}
	/* Lookaside for the writer: its cached statements hold SQLite's default 100
	 * slots, so every statement's registers and records went to malloc and free.
	 * A no-op where SQLite is built with SQLITE_OMIT_LOOKASIDE, as Debian's is
	 * (bench/README.md, "issue 24 item 7, session 14"). */
	if (!readonly)
		sqlite3_db_config(st->db, SQLITE_DBCONFIG_LOOKASIDE, NULL, STORE_LOOKASIDE_SLOT,
				  STORE_LOOKASIDE_SLOTS);
	if (!readonly && sqlite3_db_readonly(st->db, "main") == 1) {
		err = store_fail(st, -EROFS, "the file is read-only, and this command writes "
				 "to it");
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
	if (version < 0 && readonly && !immutable && companion_exists(path, "-wal")) {
		err = sto_context(st, version, "cannot read its write-ahead log '%s-wal' (a writer "
				  "has it open, or one stopped before folding it in; open the "
				  "file read-write once, or read a copy)", path);
		goto out;
	}
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
	if (rc == SQLITE_OK)
		rc = sqlite3_wal_autocheckpoint(st->db, STORE_WAL_CHECKPOINT_PAGES);
	if (rc != SQLITE_OK) {
		err = sto_dberr(st, rc);
		goto out;
	}
	err = migrate(st, version);
	if (err) {
		/* migrate() gave the context; report its message as it is. */
		err_set(e, "%s", st->err.msg);
		store_free(st);
		errno = -err;
		return NULL;
	}
out:
	if (err) {
		err_set(e, "cannot open database '%s': %s", path, st->err.msg);
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

const struct err *store_err(const struct store *st)
{
	return &st->err;
}

static const struct sto_stmt stmt_page_size = { "PRAGMA page_size" };

int store_set_size_limit(struct store *st, int64_t bytes)
{
	int64_t page_size = 4096, pages;
	char sql[64];
	int err, rc;

	err = sto_query_int(st, &stmt_page_size, &page_size, "");
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

/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* store_int.h - inside the store: what lib/store/store.c and its parts share (store_queue.c
 * hosts and the job queue, store_run.c runs, store_ingest.c results, store_import.c imports,
 * store_query.c the query objects, and the companions store_bisect.c, store_boot.c,
 * store_link.c, store_noise.c, store_repeat.c). Not for anyone else: the store's users
 * see store.h.
 *
 * Every statement is a constant SQL text defined beside the function that runs it
 * (struct sto_stmt), prepared once on first use and kept for the life of the
 * connection (sto_prep); values are always bound, never formatted into SQL. Statements
 * are reset right after use (sto_done), so no read stays open across calls, and one
 * statement is never run again while a read of it is open (a function that reads rows
 * runs other statements only). The schema lives in schema/NNN_*.sql alone: no statement
 * creates or alters a table. A query is its SELECT and the table of its columns
 * (store_sql.h).
 *
 * Errors: the function that fails fills st->err (store_fail, sto_dberr), and the
 * exported function that called it puts its context in front (sto_context: "cannot
 * store result of job 3: database or disk is full"), rolls back and returns -errno. The
 * caller reads st->err with store_err().
 */
#ifndef BPFLAB_STORE_INT_H
#define BPFLAB_STORE_INT_H

#include <sqlite3.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "store/store.h"
#include "store/store_sql.h"

#define STORE_BUSY_TIMEOUT_MS 5000
#define STORE_ERR_LEN 1024

/* A statement of the store, defined beside the function that runs it:
 *
 *	static const struct sto_stmt stmt_job_get = { "SELECT ... WHERE id = ?1" };
 *	err = sto_query_row(st, &stmt_job_get, &s, "i", job_id);
 *
 * Prepared on first use and kept in the connection's statement cache (by the address
 * of its definition) for the life of the connection. */
struct sto_stmt {
	const char *sql;
};

/* The statement cache: open addressing by the address of a struct sto_stmt. A power of
 * two, and at least twice the number of statements the store has. */
#define STMT_CACHE 512

struct stmt_ent {
	const struct sto_stmt *def;	/* NULL: empty */
	sqlite3_stmt *s;
};

/* Series ids seen by this connection, direct-mapped by a hash of the key. An id is only
 * kept while the transaction that found or added it can still commit: tx_end empties
 * the cache on every rollback, and a committed series row is never changed or deleted,
 * so a cached id stays right for the life of the connection. */
#define SERIES_CACHE 256

struct series_ent {
	char *key;			/* "metric\0subject\0window", owned; NULL: empty */
	size_t key_len;
	int64_t id;
};

/* The environment a result without one is stored with, by host (direct-mapped by host
 * id): its hello inventory's text and the id of the environment made of it. Kept like
 * the series ids: emptied on every rollback; environment rows are never changed or
 * deleted. The table grows (a power of two, ENV_CACHE_MIN to ENV_CACHE_MAX slots) to hold
 * the largest host id seen, so that each host of a big lab keeps its slot: host ids are
 * small, dense row ids (with 64 fixed slots, 1,000 hosts missed on every result). */
#define ENV_CACHE_MIN 64
#define ENV_CACHE_MAX 65536

struct env_ent {
	char *inventory;		/* owned; NULL: empty */
	size_t len;
	int64_t host_id, env_id;
	bool icount;
};

struct store {
	sqlite3 *db;
	char *path;
	struct stmt_ent stmts[STMT_CACHE];
	size_t n_stmts;
	struct series_ent series[SERIES_CACHE];
	struct env_ent *envs;		/* n_envs slots; NULL until the first is needed */
	size_t n_envs;
	struct err err;			/* the last failure (store_err) */
	/* store_batch_begin: the transaction is open and each write is a savepoint in it;
	 * BATCH_LOST: SQLite rolled the whole transaction back (a full disk, an I/O error) */
	bool batch, batch_lost;
};

/* Empty the series and environment caches (on every rollback). */
void sto_caches_clear(struct store *st);

/* SQLite's message for a failed call that returned RC, as -errno. */
int sto_dberr(struct store *st, int rc);

/* Put CONTEXT in front of the current message: "CONTEXT: message". */
int sto_context(struct store *st, int err, const char *fmt, ...);

int sto_prep(struct store *st, const struct sto_stmt *def, sqlite3_stmt **s);

void sto_done(sqlite3_stmt *s);

/* Bind values by TYPES (sql_bind_va: i int64_t, o int64_t or NULL when negative, t text,
 * b blob and size, r double); on failure nothing stays bound. */
int sto_bind(struct store *st, sqlite3_stmt *s, const char *types, ...);

/* Run statement DEF with values bound by TYPES to completion. *CHANGES (may be NULL)
 * gets the number of rows it changed. */
int sto_exec(struct store *st, const struct sto_stmt *def, int64_t *changes,
	     const char *types, ...);

/* Statement DEF bound by TYPES and stepped once: 0 with *S on its first row (read the
 * columns, then sto_done(*S)), -ENOENT when there is no row (message "no such row"), or
 * -errno; on anything but 0 the statement is already reset. */
int sto_query_row(struct store *st, const struct sto_stmt *def, sqlite3_stmt **s,
		  const char *types, ...);

/* The first column of the first row of statement DEF as an integer into *OUT; -ENOENT
 * when there is no row (message set), or -errno. */
int sto_query_int(struct store *st, const struct sto_stmt *def, int64_t *out,
		  const char *types, ...);

/* Every row of statement DEF, bound by TYPES, by the N columns of COLS (sql_row_json):
 * a new array, or NULL with errno set and the message in the store. */
json_t *sto_query_rows(struct store *st, const struct sto_stmt *def,
		       const struct sql_col *cols, size_t n, const char *types, ...);

/* RUNS (a filter's "runs": an array of run ids) as JSON text for a json_each() bind
 * into *TEXT (heap, the caller frees it). Returns 0, or -EINVAL (not an array of
 * integers) or -ENOMEM with the store's message set. */
int sto_runs_text(struct store *st, const json_t *runs, char **text);

/* Begin a write: a transaction, or in a batch (store_batch_begin) a savepoint of it. */
int sto_tx_begin(struct store *st);

/* Commit when ERR is 0; roll back when it is not or when the commit fails. Keeps the
 * first message. Returns the outcome. In a batch the same for the savepoint: released,
 * or rolled back to (the batch's other writes stay). */
int sto_tx_end(struct store *st, int err);

/* sto_tx_begin and sto_tx_end for a write whose own failure (BEGIN, COMMIT) reads
 * "cannot WHAT: SQLite's message"; a failure ERR brought keeps its message. */
int sto_write_begin(struct store *st, const char *what);
int sto_write_end(struct store *st, int err, const char *what);

/* The string at OBJ.K1 (or OBJ.K1.K2 when K2), or NULL. */
const char *sto_json_str_at(const json_t *obj, const char *k1, const char *k2);

/* store_queue.c, for store_ingest.c: a job's row, and making a host idle when it is
 * busy and has no running job left. */
struct job_row {
	int64_t run_id, host_id;
	char state[8];
	bool has_result;
	int64_t attempts;		/* times handed to an agent */
};

int sto_job_get(struct store *st, int64_t job_id, struct job_row *row);
/* Job JOB_ID's row by STMT, whose first five columns are stmt_job_get's, into *ROW
 * (-ENOENT, with the store's message, for an unknown job); on success the statement
 * stays open in *S for the caller's further columns, ended by sto_done. */
int sto_job_query(struct store *st, const struct sto_stmt *stmt, int64_t job_id,
		  struct job_row *row, sqlite3_stmt **s);

/* store_ingest.c, for store_import.c: the id of series (METRIC, SUBJECT, WINDOW) into
 * *ID, added when new (cached per connection); the environment ENV of host HOST_ID (NULL:
 * its hello inventory) found or added, its id into *ENV_ID and whether it is timed by
 * icount into *ICOUNT. Both in the caller's transaction. */
int sto_series_id(struct store *st, const char *metric, const char *subject,
		  const char *window, int64_t *id);
int sto_env_upsert(struct store *st, int64_t host_id, const json_t *env, int64_t now_ms,
		   int64_t *env_id, bool *icount);
int sto_host_idle_if_free(struct store *st, int64_t host_id);

/* store_run.c, for store_queue.c and store_ingest.c's imports: a run's rows as a plan
 * makes them, a host that matched it, its state (FINISHED_MS NULL when negative), and
 * its state after one of its jobs moved (into STATE; *FINISHED when it ended now). */
int sto_run_insert(struct store *st, const char *plan, const char *sha256, const char *text,
		   const char *file, const char *overrides, const char *variants,
		   int64_t repeat, int64_t now_ms, int64_t *run_id);
int sto_spec_insert(struct store *st, const char *text, int64_t *spec_id);
int sto_job_insert(struct store *st, int64_t run_id, int64_t seq, int64_t host_id,
		   const char *variant, int64_t variant_idx, int64_t rep, const char *point,
		   int64_t spec_id);
int sto_run_host_add(struct store *st, int64_t run_id, int64_t host_id, bool chosen);
int sto_run_set_state(struct store *st, int64_t run_id, const char *state, int64_t finished_ms);
int sto_run_refresh(struct store *st, int64_t run_id, int64_t now_ms,
		    char state[STORE_STATE_LEN], bool *finished);

#endif

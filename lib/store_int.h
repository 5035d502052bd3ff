/* store_int.h - inside the store: what lib/store.c and its parts share (store_stmt.c
 * the statements, store_queue.c hosts, runs and the job queue, store_ingest.c results
 * and imports, store_query.c the query objects). Not for anyone else: the store's users
 * see store.h, its companions (store_bisect.c, ...) store_db and store_fail.
 *
 * Every statement is a constant SQL text of store_stmt_sql[], prepared once on first use
 * and kept for the life of the connection (sto_prep); values are always bound, never
 * formatted into SQL. Statements are reset right after use (sto_done), so no read stays
 * open across calls. A query is its SELECT and the table of its columns (store_sql.h).
 *
 * Errors: the function that fails writes a message into st->err (store_fail, sto_dberr),
 * and the exported function that called it puts its context in front (sto_context:
 * "cannot store result of job 3: database or disk is full"), rolls back and returns
 * -errno.
 */
#ifndef BPFLAB_STORE_INT_H
#define BPFLAB_STORE_INT_H

#include <sqlite3.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "store.h"
#include "store_sql.h"

#define STORE_BUSY_TIMEOUT_MS 5000
#define STORE_ERR_LEN 1024

enum stmt_id {
	S_BEGIN,
	S_COMMIT,
	S_ROLLBACK,
	S_SAVEPOINT,
	S_RELEASE,
	S_ROLLBACK_TO,
	S_ROUND_OPEN,
	S_USER_VERSION,
	S_PAGE_SIZE,
	S_HOST_UPSERT,
	S_HOST_REQUEUE,
	S_HOST_SEEN,
	S_HOST_GONE,
	S_HOST_BUSY,
	S_HOST_IDLE_IF_FREE,
	S_HOST_PENDING,
	S_HOST_INVENTORY,
	S_PLAN_INSERT,
	S_PLAN_ID,
	S_OBJECT_INSERT,
	S_OBJECT_GET,
	S_RUN_INSERT,
	S_RUN_OBJECT_INSERT,
	S_RUN_COUNTS,
	S_RUN_STATE,
	S_RUN_SET_STATE,
	S_JOB_INSERT,
	S_JOB_NEXT,
	S_JOB_GET,
	S_JOB_DISPATCH,
	S_JOB_ACCEPT,
	S_JOB_REQUEUE,
	S_JOB_FAIL,
	S_JOB_RESULT,
	S_JOB_RESULT_VERDICTS,
	S_ENV_INSERT,
	S_ENV_ID,
	S_SERIES_INSERT,
	S_SERIES_ID,
	S_SAMPLE_INSERT,
	S_RECOVER_JOBS,
	S_RECOVER_HOSTS,
	S_ATTEMPT_INSERT,
	S_ATTEMPT_CLOSE_JOB,
	S_ATTEMPT_LOST_HOST,
	S_ATTEMPT_RESULT,
	S_ATTEMPT_BY_HOST,
	S_ATTEMPT_LOST_COUNT,
	S_RECOVER_ATTEMPTS,
	S_RUN_HOST_INSERT,
	S_HOST_RUNNING_JOBS,
	S_HOST_QUEUED_RUNS,
	S_RUN_REPLACEMENT,
	S_JOBS_MOVE,
	S_RUN_CANCEL_QUEUED,
	S_RUN_RUNNING_JOBS,
	S_HOST_NAME,
	S_Q_ATTEMPTS,
	S_Q_HOSTS,
	S_Q_RUNS,
	S_Q_RUN,
	S_Q_RUN_JOBS,
	S_Q_RESULT_HOSTS,
	S_Q_RESULT_SAMPLES,
	S_Q_VALUES,
	S_IMPORT_HOST,
	S__MAX
};

/* The SQL of each statement (store_stmt.c). */
extern const char *const store_stmt_sql[S__MAX];

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

/* The environment a result without one is stored with, by host (direct-mapped): its
 * hello inventory's text and the id of the environment made of it. Kept like the series
 * ids: emptied on every rollback; environment rows are never changed or deleted. */
#define ENV_CACHE 64

struct env_ent {
	char *inventory;		/* owned; NULL: empty */
	size_t len;
	int64_t host_id, env_id;
	bool icount;
};

struct store {
	sqlite3 *db;
	char *path;
	sqlite3_stmt *stmt[S__MAX];
	struct series_ent series[SERIES_CACHE];
	struct env_ent envs[ENV_CACHE];
	char err[STORE_ERR_LEN];
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

int sto_prep(struct store *st, enum stmt_id id, sqlite3_stmt **s);

void sto_done(sqlite3_stmt *s);

/* Bind values by TYPES (sql_bind_va: i int64_t, o int64_t or NULL when negative, t text,
 * b blob and size, r double); on failure nothing stays bound. */
int sto_bind_va(struct store *st, sqlite3_stmt *s, const char *types, va_list ap);

int sto_bind(struct store *st, sqlite3_stmt *s, const char *types, ...);

/* Statement ID prepared (once) and bound by TYPES (bind_va) into *S; on failure nothing
 * stays bound. The helper behind sto_exec() and sto_query_int(). */
int sto_prep_bind_va(struct store *st, enum stmt_id id, sqlite3_stmt **s, const char *types,
		     va_list ap);

/* Run statement ID with values bound by TYPES to completion. *CHANGES (may be NULL)
 * gets the number of rows it changed. */
int sto_exec_va(struct store *st, enum stmt_id id, int64_t *changes, const char *types,
		va_list ap);

int sto_exec(struct store *st, enum stmt_id id, int64_t *changes, const char *types, ...);

/* Statement ID bound by TYPES and stepped once: 0 with *S on its first row (read the
 * columns, then sto_done(*S)), -ENOENT when there is no row (message "no such row"), or
 * -errno; on anything but 0 the statement is already reset. */
int sto_query_row_va(struct store *st, enum stmt_id id, sqlite3_stmt **s,
		     const char *types, va_list ap);

int sto_query_row(struct store *st, enum stmt_id id, sqlite3_stmt **s, const char *types,
		  ...);

/* The first column of the first row of statement ID as an integer into *OUT; -ENOENT
 * when there is no row (message set), or -errno. */
int sto_query_int(struct store *st, enum stmt_id id, int64_t *out, const char *types, ...);

/* Every row of statement ID, bound by TYPES, by the N columns of COLS (sql_row_json):
 * a new array, or NULL with errno set and the message in the store. */
json_t *sto_query_rows(struct store *st, enum stmt_id id, const struct sql_col *cols,
		       size_t n, const char *types, ...);

/* Begin a write: a transaction, or in a batch (store_batch_begin) a savepoint of it. */
int sto_tx_begin(struct store *st);

/* Commit when ERR is 0; roll back when it is not or when the commit fails. Keeps the
 * first message. Returns the outcome. In a batch the same for the savepoint: released,
 * or rolled back to (the batch's other writes stay). */
int sto_tx_end(struct store *st, int err);

/* The string at OBJ.K1 (or OBJ.K1.K2 when K2), or NULL. */
const char *sto_json_str_at(const json_t *obj, const char *k1, const char *k2);

/* store_queue.c, for store_ingest.c: a job's row, and a run's state after one of its
 * jobs moved (into STATE; *FINISHED when it ended now). */
struct job_row {
	int64_t run_id, host_id;
	char state[8];
	bool has_result;
};

int sto_job_get(struct store *st, int64_t job_id, struct job_row *row);
int sto_run_refresh(struct store *st, int64_t run_id, int64_t now_ms,
		    char state[STORE_STATE_LEN], bool *finished);

#endif

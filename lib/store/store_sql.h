/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* store_sql.h - the shapes that every reader of the store repeats, written once, for
 * lib/store/store.c and its parts and companions (store_*.c); nothing else should talk SQL
 * (docs/store.md).
 *
 * - A row of a statement becomes a JSON object by a column table: column i of the row
 *   is COLS[i] (a JSON key and a type), so a reader is its SELECT plus the table that
 *   names the columns, in the same order.
 * - Values are bound by letters, one per parameter from ?1 on (sql_bind).
 * - A prepared statement is bound and stepped (sql_step_va) or run (sql_run_va) and
 *   left reset for its next use: the store keeps its statements prepared (store_int.h);
 *   one-call helpers prepare, do the same and finalize.
 *
 * The functions return SQLite result codes (SQLITE_OK, SQLITE_ROW, SQLITE_DONE or the
 * error); sql_errno() turns one into -errno. The caller writes the message: it knows
 * what was being done.
 */
#ifndef BPFLAB_STORE_SQL_H
#define BPFLAB_STORE_SQL_H

#include <jansson.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* What a column becomes in JSON. A NULL column is null, or no member (SQL_OMIT_NULL). */
enum sql_type {
	SQL_INT,	/* integer */
	SQL_REAL,	/* real number */
	SQL_TEXT,	/* string */
	SQL_JSON,	/* JSON text, parsed; text that does not parse is null */
	SQL_FLAG,	/* true when the integer is not 0; no member when it is 0 */
};

/* sql_col.flags */
#define SQL_OMIT_NULL	1u	/* no member when the column is NULL */

/* One column of a row: its JSON member. */
struct sql_col {
	const char *key;
	enum sql_type type;
	unsigned int flags;
};

/* Column I of the current row of S as TYPE (SQL_FLAG: true or false); a NULL column is
 * null. NULL when the value cannot be made (as sql_row_json). */
json_t *sql_column(sqlite3_stmt *s, int i, enum sql_type type);

/* The first N columns of the current row of S as a new object, member COLS[i].key for
 * column i, in table order. NULL when a value cannot be made: no memory, a text that is
 * not UTF-8, a real that is not finite. */
json_t *sql_row_json(sqlite3_stmt *s, const struct sql_col *cols, size_t n);

/* Step S (prepared and bound) to its end, each row by sql_row_json, into a new array in
 * *OUT (NULL unless the result is SQLITE_OK). Returns SQLITE_OK, SQLITE_NOMEM when a row
 * could not be made, or the code of the step that failed. S is left as it is (the
 * caller resets or finalizes it). */
int sql_rows_json(sqlite3_stmt *s, const struct sql_col *cols, size_t n, json_t **out);

/* Bind values by TYPES, one letter per parameter from ?1 on:
 *   i int64_t;  o int64_t, NULL when negative;  t const char * (NULL binds NULL);
 *   b const void * and size_t (a blob);  r double;  j const json_t * as compact JSON
 *   text (NULL binds NULL);  n nothing taken, binds NULL.
 * Texts and blobs are not copied: they must outlive the step. Returns SQLITE_OK or the
 * code of the bind that failed (SQLITE_NOMEM when a json_t could not be written). */
int sql_bind_va(sqlite3_stmt *s, const char *types, va_list ap);

/* The int value of CALL, an expression that takes the arguments after parameter LAST of
 * the variadic function it is in as va_list `ap`: the one place the store's variadic
 * functions hand their values on. */
#define SQL_VA(last, call)							\
	__extension__({								\
		va_list ap;							\
		int va_ret_;							\
										\
		va_start(ap, last);						\
		va_ret_ = (call);						\
		va_end(ap);							\
		va_ret_;							\
	})
int sql_bind(sqlite3_stmt *s, const char *types, ...);

/* A prepared statement S, bound by TYPES (sql_bind_va) and stepped once. SQLITE_ROW: S
 * stands on its first row; read its columns, then sql_reset(S). Otherwise S is already
 * reset and the result is SQLITE_DONE (no row) or the error. */
int sql_step_va(sqlite3_stmt *s, const char *types, va_list ap);

/* A prepared statement S, bound by TYPES and run to its end, then reset; *CHANGES (may
 * be NULL) gets the rows it changed. Returns SQLITE_OK or the error. */
int sql_run_va(sqlite3_stmt *s, int64_t *changes, const char *types, va_list ap);

/* Reset S and clear its bindings, ready for its next use. */
void sql_reset(sqlite3_stmt *s);

/* One-call statements: prepare SQL, then as above, then finalize. */

/* SQL as sql_step_va. SQLITE_ROW: *S stands on the first row; read its columns, then
 * sqlite3_finalize(*S). Otherwise *S is NULL and the result is SQLITE_DONE (no row) or
 * the error. */
int sql_first(sqlite3 *db, const char *sql, sqlite3_stmt **s, const char *types, ...);

/* The first column of the first row of SQL (bound by TYPES) into *OUT. Returns
 * SQLITE_ROW, SQLITE_DONE (no row: *OUT unchanged) or the error. */
int sql_int(sqlite3 *db, const char *sql, int64_t *out, const char *types, ...);

/* Every row of SQL (bound by TYPES) by the N columns of COLS into a new array in *OUT,
 * as sql_rows_json. */
int sql_rows(sqlite3 *db, const char *sql, const struct sql_col *cols, size_t n,
	     json_t **out, const char *types, ...);

/* SQL as sql_run_va. Returns SQLITE_OK or the error. */
int sql_exec(sqlite3 *db, const char *sql, int64_t *changes, const char *types, ...);

/* The -errno for SQLite result code RC (0 for SQLITE_OK, ROW, DONE): -ENOSPC full,
 * -EROFS read-only, -EINVAL a constraint or a bad value, -EBUSY locked, -ENOMEM,
 * -EACCES, -ENOENT cannot open, -EBADMSG not a database or corrupt, else -EIO. */
int sql_errno(int rc);

#endif

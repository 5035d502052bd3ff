// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* store_sql.c - see store_sql.h. Rows to JSON by a column table, binding by letters,
 * binding and stepping a prepared statement, and one-call statements over the same.
 */
#include "store/store_sql.h"

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

json_t *sql_column(sqlite3_stmt *s, int i, enum sql_type type)
{
	const char *t;
	json_t *v;

	if (sqlite3_column_type(s, i) == SQLITE_NULL)
		return json_null();
	switch (type) {
	case SQL_INT:
		return json_integer(sqlite3_column_int64(s, i));
	case SQL_REAL:
		return json_real(sqlite3_column_double(s, i));
	case SQL_TEXT:
		return json_string((const char *)sqlite3_column_text(s, i));
	case SQL_JSON:
		t = (const char *)sqlite3_column_text(s, i);
		v = t ? json_loads(t, JSON_DECODE_ANY, NULL) : NULL;
		return v ? v : json_null();
	case SQL_FLAG:
		return json_boolean(sqlite3_column_int64(s, i));
	}
	assert(!"bad column type");
	return NULL;
}

/* Column I of S as COL says, or NULL when it cannot be made; *OMIT when the member is
 * to be left out. */
static json_t *col_value(sqlite3_stmt *s, int i, const struct sql_col *col, bool *omit)
{
	bool null = sqlite3_column_type(s, i) == SQLITE_NULL;

	*omit = (null && (col->flags & SQL_OMIT_NULL)) ||
		(col->type == SQL_FLAG && (null || !sqlite3_column_int64(s, i)));
	return *omit ? NULL : sql_column(s, i, col->type);
}

json_t *sql_row_json(sqlite3_stmt *s, const struct sql_col *cols, size_t n)
{
	json_t *row = json_object(), *v;
	bool omit;
	size_t i;

	for (i = 0; row && i < n; i++) {
		v = col_value(s, (int)i, &cols[i], &omit);
		if (omit)
			continue;
		if (!v || json_object_set_new(row, cols[i].key, v)) {
			json_decref(row);
			row = NULL;
		}
	}
	return row;
}

int sql_rows_json(sqlite3_stmt *s, const struct sql_col *cols, size_t n, json_t **out)
{
	json_t *arr = json_array(), *row;
	int rc = SQLITE_NOMEM;

	*out = NULL;
	while (arr && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		row = sql_row_json(s, cols, n);
		if (!row || json_array_append_new(arr, row)) {
			rc = SQLITE_NOMEM;
			break;
		}
	}
	if (rc != SQLITE_DONE) {
		json_decref(arr);
		return rc;
	}
	*out = arr;
	return SQLITE_OK;
}

int sql_bind_va(sqlite3_stmt *s, const char *types, va_list ap)
{
	int i, rc = SQLITE_OK;

	for (i = 0; types[i] && rc == SQLITE_OK; i++) {
		switch (types[i]) {
		case 'i':
			rc = sqlite3_bind_int64(s, i + 1, va_arg(ap, int64_t));
			break;
		case 'o': {
			int64_t v = va_arg(ap, int64_t);

			rc = v < 0 ? sqlite3_bind_null(s, i + 1) : sqlite3_bind_int64(s, i + 1, v);
			break;
		}
		case 't': {
			const char *t = va_arg(ap, const char *);

			rc = t ? sqlite3_bind_text(s, i + 1, t, -1, SQLITE_STATIC) :
				 sqlite3_bind_null(s, i + 1);
			break;
		}
		case 'b': {
			const void *p = va_arg(ap, const void *);
			size_t n = va_arg(ap, size_t);

			rc = sqlite3_bind_blob64(s, i + 1, p ? p : "", n, SQLITE_STATIC);
			break;
		}
		case 'r':
			rc = sqlite3_bind_double(s, i + 1, va_arg(ap, double));
			break;
		case 'j': {
			const json_t *j = va_arg(ap, const json_t *);
			char *t = j ? json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;

			if (j && !t)
				return SQLITE_NOMEM;
			rc = t ? sqlite3_bind_text(s, i + 1, t, -1, free) :
				 sqlite3_bind_null(s, i + 1);
			break;
		}
		case 'n':
			rc = sqlite3_bind_null(s, i + 1);
			break;
		default:
			assert(!"bad bind type");
			rc = SQLITE_MISUSE;
		}
	}
	return rc;
}

int sql_bind(sqlite3_stmt *s, const char *types, ...)
{
	return SQL_VA(types, sql_bind_va(s, types, ap));
}

void sql_reset(sqlite3_stmt *s)
{
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
}

int sql_step_va(sqlite3_stmt *s, const char *types, va_list ap)
{
	int rc = sql_bind_va(s, types, ap);

	if (rc == SQLITE_OK)
		rc = sqlite3_step(s);
	if (rc != SQLITE_ROW)
		sql_reset(s);
	return rc;
}

int sql_run_va(sqlite3_stmt *s, int64_t *changes, const char *types, va_list ap)
{
	int rc = sql_bind_va(s, types, ap);

	if (rc == SQLITE_OK)
		while ((rc = sqlite3_step(s)) == SQLITE_ROW)
			;
	sql_reset(s);
	if (rc != SQLITE_DONE)
		return rc;
	if (changes)
		*changes = sqlite3_changes64(sqlite3_db_handle(s));
	return SQLITE_OK;
}

/* SQL prepared, bound by TYPES and stepped once (sql_step_va), or with RUN run to its end
 * (sql_run_va, *CHANGES). SQLITE_ROW of a step: *S stands on the first row; otherwise
 * *S is finalized and NULL. */
static int once_va(sqlite3 *db, const char *sql, sqlite3_stmt **s, bool run,
		   int64_t *changes, const char *types, va_list ap)
{
	int rc = sqlite3_prepare_v2(db, sql, -1, s, NULL);

	if (rc == SQLITE_OK)
		rc = run ? sql_run_va(*s, changes, types, ap) : sql_step_va(*s, types, ap);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(*s);
		*s = NULL;
	}
	return rc;
}

int sql_first(sqlite3 *db, const char *sql, sqlite3_stmt **s, const char *types, ...)
{
	return SQL_VA(types, once_va(db, sql, s, false, NULL, types, ap));
}

int sql_int(sqlite3 *db, const char *sql, int64_t *out, const char *types, ...)
{
	sqlite3_stmt *s = NULL;
	int rc = SQL_VA(types, once_va(db, sql, &s, false, NULL, types, ap));

	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int64(s, 0);
		sqlite3_finalize(s);
	}
	return rc;
}

int sql_rows(sqlite3 *db, const char *sql, const struct sql_col *cols, size_t n,
	     json_t **out, const char *types, ...)
{
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);

	*out = NULL;
	if (rc == SQLITE_OK)
		rc = SQL_VA(types, sql_bind_va(s, types, ap));
	if (rc == SQLITE_OK)
		rc = sql_rows_json(s, cols, n, out);
	sqlite3_finalize(s);
	return rc;
}

int sql_exec(sqlite3 *db, const char *sql, int64_t *changes, const char *types, ...)
{
	sqlite3_stmt *s = NULL;

	return SQL_VA(types, once_va(db, sql, &s, true, changes, types, ap));
}

int sql_errno(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_ROW:
	case SQLITE_DONE:
		return 0;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_READONLY:
		return -EROFS;
	case SQLITE_CONSTRAINT:
	case SQLITE_MISMATCH:
	case SQLITE_RANGE:
	case SQLITE_TOOBIG:
		return -EINVAL;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return -EACCES;
	case SQLITE_CANTOPEN:
		return -ENOENT;
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT:
		return -EBADMSG;
	default:
		return -EIO;
	}
}

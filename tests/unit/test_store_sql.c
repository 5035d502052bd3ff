// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_store_sql.c - unit tests for lib/store/store_sql.c on a real in-memory SQLite database:
 * a row to JSON by its column table (every type, NULL as null or left out, the flag, key
 * order, a value that cannot be made), all rows in order, every bind letter, the
 * one-call statements (first row, integer, rows, exec) with their results for no row
 * and for a bad statement, and the SQLite code to errno table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_sql.h"
#include "base/util.h"

static const char fixture[] =
	"CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER, r REAL, s TEXT, j TEXT, f INTEGER);"
	"INSERT INTO t VALUES (1, 10, 1.5, 'one', '{\"a\":[1,2]}', 1);"
	"INSERT INTO t VALUES (2, NULL, NULL, NULL, NULL, NULL);"
	"INSERT INTO t VALUES (3, -3, 0.25, '', 'not json', 0);";

static const struct sql_col cols[] = {
	{ "id", SQL_INT, 0 }, { "n", SQL_INT, 0 }, { "r", SQL_REAL, 0 },
	{ "s", SQL_TEXT, SQL_OMIT_NULL }, { "j", SQL_JSON, 0 }, { "f", SQL_FLAG, 0 },
};

static int setup(void **state)
{
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	sqlite3_extended_result_codes(db, 1);	/* as store_open */
	assert_int_equal(sqlite3_exec(db, fixture, NULL, NULL, NULL), SQLITE_OK);
	*state = db;
	return 0;
}

static int teardown(void **state)
{
	sqlite3_close(*state);
	return 0;
}

static void assert_json(const json_t *j, const char *want)
{
	char *got = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);

	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_rows_by_table(void **state)
{
	sqlite3 *db = *state;
	json_t *rows = NULL;

	assert_int_equal(sql_rows(db, "SELECT id, n, r, s, j, f FROM t ORDER BY id DESC", cols,
				  ARRAY_SIZE(cols), &rows, ""), SQLITE_OK);
	/* table order; NULL is null, or no member (s); unparsable JSON text is null; the
	 * flag is true or left out */
	assert_json(rows, "[{\"id\":3,\"n\":-3,\"r\":0.25,\"s\":\"\",\"j\":null},"
		    "{\"id\":2,\"n\":null,\"r\":null,\"j\":null},"
		    "{\"id\":1,\"n\":10,\"r\":1.5,\"s\":\"one\",\"j\":{\"a\":[1,2]},\"f\":true}]");
	json_decref(rows);

	/* only the first N columns of the table */
	assert_int_equal(sql_rows(db, "SELECT id, n FROM t WHERE id = ?1", cols, 2, &rows, "i",
				  (int64_t)1), SQLITE_OK);
	assert_json(rows, "[{\"id\":1,\"n\":10}]");
	json_decref(rows);

	/* no row: an empty array */
	assert_int_equal(sql_rows(db, "SELECT id FROM t WHERE id > 99", cols, 1, &rows, ""),
			 SQLITE_OK);
	assert_json(rows, "[]");
	json_decref(rows);
}

static void test_row_fails_whole(void **state)
{
	sqlite3 *db = *state;
	json_t *rows = (json_t *)1;

	/* a text that is not UTF-8 cannot become a string: no array at all */
	assert_int_equal(sql_rows(db, "SELECT 1, 2, 3.0, CAST(X'FF' AS TEXT)", cols, 4, &rows,
				  ""), SQLITE_NOMEM);
	assert_null(rows);
	/* a bad statement: its code, no array */
	rows = (json_t *)1;
	assert_int_equal(sql_rows(db, "SELECT nope FROM t", cols, 1, &rows, ""), SQLITE_ERROR);
	assert_null(rows);
}

static void test_column(void **state)
{
	sqlite3 *db = *state;
	sqlite3_stmt *s = NULL;
	json_t *v;

	assert_int_equal(sql_first(db, "SELECT f, NULL, '[1]' FROM t WHERE id = 3", &s, ""),
			 SQLITE_ROW);
	v = sql_column(s, 0, SQL_FLAG);
	assert_true(json_is_false(v));
	json_decref(v);
	v = sql_column(s, 1, SQL_TEXT);
	assert_true(json_is_null(v));
	json_decref(v);
	v = sql_column(s, 2, SQL_JSON);
	assert_json(v, "[1]");
	json_decref(v);
	sqlite3_finalize(s);
}

static void test_bind_letters(void **state)
{
	sqlite3 *db = *state;
	static const struct sql_col any[] = {
		{ "i", SQL_INT, 0 }, { "o", SQL_INT, 0 }, { "o2", SQL_INT, 0 },
		{ "t", SQL_TEXT, 0 }, { "t0", SQL_TEXT, 0 }, { "b", SQL_TEXT, 0 },
		{ "r", SQL_REAL, 0 }, { "j", SQL_JSON, 0 }, { "j0", SQL_TEXT, 0 },
		{ "n", SQL_TEXT, 0 },
	};
	json_t *rows = NULL, *obj = json_pack("{s:[i]}", "k", 7);

	assert_non_null(obj);
	assert_int_equal(sql_rows(db, "SELECT ?1, ?2, ?3, ?4, ?5, hex(?6), ?7, ?8, ?9, ?10", any,
				  ARRAY_SIZE(any), &rows, "ioottbrjjn", (int64_t)-5, (int64_t)-1,
				  (int64_t)4, "x", (const char *)NULL, "AB", (size_t)2, 2.5, obj,
				  (const json_t *)NULL),
			 SQLITE_OK);
	assert_json(rows, "[{\"i\":-5,\"o\":null,\"o2\":4,\"t\":\"x\",\"t0\":null,\"b\":\"4142\","
		    "\"r\":2.5,\"j\":{\"k\":[7]},\"j0\":null,\"n\":null}]");
	json_decref(rows);
	json_decref(obj);
}

static void test_one_call_statements(void **state)
{
	sqlite3 *db = *state;
	sqlite3_stmt *s = (sqlite3_stmt *)1;
	int64_t v = 42, changes = 0;

	assert_int_equal(sql_first(db, "SELECT s FROM t WHERE id = ?1", &s, "i", (int64_t)1),
			 SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(s, 0), "one");
	sqlite3_finalize(s);
	s = (sqlite3_stmt *)1;
	assert_int_equal(sql_first(db, "SELECT s FROM t WHERE id = ?1", &s, "i", (int64_t)9),
			 SQLITE_DONE);
	assert_null(s);
	s = (sqlite3_stmt *)1;
	assert_int_equal(sql_first(db, "SELEKT 1", &s, ""), SQLITE_ERROR);
	assert_null(s);

	assert_int_equal(sql_int(db, "SELECT count(*) FROM t WHERE n < ?1", &v, "i",
				 (int64_t)0), SQLITE_ROW);
	assert_int_equal(v, 1);
	v = 42;
	assert_int_equal(sql_int(db, "SELECT n FROM t WHERE id = 9", &v, ""), SQLITE_DONE);
	assert_int_equal(v, 42);

	assert_int_equal(sql_exec(db, "UPDATE t SET n = ?2 WHERE id <= ?1", &changes, "ii",
				  (int64_t)2, (int64_t)5), SQLITE_OK);
	assert_int_equal(changes, 2);
	assert_int_equal(sql_int(db, "SELECT sum(n) FROM t", &v, ""), SQLITE_ROW);
	assert_int_equal(v, 7);
	/* a constraint: the code says so, and nothing changed */
	assert_int_equal(sql_exec(db, "INSERT INTO t (id) VALUES (?1)", NULL, "i", (int64_t)1),
			 SQLITE_CONSTRAINT_PRIMARYKEY);
	assert_int_equal(sql_errno(SQLITE_CONSTRAINT_PRIMARYKEY), -EINVAL);
	assert_int_equal(sql_int(db, "SELECT count(*) FROM t", &v, ""), SQLITE_ROW);
	assert_int_equal(v, 3);
}

static void test_errno(void **state)
{
	assert_int_equal(sql_errno(SQLITE_OK), 0);
	assert_int_equal(sql_errno(SQLITE_ROW), 0);
	assert_int_equal(sql_errno(SQLITE_DONE), 0);
	assert_int_equal(sql_errno(SQLITE_FULL), -ENOSPC);
	assert_int_equal(sql_errno(SQLITE_READONLY_DBMOVED), -EROFS);
	assert_int_equal(sql_errno(SQLITE_BUSY_SNAPSHOT), -EBUSY);
	assert_int_equal(sql_errno(SQLITE_LOCKED), -EBUSY);
	assert_int_equal(sql_errno(SQLITE_NOMEM), -ENOMEM);
	assert_int_equal(sql_errno(SQLITE_CANTOPEN), -ENOENT);
	assert_int_equal(sql_errno(SQLITE_NOTADB), -EBADMSG);
	assert_int_equal(sql_errno(SQLITE_IOERR_WRITE), -EIO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rows_by_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_row_fails_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_column, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bind_letters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_call_statements, setup, teardown),
		cmocka_unit_test(test_errno),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_store_ro.c - read-only opens of the store (store_open READONLY, docs/store.md
 * "Read-only opens"): no -wal or -shm made for a file no one has open, a live writer's
 * commits seen through its -wal (also through a symbolic link to the file), names that
 * need escaping in a URI. Permissions (a 0444
 * file in a 0555 directory, write refusals) need a user other than root: in
 * tests/integration/test_readonly_db.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store.h"
#include "helpers.h"

static const char inventory[] = "{\"ports\": []}";

/* Whether DB SUFFIX ("-wal") exists. */
static bool has(const char *db, const char *suffix)
{
	char p[512];

	snprintf(p, sizeof(p), "%s%s", db, suffix);
	return access(p, F_OK) == 0;
}

/* Register host NAME in DB with a read-write open, closed again. */
static void add_host(const char *db, const char *name)
{
	json_t *inv = json_loads(inventory, 0, NULL);
	struct err err;
	struct store *st = store_open(db, false, &err);
	int64_t id;

	assert_non_null(st);
	assert_int_equal(store_host_hello(st, name, "0.1", inv, 100, &id, NULL), 0);
	store_close(&st);
	json_decref(inv);
}

/* The number of hosts a read-only open of DB lists. */
static size_t ro_hosts(const char *db)
{
	struct err err;
	struct store *st = store_open(db, true, &err);
	json_t *hosts;
	size_t n;

	if (!st)
		fail_msg("read-only open of '%s': %s", db, err.msg);
	hosts = store_query_hosts(st);
	assert_non_null(hosts);
	n = json_array_size(hosts);
	json_decref(hosts);
	assert_false(has(db, "-shm") && !has(db, "-wal"));
	store_close(&st);
	return n;
}

/* A WAL file no connection has open: read as immutable, nothing made beside it. */
static void test_store_ro_no_files(void **state)
{
	char dir[] = "/tmp/bpflab-test-store-ro.XXXXXX", db[128];

	(void)state;
	tmpdir_make(dir);
	snprintf(db, sizeof(db), "%s/lab.db", dir);
	add_host(db, "h1");
	assert_false(has(db, "-wal"));
	assert_int_equal(ro_hosts(db), 1);
	assert_false(has(db, "-wal"));
	assert_false(has(db, "-shm"));
	assert_int_equal(tmpdir_remove(dir), 0);
}

/* A writer holds the file open (its -wal exists) and commits a host that stays in the
 * -wal: a read-only open sees it, and leaves the writer's files as they were. */
static void test_store_ro_live_writer(void **state)
{
	char dir[] = "/tmp/bpflab-test-store-ro.XXXXXX", db[128];
	sqlite3 *w = NULL;

	(void)state;
	tmpdir_make(dir);
	snprintf(db, sizeof(db), "%s/lab.db", dir);
	add_host(db, "h1");
	assert_int_equal(sqlite3_open(db, &w), SQLITE_OK);
	/* a read keeps its shared lock: the next writer's close cannot fold the -wal in */
	assert_int_equal(sqlite3_exec(w, "SELECT count(*) FROM hosts", NULL, NULL, NULL),
			 SQLITE_OK);
	add_host(db, "h2");
	assert_true(has(db, "-wal"));
	assert_int_equal(ro_hosts(db), 2);
	assert_true(has(db, "-wal"));
	sqlite3_close(w);
	assert_false(has(db, "-wal"));
	assert_false(has(db, "-shm"));
	assert_int_equal(ro_hosts(db), 2);
	assert_int_equal(tmpdir_remove(dir), 0);
}

/* Whether this process holds a POSIX lock on file DB (/proc/locks: "... PID MAJ:MIN:INODE
 * ..."): an idle SQLite connection in WAL mode keeps its SHARED lock on the file. */
static bool holds_lock(const char *db)
{
	char line[256], want[64];
	struct stat st;
	bool found = false;
	FILE *f;

	assert_int_equal(stat(db, &st), 0);
	snprintf(want, sizeof(want), " %d ", (int)getpid());
	f = fopen("/proc/locks", "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char ino[32];

		snprintf(ino, sizeof(ino), ":%lu ", (unsigned long)st.st_ino);
		if (strstr(line, want) && strstr(line, ino))
			found = true;
	}
	fclose(f);
	return found;
}

/* The writer in the same process (bpflabd --http: its dashboard reads the file the
 * coordinator writes): each read-only open sees the writer's latest commit, and leaves
 * the writer's lock on the file alone (a read-only open that opened and closed the file
 * itself dropped it: POSIX locks are the process's; another process's close then
 * folded the -wal in and deleted it under the writer, whose later commits no reader
 * saw). */
static void test_store_ro_same_process_writer(void **state)
{
	struct err err;
	char dir[] = "/tmp/bpflab-test-store-ro.XXXXXX", db[128];
	json_t *inv = json_loads(inventory, 0, NULL);
	struct store *w;
	int64_t id;
	int i;

	(void)state;
	tmpdir_make(dir);
	snprintf(db, sizeof(db), "%s/lab.db", dir);
	w = store_open(db, false, &err);
	assert_non_null(w);
	for (i = 0; i < 3; i++) {
		char name[16];

		snprintf(name, sizeof(name), "h%d", i);
		assert_int_equal(store_host_hello(w, name, "0.1", inv, 100, &id, NULL), 0);
		assert_true(has(db, "-wal"));
		assert_true(holds_lock(db));
		assert_int_equal(ro_hosts(db), (size_t)i + 1);
		assert_true(holds_lock(db));
	}
	store_close(&w);
	assert_false(has(db, "-wal"));
	json_decref(inv);
	assert_int_equal(tmpdir_remove(dir), 0);
}

/* '%', '?' and '#' in the name are escaped in the URI: the file itself is opened. */
static void test_store_ro_uri_escapes(void **state)
{
	char dir[] = "/tmp/bpflab-test-store-ro.XXXXXX", db[160], cwd[512], rel[64];

	(void)state;
	tmpdir_make(dir);
	snprintf(db, sizeof(db), "%s/a?mode=rw#b%%20c.db", dir);
	add_host(db, "h1");
	assert_int_equal(ro_hosts(db), 1);
	assert_false(has(db, "-shm"));
	/* a relative name */
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	snprintf(rel, sizeof(rel), "a?mode=rw#b%%20c.db");
	assert_int_equal(ro_hosts(rel), 1);
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(tmpdir_remove(dir), 0);
}

/* The name a symbolic link to a writer's file: its -wal sits beside the file the link
 * leads to (SQLite's naming), and a read-only open through the link sees it (it took
 * the file for one no one had open and read it immutable: an empty or stale database,
 * which stopped bpflabd's reading worker on a linked --db). */
static void test_store_ro_symlink(void **state)
{
	char dir[] = "/tmp/bpflab-test-store-ro.XXXXXX", db[128], link[128];
	sqlite3 *w = NULL;

	(void)state;
	tmpdir_make(dir);
	snprintf(db, sizeof(db), "%s/lab.db", dir);
	snprintf(link, sizeof(link), "%s/link.db", dir);
	assert_int_equal(symlink(db, link), 0);
	add_host(link, "h1");
	assert_int_equal(sqlite3_open(db, &w), SQLITE_OK);
	assert_int_equal(sqlite3_exec(w, "SELECT count(*) FROM hosts", NULL, NULL, NULL),
			 SQLITE_OK);
	add_host(link, "h2");
	assert_true(has(db, "-wal"));
	assert_false(has(link, "-wal"));
	assert_int_equal(ro_hosts(link), 2);
	sqlite3_close(w);
	assert_int_equal(tmpdir_remove(dir), 0);
}

/* A read-only open of a file that is not there fails, and makes none. */
static void test_store_ro_missing(void **state)
{
	struct err err;
	char dir[] = "/tmp/bpflab-test-store-ro.XXXXXX", db[128];
	struct store *st;

	(void)state;
	tmpdir_make(dir);
	snprintf(db, sizeof(db), "%s/none.db", dir);
	st = store_open(db, true, &err);
	assert_null(st);
	assert_non_null(strstr(err.msg, "cannot open database"));
	assert_false(has(db, ""));
	assert_int_equal(tmpdir_remove(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_store_ro_no_files),
		cmocka_unit_test(test_store_ro_live_writer),
		cmocka_unit_test(test_store_ro_same_process_writer),
		cmocka_unit_test(test_store_ro_uri_escapes),
		cmocka_unit_test(test_store_ro_missing),
		cmocka_unit_test(test_store_ro_symlink),
	};

	return cmocka_run_group_tests_name("store_ro", tests, NULL, NULL);
}

// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_store_link.c - unit tests for lib/store/store_link.c on real SQLite: a discovery's links
 * are stored once per pair of ends (lower end first, duplicates and reversed reports
 * folded), a new discovery replaces the old rows in one transaction (a failing row keeps
 * the previous links whole), store_query_links names both hosts; errors are the -errno
 * of lib/store/store.c (a foreign key -EINVAL, a read-only database -EROFS); and the pair
 * queries: store_job_partner finds the other side of a two-host job (same run and seq,
 * other host) and refuses a job that is no side of a pair; store_job_state,
 * store_job_error and store_job_last_attempt read a job; store_pair_requeue queues a
 * failed pair side again.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/store.h"
#include "store/store_link.h"
#include "base/util.h"
#include "helpers.h"

#define OBJ_NAME "xdp_basic.bpf.o"

struct fixture {
	char dir[64];
	char db[128];
	struct store *st;
	int64_t h1, h2;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	json_t *inv;
	struct err err;

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/bpflab-test-store-link.XXXXXX");
	tmpdir_make(f->dir);
	snprintf(f->db, sizeof(f->db), "%s/lab.db", f->dir);
	f->st = store_open(f->db, false, &err);
	if (!f->st)
		fail_msg("store_open: %s", err.msg);
	inv = json_pack("{s:s, s:{s:s}, s:[{s:s, s:s}, {s:s, s:s}]}", "hostname", "h", "kernel",
			"release", "6.18.44", "ports", "role", "x", "driver", "veth", "role", "y",
			"driver", "veth");
	assert_non_null(inv);
	assert_int_equal(store_host_hello(f->st, "h1", "t", inv, 1000, &f->h1, NULL), 0);
	assert_int_equal(store_host_hello(f->st, "h2", "t", inv, 1000, &f->h2, NULL), 0);
	json_decref(inv);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	store_close(&f->st);
	tmpdir_remove(f->dir);
	free(f);
	return 0;
}

/* The stored links as "host_a.port_a-host_b.port_b" joined by spaces, in id order. */
static void links_text(struct store *st, char *out, size_t len)
{
	json_t *links = store_query_links(st), *l;
	size_t i, off = 0;

	assert_non_null(links);
	out[0] = '\0';
	json_array_foreach(links, i, l) {
		off += snprintf(out + off, len - off, "%s%s.%s-%s.%s", i ? " " : "",
				json_string_value(json_object_get(l, "host_a")),
				json_string_value(json_object_get(l, "port_a")),
				json_string_value(json_object_get(l, "host_b")),
				json_string_value(json_object_get(l, "port_b")));
		assert_true(json_integer_value(json_object_get(l, "host_a_id")) > 0);
		assert_int_equal(json_integer_value(json_object_get(l, "discovered_ms")),
				 json_integer_value(json_object_get(json_array_get(links, 0),
								    "discovered_ms")));
		assert_true(off < len);
	}
	json_decref(links);
}

static void test_store_links_replace(void **state)
{
	struct fixture *f = *state;
	/* h2.y <-> h1.x reported from both ends, and h1.y <-> h2.x once */
	const struct store_link first[] = {
		{ f->h2, "y", f->h1, "x" },
		{ f->h1, "x", f->h2, "y" },
		{ f->h1, "y", f->h2, "x" },
	};
	const struct store_link second[] = { { f->h1, "x", f->h2, "x" } };
	const struct store_link bad[] = {
		{ f->h1, "y", f->h2, "y" },
		{ f->h1, "x", 999, "x" },	/* no such host: the whole discovery fails */
	};
	char text[256];
	json_t *links;

	links = store_query_links(f->st);
	assert_non_null(links);
	assert_int_equal(json_array_size(links), 0);
	json_decref(links);

	assert_int_equal(store_links_replace(f->st, first, 3, 5000), 0);
	links_text(f->st, text, sizeof(text));
	assert_string_equal(text, "h1.x-h2.y h1.y-h2.x");
	links = store_query_links(f->st);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(links, 0),
							    "discovered_ms")), 5000);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(links, 0),
							    "host_b_id")), f->h2);
	json_decref(links);

	/* a new discovery replaces every row */
	assert_int_equal(store_links_replace(f->st, second, 1, 6000), 0);
	links_text(f->st, text, sizeof(text));
	assert_string_equal(text, "h1.x-h2.x");

	/* one row that cannot be stored: the previous discovery stays whole; a foreign key
	 * is bad input, -EINVAL as in lib/store/store.c */
	assert_int_equal(store_links_replace(f->st, bad, 2, 7000), -EINVAL);
	assert_string_equal(store_err(f->st)->msg, "cannot store a link: FOREIGN KEY constraint "
			    "failed");
	links_text(f->st, text, sizeof(text));
	assert_string_equal(text, "h1.x-h2.x");

	/* a discovery that found nothing leaves nothing */
	assert_int_equal(store_links_replace(f->st, NULL, 0, 8000), 0);
	links_text(f->st, text, sizeof(text));
	assert_string_equal(text, "");
}

/* A run of three jobs: seq 0 as a pair (generator on h1, dut on h2), seq 1 a plain job
 * on h1. *IDS gets the job ids in seq, host order. */
static void make_pair_run(struct fixture *f, int64_t ids[3])
{
	static const char text[] = "name: p\nlink: {generator: x, dut: y}\n";
	struct plan_object obj = { .name = OBJ_NAME, .data = (void *)"obj", .len = 3 };
	struct plan_objects objs = { .objs = &obj, .n = 1 };
	struct plan_attach attach = { .port = "y", .object = OBJ_NAME, .program = "xdp_drop" };
	char *vname = "drop";
	struct plan_variant var = { .name = vname, .attach = &attach, .n_attach = 1 };
	struct plan plan = { .file = "p.yaml", .text = (char *)text, .text_len = strlen(text),
			     .name = "p", .repeat = 1, .variants = &var, .n_variants = 1 };
	struct plan_job jobs[3] = { { 0 } };
	struct store_job_new jn[3] = { 0 };
	json_t *run, *j;
	int64_t run_id;
	size_t i;

	util_sha256_hex(obj.data, obj.len, obj.sha256);
	util_sha256_hex(text, plan.text_len, plan.sha256);
	for (i = 0; i < 3; i++) {
		const char *role = i == 0 ? "generator" : "dut";

		jobs[i].seq = i < 2 ? 0 : 1;
		jobs[i].rep = 1;
		jobs[i].point_values = json_object();
		jobs[i].spec = json_pack("{s:s, s:s, s:i, s:[{s:s, s:s, s:s, s:s, s:s, s:s}]}",
					 "plan", "p", "variant", "drop", "rep", 1, "attach",
					 "port", "y", "hook", "xdp", "mode", "native", "object",
					 OBJ_NAME, "program", "xdp_drop", "sha256", obj.sha256);
		if (i < 2)
			json_object_set_new(jobs[i].spec, "pair",
					    json_pack("{s:s, s:s, s:i}", "role", role, "peer",
						      i ? "h1" : "h2", "barrier_ms", 30000));
		jn[i].host_id = i == 1 ? f->h2 : f->h1;
		jn[i].job = &jobs[i];
	}
	assert_int_equal(store_run_create(f->st, &plan, NULL, &objs, jn, 3, 9000, &run_id), 0);
	run = store_query_run(f->st, run_id);
	assert_non_null(run);
	assert_int_equal(json_array_size(json_object_get(run, "jobs")), 3);
	json_array_foreach(json_object_get(run, "jobs"), i, j) {
		int64_t id = json_integer_value(json_object_get(j, "id"));
		bool on_h2 = !strcmp(json_string_value(json_object_get(j, "host")), "h2");

		ids[json_integer_value(json_object_get(j, "seq")) ? 2 : on_h2 ? 1 : 0] = id;
	}
	json_decref(run);
	for (i = 0; i < 3; i++) {
		json_decref(jobs[i].spec);
		json_decref(jobs[i].point_values);
	}
}

static void test_store_job_partner(void **state)
{
	struct fixture *f = *state;
	int64_t ids[3] = { 0 }, partner = 0, host = 0;
	char st[16] = "";

	make_pair_run(f, ids);
	assert_true(ids[0] && ids[1] && ids[2]);
	assert_int_equal(store_job_partner(f->st, ids[0], &partner, &host), 0);
	assert_int_equal(partner, ids[1]);
	assert_int_equal(host, f->h2);
	assert_int_equal(store_job_partner(f->st, ids[1], &partner, &host), 0);
	assert_int_equal(partner, ids[0]);
	assert_int_equal(host, f->h1);

	/* a plain job and an unknown one are no side of a pair */
	assert_int_equal(store_job_partner(f->st, ids[2], &partner, &host), -ENOENT);
	assert_non_null(strstr(store_err(f->st)->msg, "is not one side of a pair"));
	assert_int_equal(store_job_partner(f->st, 424242, &partner, &host), -ENOENT);

	assert_int_equal(store_job_state(f->st, ids[0], st), 0);
	assert_string_equal(st, "queued");
	assert_int_equal(store_job_state(f->st, 424242, st), -ENOENT);
	assert_string_equal(store_err(f->st)->msg, "unknown job 424242");

	/* a job's error, first line only ("" without one) */
	{
		char e[64], sql[128];
		sqlite3 *db;

		assert_int_equal(store_job_error(f->st, ids[1], e, sizeof(e)), 0);
		assert_string_equal(e, "");
		assert_int_equal(sqlite3_open(f->db, &db), SQLITE_OK);
		snprintf(sql, sizeof(sql), "UPDATE jobs SET error = 'cannot load program ''x''\n"
			 "verifier says no' WHERE id = %lld", (long long)ids[1]);
		assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
		sqlite3_close(db);
		assert_int_equal(store_job_error(f->st, ids[1], e, sizeof(e)), 0);
		assert_string_equal(e, "cannot load program 'x'");
		store_job_partner(f->st, ids[2], &partner, &host);	/* another message */
		assert_int_equal(store_job_error(f->st, 424242, e, sizeof(e)), -ENOENT);
		assert_string_equal(store_err(f->st)->msg, "unknown job 424242");
	}
}

/* store_pair_requeue: a pair job failed at its barrier goes back to the queue, its last
 * attempt 'lost' with the reason, its result cleared and its run open again; a job that
 * is not failed is refused. (Attempts and the failure are written with SQL: the store's
 * own paths for them need an agent's result.) */
static void test_store_pair_requeue(void **state)
{
	struct fixture *f = *state;
	int64_t ids[3] = { 0 }, lost = -1;
	char st[16] = "", outcome[16] = "", sql[512];
	sqlite3 *db;

	make_pair_run(f, ids);
	assert_int_equal(store_job_last_attempt(f->st, ids[1], outcome, &lost), -ENOENT);
	assert_int_equal(sqlite3_open(f->db, &db), SQLITE_OK);
	snprintf(sql, sizeof(sql),
		 "INSERT INTO job_attempts (job_id, attempt, host_id, started_ms, ended_ms, outcome,"
		 " error) VALUES (%lld, 1, %lld, 1000, 2000, 'failed', 'barrier: no go');"
		 "UPDATE jobs SET state = 'failed', error = 'barrier: no go', result_ms = 2000, "
		 "finished_ms = 2000 WHERE id = %lld;"
		 "UPDATE runs SET state = 'failed', finished_ms = 2000;",
		 (long long)ids[1], (long long)f->h2, (long long)ids[1]);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(store_job_last_attempt(f->st, ids[1], outcome, &lost), 0);
	assert_string_equal(outcome, "failed");
	assert_int_equal(lost, 0);

	assert_int_equal(store_pair_requeue(f->st, ids[1], "its pair was lost"), 0);
	assert_int_equal(store_job_state(f->st, ids[1], st), 0);
	assert_string_equal(st, "queued");
	assert_int_equal(store_job_error(f->st, ids[1], sql, sizeof(sql)), 0);
	assert_string_equal(sql, "");
	assert_int_equal(store_job_last_attempt(f->st, ids[1], outcome, &lost), 0);
	assert_string_equal(outcome, "lost");
	assert_int_equal(lost, 1);
	{
		json_t *runs = store_query_runs(f->st);

		assert_string_equal(json_string_value(json_object_get(json_array_get(runs, 0),
								       "state")), "running");
		json_decref(runs);
	}
	/* once queued it is no failed job any more: refused, nothing changed */
	assert_int_equal(store_pair_requeue(f->st, ids[1], "again"), -ENOENT);
	assert_non_null(strstr(store_err(f->st)->msg, "is not a failed job"));
	assert_int_equal(store_job_last_attempt(f->st, ids[1], outcome, &lost), 0);
	assert_int_equal(lost, 1);
}

/* A read-only store: a discovery cannot be stored (-EROFS and SQLite's words, as
 * lib/store/store.c says it), the stored links can still be read. */
static void test_store_links_readonly(void **state)
{
	struct fixture *f = *state;
	const struct store_link one[] = { { f->h1, "x", f->h2, "y" } };
	struct err err;
	char text[256];

	assert_int_equal(store_links_replace(f->st, one, 1, 5000), 0);
	store_close(&f->st);
	f->st = store_open(f->db, true, &err);
	if (!f->st)
		fail_msg("store_open: %s", err.msg);
	assert_int_equal(store_links_replace(f->st, NULL, 0, 6000), -EROFS);
	assert_string_equal(store_err(f->st)->msg, "cannot store the links: attempt to write a "
			    "readonly database");
	links_text(f->st, text, sizeof(text));
	assert_string_equal(text, "h1.x-h2.y");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_store_links_replace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_links_readonly, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_job_partner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_pair_requeue, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

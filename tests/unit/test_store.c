// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_store.c - unit tests for lib/store/store.c on real SQLite: migrations and refusal of a
 * newer schema, the job queue from run creation to result, the JSON of every query
 * (docs/protocol.md, "Query objects"), idempotent ingest, restart recovery, and failures
 * that must roll back whole: a read-only database, a full one (PRAGMA max_page_count) and
 * a queue write whose later step a trigger makes fail.
 *
 * The plan, objects and jobs are built by hand (no plan_parse): the store only reads the
 * public fields of struct plan, struct plan_objects and struct plan_job.
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

#include "proto/proto.h"
#include "proto/samples.h"
#include "analysis/analysis.h"
#include "store/store.h"
#include "base/util.h"
#include "helpers.h"

#define N_VARIANTS 2
#define N_REPS 2
#define N_JOBS (N_VARIANTS * N_REPS)
#define OBJ_NAME "xdp_basic.bpf.o"

/* A hand-made plan of two variants, two repetitions, interleaved (A B A B), each
 * attaching one program of OBJ_NAME. */
struct fixture {
	char dir[64];
	char db[128];
	struct plan plan;
	struct plan_variant variants[N_VARIANTS];
	struct plan_attach attach[N_VARIANTS];
	char *var_names[N_VARIANTS];
	struct plan_objects objs;
	struct plan_object obj;
	struct plan_job jobs[N_JOBS];
	json_t *inventory;
};

static const char plan_text[] = "name: t\nvariants: {drop: [...], pass: [...]}\n";

static int fixture_setup(void **state)
{
	static const char *const progs[N_VARIANTS] = { "xdp_drop", "xdp_pass" };
	struct fixture *f = calloc(1, sizeof(*f));
	int i;

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/bpflab-test-store.XXXXXX");
	tmpdir_make(f->dir);
	snprintf(f->db, sizeof(f->db), "%s/lab.db", f->dir);

	f->obj.name = OBJ_NAME;
	f->obj.len = 3000;
	f->obj.data = malloc(f->obj.len);
	for (i = 0; i < (int)f->obj.len; i++)
		((unsigned char *)f->obj.data)[i] = (unsigned char)(i * 7);
	util_sha256_hex(f->obj.data, f->obj.len, f->obj.sha256);
	f->objs.objs = &f->obj;
	f->objs.n = 1;

	f->plan.file = "t.yaml";
	f->plan.text = (char *)plan_text;
	f->plan.text_len = strlen(plan_text);
	util_sha256_hex(plan_text, f->plan.text_len, f->plan.sha256);
	f->plan.name = "t";
	f->plan.repeat = N_REPS;
	f->plan.variants = f->variants;
	f->plan.n_variants = N_VARIANTS;
	f->var_names[0] = "drop";
	f->var_names[1] = "pass";
	for (i = 0; i < N_VARIANTS; i++) {
		f->attach[i].port = "b";
		f->attach[i].object = OBJ_NAME;
		f->attach[i].program = (char *)progs[i];
		f->variants[i].name = f->var_names[i];
		f->variants[i].attach = &f->attach[i];
		f->variants[i].n_attach = 1;
	}
	for (i = 0; i < N_JOBS; i++) {
		struct plan_job *j = &f->jobs[i];

		j->seq = i;
		j->variant = i % N_VARIANTS;
		j->rep = 1 + i / N_VARIANTS;
		j->point_values = json_pack("{s:s}", "traffic.packet.size", "64");
		j->spec = json_pack("{s:s, s:s, s:i, s:[{s:s, s:s, s:s, s:s, s:s, s:s}]}",
				    "plan", "t", "variant", f->var_names[j->variant], "rep", j->rep,
				    "attach", "port", "b", "hook", "xdp", "mode", "native",
				    "object", OBJ_NAME, "program", progs[j->variant],
				    "sha256", f->obj.sha256);
		assert_non_null(j->spec);
	}
	f->inventory = json_pack("{s:s, s:{s:s, s:s, s:s, s:[], s:s}, s:[{s:s, s:s}]}",
				 "hostname", "h1", "kernel", "release", "6.18.44",
				 "version", "#1 SMP PREEMPT_DYNAMIC", "config_sha256", "abc",
				 "debug_options", "cmdline", "quiet",
				 "ports", "role", "b", "driver", "veth");
	assert_non_null(f->inventory);
	*state = f;
	return 0;
}

static int fixture_teardown(void **state)
{
	struct fixture *f = *state;
	int i;

	for (i = 0; i < N_JOBS; i++) {
		json_decref(f->jobs[i].point_values);
		json_decref(f->jobs[i].spec);
	}
	json_decref(f->inventory);
	free(f->obj.data);
	tmpdir_remove(f->dir);
	free(f);
	return 0;
}

/* Create a run of the fixture's jobs on one host. */
static int64_t make_run(struct store *st, struct fixture *f, int64_t host_id, int64_t now)
{
	struct store_job_new jn[N_JOBS] = { 0 };
	json_t *ov = json_pack("[s]", "traffic.packet.size=64");
	int64_t run_id = 0;
	int i;

	for (i = 0; i < N_JOBS; i++) {
		jn[i].host_id = host_id;
		jn[i].job = &f->jobs[i];
	}
	assert_int_equal(store_run_create(st, &f->plan, ov, &f->objs, jn, N_JOBS, now,
					  &run_id), 0);
	json_decref(ov);
	assert_true(run_id > 0);
	return run_id;
}

static json_t *result_msg(int64_t job, const char *status, double value, bool with_env)
{
	json_t *r = json_pack("{s:i, s:s, s:I, s:s, s:I, s:I, s:[{s:s, s:s, s:f, s:s, s:s, s:n},"
			      "{s:s, s:s, s:f, s:s, s:s, s:i}, {s:s, s:s, s:f, s:s, s:s}]}",
			      "v", 1, "type", "result", "job", (json_int_t)job,
			      "status", status, "started_ms", (json_int_t)1000,
			      "finished_ms", (json_int_t)2000, "samples",
			      "metric", "port.rx_pps", "subject", "b", "value", value,
			      "unit", "pps", "window", "rate", "seq",
			      "metric", "port.rx_pps", "subject", "b", "value", value + 1,
			      "unit", "pps", "window", "rate", "seq", 0,
			      "metric", "prog.ns_per_run", "subject", "xdp_drop", "value", 35.5,
			      "unit", "ns", "window", "cost");

	assert_non_null(r);
	if (with_env)
		json_object_set_new(r, "env", json_pack("{s:{s:s, s:s, s:[s]}}", "kernel",
					"release", "6.18.44", "version", "#2 SMP",
					"debug_options", "LOCKDEP"));
	if (!strcmp(status, "failed"))
		json_object_set_new(r, "error", json_string("load failed"));
	return r;
}

/* SELECT count(*) FROM TABLE through a separate connection to the file. */
static long long count_rows(const char *db, const char *table)
{
	char sql[128];

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", table);
	return db_file_count(db, sql);
}

static void test_store_migrations(void **state)
{
	struct fixture *f = *state;
	struct err err;
	struct store *st;
	long long tables;
	sqlite3 *c;

	assert_true(store_schema_latest() >= 1);
	st = store_open(f->db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_schema_version(st), store_schema_latest());
	store_close(&st);
	assert_null(st);
	store_close(&st);		/* safe twice */
	tables = count_rows(f->db, "sqlite_master");
	assert_true(tables >= 7);

	/* reopening migrates nothing */
	st = store_open(f->db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_schema_version(st), store_schema_latest());
	store_close(&st);
	assert_int_equal(count_rows(f->db, "sqlite_master"), tables);

	/* read-only works on a migrated file */
	st = store_open(f->db, true, &err);
	assert_non_null(st);
	store_close(&st);

	/* a database from a newer bpflab is refused, and left alone */
	assert_int_equal(sqlite3_open(f->db, &c), SQLITE_OK);
	assert_int_equal(sqlite3_exec(c, "PRAGMA user_version = 999", NULL, NULL, NULL), 0);
	sqlite3_close(c);
	st = store_open(f->db, false, &err);
	assert_null(st);
	assert_int_equal(errno, EPROTO);
	assert_non_null(strstr(err.msg, "schema version 999 is newer than this bpflab's"));
	assert_non_null(strstr(err.msg, f->db));
	assert_int_equal(count_rows(f->db, "sqlite_master"), tables);

	/* not a database at all */
	{
		char junk[160];
		FILE *fp;

		snprintf(junk, sizeof(junk), "%s/junk.db", f->dir);
		fp = fopen(junk, "w");
		fputs("this is not sqlite, just some text long enough to have a header....\n"
		      "....................................................................\n",
		      fp);
		fclose(fp);
		st = store_open(junk, false, &err);
		assert_null(st);
		assert_non_null(strstr(err.msg, "not a database"));
		/* a read-only open of an empty database is refused */
		snprintf(junk, sizeof(junk), "%s/empty.db", f->dir);
		fclose(fopen(junk, "w"));
		st = store_open(junk, true, &err);
		assert_null(st);
		assert_non_null(strstr(err.msg, "not a bpflab database"));
	}
}

/* Migration 007 on a schema-6 database with samples: every row keeps its id, job, value,
 * unit and key (NULL seq = whole window); the samples view reads as before; inserting
 * into the view works; the unique key still refuses a sample given twice. */
extern const char *const store_migrations[];

/* Make PATH a database at schema VERSION (migrations 1..VERSION applied by hand, as an
 * older bpflab would have left it) holding the rows of ROWS_SQL. */
static void old_database(const char *path, int version, const char *rows_sql)
{
	char sql[64];
	sqlite3 *c;
	int v;

	assert_int_equal(sqlite3_open(path, &c), SQLITE_OK);
	for (v = 1; v <= version; v++)
		assert_int_equal(sqlite3_exec(c, store_migrations[v - 1], NULL, NULL, NULL), 0);
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", version);
	assert_int_equal(sqlite3_exec(c, sql, NULL, NULL, NULL), 0);
	assert_int_equal(sqlite3_exec(c, rows_sql, NULL, NULL, NULL), 0);
	sqlite3_close(c);
}

static void test_store_migrate_samples(void **state)
{
	struct fixture *f = *state;
	struct err err;
	struct store *st;
	sqlite3 *c;
	sqlite3_stmt *q;

	old_database(f->db, 6,
		"INSERT INTO plans VALUES (1, 'p', 'x', 'x', 0);"
		"INSERT INTO runs (id, plan_id, plan_file, submitted_ms) VALUES (1, 1, 'p', 0);"
		"INSERT INTO hosts (id, name, inventory, first_seen_ms, last_seen_ms) "
		"VALUES (1, 'h', '{}', 0, 0);"
		"INSERT INTO jobs (id, run_id, seq, host_id, variant, variant_idx, rep, spec) "
		"VALUES (1, 1, 1, 1, 'a', 0, 1, '{}');"
		"INSERT INTO samples (id, job_id, metric, subject, value, unit, window, seq) VALUES "
		"(5, 1, 'port.rx_pps', 'b', 10.5, 'pps', 'rate', NULL),"
		"(7, 1, 'port.rx_pps', 'b', 11.5, 'pps', 'rate', 0),"
		"(9, 1, 'prog.ns_per_run', 'xdp', 30, 'ns', 'cost', NULL);");

	st = store_open(f->db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_schema_version(st), store_schema_latest());
	store_close(&st);

	assert_int_equal(sqlite3_open(f->db, &c), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(c, "SELECT group_concat(id || ':' || metric || ':' || "
		"subject || ':' || value || ':' || unit || ':' || window || ':' || "
		"ifnull(seq, 'null'), ' ') FROM (SELECT * FROM samples ORDER BY id)", -1, &q,
		NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(q, 0),
			    "5:port.rx_pps:b:10.5:pps:rate:null 7:port.rx_pps:b:11.5:pps:rate:0 "
			    "9:prog.ns_per_run:xdp:30.0:ns:cost:null");
	sqlite3_finalize(q);
	assert_int_equal(count_rows(f->db, "series"), 2);
	/* the view takes inserts; the key still holds, NULL seq counted as one value */
	assert_int_equal(sqlite3_exec(c, "INSERT INTO samples (job_id, metric, subject, value, "
		"unit, window) VALUES (1, 'port.tx_pps', 'a', 1, 'pps', 'rate')", NULL, NULL,
		NULL), SQLITE_OK);
	assert_int_not_equal(sqlite3_exec(c, "INSERT INTO samples (job_id, metric, subject, "
		"value, unit, window) VALUES (1, 'port.rx_pps', 'b', 2, 'pps', 'rate')", NULL,
		NULL, NULL), SQLITE_OK);
	sqlite3_close(c);
	assert_int_equal(count_rows(f->db, "samples"), 4);
}

static void test_store_queue_and_queries(void **state)
{
	struct fixture *f = *state;
	struct store_ingest ing;
	json_t *spec, *q, *jobs, *samples, *s0, *r;
	int64_t h1, h2, run, job, run_of_job, n;
	struct err err;
	struct store *st;
	int requeued = -1, i;

	st = store_open(":memory:", false, &err);
	assert_non_null(st);
	assert_int_equal(store_host_hello(st, "h1", "0.1", f->inventory, 100, &h1, &requeued),
			 0);
	assert_int_equal(requeued, 0);
	assert_int_equal(store_host_hello(st, "h2", "0.1", NULL, 100, &h2, NULL), 0);
	assert_true(h1 != h2);
	/* hello again: same id */
	assert_int_equal(store_host_hello(st, "h1", "0.2", f->inventory, 150, &n, NULL), 0);
	assert_int_equal(n, h1);
	assert_int_equal(store_job_next(st, h1, &job, &run_of_job, &spec), -ENOENT);

	run = make_run(st, f, h1, 200);
	assert_int_equal(store_host_pending(st, h1, &n), 0);
	assert_int_equal(n, N_JOBS);
	assert_int_equal(store_host_pending(st, h2, &n), 0);
	assert_int_equal(n, 0);

	/* the run as queued */
	q = store_query_runs(st);
	assert_non_null(q);
	assert_int_equal(json_array_size(q), 1);
	r = json_array_get(q, 0);
	assert_int_equal(json_integer_value(json_object_get(r, "id")), run);
	assert_string_equal(json_string_value(json_object_get(r, "plan")), "t");
	assert_string_equal(json_string_value(json_object_get(r, "plan_sha256")), f->plan.sha256);
	assert_string_equal(json_string_value(json_object_get(r, "state")), "queued");
	assert_int_equal(json_integer_value(json_object_get(r, "submitted_ms")), 200);
	assert_true(json_is_null(json_object_get(r, "finished_ms")));
	assert_int_equal(json_integer_value(json_object_get(r, "jobs_total")), N_JOBS);
	assert_int_equal(json_integer_value(json_object_get(r, "jobs_done")), 0);
	assert_null(json_object_get(r, "jobs"));
	json_decref(q);

	/* jobs come out lowest seq first; dispatch, accept, result */
	for (i = 0; i < N_JOBS; i++) {
		assert_int_equal(store_job_next(st, h1, &job, &run_of_job, &spec), 0);
		assert_int_equal(run_of_job, run);
		assert_int_equal(json_integer_value(json_object_get(spec, "rep")), 1 + i / 2);
		assert_string_equal(json_string_value(json_object_get(spec, "variant")),
				    f->var_names[i % 2]);
		json_decref(spec);
		assert_int_equal(store_job_dispatch(st, job, 300 + i), 0);
		assert_int_equal(store_job_dispatch(st, job, 300 + i), -ESTALE);
		if (i == 0) {
			/* busy host, running job and run */
			q = store_query_hosts(st);
			r = json_array_get(q, 0);
			assert_string_equal(json_string_value(json_object_get(r, "name")), "h1");
			assert_string_equal(json_string_value(json_object_get(r, "state")), "busy");
			assert_int_equal(json_integer_value(json_object_get(r, "job")), job);
			assert_string_equal(json_string_value(json_object_get(r,
					    "kernel_release")), "6.18.44");
			assert_int_equal(json_integer_value(json_object_get(r, "last_seen_ms")),
					 150);
			assert_true(json_equal(json_object_get(r, "inventory"), f->inventory));
			r = json_array_get(q, 1);
			assert_string_equal(json_string_value(json_object_get(r, "state")), "idle");
			assert_true(json_is_null(json_object_get(r, "job")));
			json_decref(q);
			/* another host cannot accept or report it */
			assert_int_equal(store_job_accept(st, job, h2, 301), -EPERM);
			r = result_msg(job, "ok", 1e6, true);
			assert_int_equal(store_ingest_result(st, h2, r, 400, &ing), -EPERM);
			json_decref(r);
		}
		assert_int_equal(store_job_accept(st, job, h1, 310 + i), 0);
		r = result_msg(job, i == 3 ? "failed" : "ok", 1e6 * (i + 1), i != 1);
		assert_int_equal(store_ingest_result(st, h1, r, 400 + i, &ing), 0);
		json_decref(r);
		assert_false(ing.duplicate);
		assert_int_equal(ing.n_samples, 3);
		assert_int_equal(ing.run_id, run);
		assert_int_equal(ing.failed, i == 3);
		assert_int_equal(ing.run_finished, i == 3);
		assert_string_equal(ing.run_state, i == 3 ? "failed" : "running");
	}
	assert_int_equal(store_job_next(st, h1, &job, &run_of_job, &spec), -ENOENT);

	/* run_show */
	q = store_query_run(st, run);
	assert_non_null(q);
	assert_string_equal(json_string_value(json_object_get(q, "state")), "failed");
	assert_int_equal(json_integer_value(json_object_get(q, "finished_ms")), 403);
	assert_int_equal(json_integer_value(json_object_get(q, "jobs_done")), 3);
	assert_int_equal(json_integer_value(json_object_get(q, "jobs_failed")), 1);
	assert_string_equal(json_string_value(json_array_get(json_object_get(q, "overrides"),
							     0)), "traffic.packet.size=64");
	jobs = json_object_get(q, "jobs");
	assert_int_equal(json_array_size(jobs), N_JOBS);
	for (i = 0; i < N_JOBS; i++) {
		r = json_array_get(jobs, i);
		assert_int_equal(json_integer_value(json_object_get(r, "seq")), i);
		assert_string_equal(json_string_value(json_object_get(r, "host")), "h1");
		assert_string_equal(json_string_value(json_object_get(r, "variant")),
				    f->var_names[i % 2]);
		assert_int_equal(json_integer_value(json_object_get(r, "rep")), 1 + i / 2);
		assert_string_equal(json_string_value(json_object_get(json_object_get(r, "point"),
				    "traffic.packet.size")), "64");
		assert_string_equal(json_string_value(json_object_get(r, "state")),
				    i == 3 ? "failed" : "done");
		assert_int_equal(json_integer_value(json_object_get(r, "attempts")), 1);
		assert_int_equal(json_integer_value(json_object_get(r, "started_ms")), 1000);
		assert_int_equal(json_integer_value(json_object_get(r, "finished_ms")), 2000);
		if (i == 3)
			assert_string_equal(json_string_value(json_object_get(r, "error")),
					    "load failed");
		else
			assert_true(json_is_null(json_object_get(r, "error")));
	}
	json_decref(q);

	/* result_show: whole-window samples only, kernels from the result envs */
	q = store_query_result(st, run);
	assert_non_null(q);
	assert_int_equal(json_integer_value(json_object_get(q, "run")), run);
	assert_string_equal(json_string_value(json_object_get(q, "plan")), "t");
	assert_string_equal(json_string_value(json_object_get(q, "state")), "failed");
	assert_int_equal(json_integer_value(json_object_get(q, "repeat")), N_REPS);
	r = json_object_get(q, "variants");
	assert_int_equal(json_array_size(r), 2);
	assert_string_equal(json_string_value(json_array_get(r, 0)), "drop");
	assert_string_equal(json_string_value(json_array_get(r, 1)), "pass");
	/* job 2 had no env: the hello inventory (kernel #1) stands in */
	r = json_object_get(q, "hosts");
	assert_int_equal(json_array_size(r), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(r, 0), "name")),
			    "h1");
	assert_string_equal(json_string_value(json_object_get(json_array_get(r, 0),
			    "kernel_version")), "#1 SMP PREEMPT_DYNAMIC");
	assert_string_equal(json_string_value(json_object_get(json_array_get(r, 1),
			    "kernel_version")), "#2 SMP");
	samples = json_object_get(q, "samples");
	assert_int_equal(json_array_size(samples), 2 * N_JOBS);
	s0 = json_array_get(samples, 0);
	assert_string_equal(json_string_value(json_object_get(s0, "host")), "h1");
	assert_string_equal(json_string_value(json_object_get(s0, "variant")), "drop");
	assert_int_equal(json_integer_value(json_object_get(s0, "rep")), 1);
	assert_string_equal(json_string_value(json_object_get(s0, "metric")), "port.rx_pps");
	assert_string_equal(json_string_value(json_object_get(s0, "subject")), "b");
	assert_true(json_real_value(json_object_get(s0, "value")) == 1e6);
	assert_string_equal(json_string_value(json_object_get(s0, "unit")), "pps");
	assert_string_equal(json_string_value(json_object_get(s0, "window")), "rate");
	assert_non_null(json_object_get(s0, "job"));
	assert_string_equal(json_string_value(json_object_get(json_object_get(s0, "point"),
			    "traffic.packet.size")), "64");
	s0 = json_array_get(samples, 1);
	assert_string_equal(json_string_value(json_object_get(s0, "window")), "cost");
	json_decref(q);

	/* unknown runs */
	assert_null(store_query_run(st, 999));
	assert_int_equal(errno, ENOENT);
	assert_null(store_query_result(st, 999));
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(store_errmsg(st), "unknown run 999"));

	q = store_query_hosts(st);
	assert_string_equal(json_string_value(json_object_get(json_array_get(q, 0), "state")),
			    "idle");
	json_decref(q);
	store_close(&st);
}

static void test_store_duplicate_ingest(void **state)
{
	struct fixture *f = *state;
	struct store_ingest ing;
	int64_t h1, run, job, rj;
	json_t *spec, *r;
	struct err err;
	struct store *st;

	st = store_open(f->db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_host_hello(st, "h1", "0.1", f->inventory, 100, &h1, NULL), 0);
	run = make_run(st, f, h1, 200);
	assert_int_equal(store_job_next(st, h1, &job, &rj, &spec), 0);
	json_decref(spec);
	assert_int_equal(store_job_dispatch(st, job, 300), 0);
	r = result_msg(job, "ok", 5e6, true);
	assert_int_equal(store_ingest_result(st, h1, r, 400, &ing), 0);
	assert_false(ing.duplicate);
	assert_int_equal(count_rows(f->db, "samples"), 3);
	assert_int_equal(count_rows(f->db, "host_envs"), 1);

	/* the same again, and once more with other values: stored once */
	assert_int_equal(store_ingest_result(st, h1, r, 500, &ing), 0);
	assert_true(ing.duplicate);
	assert_int_equal(ing.n_samples, 0);
	assert_int_equal(ing.run_id, run);
	json_decref(r);
	r = result_msg(job, "failed", 9e6, false);
	assert_int_equal(store_ingest_result(st, h1, r, 600, &ing), 0);
	assert_true(ing.duplicate);
	json_decref(r);
	assert_int_equal(count_rows(f->db, "samples"), 3);
	assert_int_equal(count_rows(f->db, "host_envs"), 1);
	r = store_query_run(st, run);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
			    json_object_get(r, "jobs"), 0), "state")), "done");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(
			 json_object_get(r, "jobs"), 0), "finished_ms")), 2000);
	json_decref(r);

	/* a second job with the same env: the env row is shared */
	assert_int_equal(store_job_next(st, h1, &job, &rj, &spec), 0);
	json_decref(spec);
	r = result_msg(job, "ok", 5e6, true);
	assert_int_equal(store_ingest_result(st, h1, r, 700, &ing), 0);
	json_decref(r);
	assert_int_equal(count_rows(f->db, "host_envs"), 1);
	assert_int_equal(count_rows(f->db, "samples"), 6);
	store_close(&st);
}

static void test_store_bad_result(void **state)
{
	struct fixture *f = *state;
	struct store_ingest ing;
	int64_t h1, job, rj;
	json_t *spec, *r;
	struct err err;
	struct store *st;

	st = store_open(f->db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_host_hello(st, "h1", "0.1", f->inventory, 100, &h1, NULL), 0);
	make_run(st, f, h1, 200);
	assert_int_equal(store_job_next(st, h1, &job, &rj, &spec), 0);
	json_decref(spec);
	assert_int_equal(store_job_dispatch(st, job, 300), 0);

	/* a bad window in the 3rd sample: nothing of the result is stored */
	r = result_msg(job, "ok", 1, true);
	json_object_set_new(json_array_get(json_object_get(r, "samples"), 2), "window",
			    json_string("both"));
	assert_int_equal(store_ingest_result(st, h1, r, 400, &ing), -EINVAL);
	assert_non_null(strstr(store_errmsg(st), "sample 2 ('prog.ns_per_run'): 'window' must"));
	assert_non_null(strstr(store_errmsg(st), "cannot store result of job"));
	json_decref(r);
	/* the same sample twice: refused by the unique key, rolled back */
	r = result_msg(job, "ok", 1, true);
	json_array_append(json_object_get(r, "samples"),
			  json_array_get(json_object_get(r, "samples"), 0));
	assert_int_equal(store_ingest_result(st, h1, r, 400, &ing), -EINVAL);
	assert_non_null(strstr(store_errmsg(st), "is given twice"));
	json_decref(r);
	r = json_pack("{s:i, s:s}", "job", (int)job, "status", "maybe");
	assert_int_equal(store_ingest_result(st, h1, r, 400, &ing), -EINVAL);
	json_decref(r);
	r = result_msg(12345, "ok", 1, true);
	assert_int_equal(store_ingest_result(st, h1, r, 400, &ing), -ENOENT);
	assert_non_null(strstr(store_errmsg(st), "unknown job 12345"));
	json_decref(r);
	assert_int_equal(count_rows(f->db, "samples"), 0);
	assert_int_equal(count_rows(f->db, "host_envs"), 0);

	/* the job is still running, and a good result is taken */
	r = store_query_hosts(st);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(r, 0), "job")), job);
	json_decref(r);
	r = result_msg(job, "ok", 1, true);
	assert_int_equal(store_ingest_result(st, h1, r, 400, &ing), 0);
	json_decref(r);
	assert_int_equal(count_rows(f->db, "samples"), 3);

	/* a plan whose object was not submitted stores nothing */
	{
		struct store_job_new jn = { .host_id = h1, .job = &f->jobs[0] };
		struct plan_objects none = { 0 };
		int64_t run = 0;

		assert_int_equal(store_run_create(st, &f->plan, NULL, &none, &jn, 1, 1, &run),
				 -EINVAL);
		assert_non_null(strstr(store_errmsg(st), "object 'xdp_basic.bpf.o' named by the "
				       "plan was not submitted"));
		jn.host_id = 4242;	/* no such host: foreign key */
		assert_int_equal(store_run_create(st, &f->plan, NULL, &f->objs, &jn, 1, 1, &run),
				 -EINVAL);
		assert_non_null(strstr(store_errmsg(st), "FOREIGN KEY"));
		assert_int_equal(count_rows(f->db, "runs"), 1);
		assert_int_equal(count_rows(f->db, "jobs"), N_JOBS);
	}
	store_close(&st);
}

static void test_store_recover_and_gone(void **state)
{
	struct fixture *f = *state;
	int64_t h1, job, job2, rj;
	int requeued = -1;
	json_t *spec, *q, *jobs;
	struct err err;
	struct store *st;

	st = store_open(f->db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_host_hello(st, "h1", "0.1", f->inventory, 100, &h1, NULL), 0);
	make_run(st, f, h1, 200);
	assert_int_equal(store_job_next(st, h1, &job, &rj, &spec), 0);
	json_decref(spec);
	assert_int_equal(store_job_dispatch(st, job, 300), 0);
	store_close(&st);

	/* a new coordinator: the running job is queued again, attempts kept, hosts gone */
	st = store_open(f->db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_recover(st, &requeued), 0);
	assert_int_equal(requeued, 1);
	q = store_query_hosts(st);
	assert_string_equal(json_string_value(json_object_get(json_array_get(q, 0), "state")),
			    "gone");
	json_decref(q);
	assert_int_equal(store_job_next(st, h1, &job2, &rj, &spec), 0);
	json_decref(spec);
	assert_int_equal(job2, job);
	q = store_query_run(st, rj);
	jobs = json_object_get(q, "jobs");
	assert_string_equal(json_string_value(json_object_get(json_array_get(jobs, 0), "state")),
			    "queued");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(jobs, 0),
			 "attempts")), 1);
	/* the run stays running: a job of it was handed out */
	assert_string_equal(json_string_value(json_object_get(q, "state")), "running");
	json_decref(q);

	/* dispatch again, the host goes silent: queued for the same host */
	assert_int_equal(store_host_hello(st, "h1", "0.1", f->inventory, 400, &h1, NULL), 0);
	assert_int_equal(store_job_dispatch(st, job, 500), 0);
	assert_int_equal(store_host_gone(st, h1, &requeued), 0);
	assert_int_equal(requeued, 1);
	/* hello with a job running requeues it too */
	assert_int_equal(store_host_hello(st, "h1", "0.1", f->inventory, 600, &h1, NULL), 0);
	assert_int_equal(store_job_dispatch(st, job, 700), 0);
	assert_int_equal(store_host_hello(st, "h1", "0.1", f->inventory, 800, &h1, &requeued),
			 0);
	assert_int_equal(requeued, 1);
	/* a send that failed, and a coordinator-side failure */
	assert_int_equal(store_job_dispatch(st, job, 900), 0);
	assert_int_equal(store_job_requeue(st, job), 0);
	assert_int_equal(store_job_requeue(st, job), -ESTALE);
	assert_int_equal(store_job_fail(st, job, "object missing", 950), 0);
	assert_int_equal(store_job_fail(st, job, "again", 960), -ESTALE);
	q = store_query_run(st, rj);
	jobs = json_object_get(q, "jobs");
	assert_string_equal(json_string_value(json_object_get(json_array_get(jobs, 0), "state")),
			    "failed");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(jobs, 0),
			 "attempts")), 4);
	assert_string_equal(json_string_value(json_object_get(json_array_get(jobs, 0), "error")),
			    "object missing");
	json_decref(q);
	assert_int_equal(count_rows(f->db, "jobs"), N_JOBS);
	store_close(&st);
}

/* Run SQL on the store's own connection (a trigger that makes a later write fail). */
static void store_sql(struct store *st, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(store_db(st), sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
}

/* Job JOB is running with its attempt open and host h1 busy: nothing of a write that
 * failed stayed. */
static void assert_job_running(const char *db, int64_t job)
{
	char sql[256];

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM jobs j JOIN job_attempts a ON "
		 "a.job_id = j.id JOIN hosts h ON h.id = j.host_id WHERE j.id = %lld AND "
		 "j.state = 'running' AND a.outcome = 'running' AND h.state = 'busy'",
		 (long long)job);
	assert_int_equal(db_file_count(db, sql), 1);
}

/* The queue's writes on one job when they fail: an unknown job is -ENOENT with its
 * message and leaves no transaction open; a write that fails after the job moved (its
 * attempt or its host cannot be updated: a trigger aborts) is rolled back whole. */
static void test_store_job_write_failures(void **state)
{
	static const char *const triggers[] = {
		"CREATE TRIGGER t BEFORE UPDATE ON job_attempts BEGIN "
		"SELECT RAISE(ABORT, 'injected'); END",
		"CREATE TRIGGER t BEFORE UPDATE ON hosts BEGIN "
		"SELECT RAISE(ABORT, 'injected'); END",
	};
	struct fixture *f = *state;
	int64_t h1, job, rj;
	struct err err;
	char want[128];
	struct store *st;
	json_t *spec;
	size_t i;

	st = store_open(f->db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_host_hello(st, "h1", "0.1", f->inventory, 100, &h1, NULL), 0);
	make_run(st, f, h1, 200);

	assert_int_equal(store_job_dispatch(st, 4242, 300), -ENOENT);
	assert_string_equal(store_errmsg(st), "cannot dispatch job 4242: unknown job 4242");
	assert_int_equal(store_job_accept(st, 4242, h1, 300), -ENOENT);
	assert_string_equal(store_errmsg(st), "cannot mark job 4242 running: unknown job 4242");
	assert_int_equal(store_job_requeue(st, 4242), -ENOENT);
	assert_string_equal(store_errmsg(st), "cannot requeue job 4242: unknown job 4242");
	assert_int_equal(store_job_fail(st, 4242, "gone", 300), -ENOENT);
	assert_string_equal(store_errmsg(st), "cannot fail job 4242: unknown job 4242");
	/* no transaction was left open: the next write is committed (seen by another
	 * connection) */
	assert_int_equal(store_job_next(st, h1, &job, &rj, &spec), 0);
	json_decref(spec);
	assert_int_equal(store_job_dispatch(st, job, 300), 0);
	assert_job_running(f->db, job);

	for (i = 0; i < ARRAY_SIZE(triggers); i++) {
		store_sql(st, triggers[i]);
		assert_int_equal(store_job_requeue(st, job), -EINVAL);
		snprintf(want, sizeof(want), "cannot requeue job %lld: injected", (long long)job);
		assert_string_equal(store_errmsg(st), want);
		assert_int_equal(store_job_fail(st, job, "gone", 400), -EINVAL);
		snprintf(want, sizeof(want), "cannot fail job %lld: injected", (long long)job);
		assert_string_equal(store_errmsg(st), want);
		assert_job_running(f->db, job);
		store_sql(st, "DROP TRIGGER t");
	}
	assert_int_equal(store_job_requeue(st, job), 0);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM jobs WHERE state = 'running'"),
			 0);
	store_close(&st);
}

/* The run's state as another connection sees it (committed). */
static void assert_run_state(const char *db, int64_t run, const char *state)
{
	char sql[160];

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM runs WHERE id = %lld AND state = '%s'",
		 (long long)run, state);
	assert_int_equal(db_file_count(db, sql), 1);
}

/* Several jobs dispatched in one transaction (bpflabd's turn of its loop): an unknown job
 * and one that is not queued are left out and the others go; a write that fails rolls
 * every job of the batch back. */
static void test_store_jobs_dispatch(void **state)
{
	struct fixture *f = *state;
	int64_t h1, h2, run1, run2, ids[4], rj, next1, next2;
	int errs[4] = { 1, 1, 1, 1 };
	struct err err;
	char want[128];
	struct store *st;
	json_t *spec;

	st = store_open(f->db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_host_hello(st, "h1", "0.1", f->inventory, 100, &h1, NULL), 0);
	assert_int_equal(store_host_hello(st, "h2", "0.1", f->inventory, 100, &h2, NULL), 0);
	run1 = make_run(st, f, h1, 200);
	run2 = make_run(st, f, h2, 210);
	assert_int_equal(store_jobs_dispatch(st, ids, 0, 300, errs), 0);

	assert_int_equal(store_job_next(st, h1, &ids[0], &rj, &spec), 0);
	json_decref(spec);
	assert_int_equal(store_job_next(st, h2, &ids[2], &rj, &spec), 0);
	json_decref(spec);
	ids[1] = 4242;
	ids[3] = ids[0];	/* dispatched a moment ago, in this batch */
	assert_int_equal(store_jobs_dispatch(st, ids, 4, 300, errs), 0);
	assert_int_equal(errs[0], 0);
	assert_int_equal(errs[1], -ENOENT);
	assert_int_equal(errs[2], 0);
	assert_int_equal(errs[3], -ESTALE);
	assert_string_equal(store_errmsg(st), "cannot dispatch job 4242: unknown job 4242");
	/* committed: both jobs, their attempts, hosts and runs, seen by another connection */
	assert_job_running(f->db, ids[0]);
	assert_job_running(f->db, ids[2]);
	snprintf(want, sizeof(want), "SELECT count(*) FROM jobs WHERE id IN (%lld, %lld) AND "
		 "attempts = 1 AND started_ms = 300", (long long)ids[0], (long long)ids[2]);
	assert_int_equal(db_file_count(f->db, want), 2);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM jobs WHERE state = 'running'"),
			 2);
	assert_run_state(f->db, run1, "running");
	assert_run_state(f->db, run2, "running");

	/* the attempt of the second job cannot be stored: neither job is dispatched */
	assert_int_equal(store_job_requeue(st, ids[0]), 0);
	assert_int_equal(store_job_requeue(st, ids[2]), 0);
	assert_int_equal(store_job_next(st, h1, &next1, &rj, &spec), 0);
	json_decref(spec);
	assert_int_equal(store_job_next(st, h2, &next2, &rj, &spec), 0);
	json_decref(spec);
	snprintf(want, sizeof(want), "CREATE TRIGGER t BEFORE INSERT ON job_attempts WHEN "
		 "NEW.job_id = %lld BEGIN SELECT RAISE(ABORT, 'injected'); END", (long long)next2);
	store_sql(st, want);
	ids[0] = next1;
	ids[1] = next2;
	assert_int_equal(store_jobs_dispatch(st, ids, 2, 400, errs), -EINVAL);
	assert_int_equal(errs[0], -EINVAL);
	assert_int_equal(errs[1], -EINVAL);
	assert_string_equal(store_errmsg(st), "cannot dispatch 2 jobs: injected");
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM jobs WHERE state = 'running'"),
			 0);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM hosts WHERE state = 'busy'"),
			 0);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM job_attempts WHERE "
				     "started_ms = 400"), 0);
	store_sql(st, "DROP TRIGGER t");
	assert_int_equal(store_jobs_dispatch(st, ids, 2, 500, errs), 0);
	assert_job_running(f->db, next1);
	assert_job_running(f->db, next2);
	store_close(&st);
}

/* A read-only database: every mutation fails with -EROFS and a message, queries work. */
static void test_store_readonly(void **state)
{
	struct fixture *f = *state;
	struct store_ingest ing;
	int64_t h1, run, id = 0, job, rj;
	json_t *q, *r, *spec;
	struct err err;
	struct store *st;

	st = store_open(f->db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_host_hello(st, "h1", "0.1", f->inventory, 100, &h1, NULL), 0);
	run = make_run(st, f, h1, 200);
	store_close(&st);

	st = store_open(f->db, true, &err);
	assert_non_null(st);
	assert_int_equal(store_host_hello(st, "h9", "0.1", f->inventory, 100, &id, NULL),
			 -EROFS);
	assert_non_null(strstr(store_errmsg(st), "cannot register host 'h9': attempt to write "
			       "a readonly database"));
	assert_int_equal(store_job_next(st, h1, &job, &rj, &spec), 0);
	json_decref(spec);
	assert_int_equal(store_job_dispatch(st, job, 300), -EROFS);
	r = result_msg(job, "ok", 1, true);
	assert_int_equal(store_ingest_result(st, h1, r, 400, &ing), -EROFS);
	json_decref(r);
	assert_int_equal(store_recover(st, NULL), -EROFS);
	q = store_query_run(st, run);
	assert_non_null(q);
	assert_string_equal(json_string_value(json_object_get(q, "state")), "queued");
	json_decref(q);
	store_close(&st);
	assert_int_equal(count_rows(f->db, "hosts"), 1);
	assert_int_equal(count_rows(f->db, "samples"), 0);
}

/* A host that goes silent: each attempt is stored; its queued jobs move to a free host
 * that matched the plan; a job lost max_attempts times fails with the reason; a result
 * from the first host (its spool) is still taken, once. */
static void test_store_lost_and_attempts(void **state)
{
	struct fixture *f = *state;
	struct store_job_new jn[N_JOBS] = { 0 };
	struct store_run_host rh[2];
	struct store_lost lost;
	struct store_ingest ing;
	int64_t h1, h2, h3, run = 0, job, job2, rj;
	json_t *spec, *r;
	struct err err;
	struct store *st;
	int i;

	st = store_open(f->db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_host_hello(st, "h1", "0.1", f->inventory, 100, &h1, NULL), 0);
	assert_int_equal(store_host_hello(st, "h2", "0.1", f->inventory, 100, &h2, NULL), 0);
	assert_int_equal(store_host_hello(st, "h3", "0.1", f->inventory, 100, &h3, NULL), 0);
	for (i = 0; i < N_JOBS; i++) {
		jn[i].host_id = h1;
		jn[i].job = &f->jobs[i];
	}
	rh[0] = (struct store_run_host){ .host_id = h1, .chosen = true };
	rh[1] = (struct store_run_host){ .host_id = h2, .chosen = false };
	assert_int_equal(store_run_create_hosts(st, &f->plan, NULL, &f->objs, jn, N_JOBS, rh, 2,
						200, &run, NULL), 0);
	assert_int_equal(count_rows(f->db, "run_hosts"), 2);

	/* attempt 1 on h1, which goes silent: every queued job moves to h2 (h3 did not
	 * match the plan), the running one too, since it is queued again */
	assert_int_equal(store_job_next(st, h1, &job, &rj, &spec), 0);
	json_decref(spec);
	assert_int_equal(store_job_dispatch(st, job, 300), 0);
	assert_int_equal(store_host_lost(st, h1, 2, 400, &lost), 0);
	assert_int_equal(lost.requeued, 1);
	assert_int_equal(lost.failed, 0);
	assert_int_equal(lost.moved, N_JOBS);
	assert_true(lost.moved_to == h2);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM job_attempts WHERE "
				     "attempt = 1 AND outcome = 'lost' AND ended_ms = 400"), 1);
	assert_int_equal(store_job_next(st, h1, &job2, &rj, &spec), -ENOENT);

	/* attempt 2 on h2, lost too: the second loss fails the job (max 2) */
	assert_int_equal(store_job_next(st, h2, &job2, &rj, &spec), 0);
	json_decref(spec);
	assert_true(job2 == job);
	assert_int_equal(store_job_dispatch(st, job, 500), 0);
	assert_int_equal(store_host_lost(st, h2, 2, 600, &lost), 0);
	assert_int_equal(lost.failed, 1);
	assert_int_equal(lost.moved, 0);	/* h1 is gone, h3 never matched */
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM jobs WHERE state = 'failed' "
				     "AND error LIKE 'lost 2 times%'"), 1);
	assert_int_equal(count_rows(f->db, "job_attempts"), 2);

	/* h1 comes back and sends its spooled result for attempt 1: stored (the job was
	 * failed by the coordinator; measured data is kept), attempt 1 becomes done */
	assert_int_equal(store_host_hello(st, "h1", "0.1", f->inventory, 700, &h1, NULL), 0);
	r = result_msg(job, "ok", 1.0, false);
	assert_int_equal(store_ingest_result(st, h1, r, 800, &ing), 0);
	assert_false(ing.duplicate);
	assert_int_equal(ing.n_samples, 3);
	assert_int_equal(store_ingest_result(st, h1, r, 900, &ing), 0);
	assert_true(ing.duplicate);
	json_decref(r);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM job_attempts WHERE "
				     "attempt = 1 AND outcome = 'done'"), 1);
	/* h3 had no attempt: its result for the job is refused */
	r = result_msg(job, "ok", 1.0, false);
	assert_int_equal(store_ingest_result(st, h3, r, 900, &ing), -EPERM);
	json_decref(r);
	r = store_query_attempts(st, run);
	assert_int_equal(json_array_size(r), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(r, 1), "host")),
			    "h2");
	json_decref(r);
	store_close(&st);
}

/* Cancel: queued jobs fail 'cancelled', the run is cancelled and stays so when the
 * running job's partial result comes in; a second cancel is -ESTALE. */
static void test_store_cancel(void **state)
{
	struct fixture *f = *state;
	struct store_ingest ing;
	int64_t h1, run, job, rj;
	json_t *spec, *running = NULL, *r, *q;
	struct err err;
	struct store *st;

	st = store_open(f->db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_host_hello(st, "h1", "0.1", f->inventory, 100, &h1, NULL), 0);
	run = make_run(st, f, h1, 200);
	assert_int_equal(store_job_next(st, h1, &job, &rj, &spec), 0);
	json_decref(spec);
	assert_int_equal(store_job_dispatch(st, job, 300), 0);
	assert_int_equal(store_run_cancel(st, run, 400, &running), 0);
	assert_int_equal(json_array_size(running), 1);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(running, 0), "job")),
			 job);
	assert_string_equal(json_string_value(json_object_get(json_array_get(running, 0),
							       "host")), "h1");
	json_decref(running);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM jobs WHERE state = 'failed' "
				     "AND error = 'cancelled'"), N_JOBS - 1);
	/* nothing of a cancelled run is handed out, not even a requeued job */
	assert_int_equal(store_job_next(st, h1, &rj, &rj, &spec), -ENOENT);
	assert_int_equal(store_host_gone(st, h1, NULL), 0);
	assert_int_equal(store_job_next(st, h1, &rj, &rj, &spec), -ENOENT);
	r = result_msg(job, "failed", 1.0, false);
	json_object_set_new(r, "error", json_string("cancelled"));
	json_object_set_new(r, "partial", json_true());
	assert_int_equal(store_ingest_result(st, h1, r, 500, &ing), 0);
	json_decref(r);
	assert_int_equal(ing.n_samples, 3);
	assert_string_equal(ing.run_state, "cancelled");
	q = store_query_run(st, run);
	assert_string_equal(json_string_value(json_object_get(q, "state")), "cancelled");
	json_decref(q);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM job_attempts WHERE "
				     "outcome = 'cancelled'"), 1);
	assert_int_equal(store_run_cancel(st, run, 600, &running), -ESTALE);
	assert_int_equal(store_run_cancel(st, run + 100, 600, &running), -ENOENT);
	store_close(&st);
}

/* A full disk (the size cap): the run is refused whole, the store keeps working. */
static void test_store_full(void **state)
{
	struct fixture *f = *state;
	struct store_ingest ing;
	int64_t h1, run = 0, job, rj;
	json_t *r, *spec;
	void *small;
	struct err err;
	struct store *st;

	st = store_open(f->db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_host_hello(st, "h1", "0.1", f->inventory, 100, &h1, NULL), 0);
	run = make_run(st, f, h1, 200);

	/* a big object on a database that may not grow */
	small = f->obj.data;
	f->obj.len = 4 << 20;
	f->obj.data = calloc(1, f->obj.len);
	util_sha256_hex(f->obj.data, f->obj.len, f->obj.sha256);
	for (int i = 0; i < N_JOBS; i++)
		json_object_set_new(json_array_get(json_object_get(f->jobs[i].spec, "attach"), 0),
				    "sha256", json_string(f->obj.sha256));
	assert_int_equal(store_set_size_limit(st, 1), 0);
	{
		struct store_job_new jn = { .host_id = h1, .job = &f->jobs[0] };
		int64_t run2 = 0;

		assert_int_equal(store_run_create(st, &f->plan, NULL, &f->objs, &jn, 1, 300,
						  &run2), -ENOSPC);
		assert_non_null(strstr(store_errmsg(st), "cannot store run of plan 't': "
				       "database or disk is full"));
	}
	assert_int_equal(count_rows(f->db, "runs"), 1);
	assert_int_equal(count_rows(f->db, "objects"), 1);
	assert_int_equal(count_rows(f->db, "jobs"), N_JOBS);

	/* small writes may still fit in the pages the database has; the queue works */
	assert_int_equal(store_job_next(st, h1, &job, &rj, &spec), 0);
	json_decref(spec);
	assert_int_equal(rj, run);
	assert_int_equal(store_set_size_limit(st, 0), 0);
	assert_int_equal(store_job_dispatch(st, job, 400), 0);
	r = result_msg(job, "ok", 1, true);
	assert_int_equal(store_ingest_result(st, h1, r, 500, &ing), 0);
	json_decref(r);
	free(f->obj.data);
	f->obj.data = small;
	store_close(&st);
	assert_int_equal(count_rows(f->db, "samples"), 3);
}

/* Timing modes at ingest: an environment that says "timing": "icount" is stored with
 * host_envs.timing 'icount' and its samples with the units of guest instructions (ns ->
 * insns, pps -> pkt/Ginsn); one that says nothing is 'wall' and keeps ns and pps. The
 * values themselves are not touched. */
static void test_store_timing_units(void **state)
{
	struct fixture *f = *state;
	struct store_ingest ing;
	int64_t h1, run, job[2], rj;
	json_t *r, *spec, *vals, *row, *filter;
	struct err err;
	struct store *st;
	size_t i;
	int k, seen[2][2] = { { 0 } };

	st = store_open(f->db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_host_hello(st, "h1", "0.1", f->inventory, 100, &h1, NULL), 0);
	run = make_run(st, f, h1, 200);
	for (k = 0; k < 2; k++) {
		assert_int_equal(store_job_next(st, h1, &job[k], &rj, &spec), 0);
		json_decref(spec);
		assert_int_equal(store_job_dispatch(st, job[k], 300 + k), 0);
		r = result_msg(job[k], "ok", 1.5e6, true);
		/* the first job in a guest under icount, the second on wall time */
		if (k == 0)
			json_object_set_new(json_object_get(r, "env"), "timing",
					    json_string("icount"));
		assert_int_equal(store_ingest_result(st, h1, r, 400 + k, &ing), 0);
		assert_int_equal(ing.n_samples, 3);
		json_decref(r);
	}
	assert_int_equal(count_rows(f->db, "host_envs"), 2);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM host_envs WHERE timing = "
				     "'icount'"), 1);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM host_envs WHERE timing = "
				     "'wall'"), 1);

	filter = json_pack("{s:[I]}", "runs", (json_int_t)run);
	vals = store_query_values(st, filter);
	json_decref(filter);
	assert_non_null(vals);
	assert_true(json_array_size(vals) >= 4);
	json_array_foreach(vals, i, row) {
		const char *metric = json_string_value(json_object_get(row, "metric"));
		const char *unit = json_string_value(json_object_get(row, "unit"));
		const char *timing = json_string_value(json_object_get(row, "timing"));
		bool icount = json_integer_value(json_object_get(row, "job")) == job[0];
		int m = !strcmp(metric, "prog.ns_per_run");

		assert_non_null(unit);
		assert_non_null(timing);
		assert_string_equal(timing, icount ? "icount" : "wall");
		if (m) {
			assert_string_equal(unit, icount ? "insns" : "ns");
			assert_true(json_number_value(json_object_get(row, "value")) == 35.5);
		} else {
			assert_string_equal(metric, "port.rx_pps");
			assert_string_equal(unit, icount ? "pkt/Ginsn" : "pps");
		}
		seen[icount][m]++;
	}
	/* both jobs' rate and cost values came back */
	assert_true(seen[0][0] && seen[0][1] && seen[1][0] && seen[1][1]);
	json_decref(vals);
	store_close(&st);
}

/* Driver counters (nic.*) are records unless the job's spec lists them: the value and
 * sample rows of a nic.NAME the spec's metrics list have "listed": true, others none. */
static void test_store_nic_listed(void **state)
{
	struct fixture *f = *state;
	struct store_ingest ing;
	int64_t h1, run, job, rj;
	json_t *r, *spec, *vals, *row, *filter, *q, *smp;
	struct err err;
	struct store *st;
	size_t i;
	int listed = 0, nic = 0, k;

	st = store_open(f->db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_host_hello(st, "h1", "0.1", f->inventory, 100, &h1, NULL), 0);
	run = make_run(st, f, h1, 200);
	db_file_exec(f->db, "UPDATE jobs SET spec = json_set(spec, '$.metrics', "
		     "json('[\"port.rx_pps\", \"nic.rx_queue_0_xdp_drops\"]'))");
	assert_int_equal(store_job_next(st, h1, &job, &rj, &spec), 0);
	json_decref(spec);
	assert_int_equal(store_job_dispatch(st, job, 300), 0);
	r = result_msg(job, "ok", 1.5e6, true);
	for (k = 0; k < 2; k++) {
		smp = json_pack("{s:s, s:s, s:f, s:s, s:s, s:n}", "metric",
				k ? "nic.rx_queue_0_xdp_bytes" : "nic.rx_queue_0_xdp_drops",
				"subject", "b", "value", 1.5e6, "unit", k ? "Bps" : "pps",
				"window", "rate", "seq");
		assert_int_equal(json_array_append_new(json_object_get(r, "samples"), smp), 0);
	}
	assert_int_equal(store_ingest_result(st, h1, r, 400, &ing), 0);
	json_decref(r);

	filter = json_pack("{s:[I]}", "runs", (json_int_t)run);
	vals = store_query_values(st, filter);
	json_decref(filter);
	assert_non_null(vals);
	json_array_foreach(vals, i, row) {
		const char *metric = json_string_value(json_object_get(row, "metric"));
		bool l = json_is_true(json_object_get(row, "listed"));

		nic += !strncmp(metric, "nic.", 4);
		listed += l;
		assert_true(l == !strcmp(metric, "nic.rx_queue_0_xdp_drops"));
		assert_true(analysis_row_is_record(row) == !strcmp(metric, "nic.rx_queue_0_xdp_bytes"));
	}
	assert_int_equal(nic, 2);
	assert_int_equal(listed, 1);
	json_decref(vals);
	q = store_query_result(st, run);
	assert_non_null(q);
	listed = 0;
	json_array_foreach(json_object_get(q, "samples"), i, row)
		listed += json_is_true(json_object_get(row, "listed")) &&
			  !strcmp(json_string_value(json_object_get(row, "metric")),
				  "nic.rx_queue_0_xdp_drops");
	assert_int_equal(listed, 1);
	json_decref(q);
	store_close(&st);
}

/* Open DB, a database at schema FROM, with the store (migrating it to the latest
 * schema), close it, and return a plain connection to it. */
static sqlite3 *migrated(const char *db, int from)
{
	struct err err;
	struct store *st = store_open(db, false, &err);
	sqlite3 *c;

	if (!st)
		fail_msg("migration from schema %d failed: %s", from, err.msg);
	assert_int_equal(store_schema_version(st), store_schema_latest());
	store_close(&st);
	assert_int_equal(sqlite3_open(db, &c), SQLITE_OK);
	return c;
}

/* Check that PRAGMA foreign_key_check finds nothing on C, and close it. */
static void close_fk_clean(sqlite3 *c)
{
	sqlite3_stmt *q;

	assert_int_equal(sqlite3_prepare_v2(c, "PRAGMA foreign_key_check", -1, &q, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_DONE);
	sqlite3_finalize(q);
	sqlite3_close(c);
}

/* A database with runs, jobs and samples at schema 2 migrates to the newest schema: 003
 * rebuilds the runs table that jobs reference, which only works with foreign keys off
 * during the migration (a bpflabd of the first release upgraded in place). */
static void test_store_migrate_rebuilds_referenced_table(void **state)
{
	struct fixture *f = *state;
	sqlite3 *c;
	sqlite3_stmt *q;

	old_database(f->db, 2,
		"INSERT INTO plans VALUES (1, 'p', 'x', 'x', 0);"
		"INSERT INTO runs (id, plan_id, plan_file, submitted_ms, state) "
		"VALUES (1, 1, 'p', 0, 'done');"
		"INSERT INTO hosts (id, name, inventory, first_seen_ms, last_seen_ms) "
		"VALUES (1, 'h', '{}', 0, 0);"
		"INSERT INTO jobs (id, run_id, seq, host_id, variant, variant_idx, rep, spec, state) "
		"VALUES (1, 1, 1, 1, 'a', 0, 1, '{}', 'done');"
		"INSERT INTO samples (id, job_id, metric, subject, value, unit, window, seq) VALUES "
		"(5, 1, 'port.rx_pps', 'b', 10.5, 'pps', 'rate', NULL);");

	c = migrated(f->db, 2);
	assert_int_equal(sqlite3_prepare_v2(c, "SELECT (SELECT state FROM runs WHERE id = 1) || "
		"':' || (SELECT count(*) FROM jobs WHERE run_id = 1) || ':' || "
		"(SELECT value FROM samples WHERE id = 5)", -1, &q, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(q, 0), "done:1:10.5");
	sqlite3_finalize(q);
	close_fk_clean(c);
}

/* Migration 012 (state checks as comparisons) on a schema-10 database: hosts, jobs and
 * job_attempts keep every row, column and id (job 2 with its added reason, attempt 1
 * lost with its error, a sample pointing at job 1); the indexes are back; each state
 * of the old lists is still taken and anything else still refused; nothing writes an
 * IN list's temporary b-tree any more (no OpenEphemeral in the hot UPDATEs). */
static void test_store_migrate_state_checks(void **state)
{
	static const char *const bad[] = {
		"UPDATE hosts SET state = 'idle ' WHERE id = 1",
		"UPDATE jobs SET state = 'cancelled' WHERE id = 1",
		"UPDATE job_attempts SET outcome = 'ok' WHERE job_id = 1",
		"UPDATE hosts SET state = NULL WHERE id = 1",
	};
	static const char *const good[] = {
		"UPDATE hosts SET state = 'busy' WHERE id = 1",
		"UPDATE hosts SET state = 'gone' WHERE id = 1",
		"UPDATE jobs SET state = 'running' WHERE id = 1",
		"UPDATE jobs SET state = 'failed' WHERE id = 1",
		"UPDATE jobs SET state = 'queued' WHERE id = 1",
		"UPDATE job_attempts SET outcome = 'unsent' WHERE job_id = 1",
		"UPDATE job_attempts SET outcome = 'cancelled' WHERE job_id = 1",
		"UPDATE job_attempts SET outcome = 'running' WHERE job_id = 1",
	};
	struct fixture *f = *state;
	char sql[160];
	sqlite3 *c;
	sqlite3_stmt *q;
	size_t i;

	old_database(f->db, 10,
		"INSERT INTO plans VALUES (1, 'p', 'x', 'x', 0);"
		"INSERT INTO runs (id, plan_id, plan_file, submitted_ms, state) "
		"VALUES (1, 1, 'p', 0, 'running');"
		"INSERT INTO hosts VALUES (1, 'h', 'idle', '1.0', '6.1', '{\"a\":1}', 5, 6);"
		"INSERT INTO jobs (id, run_id, seq, host_id, variant, variant_idx, rep, point, spec, "
		"state, attempts, error, started_ms, finished_ms, result_ms, verdicts, added) VALUES "
		"(1, 1, 1, 1, 'a', 0, 1, '{}', '{}', 'done', 2, NULL, 10, 11, 12, '[\"x\"]', NULL),"
		"(2, 1, 2, 1, 'a', 0, 2, '{}', '{}', 'queued', 0, NULL, NULL, NULL, NULL, '[]', "
		"'wide');"
		"INSERT INTO job_attempts VALUES (1, 1, 1, 10, 11, 'lost', 'gone'),"
		"(1, 2, 1, 12, NULL, 'running', NULL);"
		"INSERT INTO samples (id, job_id, metric, subject, value, unit, window, seq) VALUES "
		"(5, 1, 'port.rx_pps', 'b', 10.5, 'pps', 'rate', NULL);");

	c = migrated(f->db, 10);
	assert_int_equal(sqlite3_exec(c, "PRAGMA foreign_keys = ON", NULL, NULL, NULL), 0);
	assert_int_equal(sqlite3_prepare_v2(c, "SELECT "
		"(SELECT group_concat(id || ':' || name || ':' || state || ':' || agent_version || "
		"':' || kernel_release || ':' || inventory || ':' || first_seen_ms || ':' || "
		"last_seen_ms) FROM hosts) || ' ' || "
		"(SELECT group_concat(id || ':' || seq || ':' || rep || ':' || state || ':' || "
		"attempts || ':' || ifnull(started_ms, '-') || ':' || ifnull(result_ms, '-') || "
		"':' || verdicts || ':' || ifnull(added, '-'), ',') FROM (SELECT * FROM jobs "
		"ORDER BY id)) || ' ' || "
		"(SELECT group_concat(job_id || ':' || attempt || ':' || outcome || ':' || "
		"ifnull(error, '-'), ',') FROM (SELECT * FROM job_attempts ORDER BY attempt)) || "
		"' ' || (SELECT job_id FROM samples WHERE id = 5) || ' ' || "
		"(SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_master WHERE "
		"type = 'index' AND name NOT LIKE 'sqlite_%' AND tbl_name IN ('jobs', "
		"'job_attempts') ORDER BY name))", -1, &q, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(q, 0),
			    "1:h:idle:1.0:6.1:{\"a\":1}:5:6 "
			    "1:1:1:done:2:10:12:[\"x\"]:-,2:2:2:queued:0:-:-:[]:wide "
			    "1:1:lost:gone,1:2:running:- 1 job_attempts_host,jobs_queue,jobs_run");
	sqlite3_finalize(q);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		if (sqlite3_exec(c, bad[i], NULL, NULL, NULL) == SQLITE_OK)
			fail_msg("taken: %s", bad[i]);
	for (i = 0; i < ARRAY_SIZE(good); i++)
		if (sqlite3_exec(c, good[i], NULL, NULL, NULL) != SQLITE_OK)
			fail_msg("refused: %s: %s", good[i], sqlite3_errmsg(c));
	/* a job still needs its host: the foreign keys name the new tables */
	assert_int_not_equal(sqlite3_exec(c, "UPDATE jobs SET host_id = 9 WHERE id = 1", NULL,
					  NULL, NULL), SQLITE_OK);
	for (i = 0; i < ARRAY_SIZE(good); i += 3) {	/* hosts, jobs, job_attempts */
		snprintf(sql, sizeof(sql), "EXPLAIN %s", good[i]);
		assert_int_equal(sqlite3_prepare_v2(c, sql, -1, &q, NULL), SQLITE_OK);
		while (sqlite3_step(q) == SQLITE_ROW)
			assert_string_not_equal((const char *)sqlite3_column_text(q, 1),
						"OpenEphemeral");
		sqlite3_finalize(q);
	}
	sqlite3_close(c);
}

/* Migration 013 (sample_values without its foreign keys) on a schema-12 database: every
 * sample keeps its id, job, series, seq, value and unit, the samples view reads them as
 * before and its trigger still inserts; the unique key still refuses a sample given
 * twice; the table names no foreign key any more, so an insert looks up neither the
 * job nor the series (no OpenRead of a parent table in its program). */
static void test_store_migrate_sample_refs(void **state)
{
	struct fixture *f = *state;
	sqlite3 *c;
	sqlite3_stmt *q;
	bool parent_read = false;

	old_database(f->db, 12,
		"INSERT INTO plans VALUES (1, 'p', 'x', 'x', 0);"
		"INSERT INTO runs (id, plan_id, plan_file, submitted_ms) VALUES (1, 1, 'p', 0);"
		"INSERT INTO hosts VALUES (1, 'h', 'idle', '1.0', '6.1', '{}', 5, 6);"
		"INSERT INTO jobs (id, run_id, seq, host_id, variant, variant_idx, rep, spec) "
		"VALUES (1, 1, 1, 1, 'a', 0, 1, '{}');"
		"INSERT INTO samples (id, job_id, metric, subject, value, unit, window, seq) VALUES "
		"(5, 1, 'port.rx_pps', 'b', 10.5, 'pps', 'rate', NULL),"
		"(9, 1, 'port.rx_pps', 'b', 11.5, 'pps', 'rate', 0),"
		"(12, 1, 'prog.ns', '', 30, 'ns', 'cost', NULL);");

	c = migrated(f->db, 12);
	assert_int_equal(sqlite3_exec(c, "PRAGMA foreign_keys = ON", NULL, NULL, NULL), 0);
	assert_int_equal(sqlite3_exec(c, "INSERT INTO samples (job_id, metric, subject, value, "
				      "unit, window, seq) VALUES (1, 'prog.ns', '', 31, 'ns', "
				      "'cost', 1)", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(c, "SELECT group_concat(id || ':' || job_id || ':' "
		"|| metric || ':' || subject || ':' || value || ':' || unit || ':' || window || "
		"':' || ifnull(seq, '-'), ',') FROM (SELECT * FROM samples ORDER BY id)", -1, &q,
		NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(q, 0),
			    "5:1:port.rx_pps:b:10.5:pps:rate:-,9:1:port.rx_pps:b:11.5:pps:rate:0,"
			    "12:1:prog.ns::30.0:ns:cost:-,13:1:prog.ns::31.0:ns:cost:1");
	sqlite3_finalize(q);
	assert_int_not_equal(sqlite3_exec(c, "INSERT INTO sample_values (job_id, series_id, "
					  "seq, value) VALUES (1, 1, 0, 1)", NULL, NULL, NULL),
			     SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(c, "PRAGMA foreign_key_list(sample_values)", -1, &q,
					    NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_DONE);
	sqlite3_finalize(q);
	assert_int_equal(sqlite3_prepare_v2(c, "EXPLAIN INSERT INTO sample_values (job_id, "
		"series_id, seq, value) VALUES (1, 1, 7, 1)", -1, &q, NULL), SQLITE_OK);
	while (sqlite3_step(q) == SQLITE_ROW)
		parent_read |= !strcmp((const char *)sqlite3_column_text(q, 1), "OpenRead");
	sqlite3_finalize(q);
	assert_false(parent_read);
	close_fk_clean(c);
}

/* The repetition controller through the store: a round of A B A B ends; A's second
 * value was disturbed (not counted: one more A), B's values are 30 and 36 ns (95 % CI far
 * wider than 2 %: one more B); A settles at 35.0, 35.1 (CI +-1.8 %) but goes on with B,
 * interleaved, while B goes on to max 4, where its last job gets the verdict not-settled
 * with the half-width it reached. Each added job says why (jobs.added) and the run is
 * done only after the last. */
static void test_store_repeat_controller(void **state)
{
	static const double drop_ns[] = { 35.0, 35.1, 35.1, 35.05 };
	static const double pass_ns[] = { 30, 36, 33, 33 };
	struct fixture *f = *state;
	struct store_ingest ing;
	int64_t h1, run, job, rj;
	int n_drop = 0, n_pass = 0, added = 0, i;
	struct err err;
	struct store *st;
	json_t *spec, *r;

	for (i = 0; i < N_JOBS; i++)
		json_object_set_new(f->jobs[i].spec, "repeat",
				    json_pack("{s:i, s:i, s:f, s:[s]}", "min", 2, "max", 4,
					      "until", 0.02, "on", "prog.ns_per_run"));
	st = store_open(f->db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_host_hello(st, "h1", "0.1", f->inventory, 100, &h1, NULL), 0);
	run = make_run(st, f, h1, 200);
	for (i = 0; i < 20 && !store_job_next(st, h1, &job, &rj, &spec); i++) {
		bool drop = !strcmp(json_string_value(json_object_get(spec, "variant")), "drop");
		double ns = drop ? drop_ns[n_drop++] : pass_ns[n_pass++];

		json_decref(spec);
		assert_int_equal(store_job_dispatch(st, job, 300 + i), 0);
		r = json_pack("{s:i, s:s, s:I, s:s, s:[{s:s, s:s, s:f, s:s, s:s}]}", "v", 1,
			      "type", "result", "job", (json_int_t)job, "status", "ok",
			      "samples", "metric", "prog.ns_per_run", "subject", "p", "value", ns,
			      "unit", "ns", "window", "cost");
		if (drop && n_drop == 2)
			json_object_set_new(r, "verdicts", json_pack("[s]", "disturbed"));
		assert_int_equal(store_ingest_result(st, h1, r, 400 + i, &ing), 0);
		json_decref(r);
		added += ing.reps_added;
		assert_int_equal(ing.run_finished, n_drop == 4 && n_pass == 4);
	}
	assert_int_equal(n_drop, 4);
	assert_int_equal(n_pass, 4);
	assert_int_equal(added, 4);
	store_close(&st);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM jobs WHERE added IS NOT NULL"), 4);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM jobs WHERE variant = 'drop' AND "
				     "rep = 4 AND added LIKE 'keeps the round interleaved with ''pass'': "
				     "prog.ns_per_run of ''p'': 95 % CI +-%'"), 1);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM jobs WHERE added LIKE "
				     "'1 of 2 repetitions did not count (disturbed)%' AND variant = 'drop'"), 1);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM jobs WHERE added LIKE "
				     "'prog.ns_per_run of ''p'': 95 % CI +-%' AND variant = 'pass'"), 2);
	/* interleaved: each added drop before the added pass of its repetition */
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM jobs a, jobs b WHERE "
				     "a.variant = 'drop' AND b.variant = 'pass' AND a.rep = b.rep AND "
				     "a.rep > 2 AND a.seq + 1 = b.seq"), 2);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM jobs WHERE variant = 'pass' "
				     "AND rep = 4 AND verdicts = '[\"not-settled\"]' AND "
				     "json_extract(verdict_details, '$.\"not-settled\"') LIKE "
				     "'prog.ns_per_run of ''p'': 95 % CI +-% after 4 repetitions, not within 2.00 %'"), 1);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM runs WHERE state = 'done'"), 1);
	(void)run;
}

/* A store on the fixture's database with host h1 (*H1) and a run of the fixture's jobs,
 * the first N of them dispatched (their ids in JOBS). */
static struct store *open_dispatched(struct fixture *f, int64_t *h1, int64_t *jobs, int n)
{
	struct store *st;
	struct err err;
	json_t *spec;
	int64_t rj;
	int i;

	st = store_open(f->db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_host_hello(st, "h1", "0.1", f->inventory, 100, h1, NULL), 0);
	make_run(st, f, *h1, 200);
	for (i = 0; i < n; i++) {
		assert_int_equal(store_job_next(st, *h1, &jobs[i], &rj, &spec), 0);
		json_decref(spec);
		assert_int_equal(store_job_dispatch(st, jobs[i], 300), 0);
	}
	return st;
}

/* Results of one turn in one batch (store_batch_begin/end, as bpflabd stores them): one
 * that fails changes nothing and leaves the others; nothing is visible to another
 * connection before the commit; a batch rolled back leaves nothing, not even series ids
 * in the connection's cache. */
static void test_store_batch(void **state)
{
	struct fixture *f = *state;
	struct store_ingest ing;
	int64_t h1, job[N_JOBS];
	struct store *st = open_dispatched(f, &h1, job, N_JOBS);
	json_t *r;

	/* rolled back whole: nothing stays, and the series ids it added are forgotten */
	assert_int_equal(store_batch_begin(st), 0);
	assert_int_equal(store_batch_begin(st), -EBUSY);
	r = result_msg(job[0], "ok", 5e6, true);
	assert_int_equal(store_ingest_result(st, h1, r, 400, &ing), 0);
	json_decref(r);
	assert_int_equal(store_batch_end(st, -ECANCELED), -ECANCELED);
	assert_int_equal(count_rows(f->db, "samples"), 0);
	assert_int_equal(count_rows(f->db, "series"), 0);

	/* two results, one refused between them (unknown job), one given twice */
	assert_int_equal(store_batch_begin(st), 0);
	r = result_msg(job[0], "ok", 5e6, true);
	assert_int_equal(store_ingest_result(st, h1, r, 400, &ing), 0);
	assert_false(ing.duplicate);
	assert_int_equal(ing.n_samples, 3);
	assert_int_equal(store_ingest_result(st, h1, r, 400, &ing), 0);
	assert_true(ing.duplicate);
	json_decref(r);
	r = result_msg(job[N_JOBS - 1] + 100, "ok", 5e6, true);
	assert_int_equal(store_ingest_result(st, h1, r, 400, &ing), -ENOENT);
	json_decref(r);
	r = result_msg(job[1], "failed", 5e6, false);
	assert_int_equal(store_ingest_result(st, h1, r, 410, &ing), 0);
	assert_true(ing.failed);
	json_decref(r);
	assert_int_equal(count_rows(f->db, "samples"), 0);	/* not committed yet */
	assert_int_equal(store_batch_end(st, 0), 0);
	assert_int_equal(count_rows(f->db, "samples"), 6);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM jobs WHERE state IN "
				     "('done', 'failed')"), 2);
	/* outside a batch: its own transaction again */
	assert_int_equal(store_batch_end(st, 0), 0);
	r = result_msg(job[2], "ok", 5e6, true);
	assert_int_equal(store_ingest_result(st, h1, r, 420, &ing), 0);
	json_decref(r);
	assert_int_equal(count_rows(f->db, "samples"), 9);
	store_close(&st);
}

/* A result whose samples were read from its text (proto_decode_samples) is stored as
 * the same result read as JSON. */
static void test_store_ingest_samples(void **state)
{
	static const char text[] =
		"{\"v\":1,\"type\":\"result\",\"job\":%lld,\"status\":\"ok\","
		"\"started_ms\":1000,\"finished_ms\":2000,\"samples\":["
		"{\"metric\":\"port.rx_pps\",\"subject\":\"b\",\"value\":5000000.5,"
		"\"unit\":\"pps\",\"window\":\"rate\",\"seq\":null},"
		"{\"metric\":\"port.rx_pps\",\"subject\":\"b\",\"value\":5000001,"
		"\"unit\":\"pps\",\"window\":\"rate\",\"seq\":0},"
		"{\"metric\":\"prog.ns_per_run\",\"subject\":\"xdp_drop\",\"value\":35.5,"
		"\"unit\":\"ns\",\"window\":\"cost\"}]}";
	struct fixture *f = *state;
	struct store_ingest ing;
	struct samples smp;
	int64_t h1, job[2];
	struct store *st = open_dispatched(f, &h1, job, 2);
	struct err err;
	char buf[1024];
	json_t *msg;
	int i;

	for (i = 0; i < 2; i++) {
		snprintf(buf, sizeof(buf), text, (long long)job[i]);
		msg = proto_decode_samples(buf, strlen(buf), &smp, &err);
		assert_non_null(msg);
		assert_true(smp.taken);
		/* the first as bpflabd reads it, the second through jansson alone */
		if (i == 0) {
			assert_int_equal(store_ingest_samples(st, h1, msg, &smp, 400, &ing), 0);
		} else {
			json_decref(msg);
			msg = proto_decode(buf, strlen(buf), &err);
			assert_int_equal(store_ingest_result(st, h1, msg, 400, &ing), 0);
		}
		assert_int_equal(ing.n_samples, 3);
		samples_release(&smp);
		json_decref(msg);
	}
	/* the same rows for both jobs */
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM (SELECT series_id, seq, "
				     "value, unit FROM sample_values WHERE job_id = (SELECT "
				     "min(job_id) FROM sample_values) EXCEPT SELECT series_id, seq, "
				     "value, unit FROM sample_values WHERE job_id = (SELECT "
				     "max(job_id) FROM sample_values))"), 0);
	assert_int_equal(count_rows(f->db, "samples"), 6);
	store_close(&st);
}

/* A result of N samples of one series, seconds 0..N-1 (value 1000 + the second), the
 * second of sample DUP (when >= 0) the one before it. */
static json_t *result_seconds(int64_t job, int n, int dup)
{
	json_t *r = result_msg(job, "ok", 1, false), *v = json_array();
	int i;

	for (i = 0; i < n; i++)
		json_array_append_new(v, json_pack("{s:s, s:s, s:f, s:s, s:s, s:i}", "metric",
						   "port.rx_pps", "subject", "b", "value",
						   1000.0 + i, "unit", "pps", "window", "rate",
						   "seq", i == dup ? i - 1 : i));
	json_object_set_new(r, "samples", v);
	return r;
}

/* Samples go in by statements of 32, 8 and one rows (store_ingest.c): every row stored
 * with its own second and value, and a second given twice named by its index whether
 * it falls in a statement of 32, of 8 or of one, nothing of the result kept. */
static void test_store_ingest_many_samples(void **state)
{
	static const int dups[] = { 20, 35, 44 };
	struct fixture *f = *state;
	struct store_ingest ing;
	int64_t h1, job[2];
	struct store *st = open_dispatched(f, &h1, job, 2);
	char want[64];
	json_t *r;
	size_t i;

	for (i = 0; i < sizeof(dups) / sizeof(dups[0]); i++) {
		r = result_seconds(job[0], 45, dups[i]);
		assert_int_equal(store_ingest_result(st, h1, r, 400, &ing), -EINVAL);
		snprintf(want, sizeof(want), "sample %d ('port.rx_pps' of 'b'", dups[i]);
		assert_contains(store_errmsg(st), want);
		assert_contains(store_errmsg(st), "is given twice");
		json_decref(r);
		assert_int_equal(count_rows(f->db, "samples"), 0);
	}
	r = result_seconds(job[0], 45, -1);	/* 32 + 8 + 5 x 1 */
	assert_int_equal(store_ingest_result(st, h1, r, 400, &ing), 0);
	assert_int_equal(ing.n_samples, 45);
	json_decref(r);
	r = result_seconds(job[1], 3, -1);
	assert_int_equal(store_ingest_result(st, h1, r, 400, &ing), 0);
	assert_int_equal(ing.n_samples, 3);
	json_decref(r);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM samples WHERE "
				     "value = 1000 + seq AND unit = 'pps' AND window = 'rate'"), 48);
	assert_int_equal(db_file_count(f->db, "SELECT count(DISTINCT seq) FROM samples"), 45);
	/* in the order sent: the ids follow the seconds */
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM samples a JOIN samples b "
				     "ON b.job_id = a.job_id AND b.id > a.id AND b.seq < a.seq"), 0);
	store_close(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_store_migrations, fixture_setup,
						fixture_teardown),
		cmocka_unit_test_setup_teardown(test_store_migrate_samples, fixture_setup,
						fixture_teardown),
		cmocka_unit_test_setup_teardown(test_store_queue_and_queries, fixture_setup,
						fixture_teardown),
		cmocka_unit_test_setup_teardown(test_store_duplicate_ingest, fixture_setup,
						fixture_teardown),
		cmocka_unit_test_setup_teardown(test_store_bad_result, fixture_setup,
						fixture_teardown),
		cmocka_unit_test_setup_teardown(test_store_recover_and_gone, fixture_setup,
						fixture_teardown),
		cmocka_unit_test_setup_teardown(test_store_job_write_failures, fixture_setup,
						fixture_teardown),
		cmocka_unit_test_setup_teardown(test_store_jobs_dispatch, fixture_setup,
						fixture_teardown),
		cmocka_unit_test_setup_teardown(test_store_readonly, fixture_setup,
						fixture_teardown),
		cmocka_unit_test_setup_teardown(test_store_full, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_store_lost_and_attempts, fixture_setup,
						fixture_teardown),
		cmocka_unit_test_setup_teardown(test_store_cancel, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_store_repeat_controller, fixture_setup,
						fixture_teardown),
		cmocka_unit_test_setup_teardown(test_store_timing_units, fixture_setup,
						fixture_teardown),
		cmocka_unit_test_setup_teardown(test_store_nic_listed, fixture_setup,
						fixture_teardown),
		cmocka_unit_test_setup_teardown(test_store_migrate_rebuilds_referenced_table,
						fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_store_migrate_state_checks, fixture_setup,
						fixture_teardown),
		cmocka_unit_test_setup_teardown(test_store_migrate_sample_refs, fixture_setup,
						fixture_teardown),
		cmocka_unit_test_setup_teardown(test_store_batch, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_store_ingest_samples, fixture_setup,
						fixture_teardown),
		cmocka_unit_test_setup_teardown(test_store_ingest_many_samples, fixture_setup,
						fixture_teardown),
	};

	return cmocka_run_group_tests_name("store", tests, NULL, NULL);
}

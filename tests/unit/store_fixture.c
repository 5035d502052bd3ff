// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* store_fixture.c - the fixture of lib/store's unit tests (store_fixture.h): setup and
 * teardown for cmocka, runs, results and checks on the database file.
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
#include "store_fixture.h"

static const char plan_text[] = "name: t\nvariants: {drop: [...], pass: [...]}\n";

int store_fix_setup(void **state)
{
	static const char *const progs[N_VARIANTS] = { "xdp_drop", "xdp_pass" };
	struct store_fix *f = calloc(1, sizeof(*f));
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

int store_fix_teardown(void **state)
{
	struct store_fix *f = *state;
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
int64_t store_fix_run(struct store *st, struct store_fix *f, int64_t host_id, int64_t now)
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

json_t *store_fix_result(int64_t job, const char *status, double value, bool with_env)
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
long long store_fix_count(const char *db, const char *table)
{
	char sql[128];

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", table);
	return db_file_count(db, sql);
}

/* Run SQL on the store's own connection (a trigger that makes a later write fail). */
void store_fix_sql(struct store *st, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(store_db(st), sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
}

/* Job JOB is running with its attempt open and host h1 busy: nothing of a write that
 * failed stayed. */
void store_fix_assert_running(const char *db, int64_t job)
{
	char sql[256];

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM jobs j JOIN job_attempts a ON "
		 "a.job_id = j.id JOIN hosts h ON h.id = j.host_id WHERE j.id = %lld AND "
		 "j.state = 'running' AND a.outcome = 'running' AND h.state = 'busy'",
		 (long long)job);
	assert_int_equal(db_file_count(db, sql), 1);
}

/* The run's state as another connection sees it (committed). */
void store_fix_assert_state(const char *db, int64_t run, const char *state)
{
	char sql[160];

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM runs WHERE id = %lld AND state = '%s'",
		 (long long)run, state);
	assert_int_equal(db_file_count(db, sql), 1);
}

/* A store on the fixture's database with host h1 (*H1) and a run of the fixture's jobs,
 * the first N of them dispatched (their ids in JOBS). */
struct store *store_fix_dispatched(struct store_fix *f, int64_t *h1, int64_t *jobs, int n)
{
	struct store *st;
	struct err err;
	json_t *spec;
	int64_t rj;
	int i;

	st = store_open(f->db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_host_hello(st, "h1", "0.1", f->inventory, 100, h1, NULL), 0);
	store_fix_run(st, f, *h1, 200);
	for (i = 0; i < n; i++) {
		assert_int_equal(store_job_next(st, *h1, &jobs[i], &rj, &spec), 0);
		json_decref(spec);
		assert_int_equal(store_job_dispatch(st, jobs[i], 300), 0);
	}
	return st;
}

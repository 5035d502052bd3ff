// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_store_jobs.c - unit tests for lib/store's job life on real SQLite: restart
 * recovery and hosts gone, dispatch and attempts, lost jobs moving to another host,
 * cancel, the repeat controller, a host kept busy from a result to its next job, and
 * failures that must roll back whole: a read-only database, a full one (PRAGMA
 * max_page_count) and a queue write whose later step a trigger makes fail. The
 * fixture: store_fixture.h.
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

#include "proto/msg_result.h"
#include "proto/proto.h"
#include "proto/samples.h"
#include "analysis/analysis.h"
#include "store/store.h"
#include "base/util.h"
#include "helpers.h"
#include "store_fixture.h"

static void test_store_recover_and_gone(void **state)
{
	struct store_fix *f = *state;
	int64_t h1, job, job2, rj;
	int requeued = -1;
	json_t *spec, *q, *jobs;
	struct err err;
	struct store *st;

	st = store_open(f->db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_host_hello(st, "h1", "0.1", f->inventory, 100, &h1, NULL), 0);
	store_fix_run(st, f, h1, 200);
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
	assert_int_equal(store_job_requeue(st, job, NULL), 0);
	assert_int_equal(store_job_requeue(st, job, NULL), -ESTALE);
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
	assert_int_equal(store_fix_count(f->db, "jobs"), N_JOBS);
	store_close(&st);
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
	struct store_fix *f = *state;
	int64_t h1, job, rj;
	struct err err;
	char want[128];
	struct store *st;
	json_t *spec;
	size_t i;

	st = store_open(f->db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_host_hello(st, "h1", "0.1", f->inventory, 100, &h1, NULL), 0);
	store_fix_run(st, f, h1, 200);

	assert_int_equal(store_job_dispatch(st, 4242, 300), -ENOENT);
	assert_string_equal(store_err(st)->msg, "cannot dispatch job 4242: unknown job 4242");
	assert_int_equal(store_job_accept(st, 4242, h1, 300), -ENOENT);
	assert_string_equal(store_err(st)->msg, "cannot mark job 4242 running: unknown job 4242");
	assert_int_equal(store_job_requeue(st, 4242, NULL), -ENOENT);
	assert_string_equal(store_err(st)->msg, "cannot requeue job 4242: unknown job 4242");
	assert_int_equal(store_job_fail(st, 4242, "gone", 300), -ENOENT);
	assert_string_equal(store_err(st)->msg, "cannot fail job 4242: unknown job 4242");
	/* the store's error is a struct err: no place, not a person's input, and it stays
	 * until the next failure (docs/architecture.md, "Errors") */
	assert_false(store_err(st)->input);
	assert_int_equal(store_err(st)->line, 0);
	/* no transaction was left open: the next write is committed (seen by another
	 * connection) */
	assert_int_equal(store_job_next(st, h1, &job, &rj, &spec), 0);
	json_decref(spec);
	assert_int_equal(store_job_dispatch(st, job, 300), 0);
	store_fix_assert_running(f->db, job);
	assert_string_equal(store_err(st)->msg, "cannot fail job 4242: unknown job 4242");

	for (i = 0; i < ARRAY_SIZE(triggers); i++) {
		store_fix_sql(st, triggers[i]);
		assert_int_equal(store_job_requeue(st, job, NULL), -EINVAL);
		snprintf(want, sizeof(want), "cannot requeue job %lld: injected", (long long)job);
		assert_string_equal(store_err(st)->msg, want);
		assert_int_equal(store_job_fail(st, job, "gone", 400), -EINVAL);
		snprintf(want, sizeof(want), "cannot fail job %lld: injected", (long long)job);
		assert_string_equal(store_err(st)->msg, want);
		store_fix_assert_running(f->db, job);
		store_fix_sql(st, "DROP TRIGGER t");
	}
	assert_int_equal(store_job_requeue(st, job, NULL), 0);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM jobs WHERE state = 'running'"),
			 0);
	store_close(&st);
}

/* Several jobs dispatched in one transaction (bpflabd's turn of its loop): an unknown job
 * and one that is not queued are left out and the others go; a write that fails rolls
 * every job of the batch back. */
static void test_store_jobs_dispatch(void **state)
{
	struct store_fix *f = *state;
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
	run1 = store_fix_run(st, f, h1, 200);
	run2 = store_fix_run(st, f, h2, 210);
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
	assert_string_equal(store_err(st)->msg, "cannot dispatch job 4242: unknown job 4242");
	/* committed: both jobs, their attempts, hosts and runs, seen by another connection */
	store_fix_assert_running(f->db, ids[0]);
	store_fix_assert_running(f->db, ids[2]);
	snprintf(want, sizeof(want), "SELECT count(*) FROM jobs WHERE id IN (%lld, %lld) AND "
		 "attempts = 1 AND started_ms = 300", (long long)ids[0], (long long)ids[2]);
	assert_int_equal(db_file_count(f->db, want), 2);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM jobs WHERE state = 'running'"),
			 2);
	store_fix_assert_state(f->db, run1, "running");
	store_fix_assert_state(f->db, run2, "running");

	/* the attempt of the second job cannot be stored: neither job is dispatched */
	assert_int_equal(store_job_requeue(st, ids[0], NULL), 0);
	assert_int_equal(store_job_requeue(st, ids[2], NULL), 0);
	assert_int_equal(store_job_next(st, h1, &next1, &rj, &spec), 0);
	json_decref(spec);
	assert_int_equal(store_job_next(st, h2, &next2, &rj, &spec), 0);
	json_decref(spec);
	snprintf(want, sizeof(want), "CREATE TRIGGER t BEFORE INSERT ON job_attempts WHEN "
		 "NEW.job_id = %lld BEGIN SELECT RAISE(ABORT, 'injected'); END", (long long)next2);
	store_fix_sql(st, want);
	ids[0] = next1;
	ids[1] = next2;
	assert_int_equal(store_jobs_dispatch(st, ids, 2, 400, errs), -EINVAL);
	assert_int_equal(errs[0], -EINVAL);
	assert_int_equal(errs[1], -EINVAL);
	assert_string_equal(store_err(st)->msg, "cannot dispatch 2 jobs: injected");
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM jobs WHERE state = 'running'"),
			 0);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM hosts WHERE state = 'busy'"),
			 0);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM job_attempts WHERE "
				     "started_ms = 400"), 0);
	store_fix_sql(st, "DROP TRIGGER t");
	assert_int_equal(store_jobs_dispatch(st, ids, 2, 500, errs), 0);
	store_fix_assert_running(f->db, next1);
	store_fix_assert_running(f->db, next2);
	store_close(&st);
}

/* Result R of a job from host HOST stored as bpflabd stores it (decoded, KEEP_BUSY). */
static int ingest_msg(struct store *st, int64_t host, json_t *r, int64_t now, bool keep_busy)
{
	struct store_ingest ing;
	struct msg_result m;
	struct err why;
	int err;

	assert_int_equal(msg_result_decode(r, NULL, &m, &why), 0);
	err = store_ingest_msg(st, host, &m, now, keep_busy, &ing);
	msg_result_release(&m);
	json_decref(r);
	return err;
}

/* Host HOST's next job dispatched at NOW as bpflabd's turn does (store_jobs_dispatch):
 * its id. */
static int64_t dispatch_next(struct store *st, int64_t host, int64_t now)
{
	int64_t job, run;
	json_t *spec;
	int errs[1];

	assert_int_equal(store_job_next(st, host, &job, &run, &spec), 0);
	json_decref(spec);
	assert_int_equal(store_jobs_dispatch(st, &job, 1, now, errs), 0);
	assert_int_equal(errs[0], 0);
	return job;
}

static long long hosts_in(const char *db, const char *state)
{
	char sql[96];

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM hosts WHERE state = '%s'", state);
	return db_file_count(db, sql);
}

/* A host kept busy from a result to its next job (bpflabd's turn): the result and the
 * next dispatch write no hosts row (a trigger refuses any), store_hosts_idle makes it
 * idle only when it runs no job; without KEEP_BUSY the result makes it idle; a
 * coordinator stopped between a kept result and its idle leaves it busy until
 * store_recover marks every host gone. */
static void test_store_host_kept_busy(void **state)
{
	struct store_fix *f = *state;
	int64_t h1, job;
	int requeued = -1;
	struct err err;
	struct store *st;

	st = store_fix_dispatched(f, &h1, &job, 1);
	assert_int_equal(hosts_in(f->db, "busy"), 1);

	store_fix_sql(st, "CREATE TRIGGER t BEFORE UPDATE ON hosts BEGIN "
		      "SELECT RAISE(ABORT, 'injected'); END");
	assert_int_equal(ingest_msg(st, h1, store_fix_result(job, "ok", 1.0, false), 400, true),
			 0);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM jobs WHERE state = 'done'"),
			 1);
	assert_int_equal(hosts_in(f->db, "busy"), 1);
	job = dispatch_next(st, h1, 500);
	store_fix_assert_running(f->db, job);
	/* it runs a job: store_hosts_idle leaves it busy (and writes nothing) */
	assert_int_equal(store_hosts_idle(st, &h1, 1), 0);
	assert_int_equal(store_hosts_idle(st, NULL, 0), 0);
	assert_int_equal(ingest_msg(st, h1, store_fix_result(job, "ok", 1.0, false), 600, true),
			 0);
	/* the idle write fails: rolled back, the host stays busy, the message says so */
	assert_int_equal(store_hosts_idle(st, &h1, 1), -EINVAL);
	assert_string_equal(store_err(st)->msg, "cannot mark 1 host idle: injected");
	store_fix_sql(st, "DROP TRIGGER t");
	assert_int_equal(store_hosts_idle(st, &h1, 1), 0);
	assert_int_equal(hosts_in(f->db, "idle"), 1);
	assert_int_equal(store_hosts_idle(st, &h1, 1), 0);
	assert_int_equal(hosts_in(f->db, "idle"), 1);

	/* without KEEP_BUSY the result itself makes the host idle */
	job = dispatch_next(st, h1, 700);
	assert_int_equal(hosts_in(f->db, "busy"), 1);
	assert_int_equal(ingest_msg(st, h1, store_fix_result(job, "ok", 1.0, false), 800, false),
			 0);
	assert_int_equal(hosts_in(f->db, "idle"), 1);

	/* stopped between a kept result and its idle: busy with no running job, then gone */
	job = dispatch_next(st, h1, 900);
	assert_int_equal(ingest_msg(st, h1, store_fix_result(job, "ok", 1.0, false), 1000, true),
			 0);
	store_close(&st);
	assert_int_equal(hosts_in(f->db, "busy"), 1);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM jobs WHERE state = 'running'"),
			 0);
	st = store_open(f->db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_recover(st, &requeued), 0);
	assert_int_equal(requeued, 0);
	assert_int_equal(hosts_in(f->db, "gone"), 1);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM jobs WHERE state = 'done'"),
			 4);
	store_close(&st);
}

/* A read-only database: every mutation fails with -EROFS and a message, queries work. */
static void test_store_readonly(void **state)
{
	struct store_fix *f = *state;
	struct store_ingest ing;
	int64_t h1, run, id = 0, job, rj;
	json_t *q, *r, *spec;
	struct err err;
	struct store *st;

	st = store_open(f->db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_host_hello(st, "h1", "0.1", f->inventory, 100, &h1, NULL), 0);
	run = store_fix_run(st, f, h1, 200);
	store_close(&st);

	st = store_open(f->db, true, &err);
	assert_non_null(st);
	assert_int_equal(store_host_hello(st, "h9", "0.1", f->inventory, 100, &id, NULL),
			 -EROFS);
	assert_non_null(strstr(store_err(st)->msg, "cannot register host 'h9': attempt to write "
			       "a readonly database"));
	assert_int_equal(store_job_next(st, h1, &job, &rj, &spec), 0);
	json_decref(spec);
	assert_int_equal(store_job_dispatch(st, job, 300), -EROFS);
	r = store_fix_result(job, "ok", 1, true);
	assert_int_equal(store_ingest_result(st, h1, r, 400, &ing), -EROFS);
	json_decref(r);
	assert_int_equal(store_recover(st, NULL), -EROFS);
	q = store_query_run(st, run);
	assert_non_null(q);
	assert_string_equal(json_string_value(json_object_get(q, "state")), "queued");
	json_decref(q);
	store_close(&st);
	assert_int_equal(store_fix_count(f->db, "hosts"), 1);
	assert_int_equal(store_fix_count(f->db, "samples"), 0);
}

/* A host that goes silent: each attempt is stored; its queued jobs move to a free host
 * that matched the plan; a job lost max_attempts times fails with the reason; a result
 * from the first host (its spool) is still taken, once. */
static void test_store_lost_and_attempts(void **state)
{
	struct store_fix *f = *state;
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
	assert_int_equal(store_fix_count(f->db, "run_hosts"), 2);

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
	assert_int_equal(store_fix_count(f->db, "job_attempts"), 2);

	/* h1 comes back and sends its spooled result for attempt 1: stored (the job was
	 * failed by the coordinator; measured data is kept), attempt 1 becomes done */
	assert_int_equal(store_host_hello(st, "h1", "0.1", f->inventory, 700, &h1, NULL), 0);
	r = store_fix_result(job, "ok", 1.0, false);
	assert_int_equal(store_ingest_result(st, h1, r, 800, &ing), 0);
	assert_false(ing.duplicate);
	assert_int_equal(ing.n_samples, 3);
	assert_int_equal(store_ingest_result(st, h1, r, 900, &ing), 0);
	assert_true(ing.duplicate);
	json_decref(r);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM job_attempts WHERE "
				     "attempt = 1 AND outcome = 'done'"), 1);
	/* h3 had no attempt: its result for the job is refused */
	r = store_fix_result(job, "ok", 1.0, false);
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
	struct store_fix *f = *state;
	struct store_ingest ing;
	int64_t h1, run, job, rj;
	json_t *spec, *running = NULL, *r, *q;
	struct err err;
	struct store *st;

	st = store_open(f->db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_host_hello(st, "h1", "0.1", f->inventory, 100, &h1, NULL), 0);
	run = store_fix_run(st, f, h1, 200);
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
	r = store_fix_result(job, "failed", 1.0, false);
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

/* The run's state through each step (sto_run_refresh): queued; running once a job is
 * handed out, also while a failed job and queued ones remain; failed when the last job
 * ends after an early failure, with the finish time of that last result, and a
 * duplicate result changes nothing. */
static void test_store_run_state_steps(void **state)
{
	struct store_fix *f = *state;
	struct store_ingest ing;
	int64_t h1, run = 0, job;
	json_t *spec, *r, *q;
	struct store *st = store_fix_dispatched(f, &h1, NULL, 0);
	int i;

	for (i = 0; i < N_JOBS; i++) {
		assert_int_equal(store_job_next(st, h1, &job, &run, &spec), 0);
		json_decref(spec);
		if (i == 0)
			store_fix_assert_state(f->db, run, "queued");
		assert_int_equal(store_job_dispatch(st, job, 300 + i), 0);
		store_fix_assert_state(f->db, run, "running");
		r = store_fix_result(job, i == 0 ? "failed" : "ok", 1.0, false);
		assert_int_equal(store_ingest_result(st, h1, r, 400 + i, &ing), 0);
		assert_string_equal(ing.run_state, i < N_JOBS - 1 ? "running" : "failed");
		assert_int_equal(ing.run_finished, i == N_JOBS - 1);
		if (i == N_JOBS - 1) {
			/* sent again: stored once, the run as it was */
			assert_int_equal(store_ingest_result(st, h1, r, 500, &ing), 0);
			assert_true(ing.duplicate);
		}
		json_decref(r);
	}
	q = store_query_run(st, run);
	assert_string_equal(json_string_value(json_object_get(q, "state")), "failed");
	assert_int_equal(json_integer_value(json_object_get(q, "finished_ms")),
			 400 + N_JOBS - 1);
	assert_int_equal(json_integer_value(json_object_get(q, "jobs_failed")), 1);
	json_decref(q);
	store_close(&st);
}

/* A full disk (the size cap): the run is refused whole, the store keeps working. */
static void test_store_full(void **state)
{
	struct store_fix *f = *state;
	struct store_ingest ing;
	int64_t h1, run = 0, job, rj;
	json_t *r, *spec;
	void *small;
	struct err err;
	struct store *st;

	st = store_open(f->db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_host_hello(st, "h1", "0.1", f->inventory, 100, &h1, NULL), 0);
	run = store_fix_run(st, f, h1, 200);

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
		assert_non_null(strstr(store_err(st)->msg, "cannot store run of plan 't': "
				       "database or disk is full"));
	}
	assert_int_equal(store_fix_count(f->db, "runs"), 1);
	assert_int_equal(store_fix_count(f->db, "objects"), 1);
	assert_int_equal(store_fix_count(f->db, "jobs"), N_JOBS);

	/* small writes may still fit in the pages the database has; the queue works */
	assert_int_equal(store_job_next(st, h1, &job, &rj, &spec), 0);
	json_decref(spec);
	assert_int_equal(rj, run);
	assert_int_equal(store_set_size_limit(st, 0), 0);
	assert_int_equal(store_job_dispatch(st, job, 400), 0);
	r = store_fix_result(job, "ok", 1, true);
	assert_int_equal(store_ingest_result(st, h1, r, 500, &ing), 0);
	json_decref(r);
	free(f->obj.data);
	f->obj.data = small;
	store_close(&st);
	assert_int_equal(store_fix_count(f->db, "samples"), 3);
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
	struct store_fix *f = *state;
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
	run = store_fix_run(st, f, h1, 200);
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
	/* each added job's spec a row of its own (schema 015), saying its repetition */
	assert_int_equal(db_file_count(f->db, "SELECT count(DISTINCT j.spec_id) FROM jobs j "
				     "JOIN job_specs s ON s.id = j.spec_id WHERE j.added IS NOT NULL "
				     "AND json_extract(s.text, '$.rep') = j.rep AND "
				     "json_extract(s.text, '$.variant') = j.variant"), 4);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM job_specs WHERE id NOT IN "
				     "(SELECT spec_id FROM jobs)"), 0);
	(void)run;
}


/* A run on two hosts (count: all): each plan job's spec is one row of job_specs that its
 * two jobs share, holding the plan job's spec; the queue hands each host its own job with
 * that spec (schema 015). */
static void test_store_specs_shared_by_hosts(void **state)
{
	struct store_fix *f = *state;
	struct store_job_new jn[2 * N_JOBS] = { 0 };
	struct store_run_host rh[2];
	int64_t h1, h2, run = 0, job, rj;
	struct err err;
	struct store *st;
	json_t *spec;
	int i;

	st = store_open(f->db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_host_hello(st, "h1", "0.1", f->inventory, 100, &h1, NULL), 0);
	assert_int_equal(store_host_hello(st, "h2", "0.1", f->inventory, 100, &h2, NULL), 0);
	for (i = 0; i < 2 * N_JOBS; i++) {
		jn[i].host_id = i % 2 ? h2 : h1;
		jn[i].job = &f->jobs[i / 2];
	}
	rh[0] = (struct store_run_host){ .host_id = h1, .chosen = true };
	rh[1] = (struct store_run_host){ .host_id = h2, .chosen = true };
	assert_int_equal(store_run_create_hosts(st, &f->plan, NULL, &f->objs, jn, 2 * N_JOBS,
						rh, 2, 200, &run, NULL), 0);
	assert_int_equal(store_fix_count(f->db, "jobs"), 2 * N_JOBS);
	assert_int_equal(store_fix_count(f->db, "job_specs"), N_JOBS);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM jobs a JOIN jobs b ON "
				     "b.seq = a.seq AND b.host_id > a.host_id WHERE b.spec_id = "
				     "a.spec_id"), N_JOBS);
	for (i = 0; i < 2; i++) {
		assert_int_equal(store_job_next(st, i ? h2 : h1, &job, &rj, &spec), 0);
		assert_int_equal(rj, run);
		assert_true(json_equal(spec, f->jobs[0].spec));
		json_decref(spec);
	}
	store_close(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_store_recover_and_gone, store_fix_setup,
						store_fix_teardown),
		cmocka_unit_test_setup_teardown(test_store_job_write_failures, store_fix_setup,
						store_fix_teardown),
		cmocka_unit_test_setup_teardown(test_store_jobs_dispatch, store_fix_setup,
						store_fix_teardown),
		cmocka_unit_test_setup_teardown(test_store_specs_shared_by_hosts, store_fix_setup,
						store_fix_teardown),
		cmocka_unit_test_setup_teardown(test_store_host_kept_busy, store_fix_setup,
						store_fix_teardown),
		cmocka_unit_test_setup_teardown(test_store_readonly, store_fix_setup,
						store_fix_teardown),
		cmocka_unit_test_setup_teardown(test_store_full, store_fix_setup,
						store_fix_teardown),
		cmocka_unit_test_setup_teardown(test_store_lost_and_attempts, store_fix_setup,
						store_fix_teardown),
		cmocka_unit_test_setup_teardown(test_store_run_state_steps, store_fix_setup,
						store_fix_teardown),
		cmocka_unit_test_setup_teardown(test_store_cancel, store_fix_setup,
						store_fix_teardown),
		cmocka_unit_test_setup_teardown(test_store_repeat_controller, store_fix_setup,
						store_fix_teardown),
	};

	return cmocka_run_group_tests_name("store_jobs", tests, NULL, NULL);
}

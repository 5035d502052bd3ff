// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_store.c - unit tests for lib/store on real SQLite: the job queue from run creation
 * to result, the JSON of every query (docs/protocol.md, "Query objects"), idempotent
 * ingest, a malformed result refused whole, timing units, the NICs listed, results stored
 * in batches and samples of many seconds. Migrations: test_store_migrate.c; job states,
 * recovery and failures that must roll back whole: test_store_jobs.c. The fixture (a
 * hand-made plan, no plan_parse): store_fixture.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
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

static void test_store_queue_and_queries(void **state)
{
	struct store_fix *f = *state;
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

	run = store_fix_run(st, f, h1, 200);
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
			r = store_fix_result(job, "ok", 1e6, true);
			assert_int_equal(store_ingest_result(st, h2, r, 400, &ing), -EPERM);
			json_decref(r);
		}
		assert_int_equal(store_job_accept(st, job, h1, 310 + i), 0);
		r = store_fix_result(job, i == 3 ? "failed" : "ok", 1e6 * (i + 1), i != 1);
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
	assert_non_null(strstr(store_err(st)->msg, "unknown run 999"));

	q = store_query_hosts(st);
	assert_string_equal(json_string_value(json_object_get(json_array_get(q, 0), "state")),
			    "idle");
	json_decref(q);
	store_close(&st);
}

static void test_store_duplicate_ingest(void **state)
{
	struct store_fix *f = *state;
	struct store_ingest ing;
	int64_t h1, run, job, rj;
	json_t *spec, *r;
	struct err err;
	struct store *st;

	st = store_open(f->db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_host_hello(st, "h1", "0.1", f->inventory, 100, &h1, NULL), 0);
	run = store_fix_run(st, f, h1, 200);
	assert_int_equal(store_job_next(st, h1, &job, &rj, &spec), 0);
	json_decref(spec);
	assert_int_equal(store_job_dispatch(st, job, 300), 0);
	r = store_fix_result(job, "ok", 5e6, true);
	assert_int_equal(store_ingest_result(st, h1, r, 400, &ing), 0);
	assert_false(ing.duplicate);
	assert_int_equal(store_fix_count(f->db, "samples"), 3);
	assert_int_equal(store_fix_count(f->db, "host_envs"), 1);

	/* the same again, and once more with other values: stored once */
	assert_int_equal(store_ingest_result(st, h1, r, 500, &ing), 0);
	assert_true(ing.duplicate);
	assert_int_equal(ing.n_samples, 0);
	assert_int_equal(ing.run_id, run);
	json_decref(r);
	r = store_fix_result(job, "failed", 9e6, false);
	assert_int_equal(store_ingest_result(st, h1, r, 600, &ing), 0);
	assert_true(ing.duplicate);
	json_decref(r);
	assert_int_equal(store_fix_count(f->db, "samples"), 3);
	assert_int_equal(store_fix_count(f->db, "host_envs"), 1);
	r = store_query_run(st, run);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
			    json_object_get(r, "jobs"), 0), "state")), "done");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(
			 json_object_get(r, "jobs"), 0), "finished_ms")), 2000);
	json_decref(r);

	/* a second job with the same env: the env row is shared */
	assert_int_equal(store_job_next(st, h1, &job, &rj, &spec), 0);
	json_decref(spec);
	r = store_fix_result(job, "ok", 5e6, true);
	assert_int_equal(store_ingest_result(st, h1, r, 700, &ing), 0);
	json_decref(r);
	assert_int_equal(store_fix_count(f->db, "host_envs"), 1);
	assert_int_equal(store_fix_count(f->db, "samples"), 6);
	store_close(&st);
}

static void test_store_bad_result(void **state)
{
	struct store_fix *f = *state;
	struct store_ingest ing;
	int64_t h1, job, rj;
	json_t *spec, *r;
	struct err err;
	struct store *st;

	st = store_open(f->db, false, &err);
	assert_non_null(st);
	assert_int_equal(store_host_hello(st, "h1", "0.1", f->inventory, 100, &h1, NULL), 0);
	store_fix_run(st, f, h1, 200);
	assert_int_equal(store_job_next(st, h1, &job, &rj, &spec), 0);
	json_decref(spec);
	assert_int_equal(store_job_dispatch(st, job, 300), 0);

	/* a bad window in the 3rd sample: nothing of the result is stored */
	r = store_fix_result(job, "ok", 1, true);
	json_object_set_new(json_array_get(json_object_get(r, "samples"), 2), "window",
			    json_string("both"));
	assert_int_equal(store_ingest_result(st, h1, r, 400, &ing), -EINVAL);
	assert_non_null(strstr(store_err(st)->msg, "sample 2 ('prog.ns_per_run'): 'window' must"));
	assert_non_null(strstr(store_err(st)->msg, "cannot store result of job"));
	json_decref(r);
	/* the same sample twice: refused by the unique key, rolled back */
	r = store_fix_result(job, "ok", 1, true);
	json_array_append(json_object_get(r, "samples"),
			  json_array_get(json_object_get(r, "samples"), 0));
	assert_int_equal(store_ingest_result(st, h1, r, 400, &ing), -EINVAL);
	assert_non_null(strstr(store_err(st)->msg, "is given twice"));
	json_decref(r);
	r = json_pack("{s:i, s:s}", "job", (int)job, "status", "maybe");
	assert_int_equal(store_ingest_result(st, h1, r, 400, &ing), -EINVAL);
	json_decref(r);
	r = store_fix_result(12345, "ok", 1, true);
	assert_int_equal(store_ingest_result(st, h1, r, 400, &ing), -ENOENT);
	assert_non_null(strstr(store_err(st)->msg, "unknown job 12345"));
	json_decref(r);
	assert_int_equal(store_fix_count(f->db, "samples"), 0);
	assert_int_equal(store_fix_count(f->db, "host_envs"), 0);

	/* the job is still running, and a good result is taken */
	r = store_query_hosts(st);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(r, 0), "job")), job);
	json_decref(r);
	r = store_fix_result(job, "ok", 1, true);
	assert_int_equal(store_ingest_result(st, h1, r, 400, &ing), 0);
	json_decref(r);
	assert_int_equal(store_fix_count(f->db, "samples"), 3);

	/* a plan whose object was not submitted stores nothing */
	{
		struct store_job_new jn = { .host_id = h1, .job = &f->jobs[0] };
		struct plan_objects none = { 0 };
		int64_t run = 0;

		assert_int_equal(store_run_create(st, &f->plan, NULL, &none, &jn, 1, 1, &run),
				 -EINVAL);
		assert_non_null(strstr(store_err(st)->msg, "object 'xdp_basic.bpf.o' named by the "
				       "plan was not submitted"));
		jn.host_id = 4242;	/* no such host: foreign key */
		assert_int_equal(store_run_create(st, &f->plan, NULL, &f->objs, &jn, 1, 1, &run),
				 -EINVAL);
		assert_non_null(strstr(store_err(st)->msg, "FOREIGN KEY"));
		assert_int_equal(store_fix_count(f->db, "runs"), 1);
		assert_int_equal(store_fix_count(f->db, "jobs"), N_JOBS);
	}
	store_close(&st);
}

/* Timing modes at ingest: an environment that says "timing": "icount" is stored with
 * host_envs.timing 'icount' and its samples with the units of guest instructions (ns ->
 * insns, pps -> pkt/Ginsn); one that says nothing is 'wall' and keeps ns and pps. The
 * values themselves are not touched. */
static void test_store_timing_units(void **state)
{
	struct store_fix *f = *state;
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
	run = store_fix_run(st, f, h1, 200);
	for (k = 0; k < 2; k++) {
		assert_int_equal(store_job_next(st, h1, &job[k], &rj, &spec), 0);
		json_decref(spec);
		assert_int_equal(store_job_dispatch(st, job[k], 300 + k), 0);
		r = store_fix_result(job[k], "ok", 1.5e6, true);
		/* the first job in a guest under icount, the second on wall time */
		if (k == 0)
			json_object_set_new(json_object_get(r, "env"), "timing",
					    json_string("icount"));
		assert_int_equal(store_ingest_result(st, h1, r, 400 + k, &ing), 0);
		assert_int_equal(ing.n_samples, 3);
		json_decref(r);
	}
	assert_int_equal(store_fix_count(f->db, "host_envs"), 2);
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
	struct store_fix *f = *state;
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
	run = store_fix_run(st, f, h1, 200);
	db_file_exec(f->db, "UPDATE job_specs SET text = json_set(text, '$.metrics', "
		     "json('[\"port.rx_pps\", \"nic.rx_queue_0_xdp_drops\"]'))");
	assert_int_equal(store_job_next(st, h1, &job, &rj, &spec), 0);
	json_decref(spec);
	assert_int_equal(store_job_dispatch(st, job, 300), 0);
	r = store_fix_result(job, "ok", 1.5e6, true);
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

/* Results of one turn in one batch (store_batch_begin/end, as bpflabd stores them): one
 * that fails changes nothing and leaves the others; nothing is visible to another
 * connection before the commit; a batch rolled back leaves nothing, not even series ids
 * in the connection's cache. */
static void test_store_batch(void **state)
{
	struct store_fix *f = *state;
	struct store_ingest ing;
	int64_t h1, job[N_JOBS];
	struct store *st = store_fix_dispatched(f, &h1, job, N_JOBS);
	json_t *r;

	/* rolled back whole: nothing stays, and the series ids it added are forgotten */
	assert_int_equal(store_batch_begin(st), 0);
	assert_int_equal(store_batch_begin(st), -EBUSY);
	r = store_fix_result(job[0], "ok", 5e6, true);
	assert_int_equal(store_ingest_result(st, h1, r, 400, &ing), 0);
	json_decref(r);
	assert_int_equal(store_batch_end(st, -ECANCELED), -ECANCELED);
	assert_int_equal(store_fix_count(f->db, "samples"), 0);
	assert_int_equal(store_fix_count(f->db, "series"), 0);

	/* two results, one refused between them (unknown job), one given twice */
	assert_int_equal(store_batch_begin(st), 0);
	r = store_fix_result(job[0], "ok", 5e6, true);
	assert_int_equal(store_ingest_result(st, h1, r, 400, &ing), 0);
	assert_false(ing.duplicate);
	assert_int_equal(ing.n_samples, 3);
	assert_int_equal(store_ingest_result(st, h1, r, 400, &ing), 0);
	assert_true(ing.duplicate);
	json_decref(r);
	r = store_fix_result(job[N_JOBS - 1] + 100, "ok", 5e6, true);
	assert_int_equal(store_ingest_result(st, h1, r, 400, &ing), -ENOENT);
	json_decref(r);
	r = store_fix_result(job[1], "failed", 5e6, false);
	assert_int_equal(store_ingest_result(st, h1, r, 410, &ing), 0);
	assert_true(ing.failed);
	json_decref(r);
	assert_int_equal(store_fix_count(f->db, "samples"), 0);	/* not committed yet */
	assert_int_equal(store_batch_end(st, 0), 0);
	assert_int_equal(store_fix_count(f->db, "samples"), 6);
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM jobs WHERE state IN "
				     "('done', 'failed')"), 2);
	/* outside a batch: its own transaction again */
	assert_int_equal(store_batch_end(st, 0), 0);
	r = store_fix_result(job[2], "ok", 5e6, true);
	assert_int_equal(store_ingest_result(st, h1, r, 420, &ing), 0);
	json_decref(r);
	assert_int_equal(store_fix_count(f->db, "samples"), 9);
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
	struct store_fix *f = *state;
	struct store_ingest ing;
	struct samples smp;
	int64_t h1, job[2];
	struct store *st = store_fix_dispatched(f, &h1, job, 2);
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
	assert_int_equal(store_fix_count(f->db, "samples"), 6);
	store_close(&st);
}

/* A result of N samples of one series, seconds 0..N-1 (value 1000 + the second), the
 * second of sample DUP (when >= 0) the one before it. */
static json_t *result_seconds(int64_t job, int n, int dup)
{
	json_t *r = store_fix_result(job, "ok", 1, false), *v = json_array();
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
 * it falls in a statement of 32, of 8 or of one, nothing of the result kept, alone or
 * in a batch. */
static void test_store_ingest_many_samples(void **state)
{
	static const int dups[] = { 20, 35, 44 };
	struct store_fix *f = *state;
	struct store_ingest ing;
	int64_t h1, job[2];
	struct store *st = store_fix_dispatched(f, &h1, job, 2);
	char want[64];
	json_t *r;
	size_t i;

	for (i = 0; i < sizeof(dups) / sizeof(dups[0]); i++) {
		r = result_seconds(job[0], 45, dups[i]);
		assert_int_equal(store_ingest_result(st, h1, r, 400, &ing), -EINVAL);
		snprintf(want, sizeof(want), "sample %d ('port.rx_pps' of 'b'", dups[i]);
		assert_contains(store_err(st)->msg, want);
		assert_contains(store_err(st)->msg, "is given twice");
		json_decref(r);
		assert_int_equal(store_fix_count(f->db, "samples"), 0);
	}
	/* in a batch (each result a savepoint): the refused one's 20 rows before its
	 * sample given twice go with it, the other result stays */
	assert_int_equal(store_batch_begin(st), 0);
	r = result_seconds(job[1], 45, 20);
	assert_int_equal(store_ingest_result(st, h1, r, 400, &ing), -EINVAL);
	assert_contains(store_err(st)->msg, "sample 20 ('port.rx_pps' of 'b'");
	json_decref(r);
	r = result_seconds(job[0], 45, -1);	/* 32 + 8 + 5 x 1 */
	assert_int_equal(store_ingest_result(st, h1, r, 400, &ing), 0);
	assert_int_equal(ing.n_samples, 45);
	json_decref(r);
	assert_int_equal(store_batch_end(st, 0), 0);
	assert_int_equal(store_fix_count(f->db, "samples"), 45);
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

/* Whether this process holds one of SQLite's temporary files open (named etilqs_...,
 * deleted as soon as opened): a sub-journal gone to disk. */
static bool sqlite_temp_file_open(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char target[512];
	bool found = false;
	ssize_t n;

	assert_non_null(d);
	while (!found && (e = readdir(d))) {
		n = readlinkat(dirfd(d), e->d_name, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = '\0';
			found = strstr(target, "/etilqs_") != NULL;
		}
	}
	closedir(d);
	return found;
}

/* A savepoint that changes 600 pages (2.4 MB) keeps its sub-journal in memory
 * (store.c, STORE_SUBJOURNAL_SPILL; SQLite's default sends one of over 16 pages to a
 * temporary file, as a batch's results did), and rolls back as it should. */
static void test_store_subjournal_in_memory(void **state)
{
	struct store_fix *f = *state;
	struct err err;
	struct store *st = store_open(f->db, false, &err);

	assert_non_null(st);
	store_fix_sql(st, "CREATE TABLE pad (x BLOB); WITH RECURSIVE n(i) AS (SELECT 1 "
		      "UNION ALL SELECT i + 1 FROM n WHERE i < 600) "
		      "INSERT INTO pad SELECT zeroblob(3000) FROM n");
	store_fix_sql(st, "BEGIN IMMEDIATE; SAVEPOINT part; UPDATE pad SET x = x || 'a'");
	assert_false(sqlite_temp_file_open());
	store_fix_sql(st, "ROLLBACK TO part; RELEASE part; COMMIT");
	assert_int_equal(db_file_count(f->db, "SELECT count(*) FROM pad WHERE "
				     "length(x) = 3000"), 600);
	store_close(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_store_queue_and_queries, store_fix_setup,
						store_fix_teardown),
		cmocka_unit_test_setup_teardown(test_store_duplicate_ingest, store_fix_setup,
						store_fix_teardown),
		cmocka_unit_test_setup_teardown(test_store_bad_result, store_fix_setup,
						store_fix_teardown),
		cmocka_unit_test_setup_teardown(test_store_timing_units, store_fix_setup,
						store_fix_teardown),
		cmocka_unit_test_setup_teardown(test_store_nic_listed, store_fix_setup,
						store_fix_teardown),
		cmocka_unit_test_setup_teardown(test_store_batch, store_fix_setup,
						store_fix_teardown),
		cmocka_unit_test_setup_teardown(test_store_ingest_samples, store_fix_setup,
						store_fix_teardown),
		cmocka_unit_test_setup_teardown(test_store_ingest_many_samples, store_fix_setup,
						store_fix_teardown),
		cmocka_unit_test_setup_teardown(test_store_subjournal_in_memory, store_fix_setup,
						store_fix_teardown),
	};

	return cmocka_run_group_tests_name("store", tests, NULL, NULL);
}

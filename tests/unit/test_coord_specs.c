// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_coord_specs.c - the job specs bpflabd keeps decoded (coordinator/specs.c): specs
 * read back from the store after a restart, one that cannot be decoded failing its job at
 * dispatch, jobs added to a run behind bpflabd's back (repeat.until); and a dispatch
 * round whose commit fails (and how often that is said). The database is changed from a
 * second connection while the coordinator is down or between ticks. The fixture:
 * coord_fixture.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "coord.h"
#include "proto/proto.h"
#include "base/log.h"
#include "helpers.h"
#include "coord_fixture.h"

/* SQL on the coordinator's database from a second connection of the test. */
static void db_exec(struct tctx *t, const char *sql)
{
	sqlite3 *c;

	assert_int_equal(sqlite3_open(t->fx.db, &c), SQLITE_OK);
	sqlite3_busy_timeout(c, 5000);
	if (sqlite3_exec(c, sql, NULL, NULL, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(c));
	sqlite3_close(c);
}

/* The job message agent T gets next: its job id, its spec into *SPEC (a new reference). */
static long long next_job(struct tctx *t, json_t **spec)
{
	json_t *r = coord_pump(t->fx.c, t->agent, 5000), *job;
	long long id;

	assert_non_null(r);
	assert_string_equal(proto_msg_type(r), "job");
	job = json_object_get(r, "job");
	id = jget_int(job, "id", 0);
	*spec = json_incref(json_object_get(job, "spec"));
	json_decref(r);
	return id;
}

/* The specs bpflabd keeps decoded (specs.c) come from the store when it did not submit
 * the run (here: after a restart): equal stored texts are one spec, sent as stored; a
 * stored spec that cannot be decoded fails its job at dispatch, with the field in the
 * reason, and the next job goes out. Run 1 has jobs 1 (drop) and 2 (pass), run 2 jobs 3
 * and 4; while bpflabd is down job 2 is given job 1's spec, job 3 a spec with an
 * unknown field. */
static void test_coordinator_stored_spec(void **state)
{
	struct tctx *t = *state;
	json_t *r, *s1, *s1_again, *s2, *s4;
	long long j1, j2, j4;
	char sql[256];

	tctx_hello(t, "h1", "veth");
	r = coord_ask(t->fx.c, t->client, tctx_submit_msg(t, tctx_plan_text, NULL), "submitted");
	json_decref(r);
	j1 = next_job(t, &s1);
	assert_string_equal(jget_str(s1, "variant", ""), "drop");
	r = coord_ask(t->fx.c, t->client, tctx_submit_msg(t, tctx_plan_text, NULL), "submitted");
	assert_int_equal(jget_int(r, "run", 0), 2);
	json_decref(r);
	coord_destroy(&t->fx.c);
	snprintf(sql, sizeof(sql), "UPDATE jobs SET spec_id = (SELECT spec_id FROM jobs WHERE "
		 "id = %lld) WHERE run_id = 1 AND id != %lld", j1, j1);
	db_exec(t, sql);
	db_exec(t, "INSERT INTO job_specs (text) SELECT json_set(s.text, '$.bogus', 1) FROM "
		"jobs j JOIN job_specs s ON s.id = j.spec_id WHERE j.id = (SELECT min(id) FROM "
		"jobs WHERE run_id = 2); UPDATE jobs SET spec_id = last_insert_rowid() WHERE id = "
		"(SELECT min(id) FROM jobs WHERE run_id = 2)");
	coord_fix_start(&t->fx, &COORD_OPTS(.tick_ms = 20));
	tctx_hello(t, "h1", "veth");
	assert_int_equal(next_job(t, &s1_again), j1);	/* running at the restart: again */
	assert_true(json_equal(s1, s1_again));
	json_decref(s1_again);

	r = coord_ask(t->fx.c, t->agent, tctx_result_msg(j1, 1), "ack");
	json_decref(r);
	j2 = next_job(t, &s2);
	assert_int_equal(j2, j1 + 1);
	assert_true(json_equal(s1, s2));		/* job 1's spec, variant drop */
	r = coord_ask(t->fx.c, t->agent, tctx_result_msg(j2, 1), "ack");
	json_decref(r);
	j4 = next_job(t, &s4);
	assert_int_equal(j4, j1 + 3);
	assert_string_equal(jget_str(s4, "variant", ""), "pass");
	r = coord_ask(t->fx.c, t->client, tctx_simple("run_show", 2), "run");
	{
		json_t *jobs = json_object_get(json_object_get(r, "run"), "jobs");
		json_t *j3 = json_array_get(jobs, 0);

		assert_string_equal(jget_str(j3, "state", ""), "failed");
		assert_non_null(strstr(jget_str(j3, "error", ""), "its stored spec cannot be "
				       "read: spec.bogus"));
	}
	json_decref(r);
	json_decref(s1);
	json_decref(s2);
	json_decref(s4);
}

/* Add a job to run 1 behind bpflabd's back as repeat.until does (store_repeat.c): job
 * JOB's row again at seq + 100 * REP with rep REP. */
static void add_job_like(struct tctx *t, long long job, int rep)
{
	char sql[640];

	snprintf(sql, sizeof(sql), "INSERT INTO job_specs (text) SELECT json_set(s.text, "
		 "'$.rep', %d) FROM jobs j JOIN job_specs s ON s.id = j.spec_id WHERE j.id = %lld; "
		 "INSERT INTO jobs (run_id, seq, host_id, variant, variant_idx, rep, point, "
		 "spec_id, added) SELECT run_id, seq + 100 * %d, host_id, variant, variant_idx, "
		 "%d, point, last_insert_rowid(), 1 FROM jobs WHERE id = %lld", rep, job, rep, rep,
		 job);
	db_exec(t, sql);
}

/* A job added to a run whose specs bpflabd holds (coordinator/specs.c) brings its spec
 * in from the store; so does one added after the run's table went (no job was queued
 * at a tick). */
static void test_coordinator_spec_added(void **state)
{
	struct tctx *t = *state;
	json_t *r, *s1, *s2, *s3, *s4;
	long long j1, j2, j3, j4;

	tctx_hello(t, "h1", "veth");
	r = coord_ask(t->fx.c, t->client, tctx_submit_msg(t, tctx_plan_text, NULL), "submitted");
	json_decref(r);
	j1 = next_job(t, &s1);
	add_job_like(t, j1, 7);
	r = coord_ask(t->fx.c, t->agent, tctx_result_msg(j1, 1), "ack");
	json_decref(r);
	j2 = next_job(t, &s2);
	assert_int_equal(j2, j1 + 1);
	r = coord_ask(t->fx.c, t->agent, tctx_result_msg(j2, 1), "ack");
	json_decref(r);
	j3 = next_job(t, &s3);		/* the added one */
	assert_int_equal(jget_int(s3, "rep", 0), 7);
	assert_string_equal(jget_str(s3, "variant", ""), jget_str(s1, "variant", "?"));
	/* nothing queued: the run's specs go at the next tick; then one more is added */
	json_decref(coord_pump(t->fx.c, t->client, 100));
	add_job_like(t, j1, 8);
	r = coord_ask(t->fx.c, t->agent, tctx_result_msg(j3, 1), "ack");
	json_decref(r);
	j4 = next_job(t, &s4);
	assert_int_equal(j4, j3 + 1);
	assert_int_equal(jget_int(s4, "rep", 0), 8);
	json_decref(s1);
	json_decref(s2);
	json_decref(s3);
	json_decref(s4);
}


/* A dispatch round whose commit fails (schema-level: a trigger of the test's makes every
 * attempt row break a deferred foreign key, which SQLite checks at COMMIT) stores
 * nothing and sends nothing: the job stays queued with no attempt, the host idle. Tried
 * again at every tick, it is said once (not at every tick: a full disk would fill the
 * log). Once the commit can succeed, the next tick hands the same job out, and the log
 * says how many rounds could not be stored. */
static void test_coordinator_dispatch_commit_fails(void **state)
{
	struct tctx *t = *state;
	struct coord_stats st;
	long long first, job;
	json_t *r, *spec;
	char log[192], line[128];

	snprintf(log, sizeof(log), "%s/bpflabd.log", t->fx.dir);
	assert_int_equal(log_set_file(log), 0);
	log_set_level(LOG_INFO);
	tctx_hello(t, "h1", "veth");
	db_exec(t, "CREATE TABLE test_deferred (host_id INTEGER REFERENCES hosts (id) "
		"DEFERRABLE INITIALLY DEFERRED); CREATE TRIGGER test_commit_fails AFTER INSERT "
		"ON job_attempts BEGIN INSERT INTO test_deferred VALUES (-1); END");
	r = coord_ask(t->fx.c, t->client, tctx_submit_msg(t, tctx_plan_text, NULL), "submitted");
	json_decref(r);
	r = coord_pump(t->fx.c, t->agent, 300);
	if (r)
		fail_msg("a '%s' went out of a round that was not stored", proto_msg_type(r));
	assert_int_equal(db_file_count(t->fx.db, "SELECT count(*) FROM jobs WHERE state <> "
				       "'queued' OR attempts <> 0"), 0);
	assert_int_equal(db_file_count(t->fx.db, "SELECT count(*) FROM job_attempts"), 0);
	assert_int_equal(db_file_count(t->fx.db, "SELECT count(*) FROM test_deferred"), 0);
	assert_int_equal(db_file_count(t->fx.db, "SELECT count(*) FROM hosts WHERE name = 'h1' "
				       "AND state = 'idle'"), 1);
	/* tried again at every 20 ms tick, said once (then once a minute) */
	coord_get_stats(t->fx.c, &st);
	assert_true(st.rounds_unstored >= 5);
	log_flush();
	assert_int_equal(file_count(log, "cannot store a dispatch round"), 1);
	assert_int_equal(file_count(log, "FOREIGN KEY constraint failed"), 1);
	first = db_file_count(t->fx.db, "SELECT min(id) FROM jobs");
	db_exec(t, "DROP TRIGGER test_commit_fails");
	job = next_job(t, &spec);
	assert_int_equal(job, first);
	json_decref(spec);
	assert_int_equal(db_file_count(t->fx.db, "SELECT count(*) FROM job_attempts WHERE "
				       "outcome = 'running'"), 1);
	log_flush();
	snprintf(line, sizeof(line), "dispatch rounds are stored again, after %llu that could "
		 "not be", (unsigned long long)st.rounds_unstored);
	assert_int_equal(file_count(log, line), 1);
	log_set_level(LOG_WARN);
	assert_int_equal(log_set_file("/dev/stderr"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TCTX_TEST(test_coordinator_stored_spec),
		TCTX_TEST(test_coordinator_spec_added),
		TCTX_TEST(test_coordinator_dispatch_commit_fails),
	};

	return cmocka_run_group_tests_name("coord_specs", tests, NULL, NULL);
}

// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_coord_pair.c - two-host pairs and agents that go away (coordinator/link.c,
 * docs/protocol.md "Faults"): the partner of a side whose host fell silent or whose agent
 * started again is told at once, not at the end of its barrier; both sides are queued
 * again; what a stale session sends is refused or dropped; the pair then runs together
 * and each job's samples are stored once. Also the stale-job marks an agent keeps
 * (coord_stale_mark). The fixture: coord_fixture.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "coord.h"
#include "coord_core.h"
#include "coord_dispatch.h"
#include "coord_priv.h"
#include "proto/proto.h"
#include "base/util.h"
#include "helpers.h"
#include "coord_fixture.h"

static int setup_pair(void **state)
{
	return tctx_setup_hb(state, 200);	/* gone after 600 ms of silence */
}

/* Both sides of a pair (SOCKS[0] the generator's agent with GEN, SOCKS[1] the DUT's
 * with DUT) get their go without an abort, send their results and get them acknowledged;
 * run RUN is then done with two whole-window samples per result (rx_pps and
 * ns_per_run), once per job. */
static void pair_go_and_finish(struct tctx *t, void **socks, long long gen, long long dut,
			       long long run)
{
	json_t *r, *m;
	int i;

	for (i = 0; i < 2; i++) {
		r = tctx_want(t, socks[i], socks, 2, "go", i ? dut : gen);
		assert_null(json_object_get(r, "abort"));
		json_decref(r);
	}
	for (i = 0; i < 2; i++) {
		m = tctx_result_msg(i ? dut : gen, 1e6);
		assert_int_equal(proto_send(socks[i], m, 0), 0);
		json_decref(m);
		json_decref(tctx_want(t, socks[i], socks, 2, "ack", i ? dut : gen));
	}
	r = coord_ask(t->fx.c, t->client, tctx_simple("result_show", run), "result");
	assert_string_equal(jget_str(json_object_get(r, "result"), "state", ""), "done");
	assert_int_equal(json_array_size(json_object_get(json_object_get(r, "result"),
							 "samples")), 4);
	json_decref(r);
}

static const char *job_state(struct tctx *t, long long run, long long job, char *out)
{
	json_t *r = coord_ask(t->fx.c, t->client, tctx_simple("run_show", run), "run"), *j;
	size_t i;

	strcpy(out, "?");
	json_array_foreach(json_object_get(json_object_get(r, "run"), "jobs"), i, j)
		if (jget_int(j, "id", 0) == job)
			snprintf(out, 16, "%s", jget_str(j, "state", ""));
	json_decref(r);
	return out;
}

/* h1 (generator) and h2 (dut) of a pair: h1 goes silent while h2 waits at its barrier.
 * h2 is told at once (go with abort naming the lost job), not at the end of its 30 s
 * barrier, and both sides are queued again. h1 comes back still running its stale job:
 * it is told to cancel it and its result is dropped; an accept for a job it was not given
 * is refused with a cancel too. Then the pair runs again together, and each job's samples
 * are stored once. */
static void test_coordinator_pair_lost(void **state)
{
	struct tctx *t = *state;
	void *h1 = t->agent, *h2 = t->agent2 = coord_fix_agent(&t->fx), *both[2] = { h1, h2 };
	long long run, gen = 0, dut = 0;
	char att[1024], st[16];
	const char *abort;
	int64_t silent, took;
	json_t *r, *m;

	tctx_pair_start(t, h1, h2, &run, &gen, &dut);
	tctx_says(h2, "ready", dut);

	/* h1 falls silent (its process stopped) before it is ready */
	silent = util_mono_ms();
	r = tctx_want(t, h2, &h2, 1, "go", dut);
	took = util_mono_ms() - silent;
	abort = jget_str(r, "abort", NULL);
	assert_non_null(abort);
	snprintf(att, sizeof(att), "job %lld on 'h1' was lost: its host went silent", gen);
	assert_string_equal(abort, att);
	fprintf(stderr, "  pair: h2 aborted %lld ms after h1 fell silent (gone after 600 ms; "
		"barrier 30000 ms)\n", (long long)took);
	assert_true(took >= 600 && took < 1500);
	/* h2's job fails at its barrier with that reason: both sides are queued again */
	m = json_pack("{s:i, s:s, s:I, s:s, s:s+, s:[]}", "v", 1, "type", "result", "job",
		      (json_int_t)dut, "status", "failed", "error", "pair aborted: ", abort,
		      "samples");
	json_decref(r);
	assert_int_equal(proto_send(h2, m, 0), 0);
	json_decref(m);
	json_decref(tctx_want(t, h2, &h2, 1, "ack", dut));
	assert_string_equal(job_state(t, run, gen, st), "queued");
	assert_string_equal(job_state(t, run, dut, st), "queued");
	tctx_attempts_of(t, run, dut, att, sizeof(att));
	assert_non_null(strstr(att, "lost:its pair was lost"));
	tctx_attempts_of(t, run, gen, att, sizeof(att));
	assert_string_equal(att, "lost:the host went silent|");

	/* h1 wakes, reconnects still running its job: taken away, its result dropped */
	tctx_hello_xy(t, h1, "h1", gen);
	json_decref(tctx_want(t, h1, both, 2, "cancel", gen));
	m = tctx_result_msg(gen, 5);
	json_object_set_new(m, "status", json_string("failed"));
	json_object_set_new(m, "error", json_string("cancelled"));
	json_object_set_new(m, "partial", json_true());
	assert_int_equal(proto_send(h1, m, 0), 0);
	json_decref(m);
	json_decref(tctx_want(t, h1, both, 2, "ack", gen));
	r = coord_ask(t->fx.c, t->client, tctx_simple("result_show", run), "result");
	assert_int_equal(json_array_size(json_object_get(json_object_get(r, "result"),
							 "samples")), 0);
	json_decref(r);

	/* the pair again, together (attempt 2 of each) */
	r = tctx_want(t, h1, both, 2, "job", gen);
	json_decref(r);
	r = tctx_want(t, h2, both, 2, "job", dut);
	json_decref(r);
	tctx_says(h1, "accept", gen);
	tctx_says(h2, "accept", dut);
	/* an accept for a job this session was not given (a stale job message) */
	tctx_says(h1, "accept", dut);
	json_decref(tctx_want(t, h1, both, 2, "cancel", dut));
	tctx_says(h1, "ready", gen);
	tctx_says(h2, "ready", dut);
	pair_go_and_finish(t, both, gen, dut, run);
	tctx_attempts_of(t, run, gen, att, sizeof(att));
	assert_string_equal(att, "lost:the host went silent|done:|");
}

/* The abort a restarted agent's pair partner gets: `go` for JOB with the reason. */
static void want_restart_abort(struct tctx *t, void *sock, void **live, long long job,
			       long long lost, const char *host)
{
	json_t *r = tctx_want(t, sock, live, 2, "go", job);
	char why[256];

	snprintf(why, sizeof(why), "job %lld on '%s' was lost: its agent started again", lost,
		 host);
	assert_non_null(json_object_get(r, "abort"));
	assert_string_equal(jget_str(r, "abort", ""), why);
	json_decref(r);
}

/* The failed result of JOB after the abort REASON (either side of the barrier). */
static void result_aborted(struct tctx *t, void *sock, void **live, long long job,
			   long long lost, const char *host)
{
	json_t *m = json_pack("{s:i, s:s, s:I, s:s, s:s, s:[]}", "v", 1, "type", "result",
			      "job", (json_int_t)job, "status", "failed", "error", "", "samples");
	char why[300];

	snprintf(why, sizeof(why), "pair aborted: job %lld on '%s' was lost: its agent started "
		 "again", lost, host);
	json_object_set_new(m, "error", json_string(why));
	assert_int_equal(proto_send(sock, m, 0), 0);
	json_decref(m);
	json_decref(tctx_want(t, sock, live, 2, "ack", job));
}

/* Agents restarted (a new process, a new connection, a hello without the job) before
 * their host is declared gone. h2 at the barrier: h1, ready and waiting, is told at once
 * (the abort names the restart, so not the gone path: h2 is never silent), h2 gets no
 * new attempt of its job while h1's aborted one runs, a `ready` the old process sent late
 * is refused (unknown connection), and a result of the dropped attempt from h2's spool is
 * acknowledged but not stored, also when sent twice; h1's failure queues both again. Then
 * h1 restarted after the go: h2 is stopped at once the same way. The third time the pair
 * runs together and each job's samples are stored once. */
static void test_coordinator_pair_restart(void **state)
{
	struct tctx *t = *state;
	void *h1 = t->agent, *h2 = t->agent2 = coord_fix_agent(&t->fx), *live[2];
	long long run, gen = 0, dut = 0;
	char att[1024], st[16], want_att[1024];
	json_t *r, *m;
	int i;

	tctx_pair_start(t, h1, h2, &run, &gen, &dut);
	tctx_says(h1, "ready", gen);

	/* h2's agent restarts at the barrier: its old connection stays open a moment */
	t->old = h2;
	h2 = t->agent2 = coord_fix_agent(&t->fx);
	live[0] = h1;
	live[1] = h2;
	tctx_hello_xy(t, h2, "h2", 0);
	want_restart_abort(t, h1, live, gen, dut, "h2");
	assert_string_equal(job_state(t, run, dut, st), "queued");
	tctx_attempts_of(t, run, dut, att, sizeof(att));
	assert_string_equal(att, "lost:the agent started a new session|");
	/* what the old process sent late is not its session's */
	tctx_says(t->old, "ready", dut);
	r = tctx_want(t, t->old, live, 2, "error", 0);
	assert_non_null(strstr(jget_str(r, "message", ""), "say hello first"));
	json_decref(r);
	zmq_close(t->old);
	t->old = NULL;
	/* a result of the dropped attempt (from the spool), twice: acknowledged, not stored */
	for (i = 0; i < 2; i++) {
		m = tctx_result_msg(dut, 5);
		assert_int_equal(proto_send(h2, m, 0), 0);
		json_decref(m);
		json_decref(tctx_want(t, h2, live, 2, "ack", dut));
	}
	assert_string_equal(job_state(t, run, dut, st), "queued");
	r = coord_ask(t->fx.c, t->client, tctx_simple("result_show", run), "result");
	assert_int_equal(json_array_size(json_object_get(json_object_get(r, "result"),
							 "samples")), 0);
	json_decref(r);
	/* no new attempt of dut while h1 still runs the gen attempt it was paired with */
	r = tctx_pump_live(t, h2, live, 2, 300);
	if (r)
		fail_msg("h2 got '%s' while its partner's aborted attempt runs",
			 proto_msg_type(r));
	/* h1's failure queues gen again, and the pair goes out again at once */
	result_aborted(t, h1, live, gen, dut, "h2");
	json_decref(tctx_want(t, h1, live, 2, "job", gen));
	json_decref(tctx_want(t, h2, live, 2, "job", dut));
	tctx_attempts_of(t, run, gen, att, sizeof(att));
	snprintf(want_att, sizeof(want_att), "lost:its pair was lost: job %lld on 'h2' was "
		 "lost with its host or agent; queued again with it|running:|", dut);
	assert_string_equal(att, want_att);

	/* h1's agent restarts after the go (killed: its connection closes) */
	tctx_says(h1, "accept", gen);
	tctx_says(h2, "accept", dut);
	tctx_says(h1, "ready", gen);
	tctx_says(h2, "ready", dut);
	for (i = 0; i < 2; i++) {
		r = tctx_want(t, live[i], live, 2, "go", i ? dut : gen);
		assert_null(json_object_get(r, "abort"));
		json_decref(r);
	}
	t->agent = NULL;
	zmq_close(h1);
	h1 = live[0] = t->agent = coord_fix_agent(&t->fx);
	tctx_hello_xy(t, h1, "h1", 0);
	want_restart_abort(t, h2, live, dut, gen, "h1");
	result_aborted(t, h2, live, dut, gen, "h1");

	/* the third time together */
	json_decref(tctx_want(t, h1, live, 2, "job", gen));
	json_decref(tctx_want(t, h2, live, 2, "job", dut));
	tctx_says(h1, "accept", gen);
	tctx_says(h2, "accept", dut);
	tctx_says(h1, "ready", gen);
	tctx_says(h2, "ready", dut);
	pair_go_and_finish(t, live, gen, dut, run);
	tctx_attempts_of(t, run, gen, att, sizeof(att));
	snprintf(want_att, sizeof(want_att), "lost:its pair was lost: job %lld on 'h2' was "
		 "lost with its host or agent; queued again with it|lost:the agent started a "
		 "new session|done:|", dut);
	assert_string_equal(att, want_att);
	tctx_attempts_of(t, run, dut, att, sizeof(att));
	snprintf(want_att, sizeof(want_att), "lost:the agent started a new session|lost:its "
		 "pair was lost: job %lld on 'h1' was lost with its host or agent; queued again "
		 "with it|done:|", gen);
	assert_string_equal(att, want_att);
}

/* An agent's stale jobs (coord_stale_mark): the latest and the COORD_STALE_OLDER before
 * it; marking one again makes it the latest; an older mark does not count for the job
 * the agent runs now (a new attempt), the latest does (a kept job taken away). */
static void test_coordinator_stale_jobs(void **state)
{
	struct coord_agent a = { 0 };
	int64_t j;

	(void)state;
	assert_false(coord_stale(&a, 1));
	for (j = 1; j <= 2 + COORD_STALE_OLDER; j++)
		coord_stale_mark(&a, j);
	assert_false(coord_stale(&a, 1));	/* pushed out */
	for (j = 2; j <= 2 + COORD_STALE_OLDER; j++)
		assert_true(coord_stale(&a, j));
	coord_stale_mark(&a, 3);
	assert_int_equal(a.stale_job, 3);
	for (j = 2; j <= 2 + COORD_STALE_OLDER; j++)
		assert_true(coord_stale(&a, j));
	coord_job_kept(&a, 4);
	assert_false(coord_stale(&a, 4));
	coord_job_kept(&a, 3);
	assert_true(coord_stale(&a, 3));
	coord_stale_handed(&a, 3);	/* dispatch handed job 3 to it again */
	assert_false(coord_stale(&a, 3));
	assert_true(coord_stale(&a, 2));
	coord_stale_handed(&a, 2);	/* not the latest mark: the older one stays */
	assert_true(coord_stale(&a, 2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_coordinator_pair_lost, setup_pair, tctx_teardown),
		cmocka_unit_test_setup_teardown(test_coordinator_pair_restart, setup_pair, tctx_teardown),
		cmocka_unit_test(test_coordinator_stale_jobs),
	};

	return cmocka_run_group_tests_name("coord_pair", tests, NULL, NULL);
}

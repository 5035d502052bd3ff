// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_coord_machine.c - hosts that share a machine (coordinator/machine.c): one job at a
 * time on a machine, its hosts taking turns; hosts on other machines, or jobs that say
 * share_machine, at the same time; a pair's two sides on one machine together; and the
 * rule itself on agents made by hand, without sockets. The fixture: coord_fixture.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord.h"
#include "coord_core.h"
#include "coord_dispatch.h"
#include "coord_machine.h"
#include "coord_priv.h"
#include "plan/jobspec.h"
#include "proto/proto.h"
#include "base/util.h"
#include "helpers.h"
#include "coord_fixture.h"

/* --- hosts that share a machine (coordinator/machine.c) --- */

/* Agent NAME on SOCK says hello with ports a and b (driver veth) on machine MACHINE
 * (inventory machine.id; NULL: none). */
static void hello_on(struct tctx *t, void *sock, const char *name, const char *machine)
{
	json_t *m = proto_msg_new("hello"), *inv = tctx_inventory("veth");

	json_object_set_new(inv, "agent", json_string(name));
	if (machine)
		json_object_set_new(inv, "machine", json_pack("{s:s}", "id", machine));
	json_object_set_new(m, "agent", json_string(name));
	json_object_set_new(m, "version", json_string("0.1"));
	json_object_set_new(m, "inventory", inv);
	json_decref(coord_ask(t->fx.c, sock, m, "welcome"));
}

/* Submit tctx_plan_text (2 variants) with repeat REPEAT and override EXTRA (NULL: none): N
 * hosts, the run's id. */
static long long submit_plan(struct tctx *t, int repeat, const char *extra, int hosts)
{
	json_t *m = tctx_submit_msg(t, tctx_plan_text, NULL), *r;
	char rep[32];
	long long run;

	snprintf(rep, sizeof(rep), "repeat=%d", repeat);
	json_array_append_new(json_object_get(m, "overrides"), json_string(rep));
	if (extra)
		json_array_append_new(json_object_get(m, "overrides"), json_string(extra));
	r = coord_ask(t->fx.c, t->client, m, "submitted");
	run = jget_int(r, "run", 0);
	assert_true(run > 0);
	assert_int_equal(json_array_size(json_object_get(r, "hosts")), hosts);
	json_decref(r);
	return run;
}

/* The id of the job SOCK is given within MS (the N sockets of LIVE beating), accepted;
 * 0 when none comes. */
static long long job_within(struct tctx *t, void *sock, void **live, int n, int ms)
{
	json_t *r = tctx_pump_live(t, sock, live, n, ms);
	long long job;

	if (!r)
		return 0;
	if (strcmp(proto_msg_type(r), "job"))
		fail_msg("wanted a job, got '%s'", proto_msg_type(r));
	job = jget_int(json_object_get(r, "job"), "id", 0);
	json_decref(r);
	assert_true(job > 0);
	tctx_says(sock, "accept", job);
	return job;
}

/* JOB ends on SOCK: its result, acknowledged. */
static void job_done(struct tctx *t, void *sock, void **live, int n, long long job)
{
	json_t *m = tctx_result_msg(job, 1e6);

	assert_int_equal(proto_send(sock, m, 0), 0);
	json_decref(m);
	json_decref(tctx_want(t, sock, live, n, "ack", job));
}

/* h1 and h2 on one machine: one job at a time, and they take turns (h1 h2 h1 h2, not
 * h1 h1 h2 h2); the one that waits shows it in host_list. */
static void test_coordinator_machine_serial(void **state)
{
	struct tctx *t = *state;
	void *h1 = t->agent, *h2 = t->agent2 = coord_fix_agent(&t->fx), *both[2] = { h1, h2 };
	long long job[2];
	int k, i, last = -1;

	hello_on(t, h1, "h1", "m1");
	hello_on(t, h2, "h2", "m1");
	submit_plan(t, 2, NULL, 2);		/* 4 jobs a host */
	for (k = 0; k < 8; k++) {
		for (i = 0; i < 2; i++)
			job[i] = job_within(t, both[i], both, 2, 150);
		if (!job[0] == !job[1])
			fail_msg("turn %d: h1 got job %lld, h2 job %lld: wanted one of them", k,
				 job[0], job[1]);
		i = job[0] ? 0 : 1;
		if (k == 0) {	/* the other host waits for the machine */
			json_t *h = tctx_host_of(t, i ? "h1" : "h2");

			assert_true(json_is_true(json_object_get(h, "waits_for_machine")));
			json_decref(h);
		}
		if (i == last)
			fail_msg("turn %d: h%d again, not the other host's turn", k, i + 1);
		last = i;
		job_done(t, both[i], both, 2, job[i]);
	}
	assert_int_equal(job_within(t, h1, both, 2, 100), 0);
	assert_int_equal(job_within(t, h2, both, 2, 100), 0);
}

/* h1 and h2 on two machines, or on one with share_machine: at the same time. */
static void test_coordinator_machine_apart(void **state)
{
	struct tctx *t = *state;
	void *h1 = t->agent, *h2 = t->agent2 = coord_fix_agent(&t->fx), *both[2] = { h1, h2 };
	static const char *const cases[][3] = {
		{ "m1", "m2", NULL },			/* other machines */
		{ "m1", NULL, NULL },			/* h2 does not say its machine */
		{ "m1", "m1", "share_machine=true" },	/* one machine, shared */
	};
	long long job[2];
	size_t c;
	int i;

	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		hello_on(t, h1, "h1", cases[c][0]);
		hello_on(t, h2, "h2", cases[c][1]);
		submit_plan(t, 1, cases[c][2], 2);
		for (i = 0; i < 2; i++) {
			job[i] = job_within(t, both[i], both, 2, 1000);
			if (!job[i])
				fail_msg("case %zu: h%d has no job while h%d runs one", c, i + 1,
					 2 - i);
		}
		for (i = 0; i < 2; i++)
			job_done(t, both[i], both, 2, job[i]);
		for (i = 0; i < 2; i++)	/* the second variant, again at once */
			job[i] = job_within(t, both[i], both, 2, 1000);
		assert_true(job[0] && job[1]);
		for (i = 0; i < 2; i++)
			job_done(t, both[i], both, 2, job[i]);
	}
}

/* A pair's two sides on one machine run together; a third host of that machine waits
 * for the pair, then gets its job. */
static void test_coordinator_machine_pair(void **state)
{
	struct tctx *t = *state;
	void *h1 = t->agent, *h2 = t->agent2 = coord_fix_agent(&t->fx);
	void *h3 = t->agent3 = coord_fix_agent(&t->fx), *all[3] = { h1, h2, h3 };
	long long run, gen, dut, job;

	t->machine = "m1";
	tctx_pair_start(t, h1, h2, &run, &gen, &dut);	/* both sides handed out */
	hello_on(t, h3, "h3", "m1");	/* after the discovery, which it would not answer */
	submit_plan(t, 1, NULL, 1);			/* h3's: ports a and b */
	assert_int_equal(job_within(t, h3, all, 3, 300), 0);
	tctx_says(h1, "ready", gen);
	tctx_says(h2, "ready", dut);
	json_decref(tctx_want(t, h1, all, 3, "go", gen));
	json_decref(tctx_want(t, h2, all, 3, "go", dut));
	job_done(t, h1, all, 3, gen);
	assert_int_equal(job_within(t, h3, all, 3, 200), 0);	/* h2 still runs */
	job_done(t, h2, all, 3, dut);
	job = job_within(t, h3, all, 3, 1000);
	assert_true(job > 0);
	job_done(t, h3, all, 3, job);
}

/* The rule of coordinator/machine.c on agents made by hand (no sockets): a pair's first
 * side on m1 holds its idle second side on m2, so h3 on m2 cannot start before it; the
 * second side joins although h3 waits; share_machine on both sides shares; a host that
 * waited longer goes first. */
static void test_coordinator_machine_rule(void **state)
{
	static const char *const names[] = { "h1", "h2", "h3" }, *const ids[] = { "m1", "m2", "m2" };
	struct coord *c = calloc(1, sizeof(*c));
	struct coord_agent ag[3] = { 0 }, *h1 = &ag[0], *h2 = &ag[1], *h3 = &ag[2];
	struct job_spec pair_s, plain_s, shared_s;
	const struct job_spec *pair = &pair_s, *plain = &plain_s, *shared = &shared_s;
	int i;

	(void)state;
	jobspec_init(&pair_s);
	jobspec_init(&plain_s);
	jobspec_init(&shared_s);
	pair_s.has_pair = true;
	shared_s.share_machine = true;
	for (i = 0; i < 3; i++) {
		ag[i].name = (char *)names[i];
		ag[i].sess.connected = true;
		ag[i].inventory = json_pack("{s:{s:s}}", "machine", "id", ids[i]);
		coord_machine_hello(c, &ag[i]);
	}
	assert_true(h2->machine.of == h3->machine.of && h1->machine.of != h2->machine.of);

	/* h1 starts its side of a pair with h2 (idle on m2): h2 is held for it */
	assert_true(coord_machine_may(c, h1, pair, h2));
	h1->job.id = 10;
	coord_machine_running(h1, pair);
	coord_machine_hold(h1, h2, pair);
	assert_true(coord_machine_busy(c, h3));		/* h3 waits, queue unread */
	assert_false(coord_machine_may(c, h3, plain, NULL));
	assert_true(h3->machine.wait > 0);
	/* h2 asks for a dispatch (core.c): h3, waiting on its machine, is marked too */
	assert_ptr_equal(coord_machine_waiter(h2, NULL), h3);
	assert_null(coord_machine_waiter(h2, h3));
	assert_null(coord_machine_waiter(h1, NULL));
	coord_dispatch_agent(c, h2, 0);
	assert_true(h2->dispatch_wanted && h3->dispatch_wanted && !h1->dispatch_wanted);
	assert_true(coord_dispatch_take(c));
	assert_false(coord_dispatch_take(c));
	/* h2 joins its pair: h1 is its partner, and h3's wait does not hold a second side */
	assert_true(coord_machine_may(c, h2, pair, h1));
	h2->job.id = 11;
	coord_machine_running(h2, pair);
	h1->job.id = 0;				/* h1's side ends first */
	assert_false(coord_machine_busy(c, h3));	/* h2's job may be a pair's: look */
	assert_false(coord_machine_may(c, h3, plain, NULL));
	h2->job.id = 0;
	assert_true(coord_machine_may(c, h3, plain, NULL));
	assert_int_equal(h3->machine.wait, 0);

	/* share_machine: only when both jobs say it */
	h2->job.id = 12;
	coord_machine_running(h2, shared);
	assert_true(coord_machine_may(c, h3, shared, NULL));
	assert_false(coord_machine_may(c, h3, plain, NULL));
	h2->job.id = 0;
	/* h3 now waits; h2, not waiting, lets it go first; h3 then goes */
	assert_false(coord_machine_may(c, h2, plain, NULL));
	assert_true(h2->machine.wait > h3->machine.wait);
	assert_true(coord_machine_may(c, h3, plain, NULL));
	assert_int_equal(c->machine_waiting, 1);

	for (i = 0; i < 3; i++)
		json_decref(ag[i].inventory);
	coord_machine_release(c);
	free(c->waiters);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_coordinator_machine_rule),
		TCTX_TEST(test_coordinator_machine_serial),
		TCTX_TEST(test_coordinator_machine_apart),
		TCTX_TEST(test_coordinator_machine_pair),
	};

	return cmocka_run_group_tests_name("coord_machine", tests, NULL, NULL);
}

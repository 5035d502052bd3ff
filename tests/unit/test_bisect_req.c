// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_bisect_req.c - unit tests for bisect sessions in the store (lib/store/store_bisect.c)
 * and behind the coordinator's bisect_* requests (coordinator/bisect_req.c), on real
 * SQLite files and real ZeroMQ ipc:// sockets in a temporary directory.
 *
 * The invariants: at most one active session; a step is appended only as the next one
 * (two clients racing for step N: the second is refused and nothing changes); a final
 * step and the end of its session are one transaction (a failing end leaves no step);
 * the session survives a coordinator restart; bisect_list lists every session. The
 * coordinator runs in-process, driven
 * with coord_run_once between the test's sends and receives, as in test_coordinator.c.
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
#include <zmq.h>

#include "coord.h"
#include "base/log.h"
#include "proto/proto.h"
#include "proto/proto_schema.h"
#include "store/store.h"
#include "store/store_bisect.h"
#include "base/util.h"
#include "helpers.h"

struct tctx {
	struct coord_fix fx;
	struct store *st;
	void *cl[2];		/* two clients */
};

static int setup(void **state)
{
	struct tctx *t = calloc(1, sizeof(*t));
	struct err err;

	assert_non_null(t);
	log_init("test_bisect_req", LOG_WARN);
	coord_fix_init(&t->fx, "bisect");
	t->st = store_open(t->fx.db, false, &err);
	if (!t->st)
		fail_msg("store_open: %s", err.msg);
	*state = t;
	return 0;
}

/* The coordinator stopped and its clients closed (the fixture's context stays). */
static void coord_down(struct tctx *t)
{
	int i;

	for (i = 0; i < 2; i++)
		if (t->cl[i])
			zmq_close(t->cl[i]);
	t->cl[0] = t->cl[1] = NULL;
	coord_destroy(&t->fx.c);
}

static int teardown(void **state)
{
	struct tctx *t = *state;

	coord_down(t);
	store_close(&t->st);
	coord_fix_release(&t->fx);
	free(t);
	return 0;
}

/* A session over four kernels k1..k4, good k1, bad k4. */
static json_t *session(void)
{
	return json_pack("{s:s, s:s, s:s, s:[ssss], s:s, s:s, s:{s:i, s:f}}", "plan", "p",
			 "metric", "prog.ns_per_run", "variant", "drop", "kernels", "k1", "k2",
			 "k3", "k4", "good", "k1", "bad", "k4", "opts", "reps", 5, "min_effect",
			 0.05);
}

static json_t *step(const char *kernel, double v)
{
	return json_pack("{s:s, s:[I], s:[f, f, f], s:s, s:n, s:s}", "kernel", kernel, "runs",
			 (json_int_t)7, "values", v, v, v, "verdict", "end", "p", "note",
			 "an end");
}

static long long n_steps(struct tctx *t, int64_t id)
{
	json_t *ses = store_bisect_get(t->st, id);
	long long n;

	assert_non_null(ses);
	n = (long long)json_array_size(json_object_get(ses, "steps"));
	json_decref(ses);
	return n;
}

static void expect_err(struct store *st, int rc, int want, const char *needle)
{
	if (rc != want || !strstr(store_err(st)->msg, needle))
		fail_msg("got %d '%s', expected %d with '%s'", rc, store_err(st)->msg, want,
			 needle);
}

static void test_bisect_store_invariants(void **state)
{
	struct tctx *t = *state;
	json_t *ses = session(), *s1 = step("k1", 10), *s2 = step("k4", 20), *got;
	json_t *res = json_pack("{s:s}", "first_bad", "k4");
	int64_t id = 0, id2 = 0, out = 0;

	expect_err(t->st, store_bisect_reset(t->st, 0, 1, &out), -ENOENT,
		   "no bisect session is active");
	assert_int_equal(store_bisect_start(t->st, ses, 1000, &id), 0);
	assert_true(id > 0);
	expect_err(t->st, store_bisect_start(t->st, ses, 1001, &id2), -EEXIST, "is active");

	/* steps: only as the next one */
	assert_int_equal(store_bisect_add_step(t->st, id, 1, s1, NULL, NULL, 1002), 0);
	expect_err(t->st, store_bisect_add_step(t->st, id, 1, s2, NULL, NULL, 1003), -EALREADY,
		   "step 1 of bisect session");
	expect_err(t->st, store_bisect_add_step(t->st, id, 3, s2, NULL, NULL, 1003), -EALREADY,
		   "has 1 steps: step 3 cannot come next");
	assert_int_equal(n_steps(t, id), 1);
	expect_err(t->st, store_bisect_add_step(t->st, id, 2, s2, "won", NULL, 1003), -EINVAL,
		   "ends 'done' or 'failed'");
	assert_int_equal(n_steps(t, id), 1);

	/* an end computed from another number of steps is refused */
	expect_err(t->st, store_bisect_end(t->st, id, 5, "done", res, 1004), -EALREADY,
		   "has 1 steps, not 5");

	/* the last step and the end, together */
	assert_int_equal(store_bisect_add_step(t->st, id, 2, s2, "done", res, 1005), 0);
	got = store_bisect_get(t->st, id);
	assert_non_null(got);
	assert_string_equal(jget_str(got, "state", ""), "done");
	assert_string_equal(jget_str(json_object_get(got, "result"), "first_bad", ""), "k4");
	assert_int_equal(jget_int(json_array_get(json_object_get(got, "steps"), 1), "seq", 0),
			 2);
	assert_int_equal(jget_int(got, "updated_ms", 0), 1005);
	json_decref(got);
	expect_err(t->st, store_bisect_add_step(t->st, id, 3, s1, NULL, NULL, 1006), -ESTALE,
		   "is not active");

	/* a new session; reset names the active one or none */
	assert_int_equal(store_bisect_start(t->st, ses, 2000, &id2), 0);
	assert_int_not_equal(id2, id);
	expect_err(t->st, store_bisect_reset(t->st, id, 2001, &out), -ESTALE, "not the active one");
	assert_int_equal(store_bisect_add_step(t->st, id2, 0, s1, NULL, NULL, 2002), 0);
	assert_int_equal(store_bisect_reset(t->st, id2, 2003, &out), 0);
	assert_int_equal(out, id2);
	got = store_bisect_get(t->st, 0);	/* none active: the latest */
	assert_int_equal(jget_int(got, "id", 0), id2);
	assert_string_equal(jget_str(got, "state", ""), "reset");
	json_decref(got);
	json_decref(ses);
	json_decref(s1);
	json_decref(s2);
	json_decref(res);
}

/* A final step whose end cannot be written leaves nothing: not the step either. */
static void test_bisect_store_end_rolls_back(void **state)
{
	struct tctx *t = *state;
	json_t *ses = session(), *s1 = step("k1", 10), *s2 = step("k4", 20);
	int64_t id = 0;

	assert_int_equal(store_bisect_start(t->st, ses, 1000, &id), 0);
	assert_int_equal(store_bisect_add_step(t->st, id, 1, s1, NULL, NULL, 1001), 0);
	assert_int_equal(sqlite3_exec(store_db(t->st), "CREATE TEMP TRIGGER no_end BEFORE UPDATE "
				      "OF state ON bisect_sessions BEGIN SELECT RAISE(ABORT, "
				      "'ends refused by the test'); END", NULL, NULL, NULL),
			 SQLITE_OK);
	expect_err(t->st, store_bisect_add_step(t->st, id, 2, s2, "failed", NULL, 1002), -EINVAL,
		   "ends refused by the test");
	assert_int_equal(n_steps(t, id), 1);
	assert_int_equal(sqlite3_exec(store_db(t->st), "DROP TRIGGER no_end", NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(store_bisect_add_step(t->st, id, 2, s2, "failed", NULL, 1003), 0);
	assert_int_equal(n_steps(t, id), 2);
	json_decref(ses);
	json_decref(s1);
	json_decref(s2);
}

/* --- through the coordinator --- */

static void coord_up(struct tctx *t)
{
	coord_fix_start(&t->fx, &COORD_OPTS(.tick_ms = 20));
	t->cl[0] = coord_fix_client(&t->fx);
	t->cl[1] = coord_fix_client(&t->fx);
}

/* Turn the coordinator's loop until client I has a reply (clients get no heartbeats). */
static json_t *reply_of(struct tctx *t, int i)
{
	json_t *msg = coord_pump(t->fx.c, t->cl[i], 5000);
	struct err why;

	if (!msg)
		fail_msg("no reply within 5 s");
	assert_int_equal(proto_validate(msg, PROTO_CH_COORD_TO_CLIENT, &why), 0);
	return msg;
}

/* Send MSG (stolen) from client I and return the reply. */
static json_t *ask(struct tctx *t, int i, json_t *msg)
{
	assert_non_null(msg);
	assert_int_equal(proto_send(t->cl[i], msg, 0), 0);
	json_decref(msg);
	return reply_of(t, i);
}

/* The reply must be `bisect`; returns its session (borrowed from R). */
static json_t *session_of(json_t *r)
{
	if (strcmp(proto_msg_type(r), "bisect"))
		fail_msg("wanted 'bisect', got '%s': %s", proto_msg_type(r),
			 jget_str(r, "message", ""));
	return json_object_get(r, "session");
}

static void expect_error(json_t *r, const char *needle)
{
	if (strcmp(proto_msg_type(r), "error") || !strstr(jget_str(r, "message", ""), needle))
		fail_msg("wanted an error with '%s', got '%s': %s", needle, proto_msg_type(r),
			 jget_str(r, "message", ""));
	json_decref(r);
}

static json_t *add_step_msg(long long id, long long seq, const char *kernel, double v,
			    const char *end)
{
	json_t *m = proto_msg_new("bisect_add_step");

	json_object_set_new(m, "id", json_integer(id));
	json_object_set_new(m, "seq", json_integer(seq));
	json_object_set_new(m, "step", step(kernel, v));
	if (end)
		json_object_set_new(m, "end", json_pack("{s:s, s:{s:s}}", "state", end, "result",
							"first_bad", "k4"));
	return m;
}

static void test_bisect_requests(void **state)
{
	struct tctx *t = *state;
	json_t *m, *r, *ses;
	long long id;
	int i, won = -1;

	store_close(&t->st);	/* the coordinator opens it */
	coord_up(t);
	expect_error(ask(t, 0, proto_msg_new("bisect_get")), "no bisect session: 'bpflab "
		     "bisect start' begins one");

	m = proto_msg_new("bisect_start");
	json_object_set_new(m, "session", session());
	r = ask(t, 0, m);
	ses = session_of(r);
	id = jget_int(ses, "id", 0);
	assert_true(id > 0);
	assert_string_equal(jget_str(ses, "state", ""), "active");
	assert_int_equal(json_array_size(json_object_get(ses, "steps")), 0);
	assert_string_equal(json_string_value(json_array_get(json_object_get(ses, "kernels"), 2)),
			    "k3");
	json_decref(r);
	m = proto_msg_new("bisect_start");
	json_object_set_new(m, "session", session());
	expect_error(ask(t, 1, m), "is active: 'bpflab bisect reset' ends it");

	/* a malformed request is refused by the schema, naming the member */
	m = add_step_msg(id, 1, "k1", 10, NULL);
	json_object_del(m, "seq");
	expect_error(ask(t, 0, m), "'seq' is required");

	/* two clients race for step 1: both sent before the coordinator reads either */
	for (i = 0; i < 2; i++) {
		m = add_step_msg(id, 1, "k1", 10 + i, NULL);
		assert_int_equal(proto_send(t->cl[i], m, 0), 0);
		json_decref(m);
	}
	for (i = 0; i < 2; i++) {
		r = reply_of(t, i);
		if (!strcmp(proto_msg_type(r), "bisect")) {
			assert_int_equal(won, -1);
			won = i;
			assert_int_equal(json_array_size(json_object_get(session_of(r), "steps")), 1);
			json_decref(r);
		} else {
			expect_error(r, "step 1 of bisect session");
		}
	}
	assert_true(won >= 0);

	/* the session survives a restart of the coordinator */
	coord_down(t);
	coord_up(t);
	m = proto_msg_new("bisect_get");
	r = ask(t, 0, m);
	ses = session_of(r);
	assert_int_equal(jget_int(ses, "id", 0), id);
	assert_int_equal(json_array_size(json_object_get(ses, "steps")), 1);
	assert_true(json_real_value(json_array_get(json_object_get(
		json_array_get(json_object_get(ses, "steps"), 0), "values"), 0)) == 10 + won);
	json_decref(r);

	/* the last step ends the session in the same request */
	r = ask(t, 1, add_step_msg(id, 2, "k4", 20, "done"));
	ses = session_of(r);
	assert_string_equal(jget_str(ses, "state", ""), "done");
	assert_string_equal(jget_str(json_object_get(ses, "result"), "first_bad", ""), "k4");
	assert_int_equal(json_array_size(json_object_get(ses, "steps")), 2);
	json_decref(r);
	expect_error(ask(t, 0, add_step_msg(id, 3, "k2", 10, NULL)), "is not active");
	m = proto_msg_new("bisect_finish");
	json_object_set_new(m, "id", json_integer(id));
	json_object_set_new(m, "steps", json_integer(2));
	json_object_set_new(m, "end", json_pack("{s:s}", "state", "done"));
	expect_error(ask(t, 0, m), "is not active");
	expect_error(ask(t, 0, proto_msg_new("bisect_reset")), "no bisect session is active");

	/* a second session: finish checks the steps, reset ends it */
	m = proto_msg_new("bisect_start");
	json_object_set_new(m, "session", session());
	r = ask(t, 0, m);
	id = jget_int(session_of(r), "id", 0);
	json_decref(r);
	m = proto_msg_new("bisect_finish");
	json_object_set_new(m, "id", json_integer(id));
	json_object_set_new(m, "steps", json_integer(1));
	json_object_set_new(m, "end", json_pack("{s:s}", "state", "failed"));
	expect_error(ask(t, 0, m), "has 0 steps, not 1");
	r = ask(t, 1, proto_msg_new("bisect_reset"));
	assert_int_equal(jget_int(session_of(r), "id", 0), id);
	assert_string_equal(jget_str(session_of(r), "state", ""), "reset");
	json_decref(r);

	/* bisect_list: both sessions, oldest first, as store_bisect_list gives them */
	r = ask(t, 0, proto_msg_new("bisect_list"));
	assert_string_equal(proto_msg_type(r), "bisect_sessions");
	ses = json_object_get(r, "sessions");
	assert_int_equal(json_array_size(ses), 2);
	assert_string_equal(jget_str(json_array_get(ses, 0), "state", ""), "done");
	assert_string_equal(jget_str(json_object_get(json_array_get(ses, 0), "result"),
					  "first_bad", ""), "k4");
	assert_int_equal(jget_int(json_array_get(ses, 0), "n_steps", -1), 2);
	assert_int_equal(jget_int(json_array_get(ses, 0), "n_kernels", -1), 4);
	assert_int_equal(jget_int(json_array_get(ses, 1), "id", 0), id);
	assert_string_equal(jget_str(json_array_get(ses, 1), "state", ""), "reset");
	assert_int_equal(jget_int(json_array_get(ses, 1), "n_steps", -1), 0);
	assert_null(json_object_get(json_array_get(ses, 1), "steps"));
	json_decref(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bisect_store_invariants, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bisect_store_end_rolls_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bisect_requests, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

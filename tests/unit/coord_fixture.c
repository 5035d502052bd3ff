// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* coord_fixture.c - the fixture of the coordinator's unit tests (coord_fixture.h): setup
 * and teardown for cmocka, the messages an agent and a client send, and the loop turned
 * until an answer comes.
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
#include "base/log.h"
#include "proto/proto.h"
#include "base/util.h"
#include "helpers.h"
#include "coord_fixture.h"

#ifndef BPFLAB_BUILDDIR
#error "BPFLAB_BUILDDIR: the Makefile defines it (the build's BPF objects)"
#endif

const char tctx_plan_text[] =
	"name: coord-test\n"
	"description: two variants, one repetition\n"
	"hosts:\n"
	"  match: {port.driver: veth, kernel: \">=6.1\"}\n"
	"  count: all\n"
	"ports: [a, b]\n"
	"traffic:\n"
	"  generator: xdp-live\n"
	"  from: a\n"
	"  packet: {size: 64, proto: udp4, flows: 1}\n"
	"  duration: 2s\n"
	"  warmup: 1s\n"
	"variants:\n"
	"  drop:\n"
	"    - {port: b, hook: xdp, mode: native, object: " OBJ_NAME ", program: xdp_drop}\n"
	"  pass:\n"
	"    - {port: b, hook: xdp, mode: native, object: " OBJ_NAME ", program: xdp_pass}\n"
	"repeat: 1\n"
	"metrics: [port.rx_pps, prog.ns_per_run]\n";


const char tctx_pair_plan[] =
	"name: pair-test\n"
	"link: {generator: x, dut: y}\n"
	"ports: [x, y]\n"
	"traffic:\n"
	"  generator: xdp-live\n"
	"  from: x\n"
	"  packet: {size: 64, proto: udp4, flows: 1}\n"
	"  duration: 1s\n"
	"  warmup: 0s\n"
	"variants:\n"
	"  drop:\n"
	"    - {port: y, hook: xdp, mode: native, object: " OBJ_NAME ", program: xdp_drop}\n"
	"repeat: 1\n"
	"metrics: [port.rx_pps]\n";

int tctx_setup_hb(void **state, int heartbeat_ms)
{
	struct tctx *t = calloc(1, sizeof(*t));

	log_init("test_coordinator", LOG_WARN);
	coord_fix_init(&t->fx, "coord");
	coord_fix_start(&t->fx, &COORD_OPTS(.heartbeat_ms = heartbeat_ms, .tick_ms = 20));
	t->agent = coord_fix_agent(&t->fx);
	t->client = coord_fix_client(&t->fx);
	coord_fix_object(&t->fx, BPFLAB_BUILDDIR "/bpf/" OBJ_NAME);
	*state = t;
	return 0;
}

int tctx_setup(void **state)
{
	return tctx_setup_hb(state, 0);
}

int tctx_teardown(void **state)
{
	struct tctx *t = *state;

	zmq_close(t->agent);
	zmq_close(t->client);
	if (t->agent2)
		zmq_close(t->agent2);
	if (t->old)
		zmq_close(t->old);
	if (t->agent3)
		zmq_close(t->agent3);
	coord_fix_release(&t->fx);
	assert_null(t->fx.c);
	free(t);
	return 0;
}

json_t *tctx_inventory(const char *driver)
{
	return json_pack("{s:s, s:s, s:{s:s, s:s, s:s, s:[], s:s}, s:{s:s}, s:[{s:s, s:s, s:s},"
			 "{s:s, s:s, s:s}]}",
			 "hostname", "h1", "agent", "h1",
			 "kernel", "release", "6.18.44", "version", "#1 SMP PREEMPT_DYNAMIC",
			 "config_sha256", "c0ffee", "debug_options", "cmdline", "quiet",
			 "labels", "rack", "r3",
			 "ports", "role", "a", "name", "veth-a", "driver", driver,
			 "role", "b", "name", "veth-b", "driver", driver);
}

void tctx_hello(struct tctx *t, const char *name, const char *driver)
{
	json_t *m = proto_msg_new("hello"), *r;

	json_object_set_new(m, "agent", json_string(name));
	json_object_set_new(m, "version", json_string("0.1"));
	json_object_set_new(m, "inventory", tctx_inventory(driver));
	r = coord_ask(t->fx.c, t->agent, m, "welcome");
	assert_true(jget_int(r, "heartbeat_ms", 0) > 0);
	json_decref(r);
}

json_t *tctx_submit_msg(struct tctx *t, const char *text, const char *sha)
{
	char *b64 = util_base64_encode(t->fx.obj, t->fx.obj_len);
	json_t *m = proto_msg_new("submit");

	json_object_set_new(m, "plan_file", json_string("plan.yaml"));
	json_object_set_new(m, "plan_text", json_string(text));
	json_object_set_new(m, "overrides", json_pack("[s]", "traffic.packet.size=128"));
	json_object_set_new(m, "objects", json_pack("{s:{s:s, s:s}}", OBJ_NAME, "sha256",
						    sha ? sha : t->fx.obj_sha, "data", b64));
	free(b64);
	return m;
}

json_t *tctx_result_msg(long long job, double value)
{
	return json_pack("{s:i, s:s, s:I, s:s, s:{s:{s:s, s:s}}, s:I, s:I, s:["
			 "{s:s, s:s, s:f, s:s, s:s, s:n}, {s:s, s:s, s:f, s:s, s:s, s:i},"
			 "{s:s, s:s, s:f, s:s, s:s, s:n}]}",
			 "v", 1, "type", "result", "job", (json_int_t)job, "status", "ok",
			 "env", "kernel", "release", "6.18.44", "version", "#1 SMP PREEMPT_DYNAMIC",
			 "started_ms", (json_int_t)1000, "finished_ms", (json_int_t)5000,
			 "samples",
			 "metric", "port.rx_pps", "subject", "b", "value", value, "unit", "pps",
			 "window", "rate", "seq",
			 "metric", "port.rx_pps", "subject", "b", "value", value, "unit", "pps",
			 "window", "rate", "seq", 0,
			 "metric", "prog.ns_per_run", "subject", "xdp_drop", "value", 35.5,
			 "unit", "ns", "window", "cost", "seq");
}

json_t *tctx_simple(const char *type, long long run)
{
	json_t *m = proto_msg_new(type);

	if (run)
		json_object_set_new(m, "run", json_integer(run));
	return m;
}

/* HOST's entry in host_list (new reference) */
json_t *tctx_host_of(struct tctx *t, const char *name)
{
	json_t *r = coord_ask(t->fx.c, t->client, tctx_simple("host_list", 0), "hosts"), *h;
	json_t *found = NULL;
	size_t i;

	json_array_foreach(json_object_get(r, "hosts"), i, h)
		if (!strcmp(jget_str(h, "name", ""), name))
			found = json_incref(h);
	json_decref(r);
	assert_non_null(found);
	return found;
}

/* A hello from SOCK for agent NAME with ports x and y; KEPT: a job it still runs. */
void tctx_hello_xy(struct tctx *t, void *sock, const char *name, long long kept)
{
	json_t *m = proto_msg_new("hello"), *r;

	json_object_set_new(m, "agent", json_string(name));
	json_object_set_new(m, "version", json_string("0.1"));
	json_object_set_new(m, "inventory", json_pack(
		"{s:s, s:s, s:{s:s}, s:[{s:s, s:s, s:s}, {s:s, s:s, s:s}]}", "hostname", name,
		"agent", name, "kernel", "release", "6.18.44", "ports", "role", "x", "name",
		"veth-x", "driver", "veth", "role", "y", "name", "veth-y", "driver", "veth"));
	if (t->machine)
		json_object_set_new(json_object_get(m, "inventory"), "machine",
				    json_pack("{s:s}", "id", t->machine));
	if (kept)
		json_object_set_new(m, "job", json_integer(kept));
	r = coord_ask(t->fx.c, sock, m, "welcome");
	json_decref(r);
}

/* Turn the loop until SOCK has a message that is not a heartbeat, sending a heartbeat from
 * each of the N sockets of LIVE every 100 ms (agents that stay alive). */
json_t *tctx_pump_live(struct tctx *t, void *sock, void **live, int n, int timeout_ms)
{
	int64_t deadline = util_mono_ms() + timeout_ms, beat = 0;
	struct err why;
	json_t *msg;
	int i;

	while (util_mono_ms() < deadline) {
		if (util_mono_ms() - beat >= 100) {
			for (i = 0; i < n; i++) {
				msg = proto_msg_new("heartbeat");
				assert_int_equal(proto_send(live[i], msg, 0), 0);
				json_decref(msg);
			}
			beat = util_mono_ms();
		}
		assert_int_equal(coord_run_once(t->fx.c, 5), 0);
		while (proto_recv(sock, &msg, ZMQ_DONTWAIT, &why) == 0) {
			if (strcmp(proto_msg_type(msg), "heartbeat"))
				return msg;
			json_decref(msg);
		}
	}
	return NULL;
}

/* The next message on SOCK must be of TYPE (for JOB, when not 0). */
json_t *tctx_want(struct tctx *t, void *sock, void **live, int n, const char *type,
		  long long job)
{
	json_t *r = tctx_pump_live(t, sock, live, n, 3000);

	if (!r)
		fail_msg("no '%s'", type);
	if (strcmp(proto_msg_type(r), type))
		fail_msg("wanted '%s', got '%s': %s", type, proto_msg_type(r),
			 jget_str(r, "message", ""));
	if (job && jget_int(r, "job", 0) != job &&
	    jget_int(json_object_get(r, "job"), "id", 0) != job)
		fail_msg("'%s' for another job than %lld", type, job);
	return r;
}

void tctx_says(void *sock, const char *type, long long job)
{
	json_t *m = proto_msg_new(type);

	json_object_set_new(m, "job", json_integer(job));
	assert_int_equal(proto_send(sock, m, 0), 0);
	json_decref(m);
}

/* The attempts of JOB as "outcome:error|..." */
void tctx_attempts_of(struct tctx *t, long long run, long long job, char *out,
		      size_t len)
{
	json_t *r = coord_ask(t->fx.c, t->client, tctx_simple("run_attempts", run), "attempts"), *a;
	size_t i;

	out[0] = '\0';
	json_array_foreach(json_object_get(r, "attempts"), i, a)
		if (jget_int(a, "job", 0) == job)
			snprintf(out + strlen(out), len - strlen(out), "%s:%s|",
				 jget_str(a, "outcome", ""), jget_str(a, "error", ""));
	json_decref(r);
}

/* h1 (ports x, y) on socket H1 and h2 on H2 say hello, a discovery finds the link from
 * h1's x to h2's y, and tctx_pair_plan is submitted: *RUN, with its generator job *GEN
 * handed to h1 and its DUT job *DUT to h2, each accepted. */
void tctx_pair_start(struct tctx *t, void *h1, void *h2, long long *run, long long *gen,
		     long long *dut)
{
	void *both[2] = { h1, h2 };
	char nonce[64] = "";
	json_t *r, *m;

	tctx_hello_xy(t, h1, "h1", 0);
	tctx_hello_xy(t, h2, "h2", 0);
	/* discovery: h2's y hears h1's x */
	m = proto_msg_new("link_discover");
	assert_int_equal(proto_send(t->client, m, 0), 0);
	json_decref(m);
	r = tctx_want(t, h1, both, 2, "probe", 0);
	snprintf(nonce, sizeof(nonce), "%s",
		 jget_str(json_object_get(r, "nonces"), "x", ""));
	m = json_pack("{s:i, s:s, s:O, s:{}}", "v", 1, "type", "probe_report", "probe",
		      json_object_get(r, "probe"), "received");
	assert_int_equal(proto_send(h1, m, 0), 0);
	json_decref(m);
	json_decref(r);
	r = tctx_want(t, h2, both, 2, "probe", 0);
	m = json_pack("{s:i, s:s, s:O, s:{s:[s]}}", "v", 1, "type", "probe_report", "probe",
		      json_object_get(r, "probe"), "received", "y", nonce);
	assert_int_equal(proto_send(h2, m, 0), 0);
	json_decref(m);
	json_decref(r);
	r = tctx_pump_live(t, t->client, both, 2, 3000);
	assert_non_null(r);
	assert_string_equal(proto_msg_type(r), "links");
	assert_int_equal(json_array_size(json_object_get(r, "links")), 1);
	json_decref(r);

	r = coord_ask(t->fx.c, t->client, tctx_submit_msg(t, tctx_pair_plan, NULL), "submitted");
	*run = jget_int(r, "run", 0);
	assert_int_equal(jget_int(r, "jobs", 0), 2);
	json_decref(r);
	r = tctx_want(t, h1, both, 2, "job", 0);
	*gen = jget_int(json_object_get(r, "job"), "id", 0);
	json_decref(r);
	r = tctx_want(t, h2, both, 2, "job", 0);
	*dut = jget_int(json_object_get(r, "job"), "id", 0);
	json_decref(r);
	tctx_says(h1, "accept", *gen);
	tctx_says(h2, "accept", *dut);
}

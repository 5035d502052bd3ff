// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_coordinator.c - unit tests for bpflabd (coordinator/) over real ZeroMQ ipc://
 * sockets and a real SQLite file in a temporary directory.
 *
 * The coordinator runs in-process: the test drives its loop with coord_run_once between
 * its own sends and receives, so there is one thread and no timing race. A DEALER plays
 * the agent (hello, accept, progress, result), another the CLI (submit, queries). The
 * BPF object is the real build/bpf/xdp_basic.bpf.o. A last test starts the built bpflabd
 * binary, when there is one, and stops it with SIGTERM.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zmq.h>

#include "coord.h"
#include "coord_core.h"
#include "coord_dispatch.h"
#include "coord_machine.h"
#include "coord_priv.h"
#include "sched.h"
#include "base/log.h"
#include "proto/proto.h"
#include "base/util.h"
#include "helpers.h"

#ifndef BPFLAB_BUILDDIR
#define BPFLAB_BUILDDIR "build"
#endif

#define OBJ_NAME "xdp_basic.bpf.o"

static const char plan_text[] =
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

struct tctx {
	struct coord_fix fx;
	void *agent, *client;
	void *agent2;		/* a second agent, when a test has one (closed by teardown) */
	void *old;		/* a restarted agent's old connection, while a test keeps it */
	void *agent3;		/* a third agent (closed by teardown) */
	const char *machine;	/* machine.id in the inventory of hello_xy, or NULL */
};

static int setup_hb(void **state, int heartbeat_ms)
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

static int setup(void **state)
{
	return setup_hb(state, 0);
}

static int setup_fast(void **state)
{
	return setup_hb(state, 50);
}

static int teardown(void **state)
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

static json_t *inventory(const char *driver)
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

static void hello(struct tctx *t, const char *name, const char *driver)
{
	json_t *m = proto_msg_new("hello"), *r;

	json_object_set_new(m, "agent", json_string(name));
	json_object_set_new(m, "version", json_string("0.1"));
	json_object_set_new(m, "inventory", inventory(driver));
	r = coord_ask(t->fx.c, t->agent, m, "welcome");
	assert_true(jget_int(r, "heartbeat_ms", 0) > 0);
	json_decref(r);
}

static json_t *submit_msg(struct tctx *t, const char *text, const char *sha)
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

static json_t *result_msg(long long job, double value)
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

static json_t *simple(const char *type, long long run)
{
	json_t *m = proto_msg_new(type);

	if (run)
		json_object_set_new(m, "run", json_integer(run));
	return m;
}

static void test_coordinator_end_to_end(void **state)
{
	struct tctx *t = *state;
	static const char *const variants[] = { "drop", "pass" };
	struct coord_stats stats;
	json_t *r, *job, *spec, *m, *res, *obj;
	long long run, job_id = 0;
	void *bytes;
	size_t len;
	int i;

	hello(t, "h1", "veth");
	r = coord_ask(t->fx.c, t->client, simple("host_list", 0), "hosts");
	assert_int_equal(json_array_size(json_object_get(r, "hosts")), 1);
	assert_string_equal(jget_str(json_array_get(json_object_get(r, "hosts"), 0),
					  "state", ""), "idle");
	json_decref(r);

	r = coord_ask(t->fx.c, t->client, submit_msg(t, plan_text, NULL), "submitted");
	run = jget_int(r, "run", 0);
	assert_true(run > 0);
	assert_int_equal(jget_int(r, "jobs", 0), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(r, "hosts"), 0)),
			    "h1");
	json_decref(r);

	for (i = 0; i < 2; i++) {
		r = coord_pump(t->fx.c, t->agent, 5000);
		assert_non_null(r);
		assert_string_equal(proto_msg_type(r), "job");
		job = json_object_get(r, "job");
		job_id = jget_int(job, "id", 0);
		assert_true(job_id > 0);
		assert_int_equal(jget_int(job, "run", 0), run);
		spec = json_object_get(job, "spec");
		assert_string_equal(jget_str(spec, "variant", ""), variants[i]);
		assert_string_equal(jget_str(json_array_get(json_object_get(spec, "attach"), 0),
						  "sha256", ""), t->fx.obj_sha);
		obj = json_object_get(json_object_get(r, "objects"), OBJ_NAME);
		assert_string_equal(jget_str(obj, "sha256", ""), t->fx.obj_sha);
		assert_int_equal(util_base64_decode(jget_str(obj, "data", ""), &bytes, &len),
				 0);
		assert_int_equal(len, t->fx.obj_len);
		assert_memory_equal(bytes, t->fx.obj, len);
		free(bytes);
		json_decref(r);

		m = proto_msg_new("accept");
		json_object_set_new(m, "job", json_integer(job_id));
		assert_int_equal(proto_send(t->agent, m, 0), 0);
		json_decref(m);
		m = json_pack("{s:i, s:s, s:I, s:s, s:i, s:i}", "v", 1, "type", "progress",
			      "job", (json_int_t)job_id, "phase", "rate", "second", 1, "of", 2);
		assert_int_equal(proto_send(t->agent, m, 0), 0);
		json_decref(m);
		if (i == 0) {
			/* the host is busy with this job */
			r = coord_ask(t->fx.c, t->client, simple("host_list", 0), "hosts");
			assert_string_equal(jget_str(json_array_get(json_object_get(r, "hosts"),
							  0), "state", ""), "busy");
			assert_int_equal(jget_int(json_array_get(json_object_get(r, "hosts"), 0),
						       "job", 0), job_id);
			json_decref(r);
		}
		r = coord_ask(t->fx.c, t->agent, result_msg(job_id, 1e6 * (i + 1)), "ack");
		assert_int_equal(jget_int(r, "job", 0), job_id);
		json_decref(r);
	}
	/* the agent sends its last result again: acknowledged, stored once */
	r = coord_ask(t->fx.c, t->agent, result_msg(job_id, 7), "ack");
	json_decref(r);
	coord_get_stats(t->fx.c, &stats);
	assert_int_equal(stats.results, 2);
	assert_int_equal(stats.duplicates, 1);
	assert_int_equal(stats.jobs_dispatched, 2);
	assert_int_equal(stats.bad_messages, 0);

	r = coord_ask(t->fx.c, t->client, simple("run_show", run), "run");
	res = json_object_get(r, "run");
	assert_string_equal(jget_str(res, "state", ""), "done");
	assert_int_equal(jget_int(res, "jobs_done", 0), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(res, "overrides"),
							     0)), "traffic.packet.size=128");
	assert_string_equal(jget_str(json_array_get(json_object_get(res, "jobs"), 1),
					  "variant", ""), "pass");
	json_decref(r);

	/* the per-second samples through the coordinator (result show --seconds): none
	 * here, the run's head all the same; an unknown run is an error */
	r = coord_ask(t->fx.c, t->client, simple("result_seconds", run), "seconds");
	res = json_object_get(r, "seconds");
	assert_int_equal(jget_int(res, "run", 0), run);
	assert_string_equal(jget_str(res, "plan", ""), "coord-test");
	assert_true(json_is_array(json_object_get(res, "series")));
	json_decref(r);
	r = coord_ask(t->fx.c, t->client, simple("result_seconds", 4242), "error");
	json_decref(r);

	r = coord_ask(t->fx.c, t->client, simple("result_show", run), "result");
	res = json_object_get(r, "result");
	assert_string_equal(jget_str(res, "plan", ""), "coord-test");
	assert_int_equal(jget_int(res, "repeat", 0), 1);
	assert_string_equal(json_string_value(json_array_get(json_object_get(res, "variants"),
							     1)), "pass");
	assert_string_equal(jget_str(json_array_get(json_object_get(res, "hosts"), 0),
					  "kernel_release", ""), "6.18.44");
	assert_int_equal(json_array_size(json_object_get(res, "samples")), 4);
	m = json_array_get(json_object_get(res, "samples"), 2);
	assert_string_equal(jget_str(m, "variant", ""), "pass");
	assert_string_equal(jget_str(m, "metric", ""), "port.rx_pps");
	assert_true(jget_num(m, "value", 0) == 2e6);
	assert_true(json_is_object(json_object_get(m, "point")));	/* no matrix */
	json_decref(r);

	r = coord_ask(t->fx.c, t->client, simple("run_list", 0), "runs");
	assert_int_equal(json_array_size(json_object_get(r, "runs")), 1);
	json_decref(r);
}

static void test_coordinator_malformed(void **state)
{
	struct tctx *t = *state;
	struct coord_stats stats;
	json_t *r, *m;

	/* not JSON, from an agent */
	assert_int_equal(zmq_send(t->agent, "garbage", 7, 0), 7);
	r = coord_pump(t->fx.c, t->agent, 5000);
	assert_non_null(r);
	assert_string_equal(proto_msg_type(r), "error");
	assert_non_null(strstr(jget_str(r, "message", ""), "not JSON"));
	json_decref(r);
	/* before hello: a heartbeat is not answered (the agent's liveness runs out and it
	 * says hello), anything else gets an error */
	m = proto_msg_new("heartbeat");
	assert_int_equal(proto_send(t->agent, m, 0), 0);
	json_decref(m);
	assert_null(coord_pump(t->fx.c, t->agent, 100));
	m = proto_msg_new("accept");
	json_object_set_new(m, "job", json_integer(1));
	r = coord_ask(t->fx.c, t->agent, m, "error");
	assert_string_equal(jget_str(r, "message", ""), "unknown agent: say hello first");
	assert_string_equal(jget_str(r, "in_reply_to", ""), "accept");
	json_decref(r);
	/* hello without an inventory */
	m = proto_msg_new("hello");
	json_object_set_new(m, "agent", json_string("h1"));
	r = coord_ask(t->fx.c, t->agent, m, "error");
	assert_string_equal(jget_str(r, "message", ""), "hello: 'inventory' is required");
	json_decref(r);
	/* an unknown type from a registered agent; a result for a job that does not exist */
	hello(t, "h1", "veth");
	r = coord_ask(t->fx.c, t->agent, proto_msg_new("frob"), "error");
	assert_string_equal(jget_str(r, "message", ""), "unknown message type 'frob'");
	assert_string_equal(jget_str(r, "in_reply_to", ""), "frob");
	json_decref(r);
	r = coord_ask(t->fx.c, t->agent, result_msg(77, 1), "error");
	assert_non_null(strstr(jget_str(r, "message", ""), "unknown job 77"));
	json_decref(r);
	/* clients: wrong version, two frames, unknown type, missing run */
	assert_int_equal(zmq_send(t->client, "{\"v\":2,\"type\":\"run_list\"}", 25, 0), 25);
	r = coord_pump(t->fx.c, t->client, 5000);
	assert_string_equal(jget_str(r, "message", ""), "protocol version 2, expected 1");
	json_decref(r);
	zmq_send(t->client, "{\"v\":1,\"type\":\"run_list\"}", 25, ZMQ_SNDMORE);
	zmq_send(t->client, "{}", 2, 0);
	r = coord_pump(t->fx.c, t->client, 5000);
	assert_string_equal(jget_str(r, "message", ""),
			    "message has more than one payload frame");
	json_decref(r);
	r = coord_ask(t->fx.c, t->client, proto_msg_new("frob"), "error");
	json_decref(r);
	r = coord_ask(t->fx.c, t->client, simple("run_show", 0), "error");
	assert_string_equal(jget_str(r, "message", ""), "run_show: 'run' is required");
	json_decref(r);
	r = coord_ask(t->fx.c, t->client, simple("result_show", 42), "error");
	assert_non_null(strstr(jget_str(r, "message", ""), "unknown run 42"));
	json_decref(r);

	/* and it still serves */
	r = coord_ask(t->fx.c, t->client, simple("host_list", 0), "hosts");
	assert_int_equal(json_array_size(json_object_get(r, "hosts")), 1);
	json_decref(r);
	coord_get_stats(t->fx.c, &stats);
	assert_int_equal(stats.bad_messages, 7);	/* hello without inventory fails the schema too */
}

static void test_coordinator_bad_submit(void **state)
{
	struct tctx *t = *state;
	char *bad, *other;
	json_t *r;

	/* no host connected */
	r = coord_ask(t->fx.c, t->client, submit_msg(t, plan_text, NULL), "error");
	assert_non_null(strstr(jget_str(r, "message", ""),
				"no host matches the plan (hosts.match port.driver=veth, "
				"kernel>=6.1; ports a, b; 0 hosts connected)"));
	json_decref(r);
	/* a host without veth ports */
	hello(t, "h1", "ixgbe");
	r = coord_ask(t->fx.c, t->client, submit_msg(t, plan_text, NULL), "error");
	assert_non_null(strstr(jget_str(r, "message", ""), "1 host connected; 'h1': no port "
			       "of roles a, b with driver 'veth'"));
	json_decref(r);
	hello(t, "h1", "veth");

	/* a plan that does not validate: FILE:LINE:COLUMN */
	bad = strdup(plan_text);
	memcpy(strstr(bad, "repeat: 1"), "repeat: x", 9);
	r = coord_ask(t->fx.c, t->client, submit_msg(t, bad, NULL), "error");
	assert_non_null(strstr(jget_str(r, "message", ""), "plan.yaml:18:"));
	json_decref(r);
	free(bad);
	/* object bytes that do not match their sha256 */
	r = coord_ask(t->fx.c, t->client, submit_msg(t, plan_text, "00"), "error");
	assert_non_null(strstr(jget_str(r, "message", ""), "its bytes hash to"));
	json_decref(r);
	/* a plan naming an object that was not sent */
	other = strdup(plan_text);
	memcpy(strstr(other, OBJ_NAME ", program: xdp_pass"), "xdp_other", 9);
	r = coord_ask(t->fx.c, t->client, submit_msg(t, other, NULL), "error");
	assert_non_null(strstr(jget_str(r, "message", ""), "plan.yaml:17:"));
	json_decref(r);
	free(other);
	r = coord_ask(t->fx.c, t->client, proto_msg_new("submit"), "error");
	assert_string_equal(jget_str(r, "message", ""), "submit: 'plan_text' is required");
	json_decref(r);

	/* nothing was stored, and nothing was sent to the agent */
	r = coord_ask(t->fx.c, t->client, simple("run_list", 0), "runs");
	assert_int_equal(json_array_size(json_object_get(r, "runs")), 0);
	json_decref(r);
	assert_null(coord_pump(t->fx.c, t->agent, 100));
}

/* An agent that stops talking is gone after 3 heartbeats; its job waits for it. */
static void test_coordinator_agent_gone(void **state)
{
	struct tctx *t = *state;
	long long job_id, run;
	int64_t t0;
	json_t *r, *host, *job;
	bool beat = false;

	hello(t, "h1", "veth");
	r = coord_ask(t->fx.c, t->client, submit_msg(t, plan_text, NULL), "submitted");
	run = jget_int(r, "run", 0);
	json_decref(r);
	r = coord_pump(t->fx.c, t->agent, 5000);
	assert_string_equal(proto_msg_type(r), "job");
	job_id = jget_int(json_object_get(r, "job"), "id", 0);
	json_decref(r);

	/* silence: the coordinator keeps sending heartbeats, then gives up */
	t0 = util_mono_ms();
	while (util_mono_ms() - t0 < 400) {
		struct err why;

		assert_int_equal(coord_run_once(t->fx.c, 5), 0);
		while (proto_recv(t->agent, &r, ZMQ_DONTWAIT, &why) == 0) {
			beat |= !strcmp(proto_msg_type(r), "heartbeat");
			json_decref(r);
		}
	}
	assert_true(beat);
	r = coord_ask(t->fx.c, t->client, simple("host_list", 0), "hosts");
	host = json_array_get(json_object_get(r, "hosts"), 0);
	assert_string_equal(jget_str(host, "state", ""), "gone");
	assert_true(json_is_null(json_object_get(host, "job")));
	json_decref(r);
	r = coord_ask(t->fx.c, t->client, simple("run_show", run), "run");
	job = json_array_get(json_object_get(json_object_get(r, "run"), "jobs"), 0);
	assert_string_equal(jget_str(job, "state", ""), "queued");
	assert_int_equal(jget_int(job, "attempts", 0), 1);
	json_decref(r);

	/* back: the same job again */
	hello(t, "h1", "veth");
	r = coord_pump(t->fx.c, t->agent, 5000);
	assert_string_equal(proto_msg_type(r), "job");
	assert_int_equal(jget_int(json_object_get(r, "job"), "id", 0), job_id);
	json_decref(r);
}

/* hello from SOCK as NAME running RELEASE, its provider offering KERNELS (NULL: no
 * provider), with "booting" BOOTING unless NULL. */
static void hello_kernel(struct tctx *t, void *sock, const char *name, const char *release,
			 json_t *kernels, const char *booting)
{
	json_t *m = proto_msg_new("hello"), *inv = inventory("veth"), *r;

	json_object_set_new(json_object_get(inv, "kernel"), "release", json_string(release));
	if (kernels)
		json_object_set_new(inv, "provider", json_pack("{s:s, s:o}", "command",
							       "/bin/provider", "kernels", kernels));
	json_object_set_new(m, "agent", json_string(name));
	json_object_set_new(m, "inventory", inv);
	if (booting)
		json_object_set_new(m, "booting", json_string(booting));
	r = coord_ask(t->fx.c, sock, m, "welcome");
	json_decref(r);
}

static json_t *host_boot(const char *host, const char *kernel)
{
	return json_pack("{s:i, s:s, s:s, s:s}", "v", 1, "type", "host_boot", "host", host,
			 "kernel", kernel);
}

/* host_boot is refused with MESSAGE (a part of it) */
static void boot_refused(struct tctx *t, const char *host, const char *kernel,
			 const char *message)
{
	json_t *r = coord_ask(t->fx.c, t->client, host_boot(host, kernel), "error");

	if (!strstr(jget_str(r, "message", ""), message))
		fail_msg("host_boot %s %s: '%s' lacks '%s'", host, kernel,
			 jget_str(r, "message", ""), message);
	json_decref(r);
}

/* HOST's entry in host_list (new reference) */
static json_t *host_of(struct tctx *t, const char *name)
{
	json_t *r = coord_ask(t->fx.c, t->client, simple("host_list", 0), "hosts"), *h;
	json_t *found = NULL;
	size_t i;

	json_array_foreach(json_object_get(r, "hosts"), i, h)
		if (!strcmp(jget_str(h, "name", ""), name))
			found = json_incref(h);
	json_decref(r);
	assert_non_null(found);
	return found;
}

static void assert_boot(struct tctx *t, const char *host, const char *state,
			const char *boot_state, const char *release)
{
	json_t *h = host_of(t, host);

	assert_string_equal(jget_str(h, "state", ""), state);
	assert_string_equal(jget_str(json_object_get(h, "boot"), "state", ""), boot_state);
	assert_string_equal(jget_str(h, "kernel_release", ""), release);
	json_decref(h);
}

/* Kernel providers: host_boot's refusals, the boot message, no dispatch while booting,
 * a failed provider (host available again, error in host_list), a switch that ends with
 * the new kernel's hello, a reconnect during the switch, and a host that came back with
 * another kernel. */
static void test_coordinator_host_boot(void **state)
{
	struct tctx *t = *state;
	json_t *r, *h;
	long long job;

	hello_kernel(t, t->agent, "h1", "6.18.44", NULL, NULL);
	boot_refused(t, "h1", "6.19.1", "host 'h1' has no kernel provider");
	hello_kernel(t, t->agent, "h1", "6.18.44", json_pack("[s, s]", "6.18.44", "6.19.1"),
		     NULL);
	boot_refused(t, "nope", "6.19.1", "no host 'nope'");
	boot_refused(t, "h1", "7.0", "host 'h1' does not offer kernel '7.0' (its kernel "
		     "provider lists: 6.18.44, 6.19.1)");
	boot_refused(t, "h1", "6.18.44", "runs kernel '6.18.44' already");

	r = coord_ask(t->fx.c, t->client, host_boot("h1", "6.19.1"), "booting");
	assert_string_equal(jget_str(r, "from", ""), "6.18.44");
	json_decref(r);
	r = coord_pump(t->fx.c, t->agent, 2000);
	assert_non_null(r);
	assert_string_equal(proto_msg_type(r), "boot");
	assert_string_equal(jget_str(r, "kernel", ""), "6.19.1");
	json_decref(r);
	assert_boot(t, "h1", "booting", "booting", "6.18.44");
	boot_refused(t, "h1", "6.19.1", "already switching to kernel '6.19.1'");

	/* a run submitted meanwhile waits: nothing is dispatched to a booting host */
	r = coord_ask(t->fx.c, t->client, submit_msg(t, plan_text, NULL), "submitted");
	json_decref(r);
	r = coord_pump(t->fx.c, t->agent, 300);
	assert_null(r);

	/* the provider failed: the host is available again (and gets its job) */
	r = json_pack("{s:i, s:s, s:s, s:s, s:s, s:i}", "v", 1, "type", "boot_report",
		      "kernel", "6.19.1", "status", "failed", "error",
		      "boot 6.19.1: the kernel provider failed (exit status 1): no initrd", "ms", 5);
	assert_int_equal(proto_send(t->agent, r, 0), 0);
	json_decref(r);
	r = coord_pump(t->fx.c, t->agent, 2000);
	assert_non_null(r);
	assert_string_equal(proto_msg_type(r), "job");
	job = jget_int(json_object_get(r, "job"), "id", 0);
	json_decref(r);
	h = host_of(t, "h1");
	assert_string_equal(jget_str(json_object_get(h, "boot"), "state", ""), "failed");
	assert_non_null(strstr(jget_str(json_object_get(h, "boot"), "error", ""),
			       "no initrd"));
	json_decref(h);
	boot_refused(t, "h1", "6.19.1", "host 'h1' has 2 jobs queued or running");
	/* finish the run's two jobs */
	while (job) {
		r = result_msg(job, 1e6);
		assert_int_equal(proto_send(t->agent, r, 0), 0);
		json_decref(r);
		job = 0;
		while ((r = coord_pump(t->fx.c, t->agent, 300))) {
			if (!strcmp(proto_msg_type(r), "job"))
				job = jget_int(json_object_get(r, "job"), "id", 0);
			json_decref(r);
		}
	}

	/* a switch that works: a reconnect while the provider runs keeps it booting, the
	 * new kernel's hello ends it */
	r = coord_ask(t->fx.c, t->client, host_boot("h1", "6.19.1"), "booting");
	json_decref(r);
	r = coord_pump(t->fx.c, t->agent, 2000);
	assert_string_equal(proto_msg_type(r), "boot");
	json_decref(r);
	hello_kernel(t, t->agent, "h1", "6.18.44", json_pack("[s, s]", "6.18.44", "6.19.1"),
		     "6.19.1");
	assert_boot(t, "h1", "booting", "booting", "6.18.44");
	hello_kernel(t, t->agent, "h1", "6.19.1", json_pack("[s, s]", "6.18.44", "6.19.1"),
		     NULL);
	assert_boot(t, "h1", "idle", "done", "6.19.1");

	/* back to 6.18.44, but the host says hello with 6.19.1 again */
	r = coord_ask(t->fx.c, t->client, host_boot("h1", "6.18.44"), "booting");
	json_decref(r);
	r = coord_pump(t->fx.c, t->agent, 2000);
	assert_string_equal(proto_msg_type(r), "boot");
	json_decref(r);
	hello_kernel(t, t->agent, "h1", "6.19.1", json_pack("[s, s]", "6.18.44", "6.19.1"),
		     NULL);
	h = host_of(t, "h1");
	assert_string_equal(jget_str(json_object_get(h, "boot"), "state", ""), "mismatch");
	assert_string_equal(jget_str(json_object_get(h, "boot"), "error", ""),
			    "host 'h1' came back with kernel '6.19.1', not '6.18.44'");
	assert_string_equal(jget_str(h, "state", ""), "idle");
	json_decref(h);
}

/* h1 says hello, the plan is submitted: the id of the job h1 gets. */
static long long first_job(struct tctx *t)
{
	long long job_id;
	json_t *r;

	hello(t, "h1", "veth");
	r = coord_ask(t->fx.c, t->client, submit_msg(t, plan_text, NULL), "submitted");
	json_decref(r);
	r = coord_pump(t->fx.c, t->agent, 5000);
	job_id = jget_int(json_object_get(r, "job"), "id", 0);
	json_decref(r);
	return job_id;
}

/* A coordinator restarted on the same database: the running job is queued again. */
static void test_coordinator_restart(void **state)
{
	struct tctx *t = *state;
	long long job_id;
	json_t *r;

	job_id = first_job(t);

	/* a second coordinator on the same database refuses to start */
	{
		char ep2[160];
		struct coord *c2;

		snprintf(ep2, sizeof(ep2), "ipc://%s/other.sock", t->fx.dir);
		c2 = coord_new(&COORD_OPTS(.agents = ep2, .clients = ep2, .db = t->fx.db));
		assert_null(c2);
		assert_int_equal(errno, EWOULDBLOCK);
	}
	coord_destroy(&t->fx.c);
	coord_fix_start(&t->fx, &COORD_OPTS(.tick_ms = 20));
	/* the old session is unknown to the new coordinator */
	r = coord_ask(t->fx.c, t->agent, result_msg(job_id, 1), "error");
	assert_string_equal(jget_str(r, "message", ""), "unknown agent: say hello first");
	json_decref(r);
	hello(t, "h1", "veth");
	r = coord_pump(t->fx.c, t->agent, 5000);
	assert_string_equal(proto_msg_type(r), "job");
	assert_int_equal(jget_int(json_object_get(r, "job"), "id", 0), job_id);
	json_decref(r);
	r = coord_ask(t->fx.c, t->agent, result_msg(job_id, 1), "ack");
	json_decref(r);
}

/* A malformed result is refused by its one decoder (no schema pass first) with the
 * member's path, not acknowledged and not stored; the agent's good resend is stored. */
static void test_coordinator_result_refused(void **state)
{
	static const struct {
		const char *member, *value, *why;
	} bad[] = {
		{ "status", "\"maybe\"", "result.status: must be 'ok' or 'failed'" },
		{ "samples", "[{\"metric\":\"m\",\"value\":\"x\",\"window\":\"rate\"}]",
		  "sample 0 ('m') has no numeric 'value'" },
		{ "verdicts", "[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\","
		  "\"j\",\"k\",\"l\",\"m\",\"n\",\"o\",\"p\",\"q\"]",
		  "result.verdicts: has more than 16 names" },
		{ "env", "[]", "result.env: must be an object or null, not an array" },
	};
	struct tctx *t = *state;
	struct coord_stats stats;
	long long job_id;
	json_t *r, *m;
	size_t i;

	job_id = first_job(t);
	assert_true(job_id > 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_error_t jerr;
		json_t *v = json_loads(bad[i].value, JSON_DECODE_ANY, &jerr);

		assert_non_null(v);
		m = result_msg(job_id, 1);
		json_object_set_new(m, bad[i].member, v);
		r = coord_ask(t->fx.c, t->agent, m, "error");
		assert_string_equal(jget_str(r, "in_reply_to", ""), "result");
		if (!strstr(jget_str(r, "message", ""), bad[i].why))
			fail_msg("'%s' does not say '%s'", jget_str(r, "message", ""),
				 bad[i].why);
		json_decref(r);
	}
	coord_get_stats(t->fx.c, &stats);
	assert_int_equal(stats.results, 0);
	assert_int_equal(stats.bad_messages, 4);
	r = coord_ask(t->fx.c, t->agent, result_msg(job_id, 1), "ack");
	json_decref(r);
	coord_get_stats(t->fx.c, &stats);
	assert_int_equal(stats.results, 1);
}

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

	hello(t, "h1", "veth");
	r = coord_ask(t->fx.c, t->client, submit_msg(t, plan_text, NULL), "submitted");
	json_decref(r);
	j1 = next_job(t, &s1);
	assert_string_equal(jget_str(s1, "variant", ""), "drop");
	r = coord_ask(t->fx.c, t->client, submit_msg(t, plan_text, NULL), "submitted");
	assert_int_equal(jget_int(r, "run", 0), 2);
	json_decref(r);
	coord_destroy(&t->fx.c);
	snprintf(sql, sizeof(sql), "UPDATE jobs SET spec = (SELECT spec FROM jobs WHERE id = "
		 "%lld) WHERE run_id = 1 AND id != %lld", j1, j1);
	db_exec(t, sql);
	db_exec(t, "UPDATE jobs SET spec = json_set(spec, '$.bogus', 1) WHERE id = "
		"(SELECT min(id) FROM jobs WHERE run_id = 2)");
	coord_fix_start(&t->fx, &COORD_OPTS(.tick_ms = 20));
	hello(t, "h1", "veth");
	assert_int_equal(next_job(t, &s1_again), j1);	/* running at the restart: again */
	assert_true(json_equal(s1, s1_again));
	json_decref(s1_again);

	r = coord_ask(t->fx.c, t->agent, result_msg(j1, 1), "ack");
	json_decref(r);
	j2 = next_job(t, &s2);
	assert_int_equal(j2, j1 + 1);
	assert_true(json_equal(s1, s2));		/* job 1's spec, variant drop */
	r = coord_ask(t->fx.c, t->agent, result_msg(j2, 1), "ack");
	json_decref(r);
	j4 = next_job(t, &s4);
	assert_int_equal(j4, j1 + 3);
	assert_string_equal(jget_str(s4, "variant", ""), "pass");
	r = coord_ask(t->fx.c, t->client, simple("run_show", 2), "run");
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
	char sql[400];

	snprintf(sql, sizeof(sql), "INSERT INTO jobs (run_id, seq, host_id, variant, "
		 "variant_idx, rep, point, spec, added) SELECT run_id, seq + 100 * %d, host_id, "
		 "variant, variant_idx, %d, point, json_set(spec, '$.rep', %d), 1 FROM jobs "
		 "WHERE id = %lld", rep, rep, rep, job);
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

	hello(t, "h1", "veth");
	r = coord_ask(t->fx.c, t->client, submit_msg(t, plan_text, NULL), "submitted");
	json_decref(r);
	j1 = next_job(t, &s1);
	add_job_like(t, j1, 7);
	r = coord_ask(t->fx.c, t->agent, result_msg(j1, 1), "ack");
	json_decref(r);
	j2 = next_job(t, &s2);
	assert_int_equal(j2, j1 + 1);
	r = coord_ask(t->fx.c, t->agent, result_msg(j2, 1), "ack");
	json_decref(r);
	j3 = next_job(t, &s3);		/* the added one */
	assert_int_equal(jget_int(s3, "rep", 0), 7);
	assert_string_equal(jget_str(s3, "variant", ""), jget_str(s1, "variant", "?"));
	/* nothing queued: the run's specs go at the next tick; then one more is added */
	json_decref(coord_pump(t->fx.c, t->client, 100));
	add_job_like(t, j1, 8);
	r = coord_ask(t->fx.c, t->agent, result_msg(j3, 1), "ack");
	json_decref(r);
	j4 = next_job(t, &s4);
	assert_int_equal(j4, j3 + 1);
	assert_int_equal(jget_int(s4, "rep", 0), 8);
	json_decref(s1);
	json_decref(s2);
	json_decref(s3);
	json_decref(s4);
}

static void test_coordinator_sched(void **state)
{
	struct plan_match match[2] = { { .key = "port.driver", .value = "veth" },
				       { .key = "rack", .value = "r3" } };
	char *ports[] = { "a", "b" };
	struct plan plan = { .match = match, .n_match = 2, .ports = ports, .n_ports = 2 };
	struct sched_host hosts[3] = { 0 };
	json_t *inv[3];
	struct err err;
	bool ok;
	int i;

	assert_true(sched_version_cmp("6.1.0-18-amd64", "6.1", 0, &ok) == 0 && ok);
	assert_true(sched_version_cmp("6.12.3", "6.2", 0, &ok) > 0);
	assert_true(sched_version_cmp("5.10", "6.1", 0, &ok) < 0);
	sched_version_cmp("rc1", "6.1", 0, &ok);
	assert_false(ok);
	assert_true(sched_value_matches("6.18.44", ">=6.1"));
	assert_true(sched_value_matches("6.1.158", ">=6.1"));
	assert_false(sched_value_matches("6.1.158", "<6.1"));
	assert_true(sched_value_matches("6.11.2", "<6.12"));
	assert_false(sched_value_matches("6.12.0-rc3", "<6.12"));
	assert_true(sched_value_matches("6.1.158", "=6.1"));
	assert_false(sched_value_matches("6.12.1", "=6.1"));
	assert_true(sched_value_matches("6.12.1", "!=6.1"));
	assert_true(sched_value_matches("veth", "veth"));
	assert_false(sched_value_matches("veth2", "veth"));
	assert_false(sched_value_matches("unknown", ">=6.1"));

	for (i = 0; i < 3; i++) {
		inv[i] = inventory(i == 1 ? "ixgbe" : "veth");
		hosts[i].id = i + 1;
		hosts[i].name = (const char *[]){ "h3", "h2", "h1" }[i];
		hosts[i].inventory = inv[i];
		hosts[i].pending = i == 0 ? 5 : 0;
	}
	assert_true(sched_host_matches(&plan, inv[0], NULL));
	assert_false(sched_host_matches(&plan, inv[1], &err));
	assert_string_equal(err.msg, "no port of roles a, b with driver 'veth'");
	/* count all: both veth hosts */
	assert_int_equal(sched_choose(&plan, hosts, 3, &err), 2);
	assert_true(hosts[0].chosen && !hosts[1].chosen && hosts[2].chosen);
	/* count 1: the one with less queued work */
	plan.host_count = 1;
	assert_int_equal(sched_choose(&plan, hosts, 3, &err), 1);
	assert_true(!hosts[0].chosen && hosts[2].chosen);
	plan.host_count = 3;
	assert_int_equal(sched_choose(&plan, hosts, 3, &err), -ERANGE);
	assert_non_null(strstr(err.msg, "the plan wants 3 hosts but 2 match"));
	/* a label, a key that is not there, a role that is missing */
	match[1].value = "r4";
	plan.host_count = 0;
	assert_int_equal(sched_choose(&plan, hosts, 3, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "'h3': rack is 'r3', not 'r4'"));
	match[1].key = "cpu.model";
	assert_false(sched_host_matches(&plan, inv[0], &err));
	assert_string_equal(err.msg, "no 'cpu.model' in its inventory");
	match[1].key = "kernel.release";
	match[1].value = ">=6.18";
	ports[1] = "c";
	assert_false(sched_host_matches(&plan, inv[0], &err));
	assert_string_equal(err.msg, "no port for role 'c'");
	for (i = 0; i < 3; i++)
		json_decref(inv[i]);

	/* a NIC guest: a, b on vmxnet3, e, f a veth pair. port.* asks the plan's ports */
	inv[0] = inventory("vmxnet3");
	json_array_append_new(json_object_get(inv[0], "ports"),
			      json_pack("{s:s, s:s, s:s}", "role", "e", "name", "port-e", "driver", "veth"));
	json_array_append_new(json_object_get(inv[0], "ports"),
			      json_pack("{s:s, s:s, s:s}", "role", "f", "name", "port-f", "driver", "veth"));
	plan.n_match = 1;
	ports[1] = "b";
	assert_false(sched_host_matches(&plan, inv[0], &err));
	assert_string_equal(err.msg, "no port of roles a, b with driver 'veth'");
	match[0].value = "vmxnet3";
	assert_true(sched_host_matches(&plan, inv[0], NULL));
	ports[1] = "f";		/* a plan whose ports are a and f: either driver will do */
	assert_true(sched_host_matches(&plan, inv[0], NULL));
	match[0].value = "veth";
	assert_true(sched_host_matches(&plan, inv[0], NULL));
	json_decref(inv[0]);
}

/* An inventory of host NAME whose port b ("port-b", DRIVER) has XDP MODES (a JSON
 * array), or no "xdp" at all (MODES NULL: an agent before it). */
static json_t *xdp_inventory(const char *driver, const char *modes)
{
	json_t *inv = inventory("veth");
	json_t *b = json_array_get(json_object_get(inv, "ports"), 1);

	json_object_set_new(b, "name", json_string("port-b"));
	json_object_set_new(b, "driver", json_string(driver));
	if (modes)
		json_object_set_new(b, "xdp", json_pack("{s:o, s:s}", "modes", json_of(modes),
							"source", "netlink"));
	return inv;
}

/* A port whose driver has generic XDP only: a plan asking native there does not match
 * (the reason names host, port, interface, driver, modes and variant); generic and auto
 * do, as does an inventory without "xdp" or with modes unknown; offload needs the mode
 * listed. The same for a job spec at dispatch. */
static void test_coordinator_sched_xdp(void **state)
{
	char *ports[] = { "a", "b" };
	struct plan_attach drop[] = { { .port = "b", .hook = JOB_HOOK_XDP,
					.mode = JOB_XDP_NATIVE } };
	struct plan_attach cnt[] = { { .port = "b", .hook = JOB_HOOK_TC_INGRESS } };
	struct plan_variant variants[] = { { .name = "cnt", .attach = cnt, .n_attach = 1 },
					   { .name = "drop", .attach = drop, .n_attach = 1 } };
	struct plan plan = { .ports = ports, .n_ports = 2, .variants = variants,
			     .n_variants = 2 };
	struct sched_host hosts[2] = { 0 };
	json_t *g3 = xdp_inventory("e1000e", "[\"generic\"]");
	json_t *v1 = xdp_inventory("virtio_net", "[\"native\", \"generic\"]");
	json_t *old = xdp_inventory("e1000e", NULL);
	json_t *unknown = xdp_inventory("e1000e", NULL);
	struct job_attach ja = { .port = "b", .hook = JOB_HOOK_XDP, .mode = JOB_XDP_NATIVE };
	const char *sports[] = { "a", "b" };
	struct job_spec spec = { .variant = "drop", .ports = sports, .n_ports = 2,
				 .attach = &ja, .n_attach = 1 };
	char asked[256];
	struct err err;
	const char *want = "port 'b' (port-b, e1000e) has XDP modes generic; the plan asks "
			   "native (variant 'drop')";

	json_object_set_new(json_array_get(json_object_get(unknown, "ports"), 1), "xdp",
			    json_pack("{s:s, s:s}", "source", "unknown", "reason", "not probed"));
	assert_false(sched_xdp_mode_fits(g3, "b", JOB_XDP_NATIVE, "drop", &err));
	assert_string_equal(err.msg, want);
	assert_true(sched_xdp_mode_fits(g3, "b", JOB_XDP_GENERIC, "drop", &err));
	assert_true(sched_xdp_mode_fits(g3, "b", JOB_XDP_AUTO, "drop", &err));
	assert_true(sched_xdp_mode_fits(v1, "b", JOB_XDP_NATIVE, "drop", &err));
	assert_true(sched_xdp_mode_fits(old, "b", JOB_XDP_NATIVE, "drop", &err));
	assert_true(sched_xdp_mode_fits(unknown, "b", JOB_XDP_NATIVE, "drop", &err));
	assert_true(sched_xdp_mode_fits(g3, "c", JOB_XDP_NATIVE, "drop", &err));
	assert_false(sched_xdp_mode_fits(v1, "b", JOB_XDP_OFFLOAD, "x", &err));
	assert_string_equal(err.msg, "port 'b' (port-b, virtio_net) has XDP modes native, generic; "
			    "the plan asks offload (variant 'x')");

	/* the plan: the tc variant is no matter, the xdp one refuses g3 */
	assert_false(sched_host_matches(&plan, g3, &err));
	assert_string_equal(err.msg, want);
	assert_false(sched_host_has_ports(&plan, g3, &err));	/* --hosts */
	assert_true(sched_host_matches(&plan, v1, NULL));
	assert_true(sched_host_matches(&plan, old, NULL));
	hosts[0] = (struct sched_host){ .id = 1, .name = "g3", .inventory = g3 };
	assert_int_equal(sched_choose(&plan, hosts, 1, &err), -ENOENT);
	assert_string_equal(err.msg, "no host matches the plan (hosts.match (any); ports a, b; "
			    "1 host connected; 'g3': port 'b' (port-b, e1000e) has XDP modes "
			    "generic; the plan asks native (variant 'drop'))");
	hosts[1] = (struct sched_host){ .id = 2, .name = "v1", .inventory = v1 };
	assert_int_equal(sched_choose(&plan, hosts, 2, &err), 1);
	assert_true(!hosts[0].chosen && hosts[1].chosen);
	/* mode auto matches both */
	drop[0].mode = JOB_XDP_AUTO;
	assert_int_equal(sched_choose(&plan, hosts, 2, &err), 2);
	drop[0].mode = JOB_XDP_GENERIC;
	assert_true(sched_host_matches(&plan, g3, NULL));

	/* at dispatch */
	assert_false(sched_jobspec_fits(&spec, g3, &err, asked, sizeof(asked)));
	assert_string_equal(err.msg, want);
	assert_true(sched_jobspec_fits(&spec, v1, &err, NULL, 0));
	ja.mode = JOB_XDP_AUTO;
	assert_true(sched_jobspec_fits(&spec, g3, &err, NULL, 0));
	json_decref(g3);
	json_decref(v1);
	json_decref(old);
	json_decref(unknown);
}

/* run submit through the coordinator: a plan asking native on a host whose port b has
 * generic XDP only is refused with the reason; --hosts names it; mode auto is accepted. */
static void test_coordinator_submit_xdp(void **state)
{
	struct tctx *t = *state;
	json_t *m = proto_msg_new("hello"), *r;
	char *text = strdup(plan_text), *p;

	json_object_set_new(m, "agent", json_string("g3"));
	json_object_set_new(m, "version", json_string("0.1"));
	json_object_set_new(m, "inventory", xdp_inventory("veth", "[\"generic\"]"));
	r = coord_ask(t->fx.c, t->agent, m, "welcome");
	json_decref(r);
	r = coord_ask(t->fx.c, t->client, submit_msg(t, plan_text, NULL), "error");
	assert_non_null(strstr(jget_str(r, "message", ""),
			       "1 host connected; 'g3': port 'b' (port-b, veth) has XDP modes "
			       "generic; the plan asks native (variant 'drop'))"));
	json_decref(r);
	m = submit_msg(t, plan_text, NULL);
	json_object_set_new(m, "hosts", json_pack("[s]", "g3"));
	r = coord_ask(t->fx.c, t->client, m, "error");
	assert_string_equal(jget_str(r, "message", ""),
			    "host 'g3' cannot run plan 'coord-test': port 'b' (port-b, veth) has "
			    "XDP modes generic; the plan asks native (variant 'drop')");
	json_decref(r);
	while ((p = strstr(text, "mode: native")))
		memcpy(p, "mode: auto  ", 12);
	r = coord_ask(t->fx.c, t->client, submit_msg(t, text, NULL), "submitted");
	assert_int_equal(jget_int(r, "jobs", 0), 2);
	json_decref(r);
	free(text);
}

/* The built binary: serves a client, exits 0 on SIGTERM. */
static void test_coordinator_binary_sigterm(void **state)
{
	struct tctx *t = *state;
	char bin[256], agents[160], clients[160], db[160];
	int status, rc;
	pid_t pid;
	void *cl;
	json_t *r;

	snprintf(bin, sizeof(bin), "%s/bin/bpflabd", BPFLAB_BUILDDIR);
	if (access(bin, X_OK))
		skip_because("%s not built", bin);
	snprintf(agents, sizeof(agents), "ipc://%s/bin-agents.sock", t->fx.dir);
	snprintf(clients, sizeof(clients), "ipc://%s/bin-clients.sock", t->fx.dir);
	snprintf(db, sizeof(db), "%s/bin.db", t->fx.dir);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execl(bin, bin, "--agents", agents, "--clients", clients, "--db", db, "--log",
		      "/dev/null", "--plaintext", (char *)NULL);
		_exit(127);
	}
	cl = coord_fix_dealer(&t->fx, clients);
	r = proto_msg_new("host_list");
	assert_int_equal(proto_send(cl, r, 0), 0);
	json_decref(r);
	{
		zmq_pollitem_t it = { cl, 0, ZMQ_POLLIN, 0 };
		struct err why;

		rc = zmq_poll(&it, 1, 10000);
		assert_int_equal(rc, 1);
		assert_int_equal(proto_recv(cl, &r, 0, &why), 0);
		assert_string_equal(proto_msg_type(r), "hosts");
		json_decref(r);
	}
	zmq_close(cl);
	assert_int_equal(kill(pid, SIGTERM), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* --- two-host pairs and agents that go away (coordinator/link.c, docs/protocol.md
 * "Faults") --- */

static const char pair_plan[] =
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

static int setup_pair(void **state)
{
	return setup_hb(state, 200);	/* gone after 600 ms of silence */
}

/* A hello from SOCK for agent NAME with ports x and y; KEPT: a job it still runs. */
static void hello_xy(struct tctx *t, void *sock, const char *name, long long kept)
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
static json_t *pump_live(struct tctx *t, void *sock, void **live, int n, int timeout_ms)
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
static json_t *want(struct tctx *t, void *sock, void **live, int n, const char *type,
		    long long job)
{
	json_t *r = pump_live(t, sock, live, n, 3000);

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
		r = want(t, socks[i], socks, 2, "go", i ? dut : gen);
		assert_null(json_object_get(r, "abort"));
		json_decref(r);
	}
	for (i = 0; i < 2; i++) {
		m = result_msg(i ? dut : gen, 1e6);
		assert_int_equal(proto_send(socks[i], m, 0), 0);
		json_decref(m);
		json_decref(want(t, socks[i], socks, 2, "ack", i ? dut : gen));
	}
	r = coord_ask(t->fx.c, t->client, simple("result_show", run), "result");
	assert_string_equal(jget_str(json_object_get(r, "result"), "state", ""), "done");
	assert_int_equal(json_array_size(json_object_get(json_object_get(r, "result"),
							 "samples")), 4);
	json_decref(r);
}

static void agent_says(void *sock, const char *type, long long job)
{
	json_t *m = proto_msg_new(type);

	json_object_set_new(m, "job", json_integer(job));
	assert_int_equal(proto_send(sock, m, 0), 0);
	json_decref(m);
}

/* The attempts of JOB as "outcome:error|..." */
static void attempts_of(struct tctx *t, long long run, long long job, char *out, size_t len)
{
	json_t *r = coord_ask(t->fx.c, t->client, simple("run_attempts", run), "attempts"), *a;
	size_t i;

	out[0] = '\0';
	json_array_foreach(json_object_get(r, "attempts"), i, a)
		if (jget_int(a, "job", 0) == job)
			snprintf(out + strlen(out), len - strlen(out), "%s:%s|",
				 jget_str(a, "outcome", ""), jget_str(a, "error", ""));
	json_decref(r);
}

static const char *job_state(struct tctx *t, long long run, long long job, char *out)
{
	json_t *r = coord_ask(t->fx.c, t->client, simple("run_show", run), "run"), *j;
	size_t i;

	strcpy(out, "?");
	json_array_foreach(json_object_get(json_object_get(r, "run"), "jobs"), i, j)
		if (jget_int(j, "id", 0) == job)
			snprintf(out, 16, "%s", jget_str(j, "state", ""));
	json_decref(r);
	return out;
}

/* h1 (ports x, y) on socket H1 and h2 on H2 say hello, a discovery finds the link from
 * h1's x to h2's y, and pair_plan is submitted: *RUN, with its generator job *GEN handed
 * to h1 and its DUT job *DUT to h2, each accepted. */
static void pair_start(struct tctx *t, void *h1, void *h2, long long *run, long long *gen,
		       long long *dut)
{
	void *both[2] = { h1, h2 };
	char nonce[64] = "";
	json_t *r, *m;

	hello_xy(t, h1, "h1", 0);
	hello_xy(t, h2, "h2", 0);
	/* discovery: h2's y hears h1's x */
	m = proto_msg_new("link_discover");
	assert_int_equal(proto_send(t->client, m, 0), 0);
	json_decref(m);
	r = want(t, h1, both, 2, "probe", 0);
	snprintf(nonce, sizeof(nonce), "%s",
		 jget_str(json_object_get(r, "nonces"), "x", ""));
	m = json_pack("{s:i, s:s, s:O, s:{}}", "v", 1, "type", "probe_report", "probe",
		      json_object_get(r, "probe"), "received");
	assert_int_equal(proto_send(h1, m, 0), 0);
	json_decref(m);
	json_decref(r);
	r = want(t, h2, both, 2, "probe", 0);
	m = json_pack("{s:i, s:s, s:O, s:{s:[s]}}", "v", 1, "type", "probe_report", "probe",
		      json_object_get(r, "probe"), "received", "y", nonce);
	assert_int_equal(proto_send(h2, m, 0), 0);
	json_decref(m);
	json_decref(r);
	r = pump_live(t, t->client, both, 2, 3000);
	assert_non_null(r);
	assert_string_equal(proto_msg_type(r), "links");
	assert_int_equal(json_array_size(json_object_get(r, "links")), 1);
	json_decref(r);

	r = coord_ask(t->fx.c, t->client, submit_msg(t, pair_plan, NULL), "submitted");
	*run = jget_int(r, "run", 0);
	assert_int_equal(jget_int(r, "jobs", 0), 2);
	json_decref(r);
	r = want(t, h1, both, 2, "job", 0);
	*gen = jget_int(json_object_get(r, "job"), "id", 0);
	json_decref(r);
	r = want(t, h2, both, 2, "job", 0);
	*dut = jget_int(json_object_get(r, "job"), "id", 0);
	json_decref(r);
	agent_says(h1, "accept", *gen);
	agent_says(h2, "accept", *dut);
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

	pair_start(t, h1, h2, &run, &gen, &dut);
	agent_says(h2, "ready", dut);

	/* h1 falls silent (its process stopped) before it is ready */
	silent = util_mono_ms();
	r = want(t, h2, &h2, 1, "go", dut);
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
	json_decref(want(t, h2, &h2, 1, "ack", dut));
	assert_string_equal(job_state(t, run, gen, st), "queued");
	assert_string_equal(job_state(t, run, dut, st), "queued");
	attempts_of(t, run, dut, att, sizeof(att));
	assert_non_null(strstr(att, "lost:its pair was lost"));
	attempts_of(t, run, gen, att, sizeof(att));
	assert_string_equal(att, "lost:the host went silent|");

	/* h1 wakes, reconnects still running its job: taken away, its result dropped */
	hello_xy(t, h1, "h1", gen);
	json_decref(want(t, h1, both, 2, "cancel", gen));
	m = result_msg(gen, 5);
	json_object_set_new(m, "status", json_string("failed"));
	json_object_set_new(m, "error", json_string("cancelled"));
	json_object_set_new(m, "partial", json_true());
	assert_int_equal(proto_send(h1, m, 0), 0);
	json_decref(m);
	json_decref(want(t, h1, both, 2, "ack", gen));
	r = coord_ask(t->fx.c, t->client, simple("result_show", run), "result");
	assert_int_equal(json_array_size(json_object_get(json_object_get(r, "result"),
							 "samples")), 0);
	json_decref(r);

	/* the pair again, together (attempt 2 of each) */
	r = want(t, h1, both, 2, "job", gen);
	json_decref(r);
	r = want(t, h2, both, 2, "job", dut);
	json_decref(r);
	agent_says(h1, "accept", gen);
	agent_says(h2, "accept", dut);
	/* an accept for a job this session was not given (a stale job message) */
	agent_says(h1, "accept", dut);
	json_decref(want(t, h1, both, 2, "cancel", dut));
	agent_says(h1, "ready", gen);
	agent_says(h2, "ready", dut);
	pair_go_and_finish(t, both, gen, dut, run);
	attempts_of(t, run, gen, att, sizeof(att));
	assert_string_equal(att, "lost:the host went silent|done:|");
}

/* The abort a restarted agent's pair partner gets: `go` for JOB with the reason. */
static void want_restart_abort(struct tctx *t, void *sock, void **live, long long job,
			       long long lost, const char *host)
{
	json_t *r = want(t, sock, live, 2, "go", job);
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
	json_decref(want(t, sock, live, 2, "ack", job));
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

	pair_start(t, h1, h2, &run, &gen, &dut);
	agent_says(h1, "ready", gen);

	/* h2's agent restarts at the barrier: its old connection stays open a moment */
	t->old = h2;
	h2 = t->agent2 = coord_fix_agent(&t->fx);
	live[0] = h1;
	live[1] = h2;
	hello_xy(t, h2, "h2", 0);
	want_restart_abort(t, h1, live, gen, dut, "h2");
	assert_string_equal(job_state(t, run, dut, st), "queued");
	attempts_of(t, run, dut, att, sizeof(att));
	assert_string_equal(att, "lost:the agent started a new session|");
	/* what the old process sent late is not its session's */
	agent_says(t->old, "ready", dut);
	r = want(t, t->old, live, 2, "error", 0);
	assert_non_null(strstr(jget_str(r, "message", ""), "say hello first"));
	json_decref(r);
	zmq_close(t->old);
	t->old = NULL;
	/* a result of the dropped attempt (from the spool), twice: acknowledged, not stored */
	for (i = 0; i < 2; i++) {
		m = result_msg(dut, 5);
		assert_int_equal(proto_send(h2, m, 0), 0);
		json_decref(m);
		json_decref(want(t, h2, live, 2, "ack", dut));
	}
	assert_string_equal(job_state(t, run, dut, st), "queued");
	r = coord_ask(t->fx.c, t->client, simple("result_show", run), "result");
	assert_int_equal(json_array_size(json_object_get(json_object_get(r, "result"),
							 "samples")), 0);
	json_decref(r);
	/* no new attempt of dut while h1 still runs the gen attempt it was paired with */
	r = pump_live(t, h2, live, 2, 300);
	if (r)
		fail_msg("h2 got '%s' while its partner's aborted attempt runs",
			 proto_msg_type(r));
	/* h1's failure queues gen again, and the pair goes out again at once */
	result_aborted(t, h1, live, gen, dut, "h2");
	json_decref(want(t, h1, live, 2, "job", gen));
	json_decref(want(t, h2, live, 2, "job", dut));
	attempts_of(t, run, gen, att, sizeof(att));
	snprintf(want_att, sizeof(want_att), "lost:its pair was lost: job %lld on 'h2' was "
		 "lost with its host or agent; queued again with it|running:|", dut);
	assert_string_equal(att, want_att);

	/* h1's agent restarts after the go (killed: its connection closes) */
	agent_says(h1, "accept", gen);
	agent_says(h2, "accept", dut);
	agent_says(h1, "ready", gen);
	agent_says(h2, "ready", dut);
	for (i = 0; i < 2; i++) {
		r = want(t, live[i], live, 2, "go", i ? dut : gen);
		assert_null(json_object_get(r, "abort"));
		json_decref(r);
	}
	t->agent = NULL;
	zmq_close(h1);
	h1 = live[0] = t->agent = coord_fix_agent(&t->fx);
	hello_xy(t, h1, "h1", 0);
	want_restart_abort(t, h2, live, dut, gen, "h1");
	result_aborted(t, h2, live, dut, gen, "h1");

	/* the third time together */
	json_decref(want(t, h1, live, 2, "job", gen));
	json_decref(want(t, h2, live, 2, "job", dut));
	agent_says(h1, "accept", gen);
	agent_says(h2, "accept", dut);
	agent_says(h1, "ready", gen);
	agent_says(h2, "ready", dut);
	pair_go_and_finish(t, live, gen, dut, run);
	attempts_of(t, run, gen, att, sizeof(att));
	snprintf(want_att, sizeof(want_att), "lost:its pair was lost: job %lld on 'h2' was "
		 "lost with its host or agent; queued again with it|lost:the agent started a "
		 "new session|done:|", dut);
	assert_string_equal(att, want_att);
	attempts_of(t, run, dut, att, sizeof(att));
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

/* An agent whose connection closed (killed) but that is not gone yet: one job message
 * that cannot be sent ('unsent'), then nothing more for it until it says hello again,
 * not a new attempt every tick. */
static void test_coordinator_unsent_once(void **state)
{
	struct tctx *t = *state;
	char att[1024];
	long long run;
	json_t *r;
	int64_t t0;

	hello(t, "h1", "veth");
	zmq_close(t->agent);		/* killed: the coordinator does not know yet */
	t->agent = coord_fix_agent(&t->fx);
	t0 = util_mono_ms();
	while (util_mono_ms() - t0 < 200)
		assert_int_equal(coord_run_once(t->fx.c, 5), 0);
	r = coord_ask(t->fx.c, t->client, submit_msg(t, plan_text, NULL), "submitted");
	run = jget_int(r, "run", 0);
	json_decref(r);
	t0 = util_mono_ms();
	while (util_mono_ms() - t0 < 1000)	/* 50 ticks, before the host is gone */
		assert_int_equal(coord_run_once(t->fx.c, 5), 0);
	r = coord_ask(t->fx.c, t->client, simple("run_attempts", run), "attempts");
	assert_int_equal(json_array_size(json_object_get(r, "attempts")), 1);
	assert_string_equal(jget_str(json_array_get(json_object_get(r, "attempts"), 0),
					  "outcome", ""), "unsent");
	json_decref(r);
	attempts_of(t, run, 1, att, sizeof(att));
	fprintf(stderr, "  unsent: job 1 attempts after 1 s: %s\n", att);
}

/* --- hosts that share a machine (coordinator/machine.c) --- */

/* Agent NAME on SOCK says hello with ports a and b (driver veth) on machine MACHINE
 * (inventory machine.id; NULL: none). */
static void hello_on(struct tctx *t, void *sock, const char *name, const char *machine)
{
	json_t *m = proto_msg_new("hello"), *inv = inventory("veth");

	json_object_set_new(inv, "agent", json_string(name));
	if (machine)
		json_object_set_new(inv, "machine", json_pack("{s:s}", "id", machine));
	json_object_set_new(m, "agent", json_string(name));
	json_object_set_new(m, "version", json_string("0.1"));
	json_object_set_new(m, "inventory", inv);
	json_decref(coord_ask(t->fx.c, sock, m, "welcome"));
}

/* Submit plan_text (2 variants) with repeat REPEAT and override EXTRA (NULL: none): N
 * hosts, the run's id. */
static long long submit_plan(struct tctx *t, int repeat, const char *extra, int hosts)
{
	json_t *m = submit_msg(t, plan_text, NULL), *r;
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
	json_t *r = pump_live(t, sock, live, n, ms);
	long long job;

	if (!r)
		return 0;
	if (strcmp(proto_msg_type(r), "job"))
		fail_msg("wanted a job, got '%s'", proto_msg_type(r));
	job = jget_int(json_object_get(r, "job"), "id", 0);
	json_decref(r);
	assert_true(job > 0);
	agent_says(sock, "accept", job);
	return job;
}

/* JOB ends on SOCK: its result, acknowledged. */
static void job_done(struct tctx *t, void *sock, void **live, int n, long long job)
{
	json_t *m = result_msg(job, 1e6);

	assert_int_equal(proto_send(sock, m, 0), 0);
	json_decref(m);
	json_decref(want(t, sock, live, n, "ack", job));
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
			json_t *h = host_of(t, i ? "h1" : "h2");

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
	pair_start(t, h1, h2, &run, &gen, &dut);	/* both sides handed out */
	hello_on(t, h3, "h3", "m1");	/* after the discovery, which it would not answer */
	submit_plan(t, 1, NULL, 1);			/* h3's: ports a and b */
	assert_int_equal(job_within(t, h3, all, 3, 300), 0);
	agent_says(h1, "ready", gen);
	agent_says(h2, "ready", dut);
	json_decref(want(t, h1, all, 3, "go", gen));
	json_decref(want(t, h2, all, 3, "go", dut));
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
		cmocka_unit_test(test_coordinator_sched),
		cmocka_unit_test(test_coordinator_sched_xdp),
		cmocka_unit_test_setup_teardown(test_coordinator_submit_xdp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_coordinator_end_to_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_coordinator_malformed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_coordinator_result_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_coordinator_bad_submit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_coordinator_agent_gone, setup_fast, teardown),
		cmocka_unit_test_setup_teardown(test_coordinator_restart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_coordinator_stored_spec, setup, teardown),
		cmocka_unit_test_setup_teardown(test_coordinator_spec_added, setup, teardown),
		cmocka_unit_test_setup_teardown(test_coordinator_pair_lost, setup_pair, teardown),
		cmocka_unit_test_setup_teardown(test_coordinator_pair_restart, setup_pair, teardown),
		cmocka_unit_test(test_coordinator_stale_jobs),
		cmocka_unit_test_setup_teardown(test_coordinator_unsent_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_coordinator_host_boot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_coordinator_binary_sigterm, setup, teardown),
		cmocka_unit_test(test_coordinator_machine_rule),
		cmocka_unit_test_setup_teardown(test_coordinator_machine_serial, setup, teardown),
		cmocka_unit_test_setup_teardown(test_coordinator_machine_apart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_coordinator_machine_pair, setup, teardown),
	};

	return cmocka_run_group_tests_name("coordinator", tests, NULL, NULL);
}

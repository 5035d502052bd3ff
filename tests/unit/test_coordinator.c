// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_coordinator.c - unit tests for bpflabd (coordinator/) over real ZeroMQ ipc://
 * sockets and a real SQLite file in a temporary directory: a run end to end, malformed
 * messages and submits refused, results refused by their decoder, an agent gone and
 * back, a coordinator restarted on its database, a job message that cannot be sent,
 * kernel switches through host_boot, and the built binary.
 *
 * The coordinator runs in-process: the test drives its loop with coord_run_once between
 * its own sends and receives, so there is one thread and no timing race. A DEALER plays
 * the agent (hello, accept, progress, result), another the CLI (submit, queries). The
 * BPF object is the real build/bpf/xdp_basic.bpf.o. A last test starts the built bpflabd
 * binary, when there is one, and stops it with SIGTERM. The fixture, shared with the
 * other test_coord_*.c: coord_fixture.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zmq.h>

#include "coord.h"
#include "proto/proto.h"
#include "base/util.h"
#include "helpers.h"
#include "coord_fixture.h"

static int setup_fast(void **state)
{
	return tctx_setup_hb(state, 50);
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

	tctx_hello(t, "h1", "veth");
	r = coord_ask(t->fx.c, t->client, tctx_simple("host_list", 0), "hosts");
	assert_int_equal(json_array_size(json_object_get(r, "hosts")), 1);
	assert_string_equal(jget_str(json_array_get(json_object_get(r, "hosts"), 0),
					  "state", ""), "idle");
	json_decref(r);

	r = coord_ask(t->fx.c, t->client, tctx_submit_msg(t, tctx_plan_text, NULL), "submitted");
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
			r = coord_ask(t->fx.c, t->client, tctx_simple("host_list", 0), "hosts");
			assert_string_equal(jget_str(json_array_get(json_object_get(r, "hosts"),
							  0), "state", ""), "busy");
			assert_int_equal(jget_int(json_array_get(json_object_get(r, "hosts"), 0),
						       "job", 0), job_id);
			json_decref(r);
		}
		r = coord_ask(t->fx.c, t->agent, tctx_result_msg(job_id, 1e6 * (i + 1)), "ack");
		assert_int_equal(jget_int(r, "job", 0), job_id);
		json_decref(r);
	}
	/* the agent sends its last result again: acknowledged, stored once */
	r = coord_ask(t->fx.c, t->agent, tctx_result_msg(job_id, 7), "ack");
	json_decref(r);
	coord_get_stats(t->fx.c, &stats);
	assert_int_equal(stats.results, 2);
	assert_int_equal(stats.duplicates, 1);
	assert_int_equal(stats.jobs_dispatched, 2);
	assert_int_equal(stats.bad_messages, 0);

	r = coord_ask(t->fx.c, t->client, tctx_simple("run_show", run), "run");
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
	r = coord_ask(t->fx.c, t->client, tctx_simple("result_seconds", run), "seconds");
	res = json_object_get(r, "seconds");
	assert_int_equal(jget_int(res, "run", 0), run);
	assert_string_equal(jget_str(res, "plan", ""), "coord-test");
	assert_true(json_is_array(json_object_get(res, "series")));
	json_decref(r);
	r = coord_ask(t->fx.c, t->client, tctx_simple("result_seconds", 4242), "error");
	json_decref(r);

	r = coord_ask(t->fx.c, t->client, tctx_simple("result_show", run), "result");
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

	r = coord_ask(t->fx.c, t->client, tctx_simple("run_list", 0), "runs");
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
	tctx_hello(t, "h1", "veth");
	r = coord_ask(t->fx.c, t->agent, proto_msg_new("frob"), "error");
	assert_string_equal(jget_str(r, "message", ""), "unknown message type 'frob'");
	assert_string_equal(jget_str(r, "in_reply_to", ""), "frob");
	json_decref(r);
	r = coord_ask(t->fx.c, t->agent, tctx_result_msg(77, 1), "error");
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
	r = coord_ask(t->fx.c, t->client, tctx_simple("run_show", 0), "error");
	assert_string_equal(jget_str(r, "message", ""), "run_show: 'run' is required");
	json_decref(r);
	r = coord_ask(t->fx.c, t->client, tctx_simple("result_show", 42), "error");
	assert_non_null(strstr(jget_str(r, "message", ""), "unknown run 42"));
	json_decref(r);

	/* and it still serves */
	r = coord_ask(t->fx.c, t->client, tctx_simple("host_list", 0), "hosts");
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
	r = coord_ask(t->fx.c, t->client, tctx_submit_msg(t, tctx_plan_text, NULL), "error");
	assert_non_null(strstr(jget_str(r, "message", ""),
				"no host matches the plan (hosts.match port.driver=veth, "
				"kernel>=6.1; ports a, b; 0 hosts connected)"));
	json_decref(r);
	/* a host without veth ports */
	tctx_hello(t, "h1", "ixgbe");
	r = coord_ask(t->fx.c, t->client, tctx_submit_msg(t, tctx_plan_text, NULL), "error");
	assert_non_null(strstr(jget_str(r, "message", ""), "1 host connected; 'h1': no port "
			       "of roles a, b with driver 'veth'"));
	json_decref(r);
	tctx_hello(t, "h1", "veth");

	/* a plan that does not validate: FILE:LINE:COLUMN */
	bad = strdup(tctx_plan_text);
	memcpy(strstr(bad, "repeat: 1"), "repeat: x", 9);
	r = coord_ask(t->fx.c, t->client, tctx_submit_msg(t, bad, NULL), "error");
	assert_non_null(strstr(jget_str(r, "message", ""), "plan.yaml:18:"));
	json_decref(r);
	free(bad);
	/* object bytes that do not match their sha256 */
	r = coord_ask(t->fx.c, t->client, tctx_submit_msg(t, tctx_plan_text, "00"), "error");
	assert_non_null(strstr(jget_str(r, "message", ""), "its bytes hash to"));
	json_decref(r);
	/* a plan naming an object that was not sent */
	other = strdup(tctx_plan_text);
	memcpy(strstr(other, OBJ_NAME ", program: xdp_pass"), "xdp_other", 9);
	r = coord_ask(t->fx.c, t->client, tctx_submit_msg(t, other, NULL), "error");
	assert_non_null(strstr(jget_str(r, "message", ""), "plan.yaml:17:"));
	json_decref(r);
	free(other);
	r = coord_ask(t->fx.c, t->client, proto_msg_new("submit"), "error");
	assert_string_equal(jget_str(r, "message", ""), "submit: 'plan_text' is required");
	json_decref(r);

	/* nothing was stored, and nothing was sent to the agent */
	r = coord_ask(t->fx.c, t->client, tctx_simple("run_list", 0), "runs");
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

	tctx_hello(t, "h1", "veth");
	r = coord_ask(t->fx.c, t->client, tctx_submit_msg(t, tctx_plan_text, NULL), "submitted");
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
	r = coord_ask(t->fx.c, t->client, tctx_simple("host_list", 0), "hosts");
	host = json_array_get(json_object_get(r, "hosts"), 0);
	assert_string_equal(jget_str(host, "state", ""), "gone");
	assert_true(json_is_null(json_object_get(host, "job")));
	json_decref(r);
	r = coord_ask(t->fx.c, t->client, tctx_simple("run_show", run), "run");
	job = json_array_get(json_object_get(json_object_get(r, "run"), "jobs"), 0);
	assert_string_equal(jget_str(job, "state", ""), "queued");
	assert_int_equal(jget_int(job, "attempts", 0), 1);
	json_decref(r);

	/* back: the same job again */
	tctx_hello(t, "h1", "veth");
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
	json_t *m = proto_msg_new("hello"), *inv = tctx_inventory("veth"), *r;

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

static void assert_boot(struct tctx *t, const char *host, const char *state,
			const char *boot_state, const char *release)
{
	json_t *h = tctx_host_of(t, host);

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
	r = coord_ask(t->fx.c, t->client, tctx_submit_msg(t, tctx_plan_text, NULL), "submitted");
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
	h = tctx_host_of(t, "h1");
	assert_string_equal(jget_str(json_object_get(h, "boot"), "state", ""), "failed");
	assert_non_null(strstr(jget_str(json_object_get(h, "boot"), "error", ""),
			       "no initrd"));
	json_decref(h);
	boot_refused(t, "h1", "6.19.1", "host 'h1' has 2 jobs queued or running");
	/* finish the run's two jobs */
	while (job) {
		r = tctx_result_msg(job, 1e6);
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
	h = tctx_host_of(t, "h1");
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

	tctx_hello(t, "h1", "veth");
	r = coord_ask(t->fx.c, t->client, tctx_submit_msg(t, tctx_plan_text, NULL), "submitted");
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
	r = coord_ask(t->fx.c, t->agent, tctx_result_msg(job_id, 1), "error");
	assert_string_equal(jget_str(r, "message", ""), "unknown agent: say hello first");
	json_decref(r);
	tctx_hello(t, "h1", "veth");
	r = coord_pump(t->fx.c, t->agent, 5000);
	assert_string_equal(proto_msg_type(r), "job");
	assert_int_equal(jget_int(json_object_get(r, "job"), "id", 0), job_id);
	json_decref(r);
	r = coord_ask(t->fx.c, t->agent, tctx_result_msg(job_id, 1), "ack");
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
		m = tctx_result_msg(job_id, 1);
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
	r = coord_ask(t->fx.c, t->agent, tctx_result_msg(job_id, 1), "ack");
	json_decref(r);
	coord_get_stats(t->fx.c, &stats);
	assert_int_equal(stats.results, 1);
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

	tctx_hello(t, "h1", "veth");
	zmq_close(t->agent);		/* killed: the coordinator does not know yet */
	t->agent = coord_fix_agent(&t->fx);
	t0 = util_mono_ms();
	while (util_mono_ms() - t0 < 200)
		assert_int_equal(coord_run_once(t->fx.c, 5), 0);
	r = coord_ask(t->fx.c, t->client, tctx_submit_msg(t, tctx_plan_text, NULL), "submitted");
	run = jget_int(r, "run", 0);
	json_decref(r);
	t0 = util_mono_ms();
	while (util_mono_ms() - t0 < 1000)	/* 50 ticks, before the host is gone */
		assert_int_equal(coord_run_once(t->fx.c, 5), 0);
	r = coord_ask(t->fx.c, t->client, tctx_simple("run_attempts", run), "attempts");
	assert_int_equal(json_array_size(json_object_get(r, "attempts")), 1);
	assert_string_equal(jget_str(json_array_get(json_object_get(r, "attempts"), 0),
					  "outcome", ""), "unsent");
	json_decref(r);
	tctx_attempts_of(t, run, 1, att, sizeof(att));
	fprintf(stderr, "  unsent: job 1 attempts after 1 s: %s\n", att);
}

/* Refusals are not failed deliveries: a job its agent refused twice (busy) and whose
 * third message cannot be sent (the agent killed, not gone yet) stays queued; three
 * undelivered attempts would fail it (max_attempts). */
static void test_coordinator_refusals_not_undelivered(void **state)
{
	struct tctx *t = *state;
	long long run, id = 0;
	char sql[256];
	int64_t t0;
	json_t *r, *m;
	int i;

	tctx_hello(t, "h1", "veth");
	r = coord_ask(t->fx.c, t->client, tctx_submit_msg(t, tctx_plan_text, NULL), "submitted");
	run = jget_int(r, "run", 0);
	json_decref(r);
	for (i = 0; i < 2; i++) {
		r = tctx_want(t, t->agent, &t->agent, 1, "job", id);
		id = jget_int(json_object_get(r, "job"), "id", 0);
		json_decref(r);
		m = proto_error_new("job", "busy with job 99");
		json_object_set_new(m, "job", json_integer(id));
		assert_int_equal(proto_send(t->agent, m, 0), 0);
		json_decref(m);
	}
	zmq_close(t->agent);		/* killed: the coordinator does not know yet */
	t->agent = coord_fix_agent(&t->fx);
	t0 = util_mono_ms();
	while (util_mono_ms() - t0 < 1600)	/* past the refusal's hold, before it is gone */
		assert_int_equal(coord_run_once(t->fx.c, 5), 0);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM job_attempts WHERE job_id = %lld AND "
		 "outcome = 'unsent' AND error LIKE 'refused by the agent: busy%%'", id);
	assert_int_equal(db_file_count(t->fx.db, sql), 2);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM job_attempts WHERE job_id = %lld AND "
		 "outcome = 'unsent' AND error NOT LIKE 'refused%%'", id);
	assert_int_equal(db_file_count(t->fx.db, sql), 1);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM jobs WHERE id = %lld AND state = "
		 "'queued' AND run_id = %lld", id, run);
	assert_int_equal(db_file_count(t->fx.db, sql), 1);
}

static int setup_slow_hb(void **state)
{
	return tctx_setup_hb(state, 5000);
}

/* Agent h1 says hello keeping KEPT objects (hello's objects_kept). */
static void hello_keeping(struct tctx *t, int kept)
{
	json_t *m = proto_msg_new("hello");

	json_object_set_new(m, "agent", json_string("h1"));
	json_object_set_new(m, "version", json_string("0.1"));
	json_object_set_new(m, "inventory", tctx_inventory("veth"));
	json_object_set_new(m, "objects_kept", json_integer(kept));
	json_decref(coord_ask(t->fx.c, t->agent, m, "welcome"));
}

/* The next job for t->agent: its id, and whether its object carries bytes (checked
 * against the object when it does; its sha256 always). */
static long long next_job(struct tctx *t, bool *bytes)
{
	json_t *r = tctx_want(t, t->agent, &t->agent, 1, "job", 0), *obj;
	long long id = jget_int(json_object_get(r, "job"), "id", 0);
	void *data;
	size_t len;

	obj = json_object_get(json_object_get(r, "objects"), OBJ_NAME);
	assert_string_equal(jget_str(obj, "sha256", ""), t->fx.obj_sha);
	*bytes = json_object_get(obj, "data") != NULL;
	if (*bytes) {
		assert_int_equal(util_base64_decode(jget_str(obj, "data", ""), &data, &len), 0);
		assert_int_equal(len, t->fx.obj_len);
		assert_memory_equal(data, t->fx.obj, len);
		free(data);
	}
	json_decref(r);
	return id;
}

/* Job ID is accepted and its result stored. */
static void finish_job(struct tctx *t, long long id)
{
	tctx_says(t->agent, "accept", id);
	json_decref(coord_ask(t->fx.c, t->agent, tctx_result_msg(id, 1e6), "ack"));
}

/* h1 says hello again (keeping KEPT objects; 0: its hello does not say) and runs the
 * two jobs of a new run: whether each one's object carried bytes, into BYTES. */
static void two_jobs(struct tctx *t, int kept, bool bytes[2])
{
	long long id;
	int i;

	if (kept)
		hello_keeping(t, kept);
	else
		tctx_hello(t, "h1", "veth");
	json_decref(coord_ask(t->fx.c, t->client, tctx_submit_msg(t, tctx_plan_text, NULL),
			      "submitted"));
	for (i = 0; i < 2; i++) {
		id = next_job(t, &bytes[i]);
		finish_job(t, id);
	}
}

/* An agent that keeps objects gets an object's bytes once a session: the next job names
 * it by sha256 alone. A job refused for an object the agent lacks (`missing`) comes again
 * at once (the heartbeat here is 5 s, a refusal's hold; tctx_want waits 3 s), with the
 * bytes; a new hello starts over; an agent that keeps none gets the bytes every time. */
static void test_coordinator_objects_once(void **state)
{
	struct tctx *t = *state;
	long long id, again;
	bool bytes, bytes2[2];
	char sql[256];
	json_t *m;

	hello_keeping(t, 8);
	json_decref(coord_ask(t->fx.c, t->client, tctx_submit_msg(t, tctx_plan_text, NULL),
			      "submitted"));
	id = next_job(t, &bytes);
	assert_true(bytes);
	finish_job(t, id);
	id = next_job(t, &bytes);
	assert_false(bytes);
	/* the agent lost it: refused naming it, sent again with the bytes */
	m = proto_error_new("job", "names 1 object(s) this agent does not keep");
	json_object_set_new(m, "job", json_integer(id));
	json_object_set_new(m, "missing", json_pack("[s]", t->fx.obj_sha));
	assert_int_equal(proto_send(t->agent, m, 0), 0);
	json_decref(m);
	again = next_job(t, &bytes);
	assert_int_equal(again, id);
	assert_true(bytes);
	finish_job(t, id);
	/* its first attempt says why it ended: the agent's refusal */
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM job_attempts WHERE job_id = %lld AND "
		 "attempt = 1 AND outcome = 'unsent' AND error = 'refused by the agent: names 1 "
		 "object(s) this agent does not keep'", id);
	assert_int_equal(db_file_count(t->fx.db, sql), 1);

	/* a new session: the bytes again, then the sha256 */
	two_jobs(t, 8, bytes2);
	assert_true(bytes2[0]);
	assert_false(bytes2[1]);
	/* an agent that keeps none (no objects_kept: an older one): the bytes every time */
	two_jobs(t, 0, bytes2);
	assert_true(bytes2[0]);
	assert_true(bytes2[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TCTX_TEST(test_coordinator_end_to_end),
		TCTX_TEST(test_coordinator_malformed),
		TCTX_TEST(test_coordinator_result_refused),
		TCTX_TEST(test_coordinator_bad_submit),
		cmocka_unit_test_setup_teardown(test_coordinator_agent_gone, setup_fast, tctx_teardown),
		TCTX_TEST(test_coordinator_restart),
		TCTX_TEST(test_coordinator_unsent_once),
		TCTX_TEST(test_coordinator_refusals_not_undelivered),
		TCTX_TEST(test_coordinator_host_boot),
		TCTX_TEST(test_coordinator_binary_sigterm),
		cmocka_unit_test_setup_teardown(test_coordinator_objects_once, setup_slow_hb,
						tctx_teardown),
	};

	return cmocka_run_group_tests_name("coordinator", tests, NULL, NULL);
}

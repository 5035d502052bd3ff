// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_agent_loop.c - agent/agent.c against a fake coordinator (a ROUTER socket on
 * loopback inside a test namespace): hello with the inventory, welcome, heartbeats both
 * ways, a job with its objects in the message -> accept, progress, result, spool file,
 * ack; a second job while busy and malformed messages get error replies; a silent
 * coordinator is given up and the agent reconnects, says hello again and resends the
 * unacknowledged result; cancel; and the stop fd (SIGTERM) ends a running job cleanly
 * with its result spooled. A job message read after a gap longer than the liveness (a
 * stopped process) is dropped unread, and a job running through such a gap is stopped
 * and its result discarded; a pair side whose partner is lost after the go
 * stops and fails without samples. A result the spool cannot store (a full tmpfs) is
 * held, not sent, no new job taken, and sent once it is stored; one the coordinator
 * refuses (`error`) is sent again after a doubling wait until acknowledged. Needs root
 * (the job attaches XDP programs). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdbool.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <zmq.h>

#include "agent.h"
#include "objstore.h"
#include "base/log.h"
#include "proto/proto.h"
#include "base/util.h"
#include "test_agent_lab.h"

static struct inventory_pair ports[2] = { { "a", "va" }, { "b", "vb" } };
static struct inventory_config inv = { .agent = "loop-agent", .ports = ports, .n_ports = 2 };

struct fixture {
	void *zctx;
	void *router;
	char endpoint[128];
	char spool[64];
	int stop_fd;
	struct agent *agent;
	pthread_t thread;
	int rc;
	uint8_t id[PROTO_MAX_IDENTITY];	/* the agent's current identity */
	size_t id_len;
	bool alive;			/* answer heartbeats (a live coordinator) */
};

static int setup(void **state)
{
	return lab_setup_bpf(&lab, "loop");
}

static int teardown(void **state)
{
	/* spool directories (and a full tmpfs) of tests that failed before removing theirs */
	lab_sh("for d in /tmp/bpflab-t-agent-spool-%d-*; do mountpoint -q $d && umount $d; "
	       "done; rm -rf /tmp/bpflab-t-agent-spool-%d-*", (int)getpid(), (int)getpid());
	lab_down(&lab);
	return 0;
}

static void *agent_thread(void *arg)
{
	struct fixture *f = arg;

	f->rc = agent_run(f->agent);
	return NULL;
}

static void start(struct fixture *f)
{
	size_t len = sizeof(f->endpoint);
	struct agent_opts o = { 0 };

	memset(f, 0, sizeof(*f));
	/* created after lab_up: the context's I/O threads live in the lab namespace */
	f->zctx = zmq_ctx_new();
	f->router = zmq_socket(f->zctx, ZMQ_ROUTER);
	assert_int_equal(zmq_bind(f->router, "tcp://127.0.0.1:*"), 0);
	assert_int_equal(zmq_getsockopt(f->router, ZMQ_LAST_ENDPOINT, f->endpoint, &len), 0);
	snprintf(f->spool, sizeof(f->spool), "/tmp/bpflab-t-agent-spool-%d-XXXXXX", (int)getpid());
	assert_non_null(mkdtemp(f->spool));
	f->stop_fd = eventfd(0, EFD_CLOEXEC);
	o.endpoint = f->endpoint;
	o.inv = &inv;
	o.spool_dir = f->spool;
	o.bpf_dir = NULL;		/* objects come in the job message */
	o.stop_fd = f->stop_fd;
	f->agent = agent_new(&o);
	assert_non_null(f->agent);
	assert_int_equal(pthread_create(&f->thread, NULL, agent_thread, f), 0);
}

/* What start() made, after the agent's thread has ended: the agent, the stop fd, the
 * fake coordinator's socket and context, the spool directory. */
static void release(struct fixture *f)
{
	int zero = 0;

	agent_destroy(&f->agent);
	close(f->stop_fd);
	zmq_setsockopt(f->router, ZMQ_LINGER, &zero, sizeof(zero));
	zmq_close(f->router);
	zmq_ctx_term(f->zctx);
	lab_sh("rm -rf %s", f->spool);
}

/* Signal the stop fd (SIGTERM), wait for the agent's loop to return 0, release. */
static void stop(struct fixture *f)
{
	uint64_t one = 1;

	assert_int_equal(write(f->stop_fd, &one, sizeof(one)), sizeof(one));
	pthread_join(f->thread, NULL);
	assert_int_equal(f->rc, 0);
	release(f);
}

/* The next message from the agent within TIMEOUT_MS, or NULL. */
static json_t *coord_recv(struct fixture *f, int timeout_ms)
{
	zmq_pollitem_t it = { .socket = f->router, .events = ZMQ_POLLIN };
	struct err why;
	json_t *msg;

	if (zmq_poll(&it, 1, timeout_ms) <= 0)
		return NULL;
	assert_int_equal(proto_recv_from(f->router, f->id, &f->id_len, &msg, 0, &why), 0);
	if (f->alive && !strcmp(proto_msg_type(msg), "heartbeat")) {
		json_t *hb = proto_msg_new("heartbeat");

		assert_int_equal(proto_send_to(f->router, f->id, f->id_len, hb, 0), 0);
		json_decref(hb);
	}
	return msg;
}

/* The next message of TYPE within TIMEOUT_MS, skipping heartbeats and progress. */
static json_t *expect(struct fixture *f, const char *type, int timeout_ms)
{
	int64_t end = util_mono_ms() + timeout_ms;

	for (;;) {
		int64_t left = end - util_mono_ms();
		json_t *msg = left > 0 ? coord_recv(f, (int)left) : NULL;
		const char *t;

		if (!msg)
			fail_msg("no '%s' from the agent within %d ms", type, timeout_ms);
		t = proto_msg_type(msg);
		if (!strcmp(t, type))
			return msg;
		if (strcmp(t, "heartbeat") && strcmp(t, "progress"))
			fail_msg("expected '%s', got '%s'", type, t);
		json_decref(msg);
	}
}

static void coord_send(struct fixture *f, json_t *msg)
{
	assert_int_equal(proto_send_to(f->router, f->id, f->id_len, msg, 0), 0);
	json_decref(msg);
}

/* A coordinator message of TYPE about job ID (ack, cancel, go). */
static json_t *job_ref_msg(const char *type, int id)
{
	json_t *m = proto_msg_new(type);

	json_object_set_new(m, "job", json_integer(id));
	return m;
}

static void coord_send_raw(struct fixture *f, const char *text)
{
	assert_true(zmq_send(f->router, f->id, f->id_len, ZMQ_SNDMORE) >= 0);
	assert_true(zmq_send(f->router, text, strlen(text), 0) >= 0);
}

static void welcome(struct fixture *f)
{
	json_t *w = proto_msg_new("welcome");

	json_object_set_new(w, "heartbeat_ms", json_integer(200));
	coord_send(f, w);
	f->alive = true;
}

/* start(), the agent's hello, the welcome: a live session with an idle agent. */
static void start_welcomed(struct fixture *f)
{
	start(f);
	json_decref(expect(f, "hello", 3000));
	welcome(f);
}

/* A job message's "objects": xdp_basic.bpf.o, base64, with its sha256 (also put in HEX
 * for the spec's attach entry). */
static json_t *job_objects(char hex[SHA256_HEX_LEN])
{
	json_t *objects;
	char *text, *b64;
	size_t len;

	assert_int_equal(util_read_file(BPF_DIR "/xdp_basic.bpf.o", 1 << 24, &text, &len), 0);
	util_sha256_hex(text, len, hex);
	b64 = util_base64_encode(text, len);
	objects = json_pack("{s:{s:s, s:s}}", "xdp_basic.bpf.o", "sha256", hex, "data", b64);
	free(text);
	free(b64);
	return objects;
}

static json_t *job_msg(int id, int duration_ms)
{
	char hex[SHA256_HEX_LEN];
	json_t *objects = job_objects(hex), *msg;

	msg = proto_msg_new("job");
	json_object_set_new(msg, "job", json_pack(
		"{s:i, s:i, s:{s:[s,s], s:{s:s, s:s, s:{s:i, s:s, s:i}, s:i, s:i, s:i},"
		" s:[{s:s, s:s, s:s, s:s, s:s, s:s}], s:[s, s]}}",
		"id", id, "run", 1, "spec",
		"ports", "a", "b",
		"traffic", "generator", "xdp-live", "from", "a",
		"packet", "size", 64, "proto", "udp4", "flows", 1,
		"threads", 1, "duration_ms", duration_ms, "warmup_ms", 0,
		"attach", "port", "b", "hook", "xdp", "mode", "native",
		"object", "xdp_basic.bpf.o", "program", "xdp_drop", "sha256", hex,
		"metrics", "port.rx_pps", "prog.ns_per_run"));
	json_object_set_new(msg, "objects", objects);
	return msg;
}

static bool spooled(struct fixture *f, const char *id)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/job-%s.json", f->spool, id);
	return !stat(path, &st);
}

/* A probe that keeps the agent's loop listening for 1200 ms under the 200 ms heartbeat:
 * longer than the liveness, as a stopped process (SIGSTOP) would be. */
static void send_gap_probe(struct fixture *f, int probe)
{
	json_t *m = proto_msg_new("probe");

	json_object_set_new(m, "probe", json_integer(probe));
	json_object_set_new(m, "nonces", json_object());
	json_object_set_new(m, "send_after_ms", json_integer(0));
	json_object_set_new(m, "listen_ms", json_integer(1200));
	coord_send(f, m);
}

/* After the gap: the probe's report, then a hello again that claims no job (returned,
 * for more checks). Anything but heartbeats and progress in between fails in expect(). */
static json_t *expect_hello_after_gap(struct fixture *f)
{
	json_t *m;

	json_decref(expect(f, "probe_report", 3000));
	m = expect(f, "hello", 4000);
	assert_null(json_object_get(m, "job"));
	return m;
}

/* Job ID (DURATION_MS long) is accepted, not refused as busy, and its result comes. */
static void run_job(struct fixture *f, int id, int duration_ms)
{
	json_t *m;

	coord_send(f, job_msg(id, duration_ms));
	m = expect(f, "accept", 2000);
	assert_int_equal(jget_int(m, "job", 0), id);
	json_decref(m);
	m = expect(f, "result", 5000);
	assert_int_equal(jget_int(m, "job", 0), id);
	json_decref(m);
}

static void test_agent_session(void **state)
{
	struct fixture f;
	json_t *m, *inventory;
	int64_t t;
	int i;

	SKIP_UNLESS_LAB();
	start(&f);
	m = expect(&f, "hello", 3000);
	assert_string_equal(jget_str(m, "agent", ""), "loop-agent");
	assert_string_equal(jget_str(m, "version", ""), AGENT_VERSION);
	inventory = json_object_get(m, "inventory");
	assert_int_equal(json_array_size(json_object_get(inventory, "ports")), 2);
	assert_string_equal(jget_str(json_array_get(json_object_get(inventory, "ports"), 1),
					  "driver", ""), "veth");
	json_decref(m);
	welcome(&f);
	/* heartbeats every 200 ms as welcome said */
	t = util_mono_ms();
	json_decref(expect(&f, "heartbeat", 1000));
	json_decref(expect(&f, "heartbeat", 1000));
	assert_true(util_mono_ms() - t < 2000);	/* 400 ms, with room for a loaded CI */

	/* malformed input gets error replies and changes nothing */
	coord_send_raw(&f, "not json");
	m = expect(&f, "error", 1000);
	assert_non_null(strstr(jget_str(m, "message", ""), "not JSON"));
	json_decref(m);
	coord_send(&f, proto_msg_new("frob"));
	m = expect(&f, "error", 1000);
	assert_string_equal(jget_str(m, "message", ""), "unknown message type 'frob'");
	json_decref(m);
	m = proto_msg_new("job");
	json_object_set_new(m, "job", json_pack("{s:[]}", "id"));
	coord_send(&f, m);
	json_decref(expect(&f, "error", 1000));

	/* a job: accept, progress, heartbeat naming it, result */
	coord_send(&f, job_msg(7, 1000));
	m = expect(&f, "accept", 2000);
	assert_int_equal(jget_int(m, "job", 0), 7);
	json_decref(m);
	/* busy: a second job is refused */
	coord_send(&f, job_msg(8, 1000));
	m = expect(&f, "error", 2000);
	assert_non_null(strstr(jget_str(m, "message", ""), "busy with job '7'"));
	assert_int_equal(jget_int(m, "job", 0), 8);
	json_decref(m);
	for (i = 0;; i++) {
		m = coord_recv(&f, 5000);
		assert_non_null(m);
		if (!strcmp(proto_msg_type(m), "heartbeat"))
			assert_int_equal(jget_int(m, "job", 0), 7);
		if (!strcmp(proto_msg_type(m), "result"))
			break;
		json_decref(m);
		if (i > 100)
			fail_msg("no result");
	}
	if (strcmp(jget_str(m, "status", ""), "ok"))
		fail_msg("job failed: %s", jget_str(m, "error", ""));
	assert_int_equal(jget_int(m, "job", 0), 7);
	assert_true(json_array_size(json_object_get(m, "samples")) > 0);
	json_decref(m);
	assert_true(spooled(&f, "7"));

	/* the coordinator goes silent: after 3 x 200 ms the agent gives up, reconnects after
	 * 1 s with a new socket (a new identity) and says hello again */
	f.alive = false;
	t = util_mono_ms();
	m = expect(&f, "hello", 4000);
	t = util_mono_ms() - t;
	fprintf(stderr, "  loop: hello again after %lld ms of silence\n", (long long)t);
	assert_true(t >= 1000 && t < 2500);
	json_decref(m);
	welcome(&f);
	/* the unacknowledged result comes again */
	m = expect(&f, "result", 2000);
	assert_int_equal(jget_int(m, "job", 0), 7);
	json_decref(m);
	coord_send(&f, job_ref_msg("ack", 7));
	for (i = 0; i < 50 && spooled(&f, "7"); i++)
		usleep(20 * 1000);
	assert_false(spooled(&f, "7"));
	stop(&f);
}

static void test_agent_cancel_and_stop(void **state)
{
	struct fixture f;
	json_t *m;
	int64_t t;
	uint64_t one = 1;
	char *text;
	size_t len;

	SKIP_UNLESS_LAB();
	start_welcomed(&f);
	coord_send(&f, job_msg(21, 20000));
	json_decref(expect(&f, "accept", 2000));
	json_decref(expect(&f, "progress", 3000));	/* prepare */
	json_decref(expect(&f, "progress", 3000));	/* rate 1/20 */
	coord_send(&f, job_ref_msg("cancel", 21));
	t = util_mono_ms();
	m = expect(&f, "result", 2000);
	assert_true(util_mono_ms() - t < 5000);	/* far below the job's 20 s */
	assert_string_equal(jget_str(m, "status", ""), "failed");
	assert_string_equal(jget_str(m, "error", ""), "cancelled");
	json_decref(m);

	/* SIGTERM (the stop fd) during a job: the job ends cleanly, its result is spooled */
	coord_send(&f, job_msg(22, 20000));
	json_decref(expect(&f, "accept", 2000));
	json_decref(expect(&f, "progress", 3000));
	json_decref(expect(&f, "progress", 3000));
	t = util_mono_ms();
	assert_int_equal(write(f.stop_fd, &one, sizeof(one)), sizeof(one));
	pthread_join(f.thread, NULL);
	assert_true(util_mono_ms() - t < 8000);	/* far below the job's 20 s */
	assert_int_equal(f.rc, 0);
	assert_true(spooled(&f, "22"));
	{
		char path[256];

		snprintf(path, sizeof(path), "%s/job-22.json", f.spool);
		assert_int_equal(util_read_file(path, 1 << 24, &text, &len), 0);
		assert_non_null(strstr(text, "\"cancelled\""));
		free(text);
	}
	/* stop() would signal again; the thread is joined already */
	release(&f);
}

/* The agent's loop reads nothing for longer than the liveness (here a probe that listens
 * 1200 ms under a 200 ms heartbeat; in life a SIGSTOP): the coordinator has given that
 * session up, so the job message that waited meanwhile is dropped unread, with the
 * socket, and the agent says hello again, idle. */
static void test_agent_stale_job_dropped(void **state)
{
	struct fixture f;

	SKIP_UNLESS_LAB();
	start_welcomed(&f);
	send_gap_probe(&f, 1);
	coord_send(&f, job_msg(31, 1000));	/* waits while the loop is blocked */
	/* job 31 is dropped unread: no accept before the hello */
	json_decref(expect_hello_after_gap(&f));
	welcome(&f);
	/* idle: the next job is accepted, not refused as busy */
	run_job(&f, 32, 500);
	stop(&f);
}

/* The same gap while a job runs: its windows measured a stopped process, and the
 * coordinator has queued it again by now, so the agent stops it and discards its result
 * (not sent, not spooled) and its hello does not claim it. */
static void test_agent_gap_discards_job(void **state)
{
	struct fixture f;
	json_t *m;

	SKIP_UNLESS_LAB();
	start_welcomed(&f);
	coord_send(&f, job_msg(33, 3000));
	json_decref(expect(&f, "accept", 2000));
	send_gap_probe(&f, 2);
	coord_send(&f, proto_msg_new("heartbeat"));	/* read after the gap */
	/* job 33 is discarded: no result before the hello, none spooled */
	m = expect_hello_after_gap(&f);
	assert_int_equal(json_array_size(json_object_get(m, "spooled")), 0);
	json_decref(m);
	welcome(&f);
	assert_false(spooled(&f, "33"));
	run_job(&f, 34, 500);
	assert_false(spooled(&f, "33"));
	stop(&f);
}

/* One side of a pair (the DUT: no generator here) after its go: a `go` with `abort` says
 * the other side was lost during the job. The job stops at once and fails with `pair
 * aborted: REASON`, without samples (half a pair measured nothing worth keeping) and not
 * as a partial result, so that the coordinator can queue it again with its partner. */
static void test_agent_pair_broken(void **state)
{
	static const char why[] = "job 40 on 'h1' was lost: its host went silent";
	char hex[SHA256_HEX_LEN];
	struct fixture f;
	json_t *m, *objects;
	int64_t t;

	SKIP_UNLESS_LAB();
	objects = job_objects(hex);
	start_welcomed(&f);
	m = proto_msg_new("job");
	json_object_set_new(m, "job", json_pack(
		"{s:i, s:i, s:{s:[s], s:{s:s, s:{s:i, s:s, s:i}, s:i, s:i, s:i},"
		" s:[{s:s, s:s, s:s, s:s, s:s, s:s}], s:[s],"
		" s:{s:s, s:s, s:{s:s, s:s}, s:i}}}",
		"id", 41, "run", 1, "spec", "ports", "b",
		"traffic", "generator", "none", "packet", "size", 64, "proto", "udp4",
		"flows", 1, "threads", 1, "duration_ms", 20000, "warmup_ms", 0,
		"attach", "port", "b", "hook", "xdp", "mode", "native",
		"object", "xdp_basic.bpf.o", "program", "xdp_drop", "sha256", hex,
		"metrics", "port.rx_pps",
		"pair", "role", "dut", "peer", "h1", "link", "generator", "a", "dut", "b",
		"barrier_ms", 5000));
	json_object_set_new(m, "objects", objects);
	coord_send(&f, m);
	json_decref(expect(&f, "accept", 2000));
	json_decref(expect(&f, "ready", 3000));
	coord_send(&f, job_ref_msg("go", 41));
	/* into the rate window: a progress message of it */
	for (;;) {
		m = coord_recv(&f, 3000);
		assert_non_null(m);
		if (!strcmp(proto_msg_type(m), "progress") &&
		    !strcmp(jget_str(m, "phase", ""), "rate")) {
			json_decref(m);
			break;
		}
		json_decref(m);
	}
	m = job_ref_msg("go", 41);
	json_object_set_new(m, "abort", json_string(why));
	coord_send(&f, m);
	t = util_mono_ms();
	m = expect(&f, "result", 3000);
	t = util_mono_ms() - t;
	fprintf(stderr, "  pair broken: result %lld ms after the abort\n", (long long)t);
	assert_true(t < 1500);
	assert_string_equal(jget_str(m, "status", ""), "failed");
	assert_string_equal(jget_str(m, "error", ""),
			    "pair aborted: job 40 on 'h1' was lost: its host went silent");
	assert_int_equal(json_array_size(json_object_get(m, "samples")), 0);
	assert_null(json_object_get(m, "partial"));
	json_decref(m);
	stop(&f);
}

/* The spool's promise on a full disk: the result of job 41 cannot be written, so it is
 * held, neither sent nor spooled, and claimed as the agent's job in heartbeats; job 42
 * is refused meanwhile; once space is back the result is spooled, then sent, and the
 * ack drops it. */
static void test_agent_spool_full(void **state)
{
	struct fixture f;
	json_t *m;
	int64_t end;

	SKIP_UNLESS_LAB();
	start_welcomed(&f);
	assert_int_equal(lab_sh("mount -t tmpfs -o size=16k bpflab-t-spool %s && "
				"{ head -c 1M /dev/zero > %s/filler 2>/dev/null; true; }",
				f.spool, f.spool), 0);
	coord_send(&f, job_msg(41, 300));
	json_decref(expect(&f, "accept", 2000));
	/* 2 s past the job's end: heartbeats naming job 41, no result */
	end = util_mono_ms() + 2500;
	while ((m = coord_recv(&f, (int)(end - util_mono_ms() > 0 ? end - util_mono_ms() : 0)))) {
		const char *t = proto_msg_type(m);

		if (strcmp(t, "heartbeat") && strcmp(t, "progress"))
			fail_msg("got '%s' while the result cannot be spooled", t);
		if (!strcmp(t, "heartbeat") && util_mono_ms() > end - 1000)
			assert_int_equal(jget_int(m, "job", 0), 41);
		json_decref(m);
		if (util_mono_ms() >= end)
			break;
	}
	assert_false(spooled(&f, "41"));
	coord_send(&f, job_msg(42, 300));
	m = expect(&f, "error", 2000);
	assert_non_null(strstr(jget_str(m, "message", ""),
			       "holds the result of job '41': its spool cannot store it"));
	json_decref(m);

	lab_sh("rm -f %s/filler", f.spool);
	m = expect(&f, "result", 3000);
	assert_int_equal(jget_int(m, "job", 0), 41);
	assert_true(spooled(&f, "41"));	/* on disk before it was sent */
	json_decref(m);
	coord_send(&f, job_ref_msg("ack", 41));
	end = util_mono_ms() + 2000;
	while (spooled(&f, "41") && util_mono_ms() < end)
		json_decref(coord_recv(&f, 50));
	assert_false(spooled(&f, "41"));
	run_job(&f, 43, 300);	/* and jobs are taken again */
	lab_sh("umount %s", f.spool);
	stop(&f);
}

/* A result the coordinator answers with an `error` (it could not store it: its disk
 * full) is sent again without a reconnect, one heartbeat interval later, then after a
 * doubled wait; the ack ends it (spool emptied, no more resends). Found by the fault
 * soak (tests/soak/soak.sh): the spool went again only after a welcome. */
static void test_agent_refused_result_resent(void **state)
{
	struct fixture f;
	int64_t t, first;
	json_t *m;
	int i;

	SKIP_UNLESS_LAB();
	start_welcomed(&f);
	run_job(&f, 51, 300);
	assert_true(spooled(&f, "51"));
	for (i = 0; i < 2; i++) {
		coord_send(&f, proto_error_new("result", "cannot store result of job 51: "
					       "database or disk is full"));
		t = util_mono_ms();
		m = expect(&f, "result", 3000);
		t = util_mono_ms() - t;
		fprintf(stderr, "  refused result: sent again after %lld ms\n", (long long)t);
		assert_int_equal(jget_int(m, "job", 0), 51);
		json_decref(m);
		if (!i)
			first = t;
		else	/* 200 ms, then 400 ms: the wait doubles */
			assert_true(t > first);
		assert_true(t >= 150 && t < 1500);
	}
	coord_send(&f, job_ref_msg("ack", 51));
	for (i = 0; i < 50 && spooled(&f, "51"); i++)
		usleep(20 * 1000);
	assert_false(spooled(&f, "51"));
	/* acknowledged: nothing but heartbeats for a second */
	t = util_mono_ms() + 1000;
	while (util_mono_ms() < t) {
		m = coord_recv(&f, 200);
		if (m && strcmp(proto_msg_type(m), "heartbeat"))
			fail_msg("after the ack: '%s'", proto_msg_type(m));
		json_decref(m);
	}
	stop(&f);
}

/* Job ID whose object is named by sha256 alone (no bytes), as the coordinator names an
 * object it sent the agent before. */
static json_t *job_msg_by_sha(int id, char hex[SHA256_HEX_LEN])
{
	json_t *msg = job_msg(id, 300);
	json_t *entry = json_object_get(json_object_get(msg, "objects"), "xdp_basic.bpf.o");

	snprintf(hex, SHA256_HEX_LEN, "%s", jget_str(entry, "sha256", ""));
	json_object_del(entry, "data");
	return msg;
}

/* The agent says how many objects it keeps; a job naming an object by sha256 that it
 * has not had is refused naming it (`missing`), one that carried the bytes keeps them,
 * and a later job naming it by sha256 alone runs. */
static void test_agent_objects_kept(void **state)
{
	char hex[SHA256_HEX_LEN];
	struct fixture f;
	json_t *m;

	SKIP_UNLESS_LAB();
	start(&f);
	m = expect(&f, "hello", 3000);
	assert_int_equal(jget_int(m, "objects_kept", 0), OBJSTORE_OBJECTS);
	json_decref(m);
	welcome(&f);
	coord_send(&f, job_msg_by_sha(61, hex));
	m = expect(&f, "error", 2000);
	assert_int_equal(jget_int(m, "job", 0), 61);
	assert_string_equal(jget_str(m, "in_reply_to", ""), "job");
	assert_int_equal(json_array_size(json_object_get(m, "missing")), 1);
	assert_string_equal(json_string_value(json_array_get(json_object_get(m, "missing"),
							     0)), hex);
	json_decref(m);
	run_job(&f, 62, 300);		/* with the bytes: kept */
	coord_send(&f, job_msg_by_sha(63, hex));
	m = expect(&f, "accept", 2000);
	assert_int_equal(jget_int(m, "job", 0), 63);
	json_decref(m);
	m = expect(&f, "result", 5000);
	if (strcmp(jget_str(m, "status", ""), "ok"))
		fail_msg("job by sha256 failed: %s", jget_str(m, "error", ""));
	json_decref(m);
	stop(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_agent_session),
		cmocka_unit_test(test_agent_cancel_and_stop),
		cmocka_unit_test(test_agent_stale_job_dropped),
		cmocka_unit_test(test_agent_gap_discards_job),
		cmocka_unit_test(test_agent_pair_broken),
		cmocka_unit_test(test_agent_spool_full),
		cmocka_unit_test(test_agent_refused_result_resent),
		cmocka_unit_test(test_agent_objects_kept),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

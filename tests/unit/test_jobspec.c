// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_jobspec.c - unit tests for lib/plan/jobspec.c: the job spec's round trip (decode ->
 * encode gives the bytes the coordinator wrote) for every job of every plan in plans/
 * and tests/data/plans/ (as expanded, as split into the two sides of a pair, and as
 * stamped with sha256 and hosts_match the way the coordinator stamped them, which
 * plan_expand_opts now writes in one go: the same bytes), and for the
 * fuzz corpus tests/fuzz/corpus/jobspec/ (encode -> decode -> encode); the defaults of
 * an empty spec; and refusals (an unknown member, a bad enum, a mistyped or
 * out-of-range value) with the member's path, by the decoder itself, by
 * proto_validate() and by the agent's job_run().
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <zmq.h>

#include <cmocka.h>

#include "agent.h"
#include "helpers.h"
#include "job.h"
#include "plan/jobspec.h"
#include "plan/objects.h"
#include "plan/plan.h"
#include "proto/proto.h"
#include "proto/proto_schema.h"
#include "base/util.h"

#define CORPUS BPFLAB_SRCDIR "/tests/fuzz/corpus/jobspec"

static int n_compared;	/* plans compared by assert_expanded_once */

static char *dump(const json_t *j)
{
	char *text = json_dumps(j, JSON_COMPACT);

	assert_non_null(text);
	return text;
}

/* SPEC decodes, and its encoding is the same bytes. */
static void assert_round_trip(const json_t *spec, const char *what)
{
	struct job_spec s;
	struct err why;
	char *want, *got;
	json_t *back;

	if (jobspec_decode(spec, "spec", &s, &why)) {
		print_error("%s: %s\n", what, why.msg);
		fail();
	}
	back = jobspec_encode(&s);
	assert_non_null(back);
	want = dump(spec);
	got = dump(back);
	if (strcmp(want, got)) {
		print_error("%s:\n  in  %s\n  out %s\n", what, want, got);
		fail();
	}
	free(want);
	free(got);
	json_decref(back);
	jobspec_release(&s);
}

/* What coordinator/submit.c adds to a spec: each attach entry's sha256, hosts_match. */
static void stamp(json_t *spec)
{
	json_t *entry;
	size_t i;

	json_array_foreach(json_object_get(spec, "attach"), i, entry)
		json_object_set_new(entry, "sha256", json_string("e3b0c44298fc1c149afbf4c8996fb924"
								 "27ae41e4649b934ca495991b7852b855"));
	json_object_set_new(spec, "hosts_match", json_pack("{s:s, s:s}", "port.driver", "veth",
							   "kernel", ">=6.1"));
}

/* What bpflabd's submit wrote before the expansion did it: each attach entry of SPEC
 * stamped with its object's sha256 from OBJS, then the plan's hosts.match appended. */
static void stamp_as_submit(json_t *spec, const struct plan *p, const struct plan_objects *objs)
{
	json_t *entry, *match;
	size_t i;
	int k;

	json_array_foreach(json_object_get(spec, "attach"), i, entry) {
		const struct plan_object *o = plan_objects_find(objs, json_string_value(
							json_object_get(entry, "object")));

		assert_non_null(o);
		json_object_set_new(entry, "sha256", json_string(o->sha256));
	}
	if (!p->n_match)
		return;
	match = json_object();
	for (k = 0; k < p->n_match; k++)
		json_object_set_new(match, p->match[k].key, json_string(p->match[k].value));
	json_object_set_new(spec, "hosts_match", match);
}

/* plan_expand_opts (objects, hosts.match, a link's two sides, encoded once) writes the
 * bytes that expanding, splitting and stamping each spec by key wrote (JOBS, N). */
static void assert_expanded_once(const struct plan *p, const struct plan_job *jobs, int n,
				 const struct plan_objects *objs, const char *file)
{
	struct plan_expand_opts opts = { .objs = objs, .hosts_match = true };
	struct plan_job *once = NULL;
	struct err err;
	int sides = p->link_generator ? 2 : 1, n_once = 0, i, k;

	if (p->link_generator) {
		opts.pair_generator = "gen-host";
		opts.pair_dut = "dut-host";
	}
	if (plan_expand_opts(p, &opts, &once, &n_once, &err)) {
		print_error("%s: %s\n", file, err.msg);
		fail();
	}
	assert_int_equal(n_once, n * sides);
	for (i = 0; i < n; i++) {
		for (k = 0; k < sides; k++) {
			json_t *old = p->link_generator ?
				plan_pair_spec(jobs[i].spec, k ? "dut" : "generator",
					       k ? "gen-host" : "dut-host") :
				json_deep_copy(jobs[i].spec);
			char *want, *got;

			assert_non_null(old);
			stamp_as_submit(old, p, objs);
			want = proto_encode(old, NULL);
			got = proto_encode(once[i * sides + k].spec, NULL);
			if (strcmp(want, got)) {
				print_error("%s job %d side %d:\n  old  %s\n  once %s\n", file, i,
					    k, want, got);
				fail();
			}
			assert_int_equal(once[i * sides + k].seq, jobs[i].seq);
			free(want);
			free(got);
			json_decref(old);
		}
	}
	plan_jobs_free(once, n_once);
}

/* Every job of the plan in FILE round-trips, and expands once to what submit stamped
 * (when its objects are in the build); 0, or -1 when the plan does not load. */
static int plan_round_trip(const char *file)
{
	struct plan_objects objs = { 0 };
	struct plan_job *jobs = NULL;
	struct err err;
	struct plan *p = plan_load(file, NULL, 0, &err);
	char what[1200];
	int n = 0, i, k;

	if (!p)
		return -1;
	if (plan_expand(p, &jobs, &n, &err)) {
		print_error("%s: %s\n", file, err.msg);
		fail();
	}
	assert_true(n > 0);
	if (!plan_objects_resolve(p, BPFLAB_BUILDDIR "/bpf", &objs, &err)) {
		assert_expanded_once(p, jobs, n, &objs, file);
		n_compared++;
	}
	plan_objects_release(&objs);
	for (i = 0; i < n; i++) {
		snprintf(what, sizeof(what), "%s job %d", file, i);
		assert_round_trip(jobs[i].spec, what);
		for (k = 0; p->link_generator && k < 2; k++) {
			json_t *side = plan_pair_spec(jobs[i].spec, k ? "dut" : "generator", "peer");

			assert_non_null(side);
			snprintf(what, sizeof(what), "%s job %d, %s side", file, i,
				 k ? "dut" : "generator");
			assert_round_trip(side, what);
			stamp(side);
			assert_round_trip(side, what);
			json_decref(side);
		}
		stamp(jobs[i].spec);
		snprintf(what, sizeof(what), "%s job %d, stamped", file, i);
		assert_round_trip(jobs[i].spec, what);
	}
	plan_jobs_free(jobs, n);
	plan_destroy(&p);
	return 0;
}

/* plan_round_trip() of every *.yaml in DIR; returns how many loaded. */
static int dir_round_trip(const char *dir, bool all)
{
	struct dirent *de;
	char path[1024];
	DIR *d = opendir(dir);
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len < 5 || strcmp(de->d_name + len - 5, ".yaml"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!plan_round_trip(path))
			n++;
		else if (all)
			fail_msg("plan '%s' does not load", path);
	}
	closedir(d);
	return n;
}

static void test_jobspec_plans(void **state)
{
	n_compared = 0;
	assert_true(dir_round_trip(BPFLAB_SRCDIR "/plans", true) >= 8);
	assert_true(n_compared >= 8);	/* the plans of plans/ name objects of the build */
	assert_true(dir_round_trip(BPFLAB_SRCDIR "/tests/data/plans", false) >= 1);
}

/* encode -> decode -> encode of every seed that decodes; seeds named bad-* do not. */
static void test_jobspec_corpus(void **state)
{
	struct dirent *de;
	struct job_spec s;
	char path[1024], *text;
	struct err why;
	DIR *d = opendir(CORPUS);
	int good = 0, bad = 0;
	json_t *j, *once;

	assert_non_null(d);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", CORPUS, de->d_name);
		text = file_slurp(path);
		j = json_of(text);
		if (!strncmp(de->d_name, "bad-", 4)) {
			if (!jobspec_decode(j, "spec", &s, &why))
				fail_msg("%s decodes", path);
			assert_contains(why.msg, "spec");
			bad++;
		} else {
			if (jobspec_decode(j, "spec", &s, &why))
				fail_msg("%s: %s", path, why.msg);
			once = jobspec_encode(&s);
			assert_non_null(once);
			assert_round_trip(once, path);
			json_decref(once);
			jobspec_release(&s);
			good++;
		}
		json_decref(j);
		free(text);
	}
	closedir(d);
	assert_true(good >= 5);
	assert_true(bad >= 2);
}

/* traffic.rate: frames/s or a share of the line rate, decoded and encoded back to the
 * same bytes; absent, neither is written (the defaults test above). */
static void test_jobspec_rate(void **state)
{
	json_t *pps = json_of("{\"rep\":1,\"point\":{},\"ports\":[\"a\",\"b\"],\"traffic\":"
			      "{\"generator\":\"xdp-live\",\"from\":\"a\",\"packet\":{\"size\":64,"
			      "\"proto\":\"udp4\",\"flows\":1},\"threads\":2,\"duration_ms\":1000,"
			      "\"warmup_ms\":0,\"rate_pps\":100000},\"attach\":[]}");
	json_t *share = json_deep_copy(pps), *t = json_object_get(share, "traffic");
	struct job_spec s;
	struct err why;

	(void)state;
	assert_round_trip(pps, "rate_pps");
	assert_int_equal(jobspec_decode(pps, "spec", &s, &why), 0);
	assert_int_equal(s.traffic.rate_pps, 100000);
	assert_true(s.traffic.rate_share == 0);
	jobspec_release(&s);
	json_object_del(t, "rate_pps");
	json_object_set_new(t, "rate_share", json_real(0.125));
	assert_round_trip(share, "rate_share");
	assert_int_equal(jobspec_decode(share, "spec", &s, &why), 0);
	assert_int_equal(s.traffic.rate_pps, 0);
	assert_true(s.traffic.rate_share == 0.125);
	assert_int_equal(s.traffic.burst, 0);
	jobspec_release(&s);
	/* traffic.burst: after the rate, 1..4096 */
	json_object_set_new(t, "burst", json_integer(16));
	assert_round_trip(share, "burst");
	assert_int_equal(jobspec_decode(share, "spec", &s, &why), 0);
	assert_int_equal(s.traffic.burst, 16);
	jobspec_release(&s);
	json_decref(pps);
	json_decref(share);
}

/* An empty spec takes the defaults, and encodes them. */
static void test_jobspec_defaults(void **state)
{
	struct job_spec s;
	struct err why;
	char *text;
	json_t *j = json_object(), *e;

	assert_int_equal(jobspec_decode(j, "spec", &s, &why), 0);
	assert_int_equal(s.traffic.generator, JOB_GEN_NONE);
	assert_int_equal(s.traffic.size, 64);
	assert_int_equal(s.traffic.proto, JOB_PROTO_UDP4);
	assert_int_equal(s.traffic.flows, 1);
	assert_int_equal(s.traffic.threads, 1);
	assert_int_equal(s.traffic.duration_ms, 0);
	assert_int_equal(s.traffic.warmup_ms, 0);
	assert_int_equal(s.pair.barrier_ms, 30000);
	assert_false(s.has_metrics);
	assert_false(s.has_pair);
	assert_int_equal(s.n_ports, 0);
	e = jobspec_encode(&s);
	text = dump(e);
	assert_text(text, "{\"rep\":0,\"point\":{},\"ports\":[],\"traffic\":{\"generator\":\"none\","
		    "\"packet\":{\"size\":64,\"proto\":\"udp4\",\"flows\":1},\"threads\":1,"
		    "\"warmup_ms\":0},\"attach\":[]}");
	free(text);
	json_decref(e);
	jobspec_release(&s);
	jobspec_release(&s);	/* safe twice */
	json_decref(j);
}

static const struct {
	const char *spec;
	const char *why;
} refusals[] = {
	{ "{\"traffic\":{\"generator\":\"foo\"}}",
	  "spec.traffic.generator: unknown generator 'foo' (xdp-live, udp, pktgen, none)" },
	{ "{\"frob\":1}", "spec.frob: unknown field (spec has: plan, variant, rep" },
	{ "{\"traffic\":{\"packet\":{\"size\":64,\"ttl\":3}}}",
	  "spec.traffic.packet.ttl: unknown field" },
	{ "{\"traffic\":{\"packet\":{\"proto\":\"tcp\"}}}",
	  "spec.traffic.packet.proto: unknown proto 'tcp' (udp4, udp6)" },
	{ "{\"traffic\":{\"threads\":\"2\"}}",
	  "spec.traffic.threads: must be an integer, not a string" },
	{ "{\"traffic\":{\"duration_ms\":0}}",
	  "spec.traffic.duration_ms 0 is out of range 1..3600000" },
	{ "{\"traffic\":{\"cpus\":[1,-1]}}", "spec.traffic.cpus[1] -1 is out of range 0..4095" },
	{ "{\"ports\":[\"a\",2]}", "spec.ports[1]: must be a string, not an integer" },
	{ "{\"metrics\":\"port.rx_pps\"}", "spec.metrics: must be an array" },
	{ "{\"attach\":[{\"port\":\"b\",\"hook\":\"frob\",\"object\":\"o\",\"program\":\"p\"}]}",
	  "spec.attach[0].hook: unknown hook 'frob' (xdp, tc-ingress, tc-egress)" },
	{ "{\"attach\":[{\"port\":\"b\",\"hook\":\"xdp\",\"mode\":\"fast\",\"object\":\"o\","
	  "\"program\":\"p\"}]}", "spec.attach[0].mode: unknown mode 'fast' (native, generic, offload, auto)" },
	{ "{\"attach\":[{\"port\":\"b\"}]}",
	  "spec.attach[0]: attach entry 0 needs port, hook, object and program" },
	{ "{\"attach\":[{\"port\":\"b\",\"hook\":\"xdp\",\"tc_mode\":\"tcx\",\"object\":\"o\","
	  "\"program\":\"p\"}]}",
	  "spec.attach[0].tc_mode: attach entry 0: tc_mode must be auto, tcx or clsact, and only with a tc hook" },
	{ "{\"attach\":[{\"port\":\"b\",\"hook\":\"xdp\",\"object\":\"o\",\"program\":\"p\","
	  "\"maps\":{\"m\":[{\"key\":1,\"colour\":2}]}}]}",
	  "spec.attach[0].maps.m[0].colour: unknown field" },
	{ "{\"attach\":[{\"port\":\"b\",\"hook\":\"xdp\",\"object\":\"o\",\"program\":\"p\","
	  "\"maps\":{\"m\":[{\"key\":1,\"qsize\":0}]}}]}",
	  "spec.attach[0].maps.m[0].qsize 0 is out of range 1..16384" },
	{ "{\"attach\":[{\"port\":\"b\",\"hook\":\"xdp\",\"object\":\"o\",\"program\":\"p\","
	  "\"counters\":[{\"map\":\"c\",\"keys\":{\"07\":\"x\"}}]}]}",
	  "spec.attach[0].counters[0].keys.07: is not a counter index" },
	{ "{\"pair\":{\"role\":\"both\"}}", "spec.pair.role: unknown role 'both' (generator, dut)" },
	{ "{\"pair\":{\"peer\":\"h1\"}}", "spec.pair: needs a role" },
	{ "{\"share_machine\":1}", "spec.share_machine: must be a boolean" },
	{ "{\"verifier\":\"loud\"}", "spec.verifier: unknown verifier 'loud' (none, stats)" },
	{ "{\"verifier\":true}", "spec.verifier: must be a string" },
	{ "{\"hosts_match\":{\"kernel\":6}}", "spec.hosts_match.kernel: must be a string" },
	{ "[]", "spec: must be an object, not an array" },
	{ "{\"traffic\":{\"rate_pps\":0}}", "spec.traffic.rate_pps 0 is out of range 1..1000000000" },
	{ "{\"traffic\":{\"rate_pps\":1000000001}}", "spec.traffic.rate_pps 1000000001 is out of range" },
	{ "{\"traffic\":{\"rate_share\":\"10%\"}}",
	  "spec.traffic.rate_share: must be a number, not a string" },
	{ "{\"traffic\":{\"rate_share\":1.5}}", "spec.traffic.rate_share 1.5 is out of range (0, 1]" },
	{ "{\"traffic\":{\"rate_share\":0}}", "spec.traffic.rate_share 0 is out of range (0, 1]" },
	{ "{\"traffic\":{\"rate_pps\":5,\"rate_share\":0.5}}",
	  "spec.traffic.rate_share: cannot be given with spec.traffic.rate_pps" },
	{ "{\"traffic\":{\"burst\":0}}", "spec.traffic.burst 0 is out of range 1..4096" },
	{ "{\"traffic\":{\"burst\":4097}}", "spec.traffic.burst 4097 is out of range 1..4096" },
};

static void test_jobspec_refusals(void **state)
{
	struct job_spec s;
	struct err why;
	size_t i;

	for (i = 0; i < ARRAY_LEN(refusals); i++) {
		json_t *j = json_of(refusals[i].spec);

		if (jobspec_decode(j, "spec", &s, &why) != -EINVAL)
			fail_msg("case %zu: %s decodes", i, refusals[i].spec);
		assert_contains(why.msg, refusals[i].why);
		/* refused the same way when only the attach array is decoded */
		if (json_object_get(j, "attach")) {
			struct job_attach *a;
			int n;

			assert_int_equal(jobspec_decode_attach(json_object_get(j, "attach"), &a, &n,
							       &why), -EINVAL);
			assert_contains(why.msg, refusals[i].why);
		}
		json_decref(j);
	}
}

/* The coordinator's and the agent's checks refuse with the path too. */
static void test_jobspec_refused_by_both_sides(void **state)
{
	const char *bad = "{\"v\":1,\"type\":\"job\",\"job\":{\"id\":3,\"run\":1,\"spec\":"
			  "{\"ports\":[\"a\"],\"traffic\":{\"generator\":\"foo\","
			  "\"duration_ms\":1000}}}}";
	struct job_opts o = { 0 };
	struct err why;
	json_t *msg = json_of(bad), *r;

	assert_int_equal(proto_validate(msg, PROTO_CH_COORD_TO_AGENT, &why),
			 -EINVAL);
	assert_contains(why.msg, "job: job.spec.traffic.generator: unknown generator 'foo' "
			"(xdp-live, udp, pktgen, none)");
	r = job_run(msg, &o);
	assert_non_null(r);
	assert_string_equal(jget_str(r, "status", ""), "failed");
	assert_contains(jget_str(r, "error", ""),
			"spec.traffic.generator: unknown generator 'foo' (xdp-live, udp, pktgen, none)");
	json_decref(r);
	json_decref(msg);

	msg = json_of("{\"v\":1,\"type\":\"job\",\"job\":{\"id\":3,\"spec\":{\"attach\":"
		      "[{\"port\":\"a\",\"hook\":\"xdp\",\"object\":\"o\",\"program\":\"p\","
		      "\"colour\":\"red\"}]}}}");
	assert_int_equal(proto_validate(msg, PROTO_CH_COORD_TO_AGENT, &why),
			 -EINVAL);
	assert_contains(why.msg, "job.spec.attach[0].colour: unknown field");
	r = job_run(msg, &o);
	assert_contains(jget_str(r, "error", ""), "spec.attach[0].colour: unknown field");
	json_decref(r);
	json_decref(msg);
}

/* A message of TYPE from the agent on ROUTER within 5 s (heartbeats skipped), with the
 * agent's identity into ID. */
static json_t *agent_says(void *router, const char *type, uint8_t *id, size_t *id_len)
{
	int64_t end = util_mono_ms() + 5000;
	zmq_pollitem_t it = { .socket = router, .events = ZMQ_POLLIN };
	struct err why;
	json_t *msg;

	while (util_mono_ms() < end && zmq_poll(&it, 1, 200) >= 0) {
		if (!(it.revents & ZMQ_POLLIN))
			continue;
		assert_int_equal(proto_recv_from(router, id, id_len, &msg, 0, &why), 0);
		if (!strcmp(proto_msg_type(msg), type))
			return msg;
		json_decref(msg);
	}
	fail_msg("no '%s' from the agent", type);
	return NULL;
}

static void *agent_main(void *agent)
{
	agent_run(agent);
	return NULL;
}

/* The agent's loop: a job whose spec does not decode is accepted and fails with the
 * member's path (the job ends; it does not go back to the queue). */
static void test_jobspec_agent_fails_bad_spec(void **state)
{
	struct inventory_config inv = { .agent = "jobspec-agent" };
	struct agent_opts o = { .inv = &inv };
	uint8_t id[PROTO_MAX_IDENTITY];
	size_t id_len = 0, len;
	char endpoint[128];
	uint64_t one = 1;
	void *zctx = zmq_ctx_new(), *router = zmq_socket(zctx, ZMQ_ROUTER);
	struct agent *agent;
	pthread_t thread;
	json_t *m;
	int zero = 0;

	len = sizeof(endpoint);
	assert_int_equal(zmq_bind(router, "tcp://127.0.0.1:*"), 0);
	assert_int_equal(zmq_getsockopt(router, ZMQ_LAST_ENDPOINT, endpoint, &len), 0);
	o.endpoint = endpoint;
	o.stop_fd = eventfd(0, EFD_CLOEXEC);
	agent = agent_new(&o);
	assert_non_null(agent);
	assert_int_equal(pthread_create(&thread, NULL, agent_main, agent), 0);
	json_decref(agent_says(router, "hello", id, &id_len));
	m = proto_msg_new("welcome");
	assert_int_equal(proto_send_to(router, id, id_len, m, 0), 0);
	json_decref(m);
	m = json_of("{\"v\":1,\"type\":\"job\",\"job\":{\"id\":9,\"run\":1,\"spec\":"
		    "{\"ports\":[\"a\"],\"traffic\":{\"generator\":\"foo\","
		    "\"duration_ms\":1000}}}}");
	assert_int_equal(proto_send_to(router, id, id_len, m, 0), 0);
	json_decref(m);
	json_decref(agent_says(router, "accept", id, &id_len));
	m = agent_says(router, "result", id, &id_len);
	assert_int_equal(jget_int(m, "job", 0), 9);
	assert_string_equal(jget_str(m, "status", ""), "failed");
	assert_contains(jget_str(m, "error", ""),
			"spec.traffic.generator: unknown generator 'foo' (xdp-live, udp, pktgen, none)");
	json_decref(m);
	assert_int_equal(write(o.stop_fd, &one, sizeof(one)), sizeof(one));
	pthread_join(thread, NULL);
	agent_destroy(&agent);
	close(o.stop_fd);
	zmq_setsockopt(router, ZMQ_LINGER, &zero, sizeof(zero));
	zmq_close(router);
	zmq_ctx_term(zctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jobspec_plans),
		cmocka_unit_test(test_jobspec_corpus),
		cmocka_unit_test(test_jobspec_defaults),
		cmocka_unit_test(test_jobspec_rate),
		cmocka_unit_test(test_jobspec_refusals),
		cmocka_unit_test(test_jobspec_refused_by_both_sides),
		cmocka_unit_test(test_jobspec_agent_fails_bad_spec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

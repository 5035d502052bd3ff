// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_agent_pair.c - agent/job.c's side of a two-host pair (spec "pair") on a veth pair:
 * the DUT side prepares (loads and attaches xdp_drop), says `ready` through the progress
 * callback and waits at its barrier; with no `go` within pair.barrier_ms the job fails with
 * `barrier: no go within N ms (the generator side ...)`, with an abort it fails with `pair
 * aborted: REASON` (the coordinator's reason, from opts->go_abort); either way before any traffic or window and with nothing left attached.
 * A cancel at the barrier ends the wait at once. An agent without a go flag refuses the
 * pair job. A go's at_ms (the coordinator's clock when it sent it) shortens the warmup of
 * a side that saw it late, unless the clocks disagree. Needs root (skipped otherwise).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "job.h"
#include "base/log.h"
#include "base/util.h"
#include "test_agent_lab.h"

static struct inventory_pair ports[2] = { { "x", "va" }, { "y", "vb" } };
static struct inventory_config inv = { .agent = "t", .ports = ports, .n_ports = 2 };

static int setup(void **state)
{
	return lab_setup_bpf(&lab, "pair");
}

/* The DUT side of a two-host-forward job, as plan_pair_spec() makes it. */
static const char dut_job[] =
	"{\"job\": {\"id\": 11, \"run\": 1, \"spec\": {"
	" \"plan\": \"two-host-forward\", \"variant\": \"drop\", \"rep\": 1, \"point\": {},"
	" \"ports\": [\"y\"],"
	" \"traffic\": {\"generator\": \"none\","
	"   \"packet\": {\"size\": 64, \"proto\": \"udp4\", \"flows\": 1},"
	"   \"threads\": 1, \"duration_ms\": 1000, \"warmup_ms\": 500},"
	" \"attach\": [{\"port\": \"y\", \"hook\": \"xdp\", \"mode\": \"native\","
	"   \"object\": \"xdp_basic.bpf.o\", \"program\": \"xdp_drop\"}],"
	" \"metrics\": [\"port.rx_pps\", \"prog.ns_per_run\"],"
	" \"pair\": {\"role\": \"dut\", \"peer\": \"h1\","
	"   \"link\": {\"generator\": \"x\", \"dut\": \"y\"}, \"barrier_ms\": 300}"
	"}}}";

/* What the job told the coordinator: phases of progress, and whether it said ready. */
struct told {
	int ready, after_ready;
	char last_phase[16];
};

static void on_message(void *ctx, const json_t *msg)
{
	struct told *t = ctx;
	const char *type = json_string_value(json_object_get(msg, "type"));

	if (!strcmp(type, "ready")) {
		assert_int_equal(json_integer_value(json_object_get(msg, "job")), 11);
		t->ready++;
		return;
	}
	assert_string_equal(type, "progress");
	snprintf(t->last_phase, sizeof(t->last_phase), "%s",
		 json_string_value(json_object_get(msg, "phase")) ?: "");
	if (t->ready && strcmp(t->last_phase, "cleanup"))
		t->after_ready++;	/* warmup or a window: traffic started */
}

/* Run the DUT job with the go flag at GO_VALUE (NULL flag when GO_VALUE is 2) and check
 * that it fails with an error containing NEEDLE before any traffic. */
static void expect_pair_failure(int go_value, const char *needle, int want_ready)
{
	json_error_t jerr;
	json_t *msg = json_loads(dut_job, 0, &jerr), *r;
	atomic_int go = go_value;
	struct told t = { 0 };
	struct job_opts o = {
		.inv = &inv,
		.bpf_dir = BPF_DIR,
		.progress = on_message,
		.progress_ctx = &t,
		.go = go_value == 2 ? NULL : &go,
		.go_abort = go_value == -1 ? "job 12 on 'h1' failed: cannot load program 'x'" : NULL,
	};
	const char *err;
	int64_t t0 = util_mono_ms(), took;

	assert_non_null(msg);
	r = job_run(msg, &o);
	took = util_mono_ms() - t0;
	assert_non_null(r);
	err = json_string_value(json_object_get(r, "error"));
	assert_string_equal(json_string_value(json_object_get(r, "status")), "failed");
	if (!err || !strstr(err, needle))
		fail_msg("error '%s', expected '%s'", err ?: "(none)", needle);
	assert_int_equal(t.ready, want_ready);
	assert_int_equal(t.after_ready, 0);
	assert_int_equal(json_array_size(json_object_get(r, "samples")), 0);
	/* the barrier waited about barrier_ms (300) and no longer */
	if (go_value == 0)
		assert_true(took >= 300 && took < 5000);
	assert_nothing_attached();
	json_decref(r);
	json_decref(msg);
}

static void test_pair_barrier_timeout(void **state)
{
	SKIP_UNLESS_LAB();
	expect_pair_failure(0, "barrier: no go within 300 ms (the generator side of the pair "
			    "never got ready)", 1);
}

static void test_pair_abort(void **state)
{
	SKIP_UNLESS_LAB();
	expect_pair_failure(-1, "pair aborted: job 12 on 'h1' failed: cannot load program 'x'",
			    1);
}

static void test_pair_needs_go(void **state)
{
	SKIP_UNLESS_LAB();
	expect_pair_failure(2, "cannot run one side of a two-host plan", 0);
}

static atomic_int cancel_on_ready;

static void cancel_when_ready(void *ctx, const json_t *msg)
{
	on_message(ctx, msg);
	if (!strcmp(json_string_value(json_object_get(msg, "type")), "ready"))
		atomic_store(&cancel_on_ready, 1);
}

/* A cancel while the side waits at its barrier (the coordinator took the job away: its
 * pair was given up while this host was silent, docs/protocol.md "Faults") ends the wait
 * at once: failed, `cancelled`, before any traffic, nothing left attached. */
static void test_pair_cancel_at_barrier(void **state)
{
	json_error_t jerr;
	json_t *msg, *r;
	atomic_int go = 0;
	struct told t = { 0 };
	struct job_opts o = {
		.inv = &inv,
		.bpf_dir = BPF_DIR,
		.progress = cancel_when_ready,
		.progress_ctx = &t,
		.cancel = &cancel_on_ready,
		.go = &go,
	};

	SKIP_UNLESS_LAB();
	atomic_store(&cancel_on_ready, 0);
	msg = json_loads(dut_job, 0, &jerr);
	assert_non_null(msg);
	r = job_run(msg, &o);
	assert_non_null(r);
	assert_string_equal(json_string_value(json_object_get(r, "status")), "failed");
	assert_string_equal(json_string_value(json_object_get(r, "error")), "cancelled");
	assert_int_equal(t.ready, 1);
	assert_int_equal(t.after_ready, 0);
	assert_int_equal(json_array_size(json_object_get(r, "samples")), 0);
	assert_nothing_attached();
	json_decref(r);
	json_decref(msg);
}

/* What a side that saw its go LATE_MS after the coordinator sent it (at_ms) counts: its
 * warmup ends warmup_ms (here 1500) after at_ms, so it reports fewer warmup seconds. */
struct phases {
	int warmup, rate;
};

static void count_phases(void *ctx, const json_t *msg)
{
	struct phases *p = ctx;
	const char *phase = json_string_value(json_object_get(msg, "phase"));

	if (json_integer_value(json_object_get(msg, "second")) < 1 || !phase)
		return;
	if (!strcmp(phase, "warmup"))
		p->warmup++;
	if (!strcmp(phase, "rate"))
		p->rate++;
}

static struct phases run_after_go(long long late_ms)
{
	json_error_t jerr;
	json_t *msg = json_loads(dut_job, 0, &jerr), *r, *spec;
	atomic_int go = 1;
	atomic_llong at = util_wall_ms() - late_ms;
	struct phases p = { 0 };
	struct job_opts o = {
		.inv = &inv,
		.bpf_dir = BPF_DIR,
		.progress = count_phases,
		.progress_ctx = &p,
		.go = &go,
		.go_at_ms = &at,
	};

	assert_non_null(msg);
	spec = json_object_get(json_object_get(msg, "job"), "spec");
	json_object_set_new(json_object_get(spec, "traffic"), "warmup_ms", json_integer(1500));
	json_object_set_new(spec, "metrics", json_pack("[s]", "port.rx_pps"));
	r = job_run(msg, &o);
	assert_non_null(r);
	if (strcmp(json_string_value(json_object_get(r, "status")), "ok"))
		fail_msg("job failed: %s", json_string_value(json_object_get(r, "error")));
	assert_nothing_attached();
	json_decref(r);
	json_decref(msg);
	return p;
}

static void test_pair_warmup_from_at(void **state)
{
	struct phases on_time, late, skewed;

	SKIP_UNLESS_LAB();
	on_time = run_after_go(0);
	late = run_after_go(900);	/* 600 ms of warmup left: one step */
	skewed = run_after_go(-86400000LL);	/* a clock a day ahead: its own receipt */
	assert_int_equal(on_time.warmup, 2);
	assert_int_equal(late.warmup, 1);
	assert_int_equal(skewed.warmup, 2);
	assert_int_equal(on_time.rate, 1);
	assert_int_equal(late.rate, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pair_barrier_timeout),
		cmocka_unit_test(test_pair_abort),
		cmocka_unit_test(test_pair_needs_go),
		cmocka_unit_test(test_pair_cancel_at_barrier),
		cmocka_unit_test(test_pair_warmup_from_at),
	};

	return cmocka_run_group_tests(tests, setup, lab_teardown);
}

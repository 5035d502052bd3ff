// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_agent_job.c - agent/job.c end to end on a veth pair: a quickstart-like job (drop
 * variant, 1 s warmup, 1 s windows) gives exactly the listed metrics in the right windows
 * with ns_per_run > 0, and the load figures (all of them with `verifier: stats`, then
 * without windows when only they are listed); refusals (sha256, verifier, generator, port) are failed results
 * that leave nothing attached, and so is a generic-mode veth receiver that the generator's
 * frames cannot reach; cancel stops a running job within a second; and a
 * bpflab-agent killed with SIGKILL mid-job leaves nothing attached. Needs root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <pthread.h>
#include <sys/stat.h>

#include "analysis/analysis.h"
#include "job.h"
#include "base/log.h"
#include "base/util.h"
#include "test_agent_lab.h"

#define AGENT_BIN BPFLAB_BUILDDIR "/bin/bpflab-agent"

static struct inventory_pair ports[2] = { { "a", "va" }, { "b", "vb" } };
static struct inventory_config inv = { .agent = "t", .ports = ports, .n_ports = 2 };

static int setup(void **state)
{
	return lab_setup_bpf(&lab, "job");
}

static const char quickstart[] =
	"{\"job\": {\"id\": 7, \"run\": 1, \"spec\": {"
	" \"plan\": \"quickstart\", \"variant\": \"drop\", \"rep\": 1, \"point\": {},"
	" \"ports\": [\"a\", \"b\"],"
	" \"traffic\": {\"generator\": \"xdp-live\", \"from\": \"a\","
	"   \"packet\": {\"size\": 64, \"proto\": \"udp4\", \"flows\": 1},"
	"   \"threads\": 1, \"duration_ms\": 1000, \"warmup_ms\": 1000},"
	" \"attach\": [{\"port\": \"b\", \"hook\": \"xdp\", \"mode\": \"native\","
	"   \"object\": \"xdp_basic.bpf.o\", \"program\": \"xdp_drop\"}],"
	" \"metrics\": [\"port.rx_pps\", \"port.tx_pps\", \"port.drop_pps\", \"prog.ns_per_run\"]"
	"}}}";

/* A job message of a test (helpers.h). */
static json_t *load(const char *text)
{
	return json_of(text);
}

struct progress_log {
	char phases[64][16];
	int n;
};

static void on_progress(void *ctx, const json_t *msg)
{
	struct progress_log *p = ctx;

	assert_string_equal(json_string_value(json_object_get(msg, "type")), "progress");
	assert_int_equal(json_integer_value(json_object_get(msg, "job")), 7);
	if (p->n < 64)
		snprintf(p->phases[p->n++], 16, "%s",
			 json_string_value(json_object_get(msg, "phase")));
}

static json_t *run(json_t *msg, struct progress_log *plog, atomic_int *cancel)
{
	struct job_opts o = {
		.inv = &inv,
		.bpf_dir = BPF_DIR,
		.progress = plog ? on_progress : NULL,
		.progress_ctx = plog,
		.cancel = cancel,
	};
	json_t *r = job_run(msg, &o);

	assert_non_null(r);
	return r;
}

/* The sample of METRIC/SUBJECT/WINDOW/SEQ (-1: null), or NULL. */
static json_t *find(json_t *samples, const char *metric, const char *subject,
		    const char *window, int seq)
{
	size_t i;
	json_t *s;

	json_array_foreach(samples, i, s) {
		json_t *q = json_object_get(s, "seq");

		if (strcmp(json_string_value(json_object_get(s, "metric")), metric) ||
		    strcmp(json_string_value(json_object_get(s, "subject")), subject) ||
		    strcmp(json_string_value(json_object_get(s, "window")), window))
			continue;
		if ((seq < 0 && json_is_null(q)) || (seq >= 0 && json_integer_value(q) == seq))
			return s;
	}
	return NULL;
}

static double value(json_t *s)
{
	assert_non_null(s);
	return json_real_value(json_object_get(s, "value"));
}

static void test_job_quickstart(void **state)
{
	static const char *const port_metrics[] = { "port.rx_pps", "port.tx_pps", "port.drop_pps" };
	struct progress_log plog = { .n = 0 };
	json_t *msg, *r, *samples;
	size_t i, j;

	SKIP_UNLESS_LAB();
	msg = load(quickstart);
	r = run(msg, &plog, NULL);
	if (strcmp(json_string_value(json_object_get(r, "status")), "ok"))
		fail_msg("job failed: %s", json_string_value(json_object_get(r, "error")));
	assert_string_equal(json_string_value(json_object_get(r, "type")), "result");
	assert_int_equal(json_integer_value(json_object_get(r, "job")), 7);
	assert_null(json_object_get(r, "error"));
	assert_true(json_is_object(json_object_get(json_object_get(r, "env"), "kernel")));
	/* full speed: no paced generator ran, so no scheduling class of one (genboost.h) */
	assert_null(json_object_get(json_object_get(r, "env"), "gen_sched"));
	assert_true(json_integer_value(json_object_get(r, "finished_ms")) -
		    json_integer_value(json_object_get(r, "started_ms")) >= 3000);
	samples = json_object_get(r, "samples");
	/* 3 port metrics x 2 ports x (1 second + whole) + ns_per_run x (1 + whole), and the
	 * job's records: a median per series, what others took of the measured CPU in each
	 * window, the CPU that served the receive softirq */
	size_t nic = 0;

	for (i = 0, j = 0; i < json_array_size(samples); i++) {
		const char *m = json_string_value(json_object_get(json_array_get(samples, i),
								  "metric"));

		j += !analysis_is_record(m);
		nic += !strncmp(m, "nic.", 4);
	}
	assert_int_equal(j, 3 * 2 * 2 + 2);
	/* and the ports' driver counters that moved (nic.*, records of the rate window) */
	assert_int_equal(json_array_size(samples) - nic, 3 * 2 * 2 + 2 + 3 * 2 + 1 + 2 + 1);
	assert_non_null(find(samples, "nic.rx_queue_0_xdp_drops", "b", "rate", -1));
	assert_near(value(find(samples, "nic.rx_queue_0_xdp_drops", "b", "rate", -1)),
		    value(find(samples, "port.rx_pps", "b", "rate", -1)),
		    0.02 * value(find(samples, "port.rx_pps", "b", "rate", -1)));
	assert_string_equal(json_string_value(json_object_get(
		find(samples, "nic.rx_queue_0_xdp_bytes", "b", "rate", -1), "unit")), "Bps");
	assert_null(find(samples, "nic.peer_ifindex", "b", "rate", -1));
	assert_non_null(find(samples, "port.rx_pps.median", "b", "rate", -1));
	assert_non_null(find(samples, "prog.ns_per_run.median", "xdp_drop", "cost", -1));
	assert_non_null(find(samples, "rx.cpu", "b", "rate", -1));
	for (i = 0; i < ARRAY_SIZE(port_metrics); i++) {
		for (j = 0; j < 2; j++) {
			const char *role = j ? "b" : "a";

			assert_non_null(find(samples, port_metrics[i], role, "rate", 0));
			assert_non_null(find(samples, port_metrics[i], role, "rate", -1));
			assert_string_equal(json_string_value(json_object_get(
				find(samples, port_metrics[i], role, "rate", -1), "unit")), "pps");
		}
	}
	fprintf(stderr, "  job: b rx %.0f pps, a tx %.0f pps, xdp_drop %.1f ns/run\n",
		value(find(samples, "port.rx_pps", "b", "rate", -1)),
		value(find(samples, "port.tx_pps", "a", "rate", -1)),
		value(find(samples, "prog.ns_per_run", "xdp_drop", "cost", -1)));
	assert_true(value(find(samples, "port.rx_pps", "b", "rate", -1)) > 100000);
	assert_true(value(find(samples, "port.tx_pps", "a", "rate", -1)) > 100000);
	assert_true(value(find(samples, "prog.ns_per_run", "xdp_drop", "cost", 0)) > 0);
	assert_true(value(find(samples, "prog.ns_per_run", "xdp_drop", "cost", -1)) > 0);
	assert_string_equal(json_string_value(json_object_get(
		find(samples, "prog.ns_per_run", "xdp_drop", "cost", -1), "unit")), "ns");
	/* not listed, not emitted */
	assert_null(find(samples, "gen.tx_pps", "a", "rate", -1));
	assert_null(find(samples, "prog.run_pps", "xdp_drop", "cost", -1));
	/* progress: prepare, warmup 1/1, rate 1/1, cost 1/1, cleanup */
	assert_int_equal(plog.n, 5);
	assert_string_equal(plog.phases[0], "prepare");
	assert_string_equal(plog.phases[1], "warmup");
	assert_string_equal(plog.phases[2], "rate");
	assert_string_equal(plog.phases[3], "cost");
	assert_string_equal(plog.phases[4], "cleanup");
	assert_nothing_attached();
	json_decref(r);
	json_decref(msg);
}

static void test_job_all_metrics(void **state)
{
	json_t *msg, *r, *samples, *spec;

	SKIP_UNLESS_LAB();
	msg = load(quickstart);
	spec = json_object_get(json_object_get(msg, "job"), "spec");
	json_object_del(spec, "metrics");
	json_object_set_new(json_object_get(spec, "traffic"), "warmup_ms", json_integer(0));
	json_object_set_new(json_object_get(spec, "traffic"), "duration_ms", json_integer(1500));
	r = run(msg, NULL, NULL);
	assert_string_equal(json_string_value(json_object_get(r, "status")), "ok");
	samples = json_object_get(r, "samples");
	/* 1.5 s: seconds 0 and 1 (the second one half long), and the whole window */
	assert_non_null(find(samples, "gen.tx_pps", "a", "rate", 0));
	assert_non_null(find(samples, "gen.tx_pps", "a", "rate", 1));
	assert_null(find(samples, "gen.tx_pps", "a", "rate", 2));
	assert_true(value(find(samples, "gen.tx_pps", "a", "rate", -1)) > 100000);
	assert_true(value(find(samples, "prog.run_pps", "xdp_drop", "cost", -1)) > 100000);
	/* what the load cost, once for the whole job */
	assert_true(value(find(samples, "verifier.insns", "xdp_drop", "cost", -1)) > 0);
	assert_true(value(find(samples, "prog.jited_bytes", "xdp_drop", "cost", -1)) > 0);
	assert_true(value(find(samples, "prog.xlated_insns", "xdp_drop", "cost", -1)) > 0);
	assert_null(find(samples, "verifier.processed_insns", "xdp_drop", "cost", -1));
	json_decref(r);
	json_decref(msg);
}

/* `verifier: stats` with only load figures listed: no windows (the job ends long before
 * its duration), every load figure, the log's processed insns the verified insns. */
static void test_job_verifier_stats(void **state)
{
	json_t *msg, *r, *samples, *spec;
	long long took;

	SKIP_UNLESS_LAB();
	msg = load(quickstart);
	spec = json_object_get(json_object_get(msg, "job"), "spec");
	json_object_set_new(spec, "metrics", json_pack("[s]", "verifier.insns"));
	json_object_set_new(spec, "verifier", json_string("stats"));
	json_object_set_new(json_object_get(spec, "traffic"), "generator", json_string("none"));
	json_object_set_new(json_object_get(spec, "traffic"), "warmup_ms", json_integer(0));
	json_object_set_new(json_object_get(spec, "traffic"), "duration_ms", json_integer(3000));
	r = run(msg, NULL, NULL);
	if (strcmp(json_string_value(json_object_get(r, "status")), "ok"))
		fail_msg("job failed: %s", json_string_value(json_object_get(r, "error")));
	took = json_integer_value(json_object_get(r, "finished_ms")) -
	       json_integer_value(json_object_get(r, "started_ms"));
	assert_true(took < 3000);
	samples = json_object_get(r, "samples");
	assert_null(find(samples, "port.rx_pps", "b", "rate", -1));
	assert_null(find(samples, "prog.ns_per_run", "xdp_drop", "cost", -1));
	assert_true(value(find(samples, "verifier.insns", "xdp_drop", "cost", -1)) > 0);
	assert_true(value(find(samples, "verifier.processed_insns", "xdp_drop", "cost", -1)) ==
		    value(find(samples, "verifier.insns", "xdp_drop", "cost", -1)));
	assert_non_null(find(samples, "verifier.total_states", "xdp_drop", "cost", -1));
	assert_non_null(find(samples, "verifier.peak_states", "xdp_drop", "cost", -1));
	assert_non_null(find(samples, "verifier.time_us", "xdp_drop", "cost", -1));
	assert_true(value(find(samples, "prog.jited_bytes", "xdp_drop", "cost", -1)) > 0);
	json_decref(r);
	json_decref(msg);
}

static void expect_failure(json_t *msg, const char *error)
{
	json_t *r = run(msg, NULL, NULL);
	const char *e = json_string_value(json_object_get(r, "error"));

	assert_string_equal(json_string_value(json_object_get(r, "status")), "failed");
	if (!e || !strstr(e, error))
		fail_msg("error '%s' lacks '%s'", e ? e : "(none)", error);
	assert_true(json_is_array(json_object_get(r, "samples")));
	assert_nothing_attached();
	json_decref(r);
}

static json_t *spec_of(json_t *msg)
{
	return json_object_get(json_object_get(msg, "job"), "spec");
}

static void test_job_refusals(void **state)
{
	json_t *msg, *entry;

	SKIP_UNLESS_LAB();
	msg = load(quickstart);
	entry = json_array_get(json_object_get(spec_of(msg), "attach"), 0);
	json_object_set_new(entry, "sha256", json_string("ab"));
	expect_failure(msg, "the job wants ab");
	json_decref(msg);

	msg = load(quickstart);
	json_object_set_new(json_object_get(spec_of(msg), "traffic"), "generator",
			    json_string("pktgen"));
	/* this machine's kernel has no pktgen module */
	expect_failure(msg, "generator 'pktgen' needs the pktgen module (/proc/net/pktgen is missing)");
	json_decref(msg);

	msg = load(quickstart);
	json_array_append_new(json_object_get(spec_of(msg), "ports"), json_string("c"));
	expect_failure(msg, "port role 'c' is not mapped on this agent");
	json_decref(msg);

	msg = load(quickstart);
	json_object_set_new(json_object_get(spec_of(msg), "traffic"), "duration_ms",
			    json_integer(0));
	expect_failure(msg, "traffic.duration_ms 0 is out of range");
	json_decref(msg);

	msg = load(quickstart);
	json_object_set_new(json_object_get(json_object_get(spec_of(msg), "traffic"), "packet"),
			    "size", json_integer(20));
	expect_failure(msg, "packet size 20 is out of range");
	json_decref(msg);

	msg = load("{\"job\": {\"id\": 8}}");
	expect_failure(msg, "job message has no spec");
	json_decref(msg);
}

static void test_job_verifier_log(void **state)
{
	json_t *msg, *entry, *r;
	const char *log;

	SKIP_UNLESS_LAB();
	msg = load(quickstart);
	entry = json_array_get(json_object_get(spec_of(msg), "attach"), 0);
	json_object_set_new(entry, "object", json_string("test_agent.bpf.o"));
	json_object_set_new(entry, "program", json_string("xdp_bad"));
	r = run(msg, NULL, NULL);
	assert_string_equal(json_string_value(json_object_get(r, "status")), "failed");
	assert_non_null(strstr(json_string_value(json_object_get(r, "error")),
			       "cannot load program 'xdp_bad'"));
	log = json_string_value(json_object_get(r, "verifier_log"));
	assert_non_null(log);
	assert_non_null(strstr(log, "invalid access to packet"));
	assert_nothing_attached();
	json_decref(r);
	json_decref(msg);
}

/* Generic XDP on a veth peer: live frames die in veth_xdp_xmit without a counter; the
 * job says so instead of reporting frames that went nowhere. */
static void test_job_veth_generic_refused(void **state)
{
	json_t *msg, *entry;

	SKIP_UNLESS_LAB();
	msg = load(quickstart);
	entry = json_array_get(json_object_get(spec_of(msg), "attach"), 0);
	json_object_set_new(entry, "mode", json_string("generic"));
	json_object_set_new(json_object_get(spec_of(msg), "traffic"), "warmup_ms",
			    json_integer(0));
	expect_failure(msg, "the veth peer needs a native XDP program or GRO on");
	json_decref(msg);
}

struct bg_job {
	json_t *msg;
	json_t *result;
	atomic_int cancel;
};

static void *bg_run(void *arg)
{
	struct bg_job *b = arg;
	struct job_opts o = {
		.inv = &inv,
		.bpf_dir = BPF_DIR,
		.cancel = &b->cancel,
	};

	b->result = job_run(b->msg, &o);
	return NULL;
}

static void test_job_cancel(void **state)
{
	struct bg_job b;
	pthread_t t;
	int64_t t0;
	json_t *samples;

	SKIP_UNLESS_LAB();
	memset(&b, 0, sizeof(b));
	b.msg = load(quickstart);
	json_object_set_new(json_object_get(spec_of(b.msg), "traffic"), "duration_ms",
			    json_integer(20000));
	json_object_set_new(json_object_get(spec_of(b.msg), "traffic"), "warmup_ms",
			    json_integer(0));
	assert_int_equal(pthread_create(&t, NULL, bg_run, &b), 0);
	usleep(4000 * 1000);		/* two whole seconds of the rate window, with
					 * room for a slow prepare on a loaded machine */
	t0 = util_mono_ms();
	atomic_store(&b.cancel, 1);
	pthread_join(t, NULL);
	t0 = util_mono_ms() - t0;
	assert_true(t0 < 3000);		/* far below the job's 20 s */
	assert_non_null(b.result);
	assert_string_equal(json_string_value(json_object_get(b.result, "status")), "failed");
	assert_string_equal(json_string_value(json_object_get(b.result, "error")), "cancelled");
	samples = json_object_get(b.result, "samples");
	/* what was measured is kept: seconds 0 and 1, no whole-window value */
	assert_non_null(find(samples, "port.rx_pps", "b", "rate", 0));
	assert_non_null(find(samples, "port.rx_pps", "b", "rate", 1));
	assert_null(find(samples, "port.rx_pps", "b", "rate", -1));
	assert_nothing_attached();
	json_decref(b.result);
	json_decref(b.msg);
}

/* A bpflab-agent SIGKILLed while its program is attached leaves nothing behind: the
 * links die with the process's file descriptors. */
static void test_job_sigkill_leaves_nothing(void **state)
{
	char path[] = "/tmp/bpflab-t-agent-job-XXXXXX.json";
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	struct stat st;
	json_t *msg;
	pid_t pid;
	int fd, i, status;
	__u32 prog_id = 0;

	SKIP_UNLESS_LAB();
	if (stat(AGENT_BIN, &st))
		skip_because("%s not built", AGENT_BIN);
	msg = load(quickstart);
	json_object_set_new(json_object_get(spec_of(msg), "traffic"), "duration_ms",
			    json_integer(30000));
	fd = mkstemps(path, 5);
	assert_true(fd >= 0);
	assert_int_equal(json_dumpfd(msg, fd, 0), 0);
	close(fd);
	json_decref(msg);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execl(AGENT_BIN, AGENT_BIN, "--once", path, "--port", "a=va", "--port", "b=vb",
		      "--bpf-dir", BPF_DIR, (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 100 && !prog_id; i++) {	/* up to 5 s for the attach */
		usleep(50 * 1000);
		assert_int_equal(bpf_xdp_query(lab.ifb, 0, &q), 0);
		prog_id = q.prog_id;
	}
	assert_int_not_equal(prog_id, 0);
	usleep(1500 * 1000);			/* well into the job, traffic running */
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	for (i = 0; i < 40; i++) {		/* link release is immediate; allow 2 s */
		assert_int_equal(bpf_xdp_query(lab.ifb, 0, &q), 0);
		if (!q.prog_id)
			break;
		usleep(50 * 1000);
	}
	assert_nothing_attached();
	fd = bpf_prog_get_fd_by_id(prog_id);	/* the program itself is gone too */
	if (fd >= 0)
		close(fd);
	assert_true(fd < 0);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_job_quickstart),
		cmocka_unit_test(test_job_all_metrics),
		cmocka_unit_test(test_job_verifier_stats),
		cmocka_unit_test(test_job_refusals),
		cmocka_unit_test(test_job_verifier_log),
		cmocka_unit_test(test_job_veth_generic_refused),
		cmocka_unit_test(test_job_cancel),
		cmocka_unit_test(test_job_sigkill_leaves_nothing),
	};

	return cmocka_run_group_tests(tests, setup, lab_teardown);
}

/* agent_result.c - the agent's CPU per result: what bpflab-agent spends on a job's result
 * from the first sample its windows add to the result's bytes handed to the socket,
 * without the measuring itself (the windows' waits and counter reads).
 *
 * Per result, in one thread, timed with CLOCK_THREAD_CPUTIME_ID:
 *   build    the samples of a job of SECONDS-second rate and cost windows, SERIES
 *            per-second series (port, gen, cpu and prog metrics) plus each one's whole
 *            window, added through the agent's own job_add_sample (agent/job_sample.c),
 *            then the per-window medians and outliers (job_window_robust);
 *   deliver  the result made from them with a 2 KB env, handed from the worker to the
 *            loop over an inproc PAIR, written to the spool (a temporary folder, fsync'd,
 *            agent/spool.c) and sent on a DEALER; the spool file dropped (as on `ack`).
 * The steps of agent/agent.c's worker and loop are static there, so "deliver" is written
 * here twice, as the tree it is built in does it: before the one result type (a jansson
 * value per sample, encoded to the pipe, parsed by the loop, encoded again by the spool
 * and by the send) and after (struct job_result encoded once; the spool and the socket
 * get those bytes). A tree with samples_add (lib/proto/samples.h) is "after".
 *
 * Prints figures; asserts nothing. Usage:
 *   build/bench/agent_result [--results R] [--seconds D] [--series S]
 */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "job_int.h"
#include "spool.h"
#include "proto/proto.h"
#include "proto/samples.h"

#ifdef SAMPLE_NAME_MAX
#define AFTER 1
#else
#define AFTER 0
#endif

static const char env_text[] =
	"{\"agent\":\"h1\",\"hostname\":\"h1\",\"kernel\":{\"release\":\"6.18.44\",\"version\":"
	"\"#1 SMP PREEMPT_DYNAMIC\",\"cmdline\":\"console=ttyS0 root=/dev/vda rw quiet\","
	"\"debug_options\":[]},\"cpu\":{\"model\":\"QEMU Virtual CPU version 2.5+\",\"cpus\":2,"
	"\"governor\":null,\"smt\":false},\"ports\":[{\"role\":\"a\",\"ifname\":\"veth-a\","
	"\"driver\":\"veth\",\"mtu\":1500,\"queues\":2,\"xdp_modes\":[\"native\",\"generic\"],"
	"\"xdp_mode\":\"native\",\"tc_attach\":{\"ingress\":\"none\",\"egress\":\"none\"}},"
	"{\"role\":\"b\",\"ifname\":\"veth-b\",\"driver\":\"veth\",\"mtu\":1500,\"queues\":2,"
	"\"xdp_modes\":[\"native\",\"generic\"],\"xdp_mode\":\"none\",\"tc_attach\":"
	"{\"ingress\":\"none\",\"egress\":\"none\"}}],\"labels\":{\"rack\":\"r1\",\"lab\":\"hq\"},"
	"\"tools\":{\"clang\":\"19.1.7\",\"libbpf\":\"1.5.0\",\"bpftool\":\"7.5.0\"},"
	"\"sysctl\":{\"net.core.bpf_jit_enable\":1,\"net.core.bpf_jit_harden\":0,"
	"\"kernel.bpf_stats_enabled\":0},\"boot_id\":\"0b9e6c0e-4c1e-4a57-9d1b-2a0f3b5d7e11\","
	"\"timing\":\"real\",\"machine\":{\"id\":\"m-0001\",\"vendor\":\"QEMU\",\"product\":"
	"\"Standard PC (Q35 + ICH9, 2009)\"}}";

static const struct {
	const char *metric, *subject, *unit, *window;
} series_kinds[] = {
	{ "port.rx_pps", "b", "pps", "rate" },
	{ "port.tx_pps", "a", "pps", "rate" },
	{ "port.drop_pps", "b", "pps", "rate" },
	{ "gen.tx_pps", "a", "pps", "rate" },
	{ "cpu.busy", "cpu0", "%", "rate" },
	{ "cpu.busy", "cpu1", "%", "rate" },
	{ "cpu.softirq", "cpu0", "%", "rate" },
	{ "cpu.softirq", "cpu1", "%", "rate" },
	{ "counter.pps", "xdp_fwd/pass", "pps", "rate" },
	{ "port.rx_pps", "a", "pps", "rate" },
	{ "prog.ns_per_run", "xdp_fwd", "ns", "cost" },
	{ "prog.run_pps", "xdp_fwd", "pps", "cost" },
};
#define N_KINDS (sizeof(series_kinds) / sizeof(series_kinds[0]))

static double cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* The samples of one job into C, as its windows add them. */
static void build(struct job_ctx *c, int seconds, int n_series, unsigned *seed)
{
	int s, d;

	for (s = 0; s < n_series; s++) {
		const char *w = series_kinds[s % N_KINDS].window;
		char subject[64];
		double sum = 0;

		snprintf(subject, sizeof(subject), "%s%s", series_kinds[s % N_KINDS].subject,
			 s < (int)N_KINDS ? "" : "x");
		for (d = 0; d < seconds; d++) {
			/* one second in twenty far off: outliers to mark */
			double v = 1e6 + (rand_r(seed) % 1000) * (rand_r(seed) % 20 ? 1 : 300);

			sum += v;
			job_add_sample(c, series_kinds[s % N_KINDS].metric, subject, v,
				       series_kinds[s % N_KINDS].unit, w, d);
		}
		job_add_sample(c, series_kinds[s % N_KINDS].metric, subject, sum / seconds,
			       series_kinds[s % N_KINDS].unit, w, -1);
	}
	job_window_robust(c, "rate");
	job_window_robust(c, "cost");
}

#if AFTER
/* The loop's part: the result encoded once, spooled, sent. */
static size_t deliver(struct job_ctx *c, json_t *env, long long job, void *pipe_w,
		      void *pipe_m, struct spool *spool, void *dealer)
{
	struct job_result res = { 0 };
	char id[32], byte, *text;
	size_t len, n;

	/* the worker's end: the struct as job_run_result leaves it, then "R" */
	res.id = json_integer(job);
	res.env = json_incref(env);
	res.r.job = job;
	res.r.env = env;
	res.r.has_started = res.r.has_finished = true;
	res.r.started_ms = 1000;
	res.r.finished_ms = 21000;
	res.r.samples = c->samples;
	memset(&c->samples, 0, sizeof(c->samples));
	zmq_send(pipe_w, "R", 1, 0);
	/* the loop's end */
	zmq_recv(pipe_m, &byte, 1, 0);
	snprintf(id, sizeof(id), "%lld", job);
	text = job_result_encode(&res, &len);
	if (spool_put(spool, id, text, len))
		fprintf(stderr, "agent_result: spool_put failed\n");
	zmq_send(dealer, text, len, ZMQ_DONTWAIT);
	free(text);
	n = res.r.samples.n;
	job_result_release(&res);
	spool_drop(spool, id);
	return n;
}
#else
static size_t deliver(struct job_ctx *c, json_t *env, long long job, void *pipe_w,
		      void *pipe_m, struct spool *spool, void *dealer)
{
	json_t *result = proto_msg_new("result"), *msg;
	struct err why;
	char id[32], *text;
	size_t len, n;

	/* the worker's end: job_run's message, proto_encode'd onto the pipe */
	json_object_set_new(result, "job", json_integer(job));
	json_object_set_new(result, "env", json_deep_copy(env));
	json_object_set_new(result, "status", json_string("ok"));
	json_object_set_new(result, "started_ms", json_integer(1000));
	json_object_set_new(result, "finished_ms", json_integer(21000));
	json_object_set_new(result, "samples", c->samples);
	c->samples = NULL;
	text = proto_encode(result, &len);
	zmq_send(pipe_w, text, len, 0);
	free(text);
	json_decref(result);
	/* the loop's end: parsed, looked at, spooled (encoded), sent (encoded) */
	proto_recv(pipe_m, &msg, 0, &why);
	snprintf(id, sizeof(id), "%lld", job);
	if (!json_object_get(msg, "job") || !jget_str(msg, "status", NULL))
		fprintf(stderr, "agent_result: bad result\n");
	n = json_array_size(json_object_get(msg, "samples"));
	if (spool_put(spool, id, msg))
		fprintf(stderr, "agent_result: spool_put failed\n");
	proto_send(dealer, msg, ZMQ_DONTWAIT);
	json_decref(msg);
	spool_drop(spool, id);
	return n;
}
#endif

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "results", required_argument, NULL, 'r' },
		{ "seconds", required_argument, NULL, 'd' },
		{ "series", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	int results = 2000, seconds = 10, n_series = 12, opt, i;
	char dir[] = "/tmp/bench-agent-result.XXXXXX", ep[64], sink_buf[1 << 16];
	double t0, t_build = 0, t_deliver = 0;
	void *zctx, *pipe_w, *pipe_m, *dealer, *sink;
	struct job_opts jo = { 0 };
	size_t samples = 0;
	unsigned seed = 1;
	struct spool *spool;
	json_error_t jerr;
	json_t *env;

	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'r': results = atoi(optarg); break;
		case 'd': seconds = atoi(optarg); break;
		case 's': n_series = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: agent_result [--results R] [--seconds D] "
				"[--series S]\n");
			return 2;
		}
	}
	if (results < 1 || seconds < 1 || n_series < 1) {
		fprintf(stderr, "agent_result: bad --results, --seconds or --series\n");
		return 2;
	}
	env = json_loads(env_text, 0, &jerr);
	if (!env || !mkdtemp(dir) || !(spool = spool_new(dir))) {
		fprintf(stderr, "agent_result: cannot set up\n");
		return 1;
	}
	zctx = zmq_ctx_new();
	pipe_m = zmq_socket(zctx, ZMQ_PAIR);
	pipe_w = zmq_socket(zctx, ZMQ_PAIR);
	sink = zmq_socket(zctx, ZMQ_ROUTER);
	dealer = zmq_socket(zctx, ZMQ_DEALER);
	snprintf(ep, sizeof(ep), "inproc://bench-agent-result");
	zmq_bind(pipe_m, "inproc://bench-pipe");
	zmq_connect(pipe_w, "inproc://bench-pipe");
	zmq_bind(sink, ep);
	zmq_connect(dealer, ep);
	for (i = 0; i < results; i++) {
		struct job_ctx ctx;

		memset(&ctx, 0, sizeof(ctx));
		ctx.opts = &jo;
		jobspec_init(&ctx.spec);
#if !AFTER
		ctx.samples = json_array();
#endif
		t0 = cpu_us();
		build(&ctx, seconds, n_series, &seed);
		t_build += cpu_us() - t0;
		t0 = cpu_us();
		samples += deliver(&ctx, env, i + 1, pipe_w, pipe_m, spool, dealer);
		t_deliver += cpu_us() - t0;
		jobspec_release(&ctx.spec);
		/* the coordinator's end, not timed: drop what arrived */
		while (zmq_recv(sink, sink_buf, sizeof(sink_buf), ZMQ_DONTWAIT) >= 0)
			;
	}
	printf("agent result path (%s the one result type): %d results of %zu samples "
	       "(%d series x %d s + medians), CPU a result %.1f us (build %.1f, deliver %.1f), "
	       "%.3f us a sample\n", AFTER ? "with" : "before", results, samples / results,
	       n_series, seconds, (t_build + t_deliver) / results, t_build / results,
	       t_deliver / results, (t_build + t_deliver) / samples);
	zmq_close(pipe_m);
	zmq_close(pipe_w);
	zmq_close(sink);
	zmq_close(dealer);
	zmq_ctx_term(zctx);
	spool_destroy(&spool);
	rmdir(dir);
	json_decref(env);
	return 0;
}

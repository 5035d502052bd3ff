// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* pacing.c - how evenly bpflab's paced generators space their frames, measured where the
 * frames arrive: the asked rate against the rate and bursts a receiver sees.
 *
 * In a network namespace of its own (it goes away with the process) the bench makes a
 * veth pair bpa/bpb with bpf/gap_rx.bpf.o on bpb (native XDP: a histogram of the gaps
 * between arriving frames and the largest burst, frames less than half a target gap
 * apart). For each generator (xdp-live: agent/xdpgen.c; udp: agent/udpgen.c, both through
 * their gen_ops) and each asked rate it runs the generator with traffic.burst BURST (0:
 * auto, gen.h) on CPU C, lets it warm up for 0.3 s, then measures for S seconds: the
 * rate the receiver saw (frames over the time from the first to the last), its largest
 * burst, the 10th, 50th and 90th percentile of the gaps, and the generator's own largest
 * burst and shortfall (gen_ops.pace_stats). Last, the ceiling: xdp-live unpaced, one
 * call running until stopped, which is the bare BPF_PROG_TEST_RUN live-frames loop
 * (bench/generator.c: the two are within 1 % of each other).
 *
 * With --calls, instead: the time of one paced xdp-live call (BPF_PROG_TEST_RUN with
 * BPF_F_TEST_XDP_LIVE_FRAMES, the program held in the dispatcher, agent/xdphold.h) for
 * repeat 1, 4, 16, 64 and 256: mean, 50th, 99th percentile and largest, over S seconds
 * each (the pacing's interval must be well above it, gen.h), in the class the agent's
 * paced generator runs in (SCHED_FIFO, agent/genboost.h), one call every
 * GEN_PACE_INTERVAL_NS as a paced thread makes them.
 *
 *   build/bench/pacing [--seconds S] [--cpu C] [--burst B] [--rates R,R,..]
 *                      [--gens xdp-live,udp] [--bpf DIR] [--calls] [-v]
 *
 * Needs root. Not a test: it prints figures (bench/README.md, "pacing").
 */
#include <errno.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "gen.h"
#include "genboost.h"
#include "gap_shared.h"
#include "xdpgen.h"
#include "ifstats.h"
#include "base/log.h"
#include "base/util.h"

#define FRAME_SIZE 64
#define MAX_RATES 16

extern const struct gen_ops xdpgen_ops, udpgen_ops;

struct rx {
	struct bpf_object *obj;
	int config_fd, hist_fd, stats_fd, n_cpus;
};

struct figures {
	double rate, p10, p50, p90;	/* frames/s; gap percentiles, ns */
	uint64_t burst_max, frames;
	struct gen_pace_stats gen;
};

static int sh(const char *cmd)
{
	int rc = system(cmd);

	if (rc)
		fprintf(stderr, "pacing: '%s' failed (%d)\n", cmd, rc);
	return rc ? -EIO : 0;
}

/* Zero the receiver's per-CPU maps and set its target gap for RATE (0: 1 ns). */
static int rx_reset(struct rx *rx, uint64_t rate)
{
	size_t size = (size_t)rx->n_cpus * sizeof(struct gap_stats);
	uint64_t gap = rate ? 1000000000ULL / rate : 1;
	void *zero = calloc(1, size);
	uint32_t k = 0;
	int err;

	if (!zero)
		return -ENOMEM;
	err = bpf_map_update_elem(rx->config_fd, &k, &gap, 0) ?:
	      bpf_map_update_elem(rx->stats_fd, &k, zero, 0);
	for (k = 0; !err && k < GAP_BUCKETS; k++)
		err = bpf_map_update_elem(rx->hist_fd, &k, zero, 0);
	free(zero);
	return err;
}

static int rx_read(struct rx *rx, struct figures *f)
{
	struct gap_stats *st = calloc((size_t)rx->n_cpus, sizeof(*st)), sum = { 0 };
	uint64_t *v = calloc((size_t)rx->n_cpus, sizeof(*v));
	__u64 hist[GAP_BUCKETS] = { 0 };
	uint32_t k = 0;
	int err, c;

	if (!st || !v) {
		err = -ENOMEM;
		goto out;
	}
	err = bpf_map_lookup_elem(rx->stats_fd, &k, st);
	for (c = 0; !err && c < rx->n_cpus; c++) {
		if (!st[c].frames)
			continue;
		if (!sum.frames || st[c].first_ns < sum.first_ns)
			sum.first_ns = st[c].first_ns;
		if (st[c].last_ns > sum.last_ns)
			sum.last_ns = st[c].last_ns;
		if (st[c].burst_max > sum.burst_max)
			sum.burst_max = st[c].burst_max;
		sum.frames += st[c].frames;
	}
	for (k = 0; !err && k < GAP_BUCKETS; k++) {
		err = bpf_map_lookup_elem(rx->hist_fd, &k, v);
		for (c = 0; !err && c < rx->n_cpus; c++)
			hist[k] += v[c];
	}
	if (err)
		goto out;
	f->frames = sum.frames;
	f->burst_max = sum.burst_max;
	f->rate = sum.last_ns > sum.first_ns ?
		  (double)(sum.frames - 1) / ((double)(sum.last_ns - sum.first_ns) / 1e9) : 0;
	f->p10 = gap_percentile(hist, 0.10);
	f->p50 = gap_percentile(hist, 0.50);
	f->p90 = gap_percentile(hist, 0.90);
out:
	free(st);
	free(v);
	return err;
}

/* Run OPS at RATE (0: unpaced) with BURST for a warm-up and SECONDS; figures into *F. */
static int run_one(const struct gen_ops *ops, const struct gen_config *base, struct rx *rx,
		   uint64_t rate, int burst, double seconds, struct figures *f)
{
	struct gen_config cfg = *base;
	struct timespec warm = { 0, 300000000 }, ts;
	struct err msg = { 0 };
	void *gen;
	int err;

	cfg.rate_pps = rate;
	cfg.burst = burst;
	memset(f, 0, sizeof(*f));
	gen = ops->new(&cfg, &msg);
	if (!gen) {
		fprintf(stderr, "pacing: %s: %s\n", ops->name, msg.msg);
		return -errno;
	}
	err = ops->start(gen, &msg);
	if (!err) {
		nanosleep(&warm, NULL);
		err = rx_reset(rx, rate);
		ts.tv_sec = (time_t)seconds;
		ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
		nanosleep(&ts, NULL);
		err = err ?: rx_read(rx, f);
		if (ops->pace_stats)
			ops->pace_stats(gen, &f->gen);
		err = ops->stop(gen, &msg) ?: err;
	}
	if (err)
		fprintf(stderr, "pacing: %s at %llu/s: %s\n", ops->name, (unsigned long long)rate,
			msg.msg[0] ? msg.msg : strerror(-err));
	ops->destroy(gen);
	return err;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* --calls: time paced xdp-live calls of each repeat count for SECONDS each. */
static int call_costs(const struct gen_config *base, double seconds)
{
	static const uint32_t repeats[] = { 1, 4, 16, 64, 256 };
	enum { MAX_CALLS = 1 << 20 };
	struct xdpgen_config xc;
	struct xdpgen *gen;
	uint64_t *t = calloc(MAX_CALLS, sizeof(*t));
	uint8_t frame[FRAME_SIZE];
	struct err msg = { 0 };
	bool boosted;
	size_t r;

	xdpgen_config_of(base, &xc);
	xc.rate_pps = 1;		/* paced: the program held in the dispatcher */
	gen = xdpgen_new(&xc, &msg);
	if (!gen || !t) {
		fprintf(stderr, "pacing: xdp-live: %s\n", msg.msg);
		free(t);
		return -1;
	}
	xdpgen_build_frame(&xc, 1024, frame, sizeof(frame));
	/* as the agent's paced generator runs (genboost.h): without it the tail is mostly
	 * other sessions taking the CPU (bench/README.md, "pacing") */
	boosted = genboost_thread();
	printf("class %s\n", boosted ? "SCHED_FIFO (genboost)" : "fair (no CAP_SYS_NICE)");
	printf("xdp-live call (held in the dispatcher): repeat, calls, mean, p50, p99, max (us), ns a frame\n");
	for (r = 0; r < sizeof(repeats) / sizeof(repeats[0]); r++) {
		struct xdp_md ctx = { .data_end = FRAME_SIZE, .ingress_ifindex = base->ifindex };
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame,
			    .data_size_in = FRAME_SIZE, .ctx_in = &ctx, .ctx_size_in = sizeof(ctx),
			    .repeat = repeats[r], .flags = BPF_F_TEST_XDP_LIVE_FRAMES);
		int64_t end = util_mono_ns() + (int64_t)(seconds * 1e9), t0;
		double sum = 0;
		size_t n = 0;

		while (n < MAX_CALLS && (t0 = util_mono_ns()) < end) {
			if (bpf_prog_test_run_opts(xdpgen_prog_fd(gen), &opts)) {
				fprintf(stderr, "pacing: test run: %s\n", strerror(errno));
				break;
			}
			t[n] = (uint64_t)(util_mono_ns() - t0);
			sum += (double)t[n++];
			/* the next call an interval after this one began, as paced */
			if ((int64_t)t[n - 1] < GEN_PACE_INTERVAL_NS)
				usleep((useconds_t)((GEN_PACE_INTERVAL_NS - (int64_t)t[n - 1]) / 1000));
		}
		if (!n)
			break;
		qsort(t, n, sizeof(*t), cmp_u64);
		printf("%6u %8zu %8.1f %8.1f %8.1f %8.1f %8.1f\n", repeats[r], n, sum / n / 1e3,
		       (double)t[n / 2] / 1e3, (double)t[n * 99 / 100] / 1e3,
		       (double)t[n - 1] / 1e3, sum / n / repeats[r]);
	}
	if (boosted)
		genboost_thread_off();
	xdpgen_destroy(&gen);
	free(t);
	return 0;
}

static void print_row(const char *name, uint64_t rate, const struct figures *f)
{
	char asked[32];

	if (rate)
		snprintf(asked, sizeof(asked), "%llu", (unsigned long long)rate);
	else
		snprintf(asked, sizeof(asked), "unpaced");
	printf("%-9s %9s %11.0f %6.1f%% %9llu %8llu %10llu %8.0f %8.0f %8.0f %7llu %8.1f\n", name,
	       asked, f->rate, rate ? 100.0 * (f->rate - (double)rate) / (double)rate : 0,
	       (unsigned long long)f->burst_max, (unsigned long long)f->gen.burst,
	       (unsigned long long)f->gen.shortfall, f->p10, f->p50, f->p90,
	       (unsigned long long)f->gen.held_n, (double)f->gen.held_ns / 1e6);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const char *bpf_dir = "build/bpf", *gens = "xdp-live,udp", *rates_arg = NULL;
	uint64_t rates[MAX_RATES] = { 10000, 100000, 1000000, 5000000 };
	int n_rates = 4, cpu = 0, burst = 0, calls = 0, i, j, err, ret = 1;
	const struct gen_ops *const ops[] = { &xdpgen_ops, &udpgen_ops };
	struct ifstats_link la, lb;
	struct gen_config cfg = { .size = FRAME_SIZE, .flows = 1, .threads = 1 };
	struct ifstats *st = NULL;
	struct rx rx = { 0 };
	double seconds = 2;
	struct figures f;
	char path[512], loadavg[64] = "";
	cpu_set_t cpus;
	FILE *fp;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--cpu") && i + 1 < argc)
			cpu = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--burst") && i + 1 < argc)
			burst = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--rates") && i + 1 < argc)
			rates_arg = argv[++i];
		else if (!strcmp(argv[i], "--gens") && i + 1 < argc)
			gens = argv[++i];
		else if (!strcmp(argv[i], "--bpf") && i + 1 < argc)
			bpf_dir = argv[++i];
		else if (!strcmp(argv[i], "--calls"))
			calls = 1;
		else if (!strcmp(argv[i], "-v"))
			log_set_level(LOG_DEBUG);
		else {
			fprintf(stderr, "usage: pacing [--seconds S] [--cpu C] [--burst B] [--rates R,R,..] [--gens xdp-live,udp] [--bpf DIR] [--calls] [-v]\n");
			return 2;
		}
	}
	if (rates_arg) {
		char *copy = strdup(rates_arg), *tok, *save = NULL;

		n_rates = 0;
		for (tok = strtok_r(copy, ",", &save); tok && n_rates < MAX_RATES;
		     tok = strtok_r(NULL, ",", &save))
			rates[n_rates++] = strtoull(tok, NULL, 10);
		free(copy);
	}
	if (seconds <= 0 || seconds > 60 || burst < 0 || burst > 4096 || !n_rates) {
		fprintf(stderr, "pacing: seconds up to 60, burst 0..4096, at least one rate\n");
		return 2;
	}
	CPU_ZERO(&cpus);
	CPU_SET(cpu, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus) || unshare(CLONE_NEWNET)) {
		fprintf(stderr, "pacing: cannot run on cpu %d in a namespace of its own: %s (root?)\n",
			cpu, strerror(errno));
		return 1;
	}
	if (sh("ip link add bpa type veth peer name bpb") || sh("ip link set bpa up") ||
	    sh("ip link set bpb up"))
		goto out;
	st = ifstats_new();
	if (!st || ifstats_get(st, if_nametoindex("bpa"), &la) ||
	    ifstats_get(st, if_nametoindex("bpb"), &lb)) {
		fprintf(stderr, "pacing: cannot read the veth pair\n");
		goto out;
	}
	snprintf(path, sizeof(path), "%s/gap_rx.bpf.o", bpf_dir);
	rx.obj = bpf_object__open_file(path, NULL);
	if (!rx.obj || bpf_object__load(rx.obj)) {
		fprintf(stderr, "pacing: cannot load '%s' (--bpf DIR)\n", path);
		goto out;
	}
	rx.config_fd = bpf_object__find_map_fd_by_name(rx.obj, "config");
	rx.hist_fd = bpf_object__find_map_fd_by_name(rx.obj, "gap_hist");
	rx.stats_fd = bpf_object__find_map_fd_by_name(rx.obj, "gap_stats");
	rx.n_cpus = libbpf_num_possible_cpus();
	err = bpf_xdp_attach(lb.ifindex,
			     bpf_program__fd(bpf_object__find_program_by_name(rx.obj, "gap_rx")),
			     XDP_FLAGS_DRV_MODE, NULL);
	if (err || rx.n_cpus <= 0) {
		fprintf(stderr, "pacing: cannot attach gap_rx to bpb: %s\n", strerror(-err));
		goto out;
	}
	cfg.ifname = "bpa";
	cfg.ifindex = la.ifindex;
	cfg.cpus = &cpu;
	cfg.n_cpus = 1;
	memcpy(cfg.src_mac, la.mac, 6);
	memcpy(cfg.dst_mac, lb.mac, 6);
	if ((fp = fopen("/proc/loadavg", "r"))) {
		if (!fgets(loadavg, sizeof(loadavg), fp))
			loadavg[0] = 0;
		fclose(fp);
		loadavg[strcspn(loadavg, "\n")] = 0;
	}
	if (calls) {
		printf("%d-byte frames, cpu %d, %.1f s a repeat count; load average before: %s\n",
		       FRAME_SIZE, cpu, seconds, loadavg);
		ret = call_costs(&cfg, seconds) ? 1 : 0;
		goto out;
	}
	printf("veth pair in a private namespace, receiver gap_rx (native XDP), %d-byte frames, cpu %d, burst %s%.0d, %.1f s a rate; load average before: %s\n",
	       FRAME_SIZE, cpu, burst ? "" : "auto", burst, seconds, loadavg);
	printf("generator     asked    measured  error  rx burst gen burst  shortfall  gap p10  gap p50  gap p90 (ns) hold-ups held ms\n");
	for (j = 0; j < 2; j++) {
		if (!strstr(gens, ops[j]->name))
			continue;
		for (i = 0; i < n_rates; i++) {
			if (run_one(ops[j], &cfg, &rx, rates[i], burst, seconds, &f))
				goto out;
			print_row(ops[j]->name, rates[i], &f);
		}
	}
	if (run_one(&xdpgen_ops, &cfg, &rx, 0, 0, seconds, &f))
		goto out;
	print_row("loop", 0, &f);
	ret = 0;
out:
	bpf_object__close(rx.obj);
	ifstats_destroy(&st);
	return ret;
}

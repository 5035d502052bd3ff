// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* generator.c - how close bpflab's xdp-live generator comes to the limit of live-frame
 * test runs on this machine.
 *
 * In a network namespace of its own (unshare(CLONE_NEWNET): it goes away with the
 * process), the bench makes one veth pair bga/bgb with a native XDP_DROP program on bgb
 * (the receiver), then alternates rounds of
 *   - xdpgen: bpflab's generator (agent/xdpgen.c through its API), 1 thread, 64 bytes,
 *   - loop:   a minimal loop of bpf_prog_test_run_opts(BPF_F_TEST_XDP_LIVE_FRAMES) on a
 *             two-instruction program (return XDP_TX) and the same 64-byte frame, with
 *             the largest repeat a call takes, stopped by a signal,
 * both sending out of bga on the same CPU. The rate of a round is the receiver's
 * rx_packets delta (IFLA_STATS64) over the measured time, after a warm-up. It prints
 * every round, the mean of each side and their ratio (xdpgen / loop; the goal is 0.95 or
 * more).
 *
 *   build/bench/generator [--rounds N] [--seconds S] [--cpu C]
 *
 * Needs root. Not a test: it asserts nothing, it prints figures (bench/README.md).
 */
#include <errno.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "ifstats.h"
#include "xdpgen.h"

#define FRAME_SIZE 64
#define LOOP_REPEAT (UINT32_MAX - 16)

struct loop {
	int prog_fd;
	int ifindex;
	uint8_t frame[FRAME_SIZE];
	int cpu;
	atomic_int stop;
	int err;
	pthread_t tid;
};

static void on_sigusr1(int sig)
{
	(void)sig;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int prog_return(int verdict)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = verdict },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return bpf_prog_load(BPF_PROG_TYPE_XDP, "bench_ret", "GPL", insns, 2, NULL);
}

static void *loop_thread(void *arg)
{
	struct loop *l = arg;
	struct xdp_md ctx = { .data_end = FRAME_SIZE, .ingress_ifindex = l->ifindex };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = l->frame, .data_size_in = FRAME_SIZE,
		    .ctx_in = &ctx, .ctx_size_in = sizeof(ctx), .repeat = LOOP_REPEAT,
		    .flags = BPF_F_TEST_XDP_LIVE_FRAMES);
	cpu_set_t cpus;
	sigset_t set;

	sigfillset(&set);
	sigdelset(&set, SIGUSR1);
	pthread_sigmask(SIG_SETMASK, &set, NULL);
	CPU_ZERO(&cpus);
	CPU_SET(l->cpu, &cpus);
	pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus);
	while (!atomic_load(&l->stop)) {
		int err = bpf_prog_test_run_opts(l->prog_fd, &opts);

		if (err && err != -EINTR) {
			l->err = err;
			break;
		}
	}
	return NULL;
}

static int rx_packets(struct ifstats *st, int ifindex, uint64_t *out)
{
	struct ifstats_counters c;
	int err = ifstats_read(st, ifindex, &c);

	*out = c.rx_packets;
	return err;
}

/* Warm up, then the receiver's rate over SECONDS. */
static int measure(struct ifstats *st, int rx_ifindex, double seconds, double *pps)
{
	uint64_t a, b;
	double t0, t1;
	int err;

	usleep(500 * 1000);
	t0 = now_s();
	if ((err = rx_packets(st, rx_ifindex, &a)))
		return err;
	usleep((useconds_t)(seconds * 1e6));
	t1 = now_s();
	if ((err = rx_packets(st, rx_ifindex, &b)))
		return err;
	*pps = (double)(b - a) / (t1 - t0);
	return 0;
}

static int sh(const char *cmd)
{
	int rc = system(cmd);

	if (rc)
		fprintf(stderr, "generator: '%s' failed (%d)\n", cmd, rc);
	return rc ? -EIO : 0;
}

int main(int argc, char **argv)
{
	int rounds = 5, cpu = 0, i, err, rx_fd = -1, ret = 1;
	double seconds = 2, sum_gen = 0, sum_loop = 0;
	struct ifstats *st = NULL;
	struct ifstats_link la, lb;
	struct xdpgen *gen = NULL;
	struct xdpgen_config cfg = { .size = FRAME_SIZE, .flows = 1, .threads = 1 };
	struct loop l = { .prog_fd = -1 };
	struct sigaction sa;
	cpu_set_t cpus;
	struct err msg;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--cpu") && i + 1 < argc)
			cpu = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: generator [--rounds N] [--seconds S] [--cpu C]\n");
			return 2;
		}
	}
	if (rounds < 1 || rounds > 100 || seconds <= 0 || seconds > 60) {
		fprintf(stderr, "generator: rounds 1..100, seconds up to 60\n");
		return 2;
	}
	/* every thread (ours, xdpgen's) on CPU C: xdpgen pins to the first allowed CPU */
	CPU_ZERO(&cpus);
	CPU_SET(cpu, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus)) {
		fprintf(stderr, "generator: cannot run on cpu %d: %s\n", cpu, strerror(errno));
		return 1;
	}
	if (unshare(CLONE_NEWNET)) {
		fprintf(stderr, "generator: cannot make a network namespace: %s (root?)\n",
			strerror(errno));
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigusr1;
	sigaction(SIGUSR1, &sa, NULL);
	if (sh("ip link add bga type veth peer name bgb") || sh("ip link set bga up") ||
	    sh("ip link set bgb up"))
		goto out;
	st = ifstats_new();
	if (!st || ifstats_get(st, if_nametoindex("bga"), &la) ||
	    ifstats_get(st, if_nametoindex("bgb"), &lb)) {
		fprintf(stderr, "generator: cannot read the veth pair\n");
		goto out;
	}
	rx_fd = prog_return(XDP_DROP);
	l.prog_fd = prog_return(XDP_TX);
	if (rx_fd < 0 || l.prog_fd < 0) {
		fprintf(stderr, "generator: cannot load the programs: %s\n", strerror(errno));
		goto out;
	}
	if ((err = bpf_xdp_attach(lb.ifindex, rx_fd, XDP_FLAGS_DRV_MODE, NULL))) {
		fprintf(stderr, "generator: cannot attach XDP_DROP to bgb: %s\n", strerror(-err));
		goto out;
	}
	cfg.ifindex = la.ifindex;
	memcpy(cfg.src_mac, la.mac, 6);
	memcpy(cfg.dst_mac, lb.mac, 6);
	gen = xdpgen_new(&cfg, &msg);
	if (!gen) {
		fprintf(stderr, "generator: %s\n", msg.msg);
		goto out;
	}
	xdpgen_build_frame(&cfg, 1024, l.frame, sizeof(l.frame));
	l.ifindex = la.ifindex;
	l.cpu = cpu;

	printf("veth pair in a private namespace, receiver XDP_DROP (native), %d-byte frames, cpu %d, %d rounds of %.1f s\n",
	       FRAME_SIZE, cpu, rounds, seconds);
	printf("round  xdpgen (Mpps)  loop (Mpps)\n");
	for (i = 0; i < rounds; i++) {
		double g = 0, lp = 0;

		if ((err = xdpgen_start(gen, &msg))) {
			fprintf(stderr, "generator: %s\n", msg.msg);
			goto out;
		}
		err = measure(st, lb.ifindex, seconds, &g);
		xdpgen_stop(gen, NULL);
		if (err || xdpgen_error(gen, &msg)) {
			fprintf(stderr, "generator: xdpgen round failed: %s\n", err ? strerror(-err) : msg.msg);
			goto out;
		}
		atomic_store(&l.stop, 0);
		if ((err = pthread_create(&l.tid, NULL, loop_thread, &l))) {
			fprintf(stderr, "generator: cannot start the loop: %s\n", strerror(err));
			goto out;
		}
		err = measure(st, lb.ifindex, seconds, &lp);
		atomic_store(&l.stop, 1);
		pthread_kill(l.tid, SIGUSR1);
		pthread_join(l.tid, NULL);
		if (err || l.err) {
			fprintf(stderr, "generator: loop round failed: %s\n",
				strerror(err ? -err : -l.err));
			goto out;
		}
		printf("%5d  %13.2f  %11.2f\n", i + 1, g / 1e6, lp / 1e6);
		fflush(stdout);
		sum_gen += g;
		sum_loop += lp;
	}
	printf("mean   %13.2f  %11.2f\n", sum_gen / rounds / 1e6, sum_loop / rounds / 1e6);
	printf("ratio xdpgen / loop: %.3f (goal >= 0.95)\n", sum_loop > 0 ? sum_gen / sum_loop : 0);
	ret = 0;
out:
	xdpgen_destroy(&gen);
	if (rx_fd >= 0)
		close(rx_fd);
	if (l.prog_fd >= 0)
		close(l.prog_fd);
	ifstats_destroy(&st);
	/* the namespace, its veth pair and the attached program go with the process */
	return ret;
}

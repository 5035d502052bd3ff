// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* xdp_live_call.c - how long one BPF_PROG_TEST_RUN call of an XDP program takes, by its
 * repeat count, with and without BPF_F_TEST_XDP_LIVE_FRAMES: what a paced xdp-live
 * thread (agent/xdpgen.c, one call per batch) waits per batch besides its frames.
 *
 * In a network namespace of its own (unshare(CLONE_NEWNET): its lo only, gone with the
 * process), it loads the generator's program (bpf/xdp_gen.bpf.c, XDP_TX: on lo the
 * frames are dropped) and times CALLS calls of each repeat count (1, 64, 1000, 10000),
 * live frames and plain. With repeat > 1 the kernel puts the program into the XDP
 * dispatcher before the run and takes it out after (bpf_prog_change_xdp), each a
 * dispatcher update that waits for an RCU grace period; repeat 1 does neither. With
 * --hold the program is kept in the dispatcher first (agent/xdphold.c, as a paced
 * xdpgen does): only its count changes, no update.
 *
 *   build/bench/xdp_live_call [--calls N] [--hold]
 *
 * Needs root. Not a test: it asserts nothing, it prints figures (bench/README.md).
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "xdp_gen.skel.h"
#include "xdphold.h"

#define MAX_CALLS 1000

static int cmp_ns(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* CALLS calls of PROG_FD with REPEAT and FLAGS: min, median and max ms printed. */
static int run(int prog_fd, unsigned int repeat, unsigned int flags, int calls)
{
	static int64_t ns[MAX_CALLS];
	uint8_t frame[64] = { 0 };
	struct xdp_md ctx = { .data_end = sizeof(frame), .ingress_ifindex = 1 };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame, .data_size_in = sizeof(frame),
		    .ctx_in = &ctx, .ctx_size_in = sizeof(ctx), .repeat = repeat,
		    .flags = flags);
	int i, err;

	memset(frame, 0xff, 12);
	frame[12] = 0x08;		/* IPv4 */
	frame[14] = 0x45;
	for (i = 0; i < calls; i++) {
		int64_t t = util_mono_ns();

		err = bpf_prog_test_run_opts(prog_fd, &opts);
		if (err) {
			fprintf(stderr, "xdp_live_call: test run (repeat %u): %s\n", repeat,
				strerror(-err));
			return err;
		}
		ns[i] = util_mono_ns() - t;
	}
	qsort(ns, (size_t)calls, sizeof(ns[0]), cmp_ns);
	printf("%-5s repeat %5u: %d calls, ms per call min %.3f median %.3f max %.3f\n",
	       flags ? "live" : "plain", repeat, calls, ns[0] / 1e6, ns[calls / 2] / 1e6,
	       ns[calls - 1] / 1e6);
	return 0;
}

int main(int argc, char **argv)
{
	static const unsigned int repeats[] = { 1, 64, 1000, 10000 };
	struct xdphold *hold = NULL;
	struct xdp_gen_bpf *skel;
	int calls = 20, i, f, err = 0;
	bool want_hold = false, bad = false;
	struct err why;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--hold"))
			want_hold = true;
		else if (!strcmp(argv[i], "--calls") && i + 1 < argc)
			calls = atoi(argv[++i]);
		else
			bad = true;
	}
	if (bad || calls < 1 || calls > MAX_CALLS) {
		fprintf(stderr, "usage: xdp_live_call [--calls N (1..%d)] [--hold]\n", MAX_CALLS);
		return 2;
	}
	if (unshare(CLONE_NEWNET)) {
		fprintf(stderr, "xdp_live_call: unshare(CLONE_NEWNET): %s (needs root)\n",
			strerror(errno));
		return 1;
	}
	skel = xdp_gen_bpf__open();
	if (!skel) {
		fprintf(stderr, "xdp_live_call: cannot open the generator program\n");
		return 1;
	}
	skel->rodata->flows = 1;
	skel->rodata->sport_base = 1024;
	err = xdp_gen_bpf__load(skel);
	if (err)
		fprintf(stderr, "xdp_live_call: cannot load the generator program: %s\n",
			strerror(-err));
	if (!err && want_hold) {
		hold = xdphold_new(bpf_program__fd(skel->progs.xdp_gen), &why);
		if (!hold) {
			fprintf(stderr, "xdp_live_call: %s\n", why.msg);
			err = -1;
		}
	}
	for (f = 0; !err && f < 2; f++) {
		for (i = 0; !err && i < (int)(sizeof(repeats) / sizeof(repeats[0])); i++)
			err = run(bpf_program__fd(skel->progs.xdp_gen), repeats[i],
				  f ? 0 : BPF_F_TEST_XDP_LIVE_FRAMES, calls);
	}
	xdphold_destroy(&hold);
	xdp_gen_bpf__destroy(skel);
	return err ? 1 : 0;
}

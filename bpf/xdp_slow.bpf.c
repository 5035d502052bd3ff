// SPDX-License-Identifier: GPL-2.0
/* xdp_slow.bpf.c - a deliberately slower XDP_DROP, for tests of `bpflab result compare`
 * (tests/integration/test_compare.sh): xdp_drop_slow reads the first byte of the frame
 * as xdp_basic's xdp_drop does, then runs a bounded loop of SLOW_LOOPS rounds of
 * dependent arithmetic on it before dropping the frame, so that its cost per run is
 * far above xdp_drop's (about 1 us more, 1000 rounds: the slowed rate stays more than
 * 50 % below the plain one even when a busy machine halves that) while its verdict is
 * the same.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define SLOW_LOOPS 1000

SEC("xdp")
int xdp_drop_slow(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	volatile __u32 acc;
	__u32 i;

	if (data + 1 > data_end)
		return XDP_DROP;
	acc = *(volatile unsigned char *)data;
	for (i = 0; i < SLOW_LOOPS; i++)
		acc = acc * 1103515245u + 12345u;	/* volatile: not folded away */
	return XDP_DROP;
}

char _license[] SEC("license") = "GPL";

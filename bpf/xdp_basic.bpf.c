// SPDX-License-Identifier: GPL-2.0
/* xdp_basic.bpf.c - the three simplest XDP verdicts, as variants for plans:
 * xdp_drop drops every frame, xdp_pass hands it to the stack, xdp_tx bounces it back out
 * of the port it came in on. Each touches the first byte of the frame so that the cost
 * of reading packet data is part of the measurement, as in the netdev baselines.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

static __always_inline int touch(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 1 > data_end)
		return -1;
	return *(volatile unsigned char *)data;
}

SEC("xdp")
int xdp_drop(struct xdp_md *ctx)
{
	touch(ctx);
	return XDP_DROP;
}

SEC("xdp")
int xdp_pass(struct xdp_md *ctx)
{
	touch(ctx);
	return XDP_PASS;
}

SEC("xdp")
int xdp_tx(struct xdp_md *ctx)
{
	touch(ctx);
	return XDP_TX;
}

char LICENSE[] SEC("license") = "GPL";

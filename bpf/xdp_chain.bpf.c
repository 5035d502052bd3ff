// SPDX-License-Identifier: GPL-2.0
/* xdp_chain.bpf.c - the hops of veth/XDP chains, for plans/veth-chains.yaml.
 *
 * Each program counts into `stats` (enum chain_key) and returns its verdict:
 * xdp_tx_hop bounces a frame back out of its port (XDP_TX), xdp_redirect_hop sends it
 * through the devmap `tx_port` slot 0 (a port the plan names), xdp_drop_end and
 * xdp_pass_end end the chain (XDP_DROP, or XDP_PASS into the stack). The CHAIN_END
 * counter is the rate at the end of the chain.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "experiments_stats.bpf.h"

EXPERIMENT_STATS(CHAIN_MAX)

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u32);
} tx_port SEC(".maps");

SEC("xdp")
int xdp_tx_hop(struct xdp_md *ctx)
{
	count(CHAIN_TX);
	return XDP_TX;
}

SEC("xdp")
int xdp_redirect_hop(struct xdp_md *ctx)
{
	count(CHAIN_REDIRECT);
	return bpf_redirect_map(&tx_port, 0, 0);
}

SEC("xdp")
int xdp_drop_end(struct xdp_md *ctx)
{
	count(CHAIN_END);
	return XDP_DROP;
}

SEC("xdp")
int xdp_pass_end(struct xdp_md *ctx)
{
	count(CHAIN_END);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";

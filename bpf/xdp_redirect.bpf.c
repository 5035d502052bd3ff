// SPDX-License-Identifier: GPL-2.0
/* xdp_redirect.bpf.c - XDP_REDIRECT through a devmap, for plans/xdp-redirect-map.yaml.
 *
 * Path: the generator on port a sends into port b; xdp_redirect_map on b (generic or
 * native mode) redirects every frame through the devmap `tx_port` slot 0, which the plan
 * points at port c; c hands the frames to its veth peer d, where xdp_rx counts and drops
 * them. With a second program on the devmap slot (xdp_2nd, SEC("xdp/devmap")), it runs
 * on each frame after the redirect, before c transmits it.
 *
 * A veth takes redirected frames (ndo_xdp_xmit) only when its peer runs NAPI, which a
 * native XDP program on the peer turns on: hence xdp_rx in native mode on d. The
 * `stats` counters (enum redirect_key) count frames redirected on b, seen by the 2nd
 * program, and delivered to d.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "experiments_stats.bpf.h"

EXPERIMENT_STATS(RDR_MAX)

/* slot 0: the egress port (and optionally a 2nd program), filled from the plan */
struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, struct bpf_devmap_val);
} tx_port SEC(".maps");

SEC("xdp")
int xdp_redirect_map(struct xdp_md *ctx)
{
	count(RDR_REDIRECTED);
	return bpf_redirect_map(&tx_port, 0, 0);
}

/* Runs on each redirected frame, in the devmap, before the egress port sends it. */
SEC("xdp/devmap")
int xdp_2nd(struct xdp_md *ctx)
{
	count(RDR_SECOND);
	return XDP_PASS;
}

/* The receiver at the far end. */
SEC("xdp")
int xdp_rx(struct xdp_md *ctx)
{
	count(RDR_DELIVERED);
	return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";

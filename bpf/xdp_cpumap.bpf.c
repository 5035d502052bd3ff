// SPDX-License-Identifier: GPL-2.0
/* xdp_cpumap.bpf.c - XDP redirect into a cpumap, for plans/cpumap-redirect.yaml.
 *
 * Path: the generator, pinned to the source CPU (traffic.cpus), sends from port a into
 * port b; b's NAPI runs on the generator's CPU, so xdp_cpumap_redirect runs there: it
 * counts the frame (rx_src) and redirects it into `cpu_map` slot config[0] (the
 * destination CPU, from the plan). The cpumap's kthread on the destination CPU takes
 * the frames off the slot's queue and runs xdp_cpumap_drop or xdp_cpumap_pass
 * (SEC("xdp/cpumap"), set on the slot by the plan) on each: that count is rx_dst.
 *
 * Dropped at the cpumap: a frame the queue has no room for (qsize) is freed by the
 * kernel and reaches no program; with no tracepoint attached, the count is rx_src -
 * rx_dst - redirect_err, which the report works out. redirect_err counts frames
 * bpf_redirect_map refused (an empty slot).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "experiments_stats.bpf.h"

EXPERIMENT_STATS(CPUMAP_MAX)

/* config[0]: the destination CPU */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CPUMAP);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, struct bpf_cpumap_val);
} cpu_map SEC(".maps");

SEC("xdp")
int xdp_cpumap_redirect(struct xdp_md *ctx)
{
	__u32 key = 0, *cpu = bpf_map_lookup_elem(&config, &key);
	long ret;

	count(CPUMAP_RX_SRC);
	if (!cpu)
		return XDP_ABORTED;
	ret = bpf_redirect_map(&cpu_map, *cpu, XDP_DROP);
	if (ret != XDP_REDIRECT)
		count(CPUMAP_REDIRECT_ERR);
	return ret;
}

SEC("xdp/cpumap")
int xdp_cpumap_drop(struct xdp_md *ctx)
{
	count(CPUMAP_RX_DST);
	return XDP_DROP;
}

SEC("xdp/cpumap")
int xdp_cpumap_pass(struct xdp_md *ctx)
{
	count(CPUMAP_RX_DST);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";

// SPDX-License-Identifier: GPL-2.0
/* gap_rx.bpf.c - how evenly frames arrive, measured where they arrive (bench/pacing.c):
 * an XDP program on the receiving port that puts each frame's gap to the one before
 * into a log-linear histogram (bpf/gap_shared.h) and counts bursts: a frame that comes
 * less than half of config[0] (the target gap, 1e9 / the asked rate, ns) after the one
 * before belongs to its burst; the largest burst is burst_max. Per-CPU state: frames of
 * a veth arrive on the sender's CPU, and the bench pins the sender. Drops every frame
 * (XDP_DROP) once counted.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "gap_shared.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, GAP_BUCKETS);
	__type(key, __u32);
	__type(value, __u64);
} gap_hist SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct gap_stats);
} gap_stats SEC(".maps");

SEC("xdp")
int gap_rx(struct xdp_md *ctx)
{
	__u64 now = bpf_ktime_get_ns(), *target, *slot, gap;
	struct gap_stats *st;
	__u32 zero = 0, b;

	target = bpf_map_lookup_elem(&config, &zero);
	st = bpf_map_lookup_elem(&gap_stats, &zero);
	if (!target || !st)
		return XDP_DROP;
	if (st->frames) {
		gap = now - st->last_ns;
		b = gap_bucket(gap);
		if (b >= GAP_BUCKETS)
			b = GAP_BUCKETS - 1;
		slot = bpf_map_lookup_elem(&gap_hist, &b);
		if (slot)
			*slot += 1;
		st->run = 2 * gap < *target ? st->run + 1 : 1;
	} else {
		st->first_ns = now;
		st->run = 1;
	}
	if (st->run > st->burst_max)
		st->burst_max = st->run;
	st->last_ns = now;
	st->frames++;
	return XDP_DROP;
}

char _license[] SEC("license") = "GPL";

// SPDX-License-Identifier: GPL-2.0
/* xdp_police.bpf.c - a path of known capacity, for the search's integration test
 * (tests/integration/test_search.sh): xdp_police passes at most config[0] frames per
 * second (set by the plan's `maps`) and drops the rest, counting both (stats: passed,
 * dropped).
 *
 * The limit is a token bucket in virtual time (GCRA): each passed frame moves the
 * bucket's theoretical arrival time `tat` on by one interval (1e9 / rate ns); a frame
 * that arrives more than POLICE_BURST_NS before `tat` is over the rate and dropped. The
 * burst lets the generator's batches through at a rate within the limit (a paced
 * xdp-live thread on a veth sends up to tens of ms of frames at once); it also lets
 * POLICE_BURST_NS of frames more through in a trial that starts with the bucket full
 * (1 % of a 5 s trial). One bucket for all CPUs, under a spin lock. Without a rate
 * (config[0] 0) every frame is dropped.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "experiments_stats.bpf.h"

#define POLICE_BURST_NS 50000000ULL	/* 50 ms of frames at the rate */

EXPERIMENT_STATS(POLICE_MAX)

/* config[0]: the rate, frames per second */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} config SEC(".maps");

struct bucket {
	struct bpf_spin_lock lock;
	__u64 tat;			/* ns, bpf_ktime_get_ns() time */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bucket);
} bucket SEC(".maps");

SEC("xdp")
int xdp_police(struct xdp_md *ctx)
{
	__u64 now = bpf_ktime_get_ns(), *rate, interval;
	__u32 zero = 0;
	struct bucket *b;
	int pass = 0;

	rate = bpf_map_lookup_elem(&config, &zero);
	b = bpf_map_lookup_elem(&bucket, &zero);
	if (!rate || !b || !*rate) {
		count(POLICE_DROPPED);
		return XDP_DROP;
	}
	interval = 1000000000ULL / *rate;
	bpf_spin_lock(&b->lock);
	if (b->tat < now)
		b->tat = now;
	if (b->tat - now <= POLICE_BURST_NS) {
		b->tat += interval;
		pass = 1;
	}
	bpf_spin_unlock(&b->lock);
	count(pass ? POLICE_PASSED : POLICE_DROPPED);
	return pass ? XDP_PASS : XDP_DROP;
}

char _license[] SEC("license") = "GPL";

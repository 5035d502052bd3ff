// SPDX-License-Identifier: GPL-2.0
/* xdp_police.bpf.c - a path of known capacity, for the search's integration test
 * (tests/integration/test_search.sh): xdp_police passes at most config[0] frames per
 * second (set by the plan's `maps`) and drops the rest, counting both (stats: passed,
 * dropped).
 *
 * The limit is a token bucket in virtual time (GCRA): each passed frame moves the
 * bucket's theoretical arrival time `tat` on by one interval (1e9 / rate ns); a frame
 * that arrives more than POLICE_BURST_NS before `tat` is over the rate and dropped. The
 * bucket holds 1 ms of frames, as a NIC's ring of 256-4096 descriptors holds 25-400 us
 * at 10 Mpps: a load within the rate passes whole only when its frames come spaced (a
 * generator's bursts at most traffic.burst, agent/gen.h), as a hardware generator's do.
 * After POLICE_IDLE_NS without frames (the gap between two of the search's trials, the
 * agent's drain) it starts again full, with that 1 ms and no more, so that a trial above
 * the rate passes at most 1 ms of frames more than the rate (0.05 % of a 2 s trial). One
 * bucket for all CPUs, under a spin lock. Without a rate (config[0] 0) every frame is
 * dropped.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "experiments_stats.bpf.h"

#define POLICE_BURST_NS 1000000ULL	/* the bucket: 1 ms of frames at the rate */
#define POLICE_IDLE_NS 250000000ULL	/* a gap this long starts a new trial */

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
	__u64 last;			/* the last frame's arrival, same clock */
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
	if (b->last + POLICE_IDLE_NS < now)
		b->tat = now;			/* full: 1 ms of frames */
	else if (b->tat < now)
		b->tat = now;
	b->last = now;
	if (b->tat - now <= POLICE_BURST_NS) {
		b->tat += interval;
		pass = 1;
	}
	bpf_spin_unlock(&b->lock);
	count(pass ? POLICE_PASSED : POLICE_DROPPED);
	return pass ? XDP_PASS : XDP_DROP;
}

char _license[] SEC("license") = "GPL";

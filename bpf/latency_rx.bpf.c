// SPDX-License-Identifier: GPL-2.0
/* latency_rx.bpf.c - the receiving side of the latency windows (docs/agent.md,
 * "Latency"): attached by the agent (agent/job_latency.c) at tcx ingress of the plan's
 * latency port, after the variant, so it sees the frames the variant lets through (an
 * XDP_PASS, or a cpumap's frames built into skbs on another CPU). For each IPv4 or IPv6
 * UDP frame with a bpflab stamp (bpf/latency_shared.h) it puts now - ts_ns into a per-CPU
 * log-linear histogram and the frame's seq into its stream's state (a spin lock per
 * stream), and its gap to the stamped frame before into a histogram of the spacing with
 * the largest burst (bpf/gap_shared.h: what the receiving side saw of the generator's
 * pacing); any other frame, or a stamp from the future, counts as foreign. It never
 * changes a verdict (TCX_NEXT). The agent zeroes the maps before each window.
 *
 * Loaded through the skeleton build/bpf/latency_rx.skel.h.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "gap_shared.h"
#include "latency_shared.h"

#define LAT_TCX_NEXT -1

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LAT_BUCKETS);
	__type(key, __u32);
	__type(value, __u64);
} lat_hist SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lat_stats);
} lat_stats SEC(".maps");

/* the spacing of the stamped frames (bpf/gap_shared.h): per CPU, the gaps' histogram;
 * a frame less than half of target_gap_ns (1e9 / the window's rate, set by the agent)
 * after the one before is in its burst */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, GAP_BUCKETS);
	__type(key, __u32);
	__type(value, __u64);
} lat_gaps SEC(".maps");

__u64 target_gap_ns = 1;

struct lat_stream {
	struct bpf_spin_lock lock;
	__u32 pad;
	struct lat_seq seq;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LAT_MAX_STREAMS);
	__type(key, __u32);
	__type(value, struct lat_stream);
} lat_streams SEC(".maps");

/* The offset of the UDP payload, or -1 when the frame is no UDP over IPv4/IPv6. */
static __always_inline int payload_off(void *data, void *data_end)
{
	struct ethhdr *eth = data;
	struct iphdr *ip4;
	struct ipv6hdr *ip6;
	int off = sizeof(*eth);

	if ((void *)(eth + 1) > data_end)
		return -1;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		ip4 = data + off;
		if ((void *)(ip4 + 1) > data_end || ip4->protocol != IPPROTO_UDP ||
		    ip4->ihl != 5)
			return -1;
		off += sizeof(*ip4);
	} else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		ip6 = data + off;
		if ((void *)(ip6 + 1) > data_end || ip6->nexthdr != IPPROTO_UDP)
			return -1;
		off += sizeof(*ip6);
	} else {
		return -1;
	}
	return off + sizeof(struct udphdr);
}

SEC("tc")
int latency_rx(struct __sk_buff *skb)
{
	__u64 now = bpf_ktime_get_ns(), lat, *slot;
	void *data_end = (void *)(long)skb->data_end;
	void *data = (void *)(long)skb->data;
	struct lat_payload pl;
	struct lat_stream *s;
	struct lat_stats *st;
	__u32 zero = 0, b, stream;
	int off;

	st = bpf_map_lookup_elem(&lat_stats, &zero);
	if (!st)
		return LAT_TCX_NEXT;
	off = payload_off(data, data_end);
	if (off < 0 || off > 128 || data + off + sizeof(pl) > data_end)
		goto foreign;
	__builtin_memcpy(&pl, data + off, sizeof(pl));
	stream = pl.stream;
	if (pl.magic != LAT_MAGIC || stream >= LAT_MAX_STREAMS || pl.ts_ns > now)
		goto foreign;
	s = bpf_map_lookup_elem(&lat_streams, &stream);
	if (!s)
		goto foreign;
	lat = now - pl.ts_ns;
	bpf_spin_lock(&s->lock);
	lat_seq_update(&s->seq, pl.seq);
	bpf_spin_unlock(&s->lock);
	b = lat_bucket(lat);
	slot = bpf_map_lookup_elem(&lat_hist, &b);
	if (slot)
		(*slot)++;
	if (!st->frames || lat < st->min_ns)
		st->min_ns = lat;
	if (lat > st->max_ns)
		st->max_ns = lat;
	if (st->frames) {
		__u64 gap = now - st->last_ns;

		b = gap_bucket(gap);
		if (b >= GAP_BUCKETS)
			b = GAP_BUCKETS - 1;
		slot = bpf_map_lookup_elem(&lat_gaps, &b);
		if (slot)
			(*slot)++;
		st->run = 2 * gap < target_gap_ns ? st->run + 1 : 1;
	} else {
		st->run = 1;
	}
	if (st->run > st->burst_max)
		st->burst_max = st->run;
	st->last_ns = now;
	st->frames++;
	st->sum_ns += lat;
	return LAT_TCX_NEXT;
foreign:
	st->foreign++;
	return LAT_TCX_NEXT;
}

char LICENSE[] SEC("license") = "GPL";

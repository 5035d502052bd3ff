// SPDX-License-Identifier: GPL-2.0
/* tc_stats_variants.bpf.c - the cost of passing a value from tc ingress to tc egress,
 * for plans/bpf-stats-variants.yaml.
 *
 * Path (one packet, both programs once): frames arrive on port b (from the generator on
 * port a); the tc ingress program on b writes a value and redirects the skb to the
 * egress of b itself (bpf_redirect(skb->ifindex, 0)); the tc egress program on b reads
 * the value back; the skb then leaves b into its peer a, where the stack drops it (the
 * destination MAC is b's). Both run in the same softirq on the same CPU.
 *
 * Variants, each an ingress/egress pair:
 *   cnt_ingress / cnt_egress     the floor: count and redirect, no store
 *   hash_ingress / hash_egress   store in a BPF_MAP_TYPE_HASH (update, then lookup)
 *   lru_ingress / lru_egress     the same in a BPF_MAP_TYPE_LRU_HASH
 *   mark_ingress / mark_egress   store in the skb itself: skb->mark
 *   prio_ingress / prio_egress   store in the skb itself: skb->priority
 * The value is the ingress count of this CPU; egress compares what it reads with that
 * count, so a lost or stale value shows as egress > match in the `stats` counters
 * (enum tc_stats_key). Packets b's own stack sends (neighbour discovery) pass egress
 * without a value and count in egress only.
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

#include "experiments_shared.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TCS_MAX);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u64);
} store_hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u64);
} store_lru SEC(".maps");

static __always_inline __u64 count(__u32 key)
{
	__u64 *c = bpf_map_lookup_elem(&stats, &key);

	if (!c)
		return 0;
	return ++*c;
}

/* The ingress count of this CPU: what ingress wrote for the packet egress now sees. */
static __always_inline __u64 ingress_count(void)
{
	__u32 key = TCS_INGRESS;
	__u64 *c = bpf_map_lookup_elem(&stats, &key);

	return c ? *c : 0;
}

/* The store's key: the device, so that ingress and egress of b meet (CPUs do not
 * contend with one generator thread). */
static __always_inline __u32 store_key(struct __sk_buff *skb)
{
	return skb->ifindex;
}

static __always_inline int to_egress(struct __sk_buff *skb)
{
	return bpf_redirect(skb->ifindex, 0);
}

SEC("tc")
int cnt_ingress(struct __sk_buff *skb)
{
	count(TCS_INGRESS);
	return to_egress(skb);
}

SEC("tc")
int cnt_egress(struct __sk_buff *skb)
{
	count(TCS_EGRESS);
	return TC_ACT_OK;
}

SEC("tc")
int hash_ingress(struct __sk_buff *skb)
{
	__u32 key = store_key(skb);
	__u64 v = count(TCS_INGRESS);

	bpf_map_update_elem(&store_hash, &key, &v, BPF_ANY);
	return to_egress(skb);
}

SEC("tc")
int hash_egress(struct __sk_buff *skb)
{
	__u32 key = store_key(skb);
	__u64 *v = bpf_map_lookup_elem(&store_hash, &key);
	count(TCS_EGRESS);
	if (v && *v == ingress_count())
		count(TCS_MATCH);
	return TC_ACT_OK;
}

SEC("tc")
int lru_ingress(struct __sk_buff *skb)
{
	__u32 key = store_key(skb);
	__u64 v = count(TCS_INGRESS);

	bpf_map_update_elem(&store_lru, &key, &v, BPF_ANY);
	return to_egress(skb);
}

SEC("tc")
int lru_egress(struct __sk_buff *skb)
{
	__u32 key = store_key(skb);
	__u64 *v = bpf_map_lookup_elem(&store_lru, &key);
	count(TCS_EGRESS);
	if (v && *v == ingress_count())
		count(TCS_MATCH);
	return TC_ACT_OK;
}

SEC("tc")
int mark_ingress(struct __sk_buff *skb)
{
	skb->mark = (__u32)count(TCS_INGRESS);
	return to_egress(skb);
}

SEC("tc")
int mark_egress(struct __sk_buff *skb)
{
	count(TCS_EGRESS);
	if (skb->mark && skb->mark == (__u32)ingress_count())
		count(TCS_MATCH);
	return TC_ACT_OK;
}

SEC("tc")
int prio_ingress(struct __sk_buff *skb)
{
	skb->priority = (__u32)count(TCS_INGRESS);
	return to_egress(skb);
}

SEC("tc")
int prio_egress(struct __sk_buff *skb)
{
	count(TCS_EGRESS);
	if (skb->priority && skb->priority == (__u32)ingress_count())
		count(TCS_MATCH);
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";

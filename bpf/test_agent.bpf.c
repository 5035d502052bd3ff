// SPDX-License-Identifier: GPL-2.0
/* test_agent.bpf.c - programs for the agent's unit tests (tests/unit/test_agent_*.c),
 * not for plans:
 *   xdp_bad          reads past the packet without a bounds check: the verifier refuses it
 *   tc_pass          a tc (sched_cls) program for the tcx attach test
 *   xdp_sport_count  drops UDP frames and records, per UDP source port, how many arrived
 *                    and the last UDP checksum, so a test can check the generator's flows
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/pkt_cls.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct sport_stat {
	__u64 count;
	__u16 check;
	__u16 pad[3];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u16);
	__type(value, struct sport_stat);
} sports SEC(".maps");

SEC("xdp")
int xdp_bad(struct xdp_md *ctx)
{
	unsigned char *data = (void *)(long)ctx->data;

	return data[100] ? XDP_DROP : XDP_PASS;	/* no check against data_end */
}

SEC("tc")
int tc_pass(struct __sk_buff *skb)
{
	return TC_ACT_OK;
}

SEC("xdp")
int xdp_sport_count(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	struct ethhdr *eth = data;
	struct sport_stat *st, init = { .count = 1 };
	struct udphdr *udp;
	__u16 port;

	if ((void *)(eth + 1) > data_end)
		return XDP_DROP;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = (void *)(eth + 1);

		if ((void *)(ip + 1) > data_end || ip->protocol != IPPROTO_UDP)
			return XDP_DROP;
		udp = (void *)(ip + 1);
	} else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);

		if ((void *)(ip6 + 1) > data_end || ip6->nexthdr != IPPROTO_UDP)
			return XDP_DROP;
		udp = (void *)(ip6 + 1);
	} else {
		return XDP_DROP;
	}
	if ((void *)(udp + 1) > data_end)
		return XDP_DROP;
	port = bpf_ntohs(udp->source);
	st = bpf_map_lookup_elem(&sports, &port);
	if (st) {
		__sync_fetch_and_add(&st->count, 1);
		st->check = udp->check;
	} else {
		init.check = udp->check;
		bpf_map_update_elem(&sports, &port, &init, BPF_NOEXIST);
	}
	return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";

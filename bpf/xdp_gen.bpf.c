// SPDX-License-Identifier: GPL-2.0
/* xdp_gen.bpf.c - the agent's built-in xdp-live traffic generator.
 *
 * agent/xdpgen.c runs this program with BPF_PROG_TEST_RUN and BPF_F_TEST_XDP_LIVE_FRAMES
 * on a frame it built; the program returns XDP_TX, which the kernel turns into a redirect
 * out of the ingress port given in the test run's context, so every run sends one frame.
 * It counts the frames in a per-CPU array (the generator's exact frame count, read at
 * sample time) and, when the plan asks for several flows, rewrites the UDP source port to
 * sport_base + (per-CPU frame number modulo flows), fixing the UDP checksum for IPv6
 * (IPv4 frames carry checksum 0). Live-frame pages are recycled without being rewritten,
 * so the checksum is adjusted from the port the page holds now (RFC 1624).
 *
 * With `stamp` set (a job with latency windows) it also writes a bpflab stamp after the
 * UDP header of every frame (bpf/latency_shared.h: magic, this CPU as the stream, this
 * CPU's frame number as seq, bpf_ktime_get_ns()), fixing the IPv6 checksum likewise;
 * agent/xdpgen.c checks that the frame has room for it.
 *
 * Loaded through the skeleton build/bpf/xdp_gen.skel.h; the read-only globals below are
 * set before load, so the verifier prunes the branches a job does not use.
 */
#include <linux/bpf.h>
#include <linux/in.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "latency_shared.h"
#include "xdp_gen_shared.h"

const volatile __u32 flows = 1;
const volatile __u16 sport_base = 1024;
const volatile __u8 ipv6;
const volatile __u8 stamp;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xdp_gen_cpu);
} gen_cpu SEC(".maps");

static __always_inline __u16 csum_replace16(__u16 csum, __u16 old, __u16 new)
{
	__u32 sum = (__u16)~csum + (__u16)~old + (__u32)new;

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	csum = ~sum;
	return csum ? csum : 0xffff;	/* 0 means "no checksum" in UDP */
}

/* Write the stamp of frame SEQ after UDP header UDP (checked to be in the frame by the
 * caller up to its end, UDP + 1 + the payload). */
static __always_inline int write_stamp(struct udphdr *udp, void *data_end, __u64 seq)
{
	struct lat_payload *pl = (void *)(udp + 1), old, new;
	__s64 sum;

	if ((void *)(pl + 1) > data_end)
		return -1;
	new.magic = LAT_MAGIC;
	new.stream = (__u16)bpf_get_smp_processor_id();
	new.seq = (__u32)seq;
	new.ts_ns = bpf_ktime_get_ns();
	if (ipv6) {
		__builtin_memcpy(&old, pl, sizeof(old));
		sum = bpf_csum_diff((__be32 *)&old, sizeof(old), (__be32 *)&new, sizeof(new),
				    (__u16)~udp->check);
		if (sum < 0)
			return -1;
		sum = (sum & 0xffff) + (sum >> 16);
		sum = (sum & 0xffff) + (sum >> 16);
		udp->check = (__u16)~sum ? (__u16)~sum : 0xffff;
	}
	__builtin_memcpy(pl, &new, sizeof(new));
	return 0;
}

SEC("xdp")
int xdp_gen(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	struct xdp_gen_cpu *c;
	struct udphdr *udp;
	__u32 key = 0, f;
	__u16 port;

	c = bpf_map_lookup_elem(&gen_cpu, &key);
	if (!c)
		return XDP_ABORTED;
	if (stamp) {
		udp = data + (ipv6 ? XDP_GEN_UDP6_OFF : XDP_GEN_UDP4_OFF);
		if ((void *)(udp + 1) > data_end || write_stamp(udp, data_end, c->frames))
			return XDP_ABORTED;
	}
	c->frames++;
	if (flows <= 1)
		return XDP_TX;

	f = c->flow + 1;
	if (f >= flows)
		f = 0;
	c->flow = f;
	port = bpf_htons(sport_base + f);
	if (ipv6) {
		udp = data + XDP_GEN_UDP6_OFF;
		if ((void *)(udp + 1) > data_end)
			return XDP_ABORTED;
		udp->check = csum_replace16(udp->check, udp->source, port);
	} else {
		udp = data + XDP_GEN_UDP4_OFF;
		if ((void *)(udp + 1) > data_end)
			return XDP_ABORTED;
	}
	udp->source = port;
	return XDP_TX;
}

char LICENSE[] SEC("license") = "GPL";

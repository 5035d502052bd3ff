// SPDX-License-Identifier: GPL-2.0
/* xdp_loop.bpf.c - an XDP_DROP whose cost per run is set by the plan, for planted
 * regressions (tests/integration/test_bisect_run.sh, bench/validity): xdp_loop reads the
 * first byte of the frame, then runs loops[0] rounds of dependent arithmetic on it
 * (at most LOOP_MAX; 0 or a missing value: none) and drops the frame. The rounds come
 * from the plan's `maps:` attach entry (docs/plans.md), so one object serves every cost:
 *
 *     variants:
 *       loop: [{port: b, hook: xdp, object: xdp_loop.bpf.o, program: xdp_loop,
 *               maps: {loops: [{key: 0, value: 500}]}}]
 *
 * A round is a multiply and an add on a volatile, about 1-2 ns: 500 -> 600 rounds is a
 * step of about +20 % in prog.ns_per_run.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define LOOP_MAX 8192

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} loops SEC(".maps");

SEC("xdp")
int xdp_loop(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u32 key = 0, n = 0, i;
	volatile __u32 acc;
	__u32 *v;

	if (data + 1 > data_end)
		return XDP_DROP;
	v = bpf_map_lookup_elem(&loops, &key);
	if (v)
		n = *v;
	acc = *(volatile unsigned char *)data;
	for (i = 0; i < LOOP_MAX; i++) {
		if (i >= n)
			break;
		acc = acc * 1103515245u + 12345u;	/* volatile: not folded away */
	}
	return XDP_DROP;
}

char _license[] SEC("license") = "GPL";

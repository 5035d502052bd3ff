// SPDX-License-Identifier: GPL-2.0
/* test_agent_maps.bpf.c - programs and maps for the tests of maps filled from a plan and
 * of exported counters (tests/unit/test_objects.c, tests/unit/test_agent_maps.c); not for
 * plans. stats[] is the per-CPU counter map:
 *   0  xdp_redirect_dev / xdp_redirect_cpu ran      2  xdp_cpumap_prog ran (remote CPU)
 *   1  xdp_devmap_prog ran (devmap slot program)      3  xdp_count_drop ran
 * config[0] is the devmap key xdp_redirect_dev uses, config[1] the CPU of xdp_redirect_cpu.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u32);
} config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8);
	__type(key, __u64);
	__type(value, __u16);
} cfg_hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, struct bpf_devmap_val);
} tx_port SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u32);
} tx_hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CPUMAP);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, struct bpf_cpumap_val);
} cpu_map SEC(".maps");

static __always_inline void count(__u32 key)
{
	__u64 *c = bpf_map_lookup_elem(&stats, &key);

	if (c)
		(*c)++;
}

static __always_inline __u32 config_get(__u32 key)
{
	__u32 *v = bpf_map_lookup_elem(&config, &key);

	return v ? *v : 0;
}

SEC("xdp")
int xdp_redirect_dev(struct xdp_md *ctx)
{
	count(0);
	return bpf_redirect_map(&tx_port, config_get(0), XDP_ABORTED);
}

SEC("xdp/devmap")
int xdp_devmap_prog(struct xdp_md *ctx)
{
	count(1);
	return XDP_PASS;
}

SEC("xdp")
int xdp_redirect_cpu(struct xdp_md *ctx)
{
	count(0);
	return bpf_redirect_map(&cpu_map, config_get(1), XDP_ABORTED);
}

SEC("xdp/cpumap")
int xdp_cpumap_prog(struct xdp_md *ctx)
{
	count(2);
	return XDP_DROP;
}

SEC("xdp")
int xdp_count_drop(struct xdp_md *ctx)
{
	count(3);
	return XDP_DROP;
}

SEC("tc")
int tc_not_xdp(struct __sk_buff *skb)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";

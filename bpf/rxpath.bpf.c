// SPDX-License-Identifier: GPL-2.0
/* rxpath.bpf.c - the cost of a driver's receive path per frame (docs/agent.md, metric
 * rx.ns_per_frame), attached by the agent (agent/rxcost.c) for a job's rate window.
 *
 * NAPI polls are timed between tracepoints, which need no BTF:
 *   irq:softirq_entry (vec NET_RX)  stamps the time on this CPU;
 *   napi:napi_poll                  fires after each poll (napi, device name, work,
 *                                   budget): the time since the last stamp (softirq entry
 *                                   or the previous poll) is that poll's, charged to the
 *                                   NAPI instance when the device's name is one of
 *                                   rxp_names (rxp_napis; names repeat across
 *                                   namespaces, the agent picks its own), then stamps
 *                                   again;
 *   irq:softirq_exit (vec NET_RX)   adds up the whole softirq and clears the stamp.
 * A poll's span thus holds the driver's poll (descriptors, buffers, skbs), XDP (native,
 * or generic inside the stack), GRO and the stack for passed frames (GRO flush at
 * napi_complete), XDP_TX/redirect transmits and xdp_do_flush done in the poll, hardirqs
 * that hit it, net_rx_action's own work between polls, and the tracepoints' overhead
 * (the perf trampoline before and after each program; the programs' bodies between
 * their two bpf_ktime_get_ns() calls are left out and added up in rxp_sirq.hook_ns).
 * Polls outside a NET_RX softirq (threaded NAPI, busy polling) are counted, not timed.
 *
 * The contexts are the tracepoints' format files (/sys/kernel/tracing/events/...),
 * the same on 6.1, 6.12 and 6.18; agent/rxcost.c checks them before loading.
 * Loaded through the skeleton build/bpf/rxpath.skel.h.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "rxpath_shared.h"

struct softirq_ctx {
	__u64 common;		/* common_type, common_flags, common_preempt_count, common_pid */
	__u32 vec;
};

struct napi_poll_ctx {
	__u64 common;
	__u64 napi;
	__u32 dev_name;		/* __data_loc char[]: offset (low 16 bits), length */
	__s32 work;
	__s32 budget;
};

/* the devices of interest, set by the agent before the load */
const volatile __u32 rxp_n_devs = 0;
const volatile __u64 rxp_names[RXPATH_MAX_DEVS][RXPATH_IFNAMSIZ / 8] = {};	/* NUL-padded */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rxpath_cpu);
} rxp_cpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, RXPATH_MAX_NAPIS);
	__type(key, __u64);
	__type(value, struct rxpath_dev);
} rxp_napis SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rxpath_sirq);
} rxp_sirq SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, RXPATH_WORK_ENTRIES);
	__type(key, struct rxpath_work_key);
	__type(value, struct rxpath_work);
} rxp_work SEC(".maps");

SEC("tracepoint/irq/softirq_entry")
int rxp_softirq_entry(struct softirq_ctx *ctx)
{
	__u32 k = 0;
	struct rxpath_cpu *c;

	if (ctx->vec != RXPATH_NET_RX)
		return 0;
	c = bpf_map_lookup_elem(&rxp_cpu, &k);
	if (!c)
		return 0;
	c->entry = bpf_ktime_get_ns();
	c->stamp = c->entry;
	return 0;
}

/* Index of the polled device in rxp_names, or -1. Names compare as two 64-bit words:
 * both sides are NUL-padded to RXPATH_IFNAMSIZ. */
static __always_inline int dev_index(struct napi_poll_ctx *ctx)
{
	__u64 name[RXPATH_IFNAMSIZ / 8] = {};
	int i;

	if (bpf_probe_read_kernel_str(name, sizeof(name),
				      (void *)ctx + (ctx->dev_name & 0xffff)) <= 0)
		return -1;
#pragma unroll
	for (i = 0; i < RXPATH_MAX_DEVS; i++) {
		if (i < rxp_n_devs && name[0] == rxp_names[i][0] && name[1] == rxp_names[i][1])
			return i;
	}
	return -1;
}

SEC("tracepoint/napi/napi_poll")
int rxp_napi_poll(struct napi_poll_ctx *ctx)
{
	__u64 t0 = bpf_ktime_get_ns(), span;
	struct rxpath_work_key wk = {};
	struct rxpath_work *w;
	struct rxpath_sirq *s;
	struct rxpath_dev *d = NULL;
	struct rxpath_cpu *c;
	__u32 k = 0;
	int i;

	c = bpf_map_lookup_elem(&rxp_cpu, &k);
	s = bpf_map_lookup_elem(&rxp_sirq, &k);
	if (!c || !s)
		return 0;
	i = dev_index(ctx);
	if (i >= 0) {
		__u64 napi = ctx->napi;

		d = bpf_map_lookup_elem(&rxp_napis, &napi);
		if (!d) {
			struct rxpath_dev z = { .slot = i + 1 };

			bpf_map_update_elem(&rxp_napis, &napi, &z, BPF_NOEXIST);
			d = bpf_map_lookup_elem(&rxp_napis, &napi);
		}
	}
	if (!c->stamp) {
		/* not inside a NET_RX softirq: threaded NAPI or busy polling */
		if (d) {
			d->outside++;
			d->outside_frames += ctx->work;
		}
		return 0;
	}
	span = t0 - c->stamp;
	s->polls++;
	if (d) {
		d->ns += span;
		d->frames += ctx->work;
		d->polls++;
		if (!ctx->work) {
			d->empty_polls++;
			d->empty_ns += span;
		}
		wk.napi = ctx->napi;
		wk.work = ctx->work < RXPATH_MAX_WORK ? ctx->work : RXPATH_MAX_WORK;
		w = bpf_map_lookup_elem(&rxp_work, &wk);
		if (w) {
			w->polls++;
			w->ns += span;
			if (span < w->min_ns)
				w->min_ns = span;
		} else {
			struct rxpath_work z = { .polls = 1, .ns = span, .min_ns = span };

			bpf_map_update_elem(&rxp_work, &wk, &z, BPF_NOEXIST);
		}
	}
	c->stamp = bpf_ktime_get_ns();
	s->hook_ns += c->stamp - t0;
	return 0;
}

SEC("tracepoint/irq/softirq_exit")
int rxp_softirq_exit(struct softirq_ctx *ctx)
{
	struct rxpath_sirq *s;
	struct rxpath_cpu *c;
	__u32 k = 0;

	if (ctx->vec != RXPATH_NET_RX)
		return 0;
	c = bpf_map_lookup_elem(&rxp_cpu, &k);
	s = bpf_map_lookup_elem(&rxp_sirq, &k);
	if (!c || !s)
		return 0;
	if (c->entry) {
		s->ns += bpf_ktime_get_ns() - c->entry;
		s->count++;
	}
	c->entry = 0;
	c->stamp = 0;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";

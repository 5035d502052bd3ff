/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* rxcost.h - the cost of a driver's receive path per frame (docs/agent.md, metric
 * rx.ns_per_frame): bpf/rxpath.bpf.c on the tracepoints irq:softirq_entry,
 * napi:napi_poll and irq:softirq_exit times each NAPI poll inside a NET_RX softirq and
 * charges it to the polled device when that is one of the job's receiving ports.
 *
 * Why tracepoints: /proc/stat's softirq time is sampled at the tick and counted in
 * USER_HZ, far too coarse for a poll of some microseconds; kprobes or fentry on a
 * driver's poll function would need its symbol per driver and BTF (fentry), which
 * kernels built from a tree here lack. The three tracepoints exist on every kernel the
 * lab runs, are driver-independent (napi_poll names the device) and need no BTF. Their
 * own overhead (the perf trampoline around each program) is inside every poll's span:
 * a constant per poll, docs/agent.md "Metrics".
 *
 * Usage: rxcost_open() before the window (loads and attaches), rxcost_read() at each
 * instant the window reads its counters, rxcost_close() after it (detaches).
 */
#ifndef BPFLAB_AGENT_RXCOST_H
#define BPFLAB_AGENT_RXCOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "rxpath_shared.h"

struct rxcost;

/* One NAPI instance whose device has one of the names, summed over the CPUs. */
struct rxcost_napi {
	uint64_t napi;			/* the napi_struct's address */
	int slot;			/* which name */
	struct rxpath_dev d;
};

/* Counters at one instant (cumulative since rxcost_open()). */
struct rxcost_sums {
	int n_devs;
	int n_napis;
	struct rxcost_napi napis[RXPATH_MAX_NAPIS];
	struct rxpath_sirq sirq;
};

/* What one device did between two reads. */
struct rxcost_fig {
	double ns_per_frame;	/* poll time / frames, NAN without frames; poll time / the
				 * port's own frames when the polls' work counted fewer than
				 * half of those (frames_from_port) */
	bool frames_from_port;	/* the driver's NAPI work left out frames its XDP
				 * program consumed (vmxnet3 native) */
	double frames;		/* napi_poll work in the timed polls */
	double polls;		/* timed polls */
	double empty_polls;	/* of them with work 0 */
	double empty_ns;	/* their mean span, NAN without */
	double outside;		/* polls outside a NET_RX softirq (not timed) */
	double hook_ns_per_poll;	/* the napi_poll program's body per poll, all devices;
					 * NAN without polls */
	double others;		/* NAPI instances of other devices of the same name (other
				 * namespaces) that polled in the interval, left out */
	uint64_t napi;		/* the one instance counted, 0: several (or none) */
};

/* Polls of one work value (frames per poll) since rxcost_open(). */
struct rxcost_work {
	int work;
	double polls;
	double ns;
	double min_ns;		/* the shortest span */
};

/* NET_RX softirq time between A and B (every softirq, whatever it polled) per frame of
 * FRAMES, NAN without frames (pure). */
double rxcost_softirq_per_frame(const struct rxcost_sums *a, const struct rxcost_sums *b,
				double frames);
/* The figures of device DEV between A and B (pure). A name can belong to devices in
 * other network namespaces (a lab in a box: every host has port-b), and the program
 * cannot tell namespaces apart without BTF: when several NAPI instances of the name
 * polled, the one whose frames come closest to PORT_FRAMES (the port's own rx_packets
 * over the interval) is the device's; PORT_FRAMES < 0: all of them. */
void rxcost_delta(const struct rxcost_sums *a, const struct rxcost_sums *b, int dev,
		  double port_frames, struct rxcost_fig *out);

/* One field of a tracepoint format file (/sys/kernel/tracing/events/SYS/EVENT/format):
 * its OFFSET and SIZE, 0; -ENOENT when FORMAT has no field NAME, -EINVAL when the line
 * is malformed (pure). */
int rxcost_format_field(const char *format, const char *name, int *offset, int *size);

/* A line through the shortest span per work value (N entries of W, work 1..64 with at
 * least 2 polls): PER_POLL + PER_FRAME x work. Under icount the shortest span of a work
 * value is one no interrupt hit, so PER_FRAME is the receive path's cost of one more
 * frame in a poll, free of how the frames happened to be batched (rx.ns_per_frame is
 * not: the per-poll part spreads over however many frames a poll got). Returns 0, or
 * -ENODATA with fewer than two such work values (pure). */
int rxcost_fit(const struct rxcost_work *w, int n, double *per_poll, double *per_frame);

/* Whether FORMAT, the format file of EVENT ("irq/softirq_entry", "irq/softirq_exit",
 * "napi/napi_poll"), has the layout bpf/rxpath.bpf.c reads: 0, or -EPROTO with ERR
 * saying which field differs (pure). */
int rxcost_check_format(const char *event, const char *format, struct err *err);

/* Load bpf/rxpath.bpf.c for the N (1..RXPATH_MAX_DEVS) interfaces IFNAMES and attach it
 * to the three tracepoints (tracefs is mounted on /sys/kernel/tracing when neither it
 * nor /sys/kernel/debug/tracing has the events). Returns 0 with *OUT set, or -errno with
 * ERR set. */
int rxcost_open(struct rxcost **out, const char *const *ifnames, int n, struct err *err);
/* The same with POLLS false: irq:softirq_entry and irq:softirq_exit only (whole NET_RX
 * softirqs in rxpath_sirq.ns and .count; no per-poll figures), the way to see what the
 * napi_poll hook itself costs (docs/agent.md, "Receive path cost"). */
int rxcost_open_opts(struct rxcost **out, const char *const *ifnames, int n, bool polls,
		     struct err *err);
/* Sum the counters over the CPUs into OUT. Returns 0 or -errno. */
int rxcost_read(struct rxcost *r, struct rxcost_sums *out);
/* The per-work polls of NAPI instance NAPI (0: every instance of device DEV) into OUT
 * (RXPATH_MAX_WORK + 1 entries, work 0..64 in order, polls 0 where none). Returns 0 or
 * -errno. */
int rxcost_read_work(struct rxcost *r, int dev, uint64_t napi, struct rxcost_work *out);
/* Detach, unload, free, set *R to NULL; NULL is fine. */
void rxcost_close(struct rxcost **r);

#endif

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* rxpath_shared.h - what bpf/rxpath.bpf.c counts, as agent/rxcost.c reads it. */
#ifndef BPFLAB_RXPATH_SHARED_H
#define BPFLAB_RXPATH_SHARED_H

#include <linux/types.h>

#define RXPATH_MAX_DEVS 4	/* receiving ports of one job */
#define RXPATH_IFNAMSIZ 16	/* IFNAMSIZ, with its NUL */
#define RXPATH_NET_RX 3		/* NET_RX_SOFTIRQ */
#define RXPATH_MAX_NAPIS 64	/* NAPI instances with one of the names, all namespaces */

/* Per NAPI instance of a device of interest (rxp_napis, per CPU, keyed by the
 * napi_struct's address): names repeat across network namespaces (every host of a lab
 * in a box has a port-b), so the agent tells its own instance apart (agent/rxcost.h). */
struct rxpath_dev {
	__u64 slot;		/* index in rxp_names + 1 (on the CPU that saw it first) */
	__u64 ns;		/* poll spans inside NET_RX softirqs */
	__u64 frames;		/* their napi_poll `work` */
	__u64 polls;		/* polls timed */
	__u64 empty_polls;	/* of them, polls with work 0 (TX cleaning, nothing left) */
	__u64 empty_ns;		/* their spans (inside ns) */
	__u64 outside;		/* polls outside a NET_RX softirq (threaded NAPI, busy
				 * polling): not timed, not in frames */
	__u64 outside_frames;	/* their work */
};

/* Polls of one NAPI instance that did WORK frames (rxp_work, per CPU): how a poll's
 * span grows with its frames, whatever the batching (agent/rxcost.h, rxcost_fit). */
#define RXPATH_MAX_WORK 64	/* work above is counted as 64 */
#define RXPATH_WORK_ENTRIES 4096
struct rxpath_work_key {
	__u64 napi;
	__u32 work;
	__u32 pad;
};

struct rxpath_work {
	__u64 polls;
	__u64 ns;
	__u64 min_ns;		/* the shortest span (under icount: no interrupt in it) */
};

/* Whole NET_RX softirqs (rxp_sirq, per CPU), whatever device they polled. */
struct rxpath_sirq {
	__u64 ns;		/* softirq_entry to softirq_exit */
	__u64 count;		/* softirqs */
	__u64 polls;		/* napi_poll events inside them, every device */
	__u64 hook_ns;		/* time inside the napi_poll program between its two stamps */
};

/* Per CPU state (rxp_cpu). */
struct rxpath_cpu {
	__u64 stamp;		/* end of the last event inside this softirq, 0: none */
	__u64 entry;		/* softirq_entry's stamp, 0: not in a NET_RX softirq */
};

#endif

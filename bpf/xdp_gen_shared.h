/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* xdp_gen_shared.h - what bpf/xdp_gen.bpf.c and agent/xdpgen.c share: the per-CPU state
 * of the xdp-live generator program and the frame layout it rewrites. */
#ifndef BPFLAB_XDP_GEN_SHARED_H
#define BPFLAB_XDP_GEN_SHARED_H

/* Value of the one-entry per-CPU array gen_cpu. */
struct xdp_gen_cpu {
	__u64 frames;		/* frames this CPU's test runs handed to XDP_TX */
	__u32 flow;		/* flow of the last frame, 0 .. flows-1 */
	__u32 pad;
};

/* Offsets of the UDP header in the frames agent/xdpgen.c builds (no VLAN, no options). */
#define XDP_GEN_UDP4_OFF (14 + 20)
#define XDP_GEN_UDP6_OFF (14 + 40)

#endif

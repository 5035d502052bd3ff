/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* experiments_shared.h - the counter keys of the experiment programs
 * (tc_stats_variants, xdp_redirect, xdp_chain, xdp_cpumap, xdp_police), shared with user space and
 * named in the plans' `counters:` entries. Each program counts into a per-CPU array
 * `stats` of u64 at these indexes; the agent sums it over CPUs.
 */
#ifndef BPFLAB_EXPERIMENTS_SHARED_H
#define BPFLAB_EXPERIMENTS_SHARED_H

/* tc_stats_variants: packets seen on ingress, on egress, and read back on egress with
 * the value ingress wrote (a store that loses values shows as egress > match). */
enum tc_stats_key { TCS_INGRESS = 0, TCS_EGRESS = 1, TCS_MATCH = 2, TCS_MAX };

/* xdp_redirect: frames the redirect program handled, frames the 2nd (devmap) program
 * saw, frames delivered to the receiver at the far end. */
enum redirect_key { RDR_REDIRECTED = 0, RDR_SECOND = 1, RDR_DELIVERED = 2, RDR_MAX };

/* xdp_chain: frames bounced by XDP_TX hops, frames redirected, frames at the end of
 * the chain (dropped or passed). */
enum chain_key { CHAIN_TX = 0, CHAIN_REDIRECT = 1, CHAIN_END = 2, CHAIN_MAX };

/* xdp_cpumap: frames received on the source CPU, frames bpf_redirect_map refused (an
 * empty slot), frames received on the destination CPU. Frames the cpumap's queue had no
 * room for are rx_src - redirect_err - rx_dst (no tracepoint needed). */
enum cpumap_key { CPUMAP_RX_SRC = 0, CPUMAP_REDIRECT_ERR = 1, CPUMAP_RX_DST = 2, CPUMAP_MAX };

/* xdp_police: frames passed (within the rate), frames dropped (above it). */
enum police_key { POLICE_PASSED = 0, POLICE_DROPPED = 1, POLICE_MAX };

#endif

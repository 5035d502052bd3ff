/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* xdpgen.h - the xdp-live traffic generator.
 *
 * Sends one UDP frame, over and over, out of one port: each generator thread runs the
 * built-in program bpf/xdp_gen.bpf.c with BPF_PROG_TEST_RUN and
 * BPF_F_TEST_XDP_LIVE_FRAMES, ingress_ifindex = the port, rx_queue_index 0; the program
 * returns XDP_TX, so the kernel sends each frame out of that port (for a veth, into the
 * peer, which needs an XDP program attached to receive it). This is pktgen for XDP: it
 * works on veth and on every driver with ndo_xdp_xmit.
 *
 * A test run costs an RCU grace period or so to set up and tear down (tens of ms here), so
 * each thread asks for as many frames as one call allows and is stopped by a signal
 * (SIGUSR1, whose no-op handler xdpgen installs); the kernel checks for pending signals
 * between batches. The frame count is the program's own per-CPU counter, read when asked,
 * so it is exact at window boundaries however long a call runs.
 *
 * With a rate (cfg.rate_pps), each thread paces its share with a token bucket
 * (gen_pace, gen.h): every 100 us of frames it wakes and sends what the bucket holds in
 * one call (repeat: at most the burst); the program is held in the XDP dispatcher
 * (xdphold.h) so that such a call takes 7-20 us, not two RCU grace periods.
 *
 * Threads: xdpgen_start() creates cfg.threads threads, thread i pinned to cfg.cpus[i
 * modulo n_cpus] when given, else to CPU i modulo the CPUs allowed. The caller's thread must be in the namespace of the port. One generator is
 * driven by one thread (start, frames, stop, destroy).
 */
#ifndef BPFLAB_AGENT_XDPGEN_H
#define BPFLAB_AGENT_XDPGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gen.h"

#define XDPGEN_MAX_THREADS 64
#define XDPGEN_MAX_BURST 4096	/* frames of one paced call (JOBSPEC_MAX_BURST) */
#define XDPGEN_MAX_FLOWS 65535
#define XDPGEN_MAX_SIZE 3000	/* a live frame has to fit a page with head- and tailroom */
#define XDPGEN_MIN_SIZE_V4 42	/* Ethernet + IPv4 + UDP */
#define XDPGEN_MIN_SIZE_V6 62	/* Ethernet + IPv6 + UDP */

struct xdpgen_config {
	int ifindex;		/* the port frames leave from */
	uint8_t src_mac[6];	/* usually the port's own MAC */
	uint8_t dst_mac[6];	/* usually the peer's MAC */
	int size;		/* frame bytes without FCS */
	bool ipv6;		/* udp6: 2001:2::1 -> 2001:2::2, else 198.19.1.1 -> 198.19.1.2 */
	int flows;		/* distinct UDP source ports, 1 .. XDPGEN_MAX_FLOWS */
	int threads;		/* 1 .. XDPGEN_MAX_THREADS */
	const int *cpus;	/* pin thread i to cpus[i % n_cpus] (borrowed while the
				 * generator lives); NULL: CPU i of those allowed */
	int n_cpus;
	uint64_t rate_pps;	/* gen_config.rate_pps: 0 full speed */
	int burst;		/* gen_config.burst: 0 auto, else 1..XDPGEN_MAX_BURST */
	bool stamp;		/* gen_config.stamp: a latency stamp after the UDP header */
};

struct xdpgen;

/* Check CFG, build the frame and load the generator program. Returns a generator, or
 * NULL with errno set and a message in ERR. */
struct xdpgen *xdpgen_new(const struct xdpgen_config *cfg, struct err *err);
/* Stop the threads if running, unload, free; nulls the caller's pointer. NULL is fine. */
void xdpgen_destroy(struct xdpgen **gen);

/* Start the threads. Returns 0 or -errno (ERR set). */
int xdpgen_start(struct xdpgen *gen, struct err *err);
/* Stop and join the threads; safe when not started. Returns 0, or the first error a
 * thread met (-errno, ERR set). */
int xdpgen_stop(struct xdpgen *gen, struct err *err);
/* Frames sent since load (sum of the per-CPU counters) into *FRAMES. 0 or -errno. */
int xdpgen_frames(struct xdpgen *gen, uint64_t *frames);
/* The first error a thread met while running (0 while all is well), with ERR set. */
int xdpgen_error(struct xdpgen *gen, struct err *err);
/* The program's fd (for tests and for bpf_stats). */
int xdpgen_prog_fd(const struct xdpgen *gen);
/* Thread IDX's paced batches (gen.h, struct gen_paced) into *OUT: 0, or -ENOENT (not
 * started, not paced, IDX out of range). */
int xdpgen_paced(struct xdpgen *gen, int idx, struct gen_paced *out);
/* The paced threads' burst and shortfall since the last start (gen_ops.pace_stats). */
int xdpgen_pace_stats(struct xdpgen *gen, struct gen_pace_stats *out);
/* The rate of the next start of a stopped generator (gen_ops.set_rate); -EBUSY while
 * it runs. */
int xdpgen_set_rate(struct xdpgen *gen, uint64_t rate);

/* Build the frame for CFG into BUF (at least cfg->size bytes); with UDP source port
 * SPORT. Returns 0 or -EINVAL (size out of range). Exposed for tests. */
int xdpgen_build_frame(const struct xdpgen_config *cfg, uint16_t sport, uint8_t *buf,
		       size_t buf_len);

/* The fields of generator config CFG that xdp-live takes, into OUT (udpgen.c too). */
void xdpgen_config_of(const struct gen_config *cfg, struct xdpgen_config *out);
/* This generator behind the generator interface (gen.h). */
extern const struct gen_ops xdpgen_ops;

#endif

/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* udpgen.h - the udp traffic generator: UDP frames through the kernel's transmit path.
 *
 * Each thread sends the same frames as xdp-live (xdpgen_build_frame: Ethernet, IPv4 or
 * IPv6, UDP; one frame per flow, UDP source ports 1024 + i) with sendmmsg() in batches of
 * 64 on an AF_PACKET SOCK_RAW socket bound to the port. Unlike xdp-live the frames take
 * the device's transmit path: the qdisc, the tc egress hook (tcx), dev_queue_xmit and the
 * driver, so for a veth they cross into the peer as the stack's own traffic does.
 *
 * Why AF_PACKET and not a UDP socket: the lab gives both ends of a veth pair addresses in
 * one namespace, and a UDP socket sending to the peer's address is delivered over
 * loopback without crossing the veth. An AF_PACKET socket writes the frame to the port
 * itself; the port counters (tx on the port, rx on its peer) show that every frame
 * crossed (tests/unit/test_agent_udpgen.c checks it).
 *
 * The frame count is the sum of what sendmmsg() accepted (frames the device took or its
 * qdisc queued); ENOBUFS is retried. With a rate (cfg.rate_pps) each thread paces its
 * sendmmsg calls with a token bucket (gen_pace, gen.h): every 100 us of frames a call
 * sends what the bucket holds (at most the burst, 64), and frames a call did not take
 * are sent by the next. Threads are pinned like xdp-live's. One generator is
 * driven by one thread (start, frames, stop, destroy).
 */
#ifndef BPFLAB_AGENT_UDPGEN_H
#define BPFLAB_AGENT_UDPGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gen.h"
#include "xdpgen.h"

struct udpgen_config {
	int ifindex;		/* the port frames leave from */
	uint8_t src_mac[6];
	uint8_t dst_mac[6];
	int size;		/* frame bytes without FCS */
	bool ipv6;
	int flows;		/* 1 .. 65535 */
	int threads;		/* 1 .. 64 */
	const int *cpus;	/* pin thread i to cpus[i % n_cpus] (borrowed); NULL: no pinning */
	int n_cpus;
	uint64_t rate_pps;	/* gen_config.rate_pps: 0 full speed */
	int burst;		/* gen_config.burst: 0 auto, else 1..64 (one sendmmsg) */
};

struct udpgen;

/* Check CFG and build the frames. NULL with errno set and ERR filled on failure. */
struct udpgen *udpgen_new(const struct udpgen_config *cfg, struct err *err);
/* Stop if running and free; nulls the caller's pointer. NULL is fine. */
void udpgen_destroy(struct udpgen **gen);
/* The paced threads' burst and shortfall since the last start (gen_ops.pace_stats). */
int udpgen_pace_stats(struct udpgen *gen, struct gen_pace_stats *out);
/* The rate of the next start of a stopped generator; -EBUSY while it runs. */
int udpgen_set_rate(struct udpgen *gen, uint64_t rate);
/* Open the sockets and start the threads. 0 or -errno with ERR set. */
int udpgen_start(struct udpgen *gen, struct err *err);
/* Stop and join the threads. 0, or the first error a thread met. */
int udpgen_stop(struct udpgen *gen, struct err *err);
/* Frames sent so far into *FRAMES. Returns 0. */
int udpgen_frames(struct udpgen *gen, uint64_t *frames);
/* The first error a thread met while running (0 while all is well), with ERR set. */
int udpgen_error(struct udpgen *gen, struct err *err);

/* Write a latency stamp (bpf/latency_shared.h: STREAM, SEQ, TS) after the UDP header of
 * FRAME, built by xdpgen_build_frame() with CFG and at least LAT_PAYLOAD_LEN bytes longer
 * than the headers, adjusting the IPv6 UDP checksum for the bytes it changes (RFC 1624). */
void udpgen_stamp_frame(const struct xdpgen_config *cfg, uint8_t *frame, uint16_t stream,
			uint32_t seq, uint64_t ts);

/* This generator behind the generator interface (gen.h). */
extern const struct gen_ops udpgen_ops;

#endif

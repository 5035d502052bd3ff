/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* pktgen.h - the pktgen traffic generator: drives the kernel's pktgen module.
 *
 * pktgen is configured through files under /proc/net/pktgen (the directory is a
 * parameter, so that tests can point it at a temporary directory that stands in for
 * procfs and read back every command). One command per write:
 *
 *   kpktgend_CPU   rem_device_all, add_device IFNAME@i    (thread i on its CPU: cpus[i %
 *                                                          n_cpus], else CPU i)
 *   IFNAME@i       count 0, clone_skb 0, burst B (cfg.burst, else 1), delay 0,
 *                  pkt_size SIZE, dst_mac MAC,
 *                  src_min/dst (udp4: 198.19.1.1 -> 198.19.1.2) or src6/dst6
 *                  (udp6: 2001:2::1 -> 2001:2::2), udp_src_min 1024, udp_src_max
 *                  1024+flows-1, udp_dst_min/max 9, and with a rate (cfg.rate_pps)
 *                  ratep R (thread i's share, gen_thread_rate: pktgen paces itself),
 *                  or with cfg.burst B: delay B x 1e9 / R ns (a burst per delay)
 *   pgctrl         start (blocks until stopped: written from a thread of its own),
 *                  stop
 *
 * The frame count is the sum of the devices' "pkts-sofar". Without the module (no
 * DIR/pgctrl) pktgen_new() fails with "generator 'pktgen' needs the pktgen module
 * (/proc/net/pktgen is missing)". One generator is driven by one thread.
 */
#ifndef BPFLAB_AGENT_PKTGEN_H
#define BPFLAB_AGENT_PKTGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gen.h"

#define PKTGEN_DIR "/proc/net/pktgen"

struct pktgen_config {
	const char *dir;	/* NULL: PKTGEN_DIR */
	const char *ifname;	/* the port frames leave from */
	uint8_t dst_mac[6];
	int size;		/* frame bytes without FCS */
	bool ipv6;
	int flows;		/* 1 .. 65535 */
	int threads;		/* 1 .. 64 */
	const int *cpus;	/* thread i on cpus[i % n_cpus] (borrowed); NULL: CPU i */
	int n_cpus;
	uint64_t rate_pps;	/* gen_config.rate_pps: 0 full speed */
	int burst;		/* gen_config.burst: 0 one frame at a time (ratep) */
};

struct pktgen;

/* Check that pktgen is there and configure its threads and devices. NULL with errno set
 * and ERR filled on failure. */
struct pktgen *pktgen_new(const struct pktgen_config *cfg, struct err *err);
/* Stop if running, remove the devices from the threads, free; nulls the pointer. */
void pktgen_destroy(struct pktgen **gen);
/* Write "start" to pgctrl from a thread of its own. 0 or -errno with ERR set. */
int pktgen_start(struct pktgen *gen, struct err *err);
/* Write "stop" to pgctrl and join the start thread. 0, or -errno with ERR set. */
int pktgen_stop(struct pktgen *gen, struct err *err);
/* The devices' pkts-sofar summed into *FRAMES. 0 or -errno. */
int pktgen_frames(struct pktgen *gen, uint64_t *frames);

/* Always 0: pktgen reports its errors at stop (for gen_ops). */
int pktgen_error(struct pktgen *gen, struct err *err);
/* This generator behind the generator interface (gen.h). */
extern const struct gen_ops pktgen_ops;

#endif

/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* xdphold.h - keep an XDP program in the kernel's XDP dispatcher while a paced xdp-live
 * generator (xdpgen.c) runs, so that its calls do not wait.
 *
 * A BPF_PROG_TEST_RUN of an XDP program with repeat > 1 puts the program into the XDP
 * dispatcher before the run and takes it out after: each a dispatcher update that waits
 * for an RCU grace period, 16-70 ms a call on a busy 2-CPU host (bench/xdp_live_call.c),
 * so a paced generator's frames went out in bursts that far apart. A program already in
 * the dispatcher only has its count raised and lowered (no update, no grace period; the
 * dispatcher's one mutex is still taken, and waited for while another process's update
 * holds it through its grace period: bench/README.md, "pacing"): the hold
 * attaches it in generic (skb) mode to a veth pair of its own, bph<pid>-<n> and
 * bph<pid>-<n>p, that stays down with no address (no frame ever reaches it), and deletes
 * the pair (which detaches it) when it ends. Needs CAP_NET_ADMIN.
 */
#ifndef BPFLAB_AGENT_XDPHOLD_H
#define BPFLAB_AGENT_XDPHOLD_H

#include <stddef.h>

#include "base/err.h"

struct xdphold;

/* Hold PROG_FD (an XDP program) in the dispatcher, in the calling thread's network
 * namespace. NULL with errno set and a message in ERR on failure (nothing left behind). */
struct xdphold *xdphold_new(int prog_fd, struct err *err);
/* The veth the program is attached to (for tests). */
const char *xdphold_ifname(const struct xdphold *h);
/* Delete the pair (the program leaves the dispatcher) and free; nulls the caller's
 * pointer. NULL is fine. */
void xdphold_destroy(struct xdphold **h);

#endif

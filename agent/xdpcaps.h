/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* xdpcaps.h - which XDP modes and actions a port's driver supports, for the inventory
 * ("xdp" of each port, docs/agent.md "Inventory") and for attach errors.
 *
 * Two ways to find out, in this order:
 *
 *   netlink  Linux 6.3+: the generic-netlink family "netdev", NETDEV_CMD_DEV_GET for the
 *            port's ifindex, attribute NETDEV_A_DEV_XDP_FEATURES (a u64 of
 *            NETDEV_XDP_ACT_* bits, include/uapi/linux/netdev.h). The driver runs XDP
 *            programs itself (native mode) when it sets NETDEV_XDP_ACT_BASIC; the card
 *            runs them (offload) with NETDEV_XDP_ACT_HW_OFFLOAD. Asked by hand: libbpf's
 *            bpf_xdp_query() asks the same (opts.feature_flags) only from libbpf 1.2, and
 *            Debian 12 has 1.1.
 *   probe    kernels without the family (Debian's 6.1): a trivial XDP_PASS program
 *            (loaded once per process) is attached in driver mode by a bpf_link
 *            (XDP_FLAGS_DRV_MODE; a link fails on a port that has a program) and the link
 *            is closed at once. EOPNOTSUPP or EINVAL: the driver has no native XDP. A port
 *            that has a program attached is never probed: its modes are unknown. A
 *            probe's answer is kept for the process's life (per ifindex and name), so a
 *            port is probed once, not at every inventory.
 *
 * Generic (skb) mode is always available. Functions return 0 or -errno; callable from
 * any thread (the probe cache has a lock). The calling thread's network namespace is
 * the one asked.
 */
#ifndef BPFLAB_AGENT_XDPCAPS_H
#define BPFLAB_AGENT_XDPCAPS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* NETDEV_XDP_ACT_* of include/uapi/linux/netdev.h (Linux 6.3+; Debian 12's headers do
 * not have the file). */
#define XDPCAPS_ACT_BASIC		(1ull << 0)	/* XDP_ABORTED, DROP, PASS, TX */
#define XDPCAPS_ACT_REDIRECT		(1ull << 1)
#define XDPCAPS_ACT_NDO_XMIT		(1ull << 2)	/* a redirect target */
#define XDPCAPS_ACT_XSK_ZEROCOPY	(1ull << 3)
#define XDPCAPS_ACT_HW_OFFLOAD		(1ull << 4)
#define XDPCAPS_ACT_RX_SG		(1ull << 5)
#define XDPCAPS_ACT_NDO_XMIT_SG		(1ull << 6)
#define XDPCAPS_ACT_KNOWN		0x7full

enum xdpcaps_source {
	XDPCAPS_UNKNOWN,		/* neither way answered: only generic is certain */
	XDPCAPS_NETLINK,
	XDPCAPS_PROBE,
};

struct xdpcaps {
	enum xdpcaps_source source;
	uint64_t features;		/* NETDEV_XDP_ACT_* (source netlink only) */
	bool native;			/* driver mode */
	bool offload;			/* hardware offload */
	char reason[160];		/* source unknown: why */
};

/* The feature bits as the kernel's netlink spec names them, in bit order: "basic",
 * "redirect", "ndo-xmit", "xsk-zerocopy", "hw-offload", "rx-sg", "ndo-xmit-sg"; a bit
 * this list does not know is "bitN". NULL only on ENOMEM. */
json_t *xdpcaps_features_json(uint64_t features);
/* CAPS with NATIVE and OFFLOAD set from FEATURES, source netlink. */
void xdpcaps_from_features(uint64_t features, struct xdpcaps *caps);
/* {"modes": ["native", "generic", "offload"], "features": [...], "source": "netlink"};
 * a probe has no "features"; unknown: {"source": "unknown", "reason"} without "modes"
 * (a port nobody could ask: the coordinator treats it as an older agent's). */
json_t *xdpcaps_json(const struct xdpcaps *caps);
/* The modes as text, "native, generic" or "generic" (unknown: "unknown"), into BUF. */
const char *xdpcaps_modes_text(const struct xdpcaps *caps, char *buf, size_t len);

/* NETDEV_A_DEV_XDP_FEATURES of IFINDEX into *FEATURES. -ENOENT: the kernel has no
 * "netdev" family (before 6.3); -ENODEV: no such interface; other -errno. */
int xdpcaps_netlink(int ifindex, uint64_t *features);
/* Try a driver-mode attach on IFINDEX as above (uncached): *NATIVE true or false.
 * -EBUSY when the port has a program attached (not tried); other -errno when the
 * answer is not known (the program would not load, the port went away). */
int xdpcaps_probe(int ifindex, bool *native);
/* What IFINDEX (named IFNAME, for the cache) supports: netlink, else a (cached) probe,
 * else CAPS->source unknown with the reason. Always fills CAPS; returns 0 when it knows,
 * -errno when the source is unknown. */
int xdpcaps_get(int ifindex, const char *ifname, struct xdpcaps *caps);

#endif

/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* inventory.h - what a host is: the JSON inventory an agent sends in hello and with each
 * result (docs/protocol.md, "Inventory").
 *
 * Kernel release and version from uname; the kernel config from /proc/config.gz (read
 * through zlib, loaded with dlopen so that the agent does not need it to start) or
 * /boot/config-RELEASE, hashed, and scanned for the debug options that spoil
 * measurements; the command line; CPU count, model, governor and NUMA nodes; the BPF JIT
 * sysctls (global, but visible only in the initial network namespace, so they are read
 * from there when the agent runs inside another; where even that is not allowed,
 * jit_enable comes from loading a trivial program and asking whether it was JITed, and
 * jit_harden is null); labels; the machine (its `machine` label, else /etc/machine-id
 * and the boot id: the same in every namespace of one machine); and, for each port role, the
 * interface's index, driver and firmware (ethtool), MAC and MTU (rtnetlink), speed and
 * queue counts when the driver reports them.
 *
 * Pure functions of the host's state; callable from any thread.
 */
#ifndef BPFLAB_AGENT_INVENTORY_H
#define BPFLAB_AGENT_INVENTORY_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* A --port ROLE=IFNAME or --label KEY=VALUE. */
struct inventory_pair {
	char *key;
	char *value;
};

struct inventory_config {
	const char *agent;			/* agent name */
	const struct inventory_pair *ports;	/* role -> interface name */
	int n_ports;
	const struct inventory_pair *labels;
	int n_labels;
	const char *timing;			/* "wall" (NULL) or "icount" */
	/* the kernel provider's {"command", "kernels": [...], "error"?} (agent/provider.h),
	 * or NULL: no provider configured. Borrowed, never changed after start. */
	json_t *provider;
};

/* Split "KEY=VALUE" into heap strings. Returns 0, or -EINVAL when there is no '=' or
 * either side is empty, -ENOMEM. */
int inventory_pair_parse(const char *text, struct inventory_pair *pair);
void inventory_pair_release(struct inventory_pair *pair);

/* The whole inventory object, including "timing": "wall" (real time) or "icount" (a
 * QEMU guest under -icount: one guest nanosecond is one guest instruction), and
 * "provider" (the kernels this host can be switched to) when one is configured. NULL
 * only on ENOMEM. */
json_t *inventory_build(const struct inventory_config *cfg);

/* The inventory entry of one port: {"role", "name", "ifindex", "driver", "mac", "mtu",
 * ...}; an interface that does not exist gives {"role", "name", "error"}. */
json_t *inventory_port(const char *role, const char *ifname);

/* The interface's driver name from ETHTOOL_GDRVINFO into DRIVER. Returns 0 or -errno. */
int inventory_driver(const char *ifname, char *driver, size_t len);
/* IFNAME's speed in Mb/s (ETHTOOL_GSET), 0 when it reports none. */
uint32_t inventory_speed(const char *ifname);

/* The running kernel's config text (heap, caller frees) from /proc/config.gz or
 * /boot/config-RELEASE. Returns 0 or -errno (-ENOENT when neither is readable). */
int inventory_kernel_config(char **text, size_t *len);
/* The debug options that spoil measurements and are set (=y) in CONFIG, as an array of
 * names without CONFIG_. */
json_t *inventory_debug_options(const char *config);

#endif

/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* probe.h - wiring discovery on the agent: probe frames out of every port, and the probe
 * frames every port received.
 *
 * For a coordinator's `probe` message (docs/protocol.md, "Links") the agent opens one
 * AF_PACKET socket per mapped port, bound to that interface and to the local experimental
 * ethertype PROBE_ETHERTYPE (0x88B5), so nothing but probes is read; after SEND_AFTER_MS
 * (long enough for every other agent to have opened its sockets too) it sends one
 * broadcast frame per port whose payload is "bpflab-probe" and that port's nonce; until
 * LISTEN_MS from the start it collects the nonces that arrive. Never IP: a frame of this
 * ethertype is dropped by every stack it reaches.
 *
 * Runs in the agent loop's thread and blocks it for LISTEN_MS (at most PROBE_MAX_MS,
 * under the heartbeat deadline).
 */
#ifndef BPFLAB_AGENT_PROBE_H
#define BPFLAB_AGENT_PROBE_H

#include <jansson.h>

#include "inventory.h"

#define PROBE_ETHERTYPE 0x88B5
#define PROBE_MAGIC "bpflab-probe"
#define PROBE_NONCE_MAX 64
#define PROBE_MAX_MS 2000

/* Probe the ports of INV as MSG (a `probe` message, borrowed) asks and return the new
 * `probe_report` message: {"probe", "received": {ROLE: [nonce, ...]}, "error"?}. A port
 * that cannot be opened is left out and named in "error". NULL only when out of memory. */
json_t *probe_run(const struct inventory_config *inv, const json_t *msg);

/* The nonce of a received FRAME (LEN bytes from the wire, Ethernet header included): the
 * bytes after PROBE_MAGIC up to a NUL, the end or PROBE_NONCE_MAX, into NONCE
 * (terminated). Returns its length; 0 (NONCE "") for a frame that is not a probe or
 * carries none. */
size_t probe_frame_nonce(const unsigned char *frame, size_t len,
			 char nonce[PROBE_NONCE_MAX + 1]);

#endif

/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* coord_machine.h - hosts that share a machine (machine.c): which host of a machine may
 * start a job now. machine.c works on the agents' machine fields only and calls no
 * other file of the coordinator. Event loop thread only.
 */
#ifndef BPFLAB_COORD_MACHINE_H
#define BPFLAB_COORD_MACHINE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coord_priv.h"

/* Hosts that share a machine (coordinator/machine.c; the rule is there and in
 * docs/architecture.md). After A's hello (its inventory updated): A joins the machine of
 * its inventory's machine.id (none: a machine of its own). */
void coord_machine_hello(struct coord *c, struct coord_agent *a);
/* A was handed the job with SPEC: note whether it shares the machine, and is a pair's. */
void coord_machine_running(struct coord_agent *a, const json_t *spec);
/* Whether A's next job, whatever it is, cannot start for its machine now (another host
 * there runs a job that neither shares the machine nor is a pair's): A then waits. */
bool coord_machine_busy(struct coord *c, struct coord_agent *a);
/* Whether the job with SPEC may start on A now for the machines: A's (and that of
 * PEER, the other side of its pair, or NULL); when not, A waits for its machine. */
bool coord_machine_may(struct coord *c, struct coord_agent *a, const json_t *spec,
		       const struct coord_agent *peer);
/* A's job with SPEC, one side of a pair, was picked while PEER, the other side, is idle
 * on another machine: PEER counts as busy there while A runs that job, so that no third
 * host of PEER's machine starts before PEER does. */
void coord_machine_hold(struct coord_agent *a, struct coord_agent *peer, const json_t *spec);
/* A waits for its machine (WAIT), or not any more. */
void coord_machine_wait(struct coord *c, struct coord_agent *a, bool wait);
/* The hosts of A's machine that wait for it (A too, when it waits), one after another:
 * the first after AFTER (NULL: the first), or NULL. */
struct coord_agent *coord_machine_waiter(const struct coord_agent *a,
					 const struct coord_agent *after);
/* Each host of a host_list reply that waits for its machine gets "waits_for_machine":
 * true. */
void coord_machine_hosts(struct coord *c, json_t *hosts);
/* Free the machines (coord_destroy). */
void coord_machine_release(struct coord *c);


#endif

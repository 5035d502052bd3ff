/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* coord_boot.h - kernel providers (boot.c), as the coordinator's loop, agent messages,
 * client requests, dispatch and submit call them. boot.c itself reaches the agents only
 * through coord_core.h. Event loop thread only.
 */
#ifndef BPFLAB_COORD_BOOT_H
#define BPFLAB_COORD_BOOT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coord_priv.h"
#include "plan/jobspec.h"

/* Kernel providers (coordinator/boot.c): a client's host_boot; an agent's boot_report;
 * the end of a switch at the hello of a host that was booting (call after the agent's
 * inventory is updated); switches past their deadline (tick); whether A is held back
 * from dispatch while it switches; each host's "boot" object (and state "booting") in a
 * host_list reply. */
json_t *coord_host_boot(struct coord *c, const json_t *msg);
void coord_boot_report(struct coord *c, struct coord_agent *a, const json_t *msg);
void coord_boot_hello(struct coord *c, struct coord_agent *a, const json_t *hello);
void coord_boot_tick(struct coord *c);
bool coord_boot_holds(const struct coord_agent *a);
void coord_boot_hosts(struct coord *c, json_t *hosts);
/* At coordinator start (after store_recover): the latest stored switch of each host
 * back into its agent, made when needed; one still booting holds its host back until
 * its hello or its deadline (COORD_BOOT_TIMEOUT_MS from when it was asked: one past it
 * ends as failed at once). Returns 0 or -errno (logged). */
int coord_boot_restore(struct coord *c);
/* Whether the queued job with SPEC may be handed to agent A: its inventory still has
 * the spec's port roles and matches its hosts_match (sched_jobspec_fits). When not, WHY
 * names the host, the kernel it runs now and what the plan asks. */
bool coord_job_fits(const struct coord_agent *a, const struct job_spec *spec,
		    struct err *why);

#endif

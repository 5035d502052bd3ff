/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* coord_link.h - two-host plans and wiring discovery (link.c), as the coordinator's
 * loop, agent messages, dispatch and submit call them. link.c itself reaches the
 * agents only through coord_core.h. link.c owns each agent's pair part (struct
 * coord_agent_pair), the discovery and the scan in struct coord. Event loop thread
 * only.
 */
#ifndef BPFLAB_COORD_LINK_H
#define BPFLAB_COORD_LINK_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coord_priv.h"

struct plan;
struct plan_job;
/* A client's link_discover from routing id ID: probes go to every connected agent and
 * the reply (`links`) is sent when all reported or the deadline passed. */
void coord_link_discover(struct coord *c, const void *id, size_t id_len);
/* A client's link_list: the stored links. */
json_t *coord_link_list(struct coord *c, const json_t *msg);
/* An agent's probe_report, ready; a result (after it was stored) of a pair job. */
void coord_link_report(struct coord *c, struct coord_agent *a, const json_t *msg);
void coord_link_ready(struct coord *c, struct coord_agent *a, const json_t *msg);
void coord_link_result(struct coord *c, struct coord_agent *a, int64_t job, bool failed,
		       const char *error);
/* Agent LOST was declared gone while running job RUNNING (0: none): its barrier is over,
 * and each connected agent whose pair job's other side is on LOST's host is told to
 * abort at once (`go` with `abort`, also after a go: the pair broke during the job). */
void coord_link_lost(struct coord *c, struct coord_agent *lost, int64_t running);
/* Agent A said hello: it is back (not gone), and keeps its barrier state only for KEEP,
 * the job it goes on with (0: none). When it is a new session (its agent was
 * restarted, or its connection replaced, before its host was declared gone) without job
 * DROPPED that it ran (0: none; the store queued it again): as coord_link_lost for that
 * job only, the other side of its pair is told to abort at once, and what A still sends
 * for DROPPED is stale. */
void coord_link_hello(struct coord *c, struct coord_agent *a, int64_t keep,
		      int64_t dropped);
/* Agent A was handed a job (dispatch.c): its barrier starts over. */
void coord_link_handed(struct coord_agent *a);
/* At the coordinator's start: the pair jobs of hosts not back yet wait from now. */
void coord_link_start(struct coord *c);
/* Job JOB of host NAME failed for good with WHY (the coordinator failed it): the other
 * side of its pair, if any, is aborted (running) or failed (queued). */
void coord_link_failed(struct coord *c, int64_t job, const char *name, const char *why);
/* Finish a discovery past its deadline, and fail the pairs that waited too long for a
 * gone host (called by the tick). */
void coord_link_tick(struct coord *c);
/* Free what link.c holds (coord_destroy). */
void coord_link_release(struct coord *c);
/* Whether the pair job with SPEC may go to agent A now: its partner's host is connected
 * and idle (or running the partner). Jobs without "pair" may always go. */
bool coord_link_may_dispatch(struct coord *c, struct coord_agent *a, int64_t job,
			     const struct job_spec *spec, struct coord_agent **peer);
/* For a plan with a link: choose a stored link whose ends have the plan's ports, whose
 * hosts are connected and match hosts.match (NAMES, if not NULL, must name both), the
 * least loaded first; *GEN and *DUT get its hosts. Returns 0 or -errno with ERR. */
int coord_link_choose(struct coord *c, const struct plan *plan, const json_t *names,
		      struct coord_agent **gen, struct coord_agent **dut, struct err *err);

#endif

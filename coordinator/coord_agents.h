/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* coord_agents.h - the agents' messages, heartbeats and liveness (agents.c), as the
 * coordinator's loop (coord.c) calls them. Event loop thread only.
 */
#ifndef BPFLAB_COORD_AGENTS_H
#define BPFLAB_COORD_AGENTS_H

#include "coord_priv.h"

/* Receive and handle one agent message (the results stored so far are committed first,
 * unless it is one more result: coord_result_flush). Returns 1 when one was handled, 0
 * when none was waiting, or -errno. */
int coord_agent_recv(struct coord *c);
/* The timer's part for agents: declare gone those silent for liveness heartbeats (their
 * jobs go back to the queue, or move: store_host_lost; the other side of a pair is
 * told), unless messages wait unread; send heartbeats; store last_seen now and then. */
void coord_agents_tick(struct coord *c);

#endif

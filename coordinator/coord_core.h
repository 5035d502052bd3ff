/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* coord_core.h - the coordinator's core (core.c): the one interface through which its
 * parts (agents.c, results.c, dispatch.c, clients.c and the request handlers, boot.c,
 * link.c) reach the agents it knows. The parts below it in the call order, boot.c and
 * link.c among them, call only this and their own helpers, never back into the loop
 * (coord.c), the agent messages (agents.c) or dispatch (dispatch.c): core.c calls none
 * of them (only machine.c, which calls nothing back), so the calls between the
 * coordinator's files go one way.
 *
 * Contract:
 * - Event loop thread only; nothing here blocks (sends are ZMQ_DONTWAIT).
 * - Agents (struct coord_agent, coord_priv.h) are made by an agent's hello (agents.c)
 *   and freed only with the coordinator (coord_agents_release): a pointer to one stays
 *   valid while the coordinator lives, whether it is connected or gone.
 * - Sending never fails loudly: a send error is logged at debug level and returned as
 *   -errno; liveness (agents.c) then finds a vanished agent.
 * - A part that frees an agent of its job (or lifts what held it back) asks for a
 *   dispatch with coord_dispatch_agent; the dispatch itself happens at the end of the
 *   loop's turn (dispatch.c), never inside the caller.
 * - core.c owns the agents' fields outside their parts (coord_priv.h): the other files
 *   change them through the functions below.
 */
#ifndef BPFLAB_COORD_CORE_H
#define BPFLAB_COORD_CORE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coord_priv.h"

struct samples;

/* Send MSG (borrowed) to agent A without blocking; 0 (A's last_send_mono updated), or
 * -errno (logged at debug level). */
int coord_send_agent(struct coord *c, struct coord_agent *a, const json_t *msg);
/* coord_send_agent of a message already encoded: TEXT (heap, taken) of LEN bytes, a
 * message of type TYPE. */
int coord_send_agent_text(struct coord *c, struct coord_agent *a, const char *type,
			  char *text, size_t len);
/* Receive one message from the agents' socket (AGENTS) or the clients' without waiting,
 * its samples read from the text into SAMPLES unless NULL (proto_recv_from_samples).
 * Returns 1 with *MSG (a reference) from routing ID sent by *PEER (its key's user id and
 * role, proto_peer), 0 when none waited, -EBADMSG when
 * one was malformed (WHY; answer it: coord_bad_message), -EACCES when one came from a key
 * whose role may not send there (docs/security.md, "Roles": already counted, logged and
 * answered), or another -errno (logged). */
int coord_recv(struct coord *c, bool agents, void *id, size_t *id_len, json_t **msg,
	       struct samples *samples, struct proto_peer *peer, struct err *why);
/* Whether PEER (a message's sender: proto_peer) may send to the agents' socket (AGENTS)
 * or the clients': always in plaintext, else only a key of that role. */
bool coord_peer_allowed(const struct coord *c, bool agents, const struct proto_peer *peer);
/* Refuse a message from PEER for its key's role: counted, logged and answered (naming
 * *MSG's type when there is one); *MSG and SAMPLES (may be NULL) released. -EACCES. */
int coord_refuse_role(struct coord *c, bool agents, const void *id, size_t id_len,
		      const struct proto_peer *peer, json_t **msg, struct samples *samples);
/* Send MSG (stolen; NULL means out of memory, logged) to peer ID on SOCK. */
void coord_reply(void *sock, const void *id, size_t id_len, json_t *msg);
/* Count (stats.bad_messages), log and answer (`error` in reply to TYPE) a malformed or
 * unknown message from SIDE ("an agent", "a client"). */
void coord_bad_message(struct coord *c, void *sock, const void *id, size_t id_len,
		       const char *side, const char *type, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
/* Count one malformed message answered by its handler (stats.bad_messages), or one
 * message or handshake refused for its key's role (stats.role_refused). */
void coord_count_bad_message(struct coord *c);
void coord_count_role_refused(struct coord *c);

/* The connected agent whose latest hello came from routing id ID (at most one: a hello
 * takes the id from any other), or NULL. */
struct coord_agent *coord_agent_by_rid(struct coord *c, const void *id, size_t id_len);
/* A new agent named NAME (copied), not connected, in the registry: an agent's first
 * hello (agents.c), a kernel switch restored from the store (boot.c). NULL when out of
 * memory. */
struct coord_agent *coord_agent_add(struct coord *c, const char *name);
/* A's host id and inventory (copied; not an object: an empty one), as its hello or the
 * store has them. */
void coord_agent_known(struct coord_agent *a, int64_t host_id, const json_t *inventory);
/* The agent named NAME (connected or not), or NULL. */
struct coord_agent *coord_agent_by_name(struct coord *c, const char *name);
/* Free every agent (coord_destroy). */
void coord_agents_release(struct coord *c);

/* Job JOB was taken away from agent A (take_away, coord_link_lost,
 * coord_link_hello): what A sends for it from now on, a result from its spool
 * included, is dropped, until the job is handed to A again. A remembers the latest such
 * job and COORD_STALE_OLDER before it. */
void coord_stale_mark(struct coord_agent *a, int64_t job);
/* Whether what agent A sends for JOB is stale (coord_stale_mark). An older mark does not
 * count for the job A runs now: that is a new attempt handed to it. */
bool coord_stale(const struct coord_agent *a, int64_t job);
/* Agent A accepted JOB, handed to this session: a new attempt, whose messages count.
 * (The latest mark goes when dispatch hands the job out again: coord_stale_handed.) */
void coord_stale_forget(struct coord_agent *a, int64_t job);
/* Dispatch hands JOB to A again: a new attempt, whose result counts (the latest mark
 * goes). */
void coord_stale_handed(struct coord_agent *a, int64_t job);

/* Agent A may take a job (it became free, said hello, its kernel switch failed): it,
 * and the hosts that wait for its machine, get one at the end of the loop's turn
 * (dispatch.c). NOW is unused. */
void coord_dispatch_agent(struct coord *c, struct coord_agent *a, int64_t now);
/* Dispatch's side of the request (dispatch.c): whether an agent was marked since the
 * last call (the mark taken); the dispatch could not be done, ask again next turn; A was
 * looked at (its mark taken). */
bool coord_dispatch_take(struct coord *c);
void coord_dispatch_later(struct coord *c);
void coord_dispatch_served(struct coord_agent *a);

#endif

// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* core.c - the coordinator's core that its parts share (coord_core.h): the agents it
 * knows (the registry, looked up by routing id and by name), sending to them and
 * answering peers, the stale marks of jobs taken away, and the request for a dispatch.
 * Owns the fields of struct coord_agent outside its parts, the agents and the request
 * in struct coord, and the counters of bad and refused messages (coord_priv.h). See
 * coord_core.h for the contract.
 */
#include "coord_core.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "coord_machine.h"
#include "proto/samples.h"
#include "base/log.h"
#include "base/util.h"

/* --- sending and receiving --- */

int coord_send_agent(struct coord *c, struct coord_agent *a, const json_t *msg)
{
	int err = proto_send_to(c->agents_sock, a->sess.rid, a->sess.rid_len, msg,
				ZMQ_DONTWAIT);

	if (err)
		pr_debug("cannot send '%s' to agent '%s': %s", proto_msg_type(msg), a->name,
			 zmq_strerror(-err));
	else
		a->last_send_mono = util_mono_ms();
	return err;
}

int coord_send_agent_text(struct coord *c, struct coord_agent *a, const char *type,
			  char *text, size_t len)
{
	int err = proto_send_text_to(c->agents_sock, a->sess.rid, a->sess.rid_len, text,
				     len, ZMQ_DONTWAIT);

	if (err)
		pr_debug("cannot send '%s' to agent '%s': %s", type, a->name, zmq_strerror(-err));
	else
		a->last_send_mono = util_mono_ms();
	return err;
}

/* A message that passed the handshake from a key of another role than the socket's
 * (RECEIVED: 0, or -EBADMSG for one that did not even decode): counted, logged, answered
 * with an error that names the rule, dropped. */
bool coord_peer_allowed(const struct coord *c, bool agents, const struct proto_peer *peer)
{
	/* with CURVE, every connection went through the ZAP handler, which gave it a role */
	return !c->curve || !strcmp(peer->role, agents ? "agent" : "client");
}

int coord_refuse_role(struct coord *c, bool agents, const void *id, size_t id_len,
		      const struct proto_peer *peer, json_t **msg, struct samples *samples)
{
	const char *type = *msg ? proto_msg_type(*msg) : NULL;
	const char *want = agents ? "agent" : "client";
	void *sock = agents ? c->agents_sock : c->clients_sock;

	coord_count_role_refused(c);
	pr_warn("refused %s message%s%s%s from key '%s' (role %s): only %s keys may send to "
		"the %s socket", agents ? "an agent" : "a client", type ? " '" : "",
		type ? type : "", type ? "'" : "", *peer->user ? peer->user : "?",
		*peer->role ? peer->role : "none", want, agents ? "agents" : "clients");
	coord_reply(sock, id, id_len,
		    proto_error_new(type, "refused: key '%s' has the role %s, and only %s keys "
				    "may send '%s' (docs/security.md, \"Roles\")",
				    *peer->user ? peer->user : "?",
				    *peer->role ? peer->role : "none", want,
				    type ? type : "messages"));
	json_decref(*msg);
	*msg = NULL;
	if (samples)
		samples_release(samples);
	return -EACCES;
}

int coord_recv(struct coord *c, bool agents, void *id, size_t *id_len, json_t **msg,
	       struct samples *samples, struct proto_peer *peer, struct err *why)
{
	void *sock = agents ? c->agents_sock : c->clients_sock;
	int err = proto_recv_from_samples(sock, id, id_len, msg, samples, peer, ZMQ_DONTWAIT,
					  why);

	if ((!err || err == -EBADMSG) && !coord_peer_allowed(c, agents, peer))
		return coord_refuse_role(c, agents, id, *id_len, peer, msg, samples);
	if (!err)
		return 1;
	if (err == -EAGAIN)
		return 0;
	if (err != -EBADMSG)
		pr_warn("cannot receive from %s: %s", agents ? "agents" : "clients",
			zmq_strerror(-err));
	return err;
}

/* --- answers --- */

void coord_count_bad_message(struct coord *c)
{
	c->stats.bad_messages++;
}

void coord_count_role_refused(struct coord *c)
{
	c->stats.role_refused++;
}

void coord_reply(void *sock, const void *id, size_t id_len, json_t *msg)
		 {
		 int err;

	if (!msg) {
		pr_warn("cannot build a reply: out of memory");
		return;
	}
	err = proto_send_to(sock, id, id_len, msg, ZMQ_DONTWAIT);
	if (err)
		pr_debug("cannot send '%s' reply: %s", proto_msg_type(msg), zmq_strerror(-err));
	json_decref(msg);
}

void coord_bad_message(struct coord *c, void *sock, const void *id, size_t id_len,
		       const char *side, const char *type, const char *fmt, ...)
{
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	coord_count_bad_message(c);
	pr_warn("refused %s message: %s", side, text);
	coord_reply(sock, id, id_len, proto_error_new(type, "%s", text));
}

/* --- the registry --- */

static bool agent_has_rid(const struct coord_agent *a, const void *id, size_t id_len)
{
	return a && a->sess.connected && a->sess.rid_len == id_len &&
	       !memcmp(a->sess.rid, id, id_len);
}

/* Every agent message asks, so the answer is kept in a set of COORD_RID_WAYS slots
 * chosen by a hash of the id, checked on use; a miss walks the list and keeps the agent
 * in a slot of its set that holds no connected agent, else in one chosen by the hash
 * (with one slot a hash, the fifth of 1,000 agents that share a slot walked the list
 * whenever the other had taken it: 1.2 % of bpflabd's CPU in bench/coordinator). */
struct coord_agent *coord_agent_by_rid(struct coord *c, const void *id, size_t id_len)
{
	const unsigned char *p = id;
	uint32_t h = 2166136261u;	/* FNV-1a */
	struct coord_agent **set, *a;
	size_t i;
	int w;

	for (i = 0; i < id_len; i++)
		h = (h ^ p[i]) * 16777619u;
	set = &c->by_rid[h % (COORD_RID_SLOTS / COORD_RID_WAYS) * COORD_RID_WAYS];
	for (w = 0; w < COORD_RID_WAYS; w++)
		if (agent_has_rid(set[w], id, id_len))
			return set[w];
	for (a = c->agents; a; a = a->next)
		if (agent_has_rid(a, id, id_len))
			break;
	if (!a)
		return NULL;
	for (w = 0; w < COORD_RID_WAYS; w++)
		if (!set[w] || !set[w]->sess.connected)
			break;
	if (w == COORD_RID_WAYS)
		w = (h >> 24) % COORD_RID_WAYS;
	return set[w] = a;
}

struct coord_agent *coord_agent_add(struct coord *c, const char *name)
{
	struct coord_agent *a = calloc(1, sizeof(*a));

	if (!a || !(a->name = strdup(name))) {
		free(a);
		return NULL;
	}
	a->next = c->agents;
	c->agents = a;
	return a;
}

void coord_agent_known(struct coord_agent *a, int64_t host_id, const json_t *inventory)
{
	a->host_id = host_id;
	json_decref(a->inventory);
	a->inventory = json_is_object(inventory) ? json_deep_copy(inventory) :
						   json_object();
}

struct coord_agent *coord_agent_by_name(struct coord *c, const char *name)
{
	struct coord_agent *a;

	for (a = c->agents; a; a = a->next)
		if (!strcmp(a->name, name))
			return a;
	return NULL;
}

void coord_agents_release(struct coord *c)
{
	struct coord_agent *a, *next;

	for (a = c->agents; a; a = next) {
		next = a->next;
		json_decref(a->inventory);
		json_decref(a->sess.progress);
		free(a->name);
		free(a);
	}
	c->agents = NULL;
}

void coord_stale_mark(struct coord_agent *a, int64_t job)
{
	int64_t keep[1 + COORD_STALE_OLDER];
	size_t n = 0, i;

	keep[n++] = job;
	if (a->stale_job && a->stale_job != job)
		keep[n++] = a->stale_job;
	for (i = 0; i < COORD_STALE_OLDER && n < ARRAY_SIZE(keep); i++)
		if (a->stale_older[i] && a->stale_older[i] != job)
			keep[n++] = a->stale_older[i];
	a->stale_job = keep[0];
	for (i = 0; i < COORD_STALE_OLDER; i++)
		a->stale_older[i] = i + 1 < n ? keep[i + 1] : 0;
}

bool coord_stale(const struct coord_agent *a, int64_t job)
{
	size_t i;

	if (job == a->stale_job)
		return true;
	for (i = 0; job != a->job.id && i < COORD_STALE_OLDER; i++)
		if (a->stale_older[i] == job)
			return true;
	return false;
}

void coord_stale_forget(struct coord_agent *a, int64_t job)
{
	size_t i;

	for (i = 0; i < COORD_STALE_OLDER; i++)
		if (a->stale_older[i] == job)
			a->stale_older[i] = 0;
}

void coord_stale_handed(struct coord_agent *a, int64_t job)
{
	if (a->stale_job == job)
		a->stale_job = 0;
}

/* --- dispatch request --- */

void coord_dispatch_agent(struct coord *c, struct coord_agent *a, int64_t now)
{
	struct coord_agent *b;

	(void)now;
	a->dispatch_wanted = true;
	c->dispatch_wanted = true;
	/* its machine may be free: the hosts that wait for it have their turn first */
	for (b = coord_machine_waiter(a, NULL); b; b = coord_machine_waiter(a, b))
		b->dispatch_wanted = true;
}

bool coord_dispatch_take(struct coord *c)
{
	bool wanted = c->dispatch_wanted;

	c->dispatch_wanted = false;
	return wanted;
}

void coord_dispatch_later(struct coord *c)
{
	c->dispatch_wanted = true;
}

void coord_dispatch_served(struct coord_agent *a)
{
	a->dispatch_wanted = false;
}

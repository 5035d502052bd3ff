// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* machine.c - hosts that share a machine are measured one after another.
 *
 * Each agent's inventory names its machine (`machine.id`: the agent config's `machine`
 * label, else /etc/machine-id and the boot id, the same in every network namespace of
 * one machine; docs/protocol.md, "Inventory"). Hosts with the same id are one machine
 * here: dispatch.c asks coord_machine_may before it hands a job to one of them,
 * and the rule is (docs/architecture.md, "Decisions"):
 *
 *   a job may start on host A when every job running on another host of A's machine
 *   has share_machine in its spec and so has A's job; the other side of A's own pair
 *   (a two-host plan's job) does not count, since a pair's sides run together by
 *   construction; and when A's pair partner is idle on another machine, that machine
 *   must let it start too.
 *
 * Hosts of a machine take turns: a host that was refused for its machine waits
 * (machine.wait, a number that grows with each new waiter), waiting hosts are offered a
 * job before the others and the longest waiting first (dispatch_collect), and a host
 * may not start while another host of its machine has waited longer (unless it is the
 * second side of a pair that has started; and while a pair's first side runs, its idle
 * second side on another machine counts as busy there, so that no third host takes that
 * machine before it). So the jobs of a run on two hosts of one
 * machine alternate h1 h2 h1 h2 rather than all of h1's first.
 *
 * A host without machine.id (an older agent, a simulated one) is a machine of its own.
 * Work per check is linear in the hosts of the machine; other hosts cost nothing.
 *
 * Owns the machine part of each agent (struct coord_agent_machine) and the machines in
 * struct coord (coord_priv.h). Runs on the coordinator's loop thread, like coord.c.
 */
#include "coord_machine.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"

struct coord_machine {
	struct coord_machine *next;
	char *id;
	struct coord_agent *members;	/* through coord_agent.machine.next */
	int n_members;
};

/* Take A out of its machine's members (the machine stays, for its next hello). */
static void machine_leave(struct coord_agent *a)
{
	struct coord_agent **pp;

	if (!a->machine.of)
		return;
	for (pp = &a->machine.of->members; *pp; pp = &(*pp)->machine.next)
		if (*pp == a) {
			*pp = a->machine.next;
			a->machine.of->n_members--;
			break;
		}
	a->machine.of = NULL;
	a->machine.next = NULL;
}

void coord_machine_hello(struct coord *c, struct coord_agent *a)
{
	const char *id = jget_str(json_object_get(a->inventory, "machine"), "id", NULL);
	struct coord_machine *m;

	/* a job it kept across a reconnect: its spec is not at hand, so it counts as one
	 * that shares nothing, but may be the side of a pair (its partner may join it) */
	a->machine.share = false;
	a->machine.pair = a->job.id != 0;
	if (a->machine.of && id && !strcmp(a->machine.of->id, id))
		return;
	machine_leave(a);
	if (!id || !*id)
		return;
	for (m = c->machines; m; m = m->next)
		if (!strcmp(m->id, id))
			break;
	if (!m) {
		m = calloc(1, sizeof(*m));
		if (!m || !(m->id = strdup(id))) {
			free(m);
			pr_warn("agent '%s': out of memory, its machine is not known", a->name);
			return;
		}
		m->next = c->machines;
		c->machines = m;
	}
	a->machine.of = m;
	a->machine.next = m->members;
	m->members = a;
	m->n_members++;
	if (m->n_members > 1)
		pr_info("agent '%s' shares machine '%.40s' with %d other host%s: their jobs run "
			"one after another", a->name, id, m->n_members - 1,
			m->n_members == 2 ? "" : "s");
}

void coord_machine_running(struct coord_agent *a, const struct job_spec *spec)
{
	a->machine.share = spec->share_machine;
	a->machine.pair = spec->has_pair;
	a->machine.held_by = NULL;	/* its own job counts now */
}

void coord_machine_wait(struct coord *c, struct coord_agent *a, bool wait)
{
	if (wait && !a->machine.wait) {
		a->machine.wait = ++c->machine_seq;
		c->machine_waiting++;
	} else if (!wait && a->machine.wait) {
		a->machine.wait = 0;
		c->machine_waiting--;
	}
}

/* Whether B is busy for its machine: it runs a job, or is held for the other side of a
 * pair whose first side runs (coord_machine_hold); *SHARE whether that job shares the
 * machine, *PAIR whether it may be the pair of a job on B's machine. */
static bool busy(const struct coord_agent *b, bool *share, bool *pair)
{
	if (b->job.id) {
		*share = b->machine.share;
		*pair = b->machine.pair;
		return true;
	}
	if (b->machine.held_by && b->machine.held_by->job.id == b->machine.held_job) {
		*share = b->machine.held_share;
		*pair = false;		/* its partner is on another machine */
		return true;
	}
	return false;
}

/* Whether B, another host of a machine, keeps a job with SHARE from starting there:
 * B is busy with a job that is not EXEMPT's pair and that does not share the machine
 * both ways. */
static bool runs_apart(const struct coord_agent *b, const struct coord_agent *exempt,
		       bool share)
{
	bool b_share, b_pair;

	return b != exempt && busy(b, &b_share, &b_pair) && !(share && b_share);
}

bool coord_machine_busy(struct coord *c, struct coord_agent *a)
{
	struct coord_agent *b;
	bool share, pair;

	if (!a->machine.of || a->machine.of->n_members < 2)
		return false;
	for (b = a->machine.of->members; b; b = b->machine.next)
		if (b != a && busy(b, &share, &pair) && !share && !pair) {
			coord_machine_wait(c, a, true);
			return true;
		}
	return false;
}

bool coord_machine_may(struct coord *c, struct coord_agent *a, const struct job_spec *spec,
		       const struct coord_agent *peer)
{
	bool share = spec->share_machine;
	bool joins = peer && peer->job.id;	/* A is the second side of a started pair */
	struct coord_agent *b;

	if (a->machine.of && a->machine.of->n_members > 1) {
		for (b = a->machine.of->members; b; b = b->machine.next) {
			if (b == a)
				continue;
			if (runs_apart(b, peer, share))
				goto wait;
			if (!joins && b->machine.wait && b->sess.connected &&
			    (!a->machine.wait || b->machine.wait < a->machine.wait))
				goto wait;	/* B waited longer: its turn */
		}
	}
	/* the idle other side of A's pair starts next, on its own machine */
	if (peer && !peer->job.id && peer->machine.of && peer->machine.of != a->machine.of)
		for (b = peer->machine.of->members; b; b = b->machine.next)
			if (b != peer && runs_apart(b, a, share))
				goto wait;
	coord_machine_wait(c, a, false);
	return true;
wait:
	coord_machine_wait(c, a, true);
	return false;
}

void coord_machine_hold(struct coord_agent *a, struct coord_agent *peer,
			const struct job_spec *spec)
{
	if (!peer || peer == a || peer->job.id || !peer->machine.of ||
	    peer->machine.of == a->machine.of)
		return;
	peer->machine.held_by = a;
	peer->machine.held_job = a->job.id;
	peer->machine.held_share = spec->share_machine;
}

struct coord_agent *coord_machine_waiter(const struct coord_agent *a,
					 const struct coord_agent *after)
{
	struct coord_agent *b;

	if (!a->machine.of)
		return NULL;
	b = after ? after->machine.next : a->machine.of->members;
	while (b && !b->machine.wait)
		b = b->machine.next;
	return b;
}

void coord_machine_hosts(struct coord *c, json_t *hosts)
{
	struct coord_agent *a;
	json_t *h;
	size_t i;

	if (!c->machine_waiting)
		return;
	for (a = c->agents; a; a = a->next) {
		if (!a->machine.wait || !a->sess.connected || a->job.id)
			continue;
		json_array_foreach(hosts, i, h) {
			if (!strcmp(jget_str(h, "name", ""), a->name)) {
				json_object_set_new(h, "waits_for_machine", json_true());
				break;
			}
		}
	}
}

void coord_machine_release(struct coord *c)
{
	struct coord_machine *m, *next;

	for (m = c->machines; m; m = next) {
		next = m->next;
		free(m->id);
		free(m);
	}
	c->machines = NULL;
}

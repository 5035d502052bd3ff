// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* agents.c - the agents' side of the coordinator: an agent's messages (hello,
 * heartbeat, accept, progress, error, and the table that hands ready, probe_report,
 * boot_report and result to link.c, boot.c and results.c), its heartbeats and its
 * liveness (an agent silent for liveness heartbeats is declared gone). The agents
 * themselves, sending to them and the stale marks are core.c's (coord_core.h). Owns
 * each agent's session (struct coord_agent_session) and the counters of gone agents
 * and moved jobs (coord_priv.h, coord.h).
 *
 * Event loop thread only; handlers do a few SQLite transactions and non-blocking sends.
 */
#include "coord_agents.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "coord_boot.h"
#include "coord_core.h"
#include "coord_dispatch.h"
#include "coord_link.h"
#include "coord_machine.h"
#include "coord_results.h"
#include "base/log.h"
#include "proto/proto_schema.h"
#include "proto/samples.h"
#include "store/store_link.h"
#include "base/util.h"

#define COORD_SEEN_STORE_MS 5000	/* how often last_seen goes to the store */

/* --- liveness --- */

static const char *agent_name_of(struct coord *c, int64_t host_id)
{
	struct coord_agent *a;

	for (a = c->agents; a; a = a->next)
		if (a->host_id == host_id)
			return a->name;
	return "?";
}

static void agent_gone(struct coord *c, struct coord_agent *a, int64_t silent_ms)
{
	struct store_lost lost = { 0 };
	int64_t running = a->job.id;
	int requeued;

	if (a->sess.seen_wall != a->sess.seen_stored_wall &&
	    store_host_seen(c->store, a->host_id, a->sess.seen_wall))
		pr_warn("%s", store_err(c->store)->msg);
	if (store_host_lost(c->store, a->host_id, c->opts.max_attempts, util_wall_ms(), &lost))
		pr_warn("%s", store_err(c->store)->msg);
	requeued = lost.requeued;
	c->stats.jobs_moved += lost.moved;
	coord_count_lost_failed(c, lost.failed);
	if (lost.failed)
		pr_warn("agent '%s' gone: %d running job%s failed after %d attempts", a->name,
			lost.failed, lost.failed == 1 ? "" : "s", c->opts.max_attempts);
	if (lost.moved)
		pr_info("agent '%s' gone: %d queued job%s moved to '%s'", a->name, lost.moved,
			lost.moved == 1 ? "" : "s", agent_name_of(c, lost.moved_to));
	a->sess.connected = false;
	coord_job_over(a, 0);
	json_decref(a->sess.progress);
	a->sess.progress = NULL;
	c->stats.agents_gone++;
	if (requeued)
		pr_info("agent '%s' gone: silent for %lld ms; %d running job%s queued again",
			a->name, (long long)silent_ms, requeued, requeued == 1 ? "" : "s");
	else
		pr_info("agent '%s' gone: silent for %lld ms", a->name, (long long)silent_ms);
	/* that attempt's barrier is over; the other side of a pair with this host is told
	 * now, not at its barrier's end */
	coord_link_lost(c, a, running);
}

/* --- messages --- */

/* Tell agent A to stop job JOB, which is not its job any more (WHY), and drop what it
 * still sends for it: the job is measured where it is now (docs/protocol.md, "Faults"). */
static void take_away(struct coord *c, struct coord_agent *a, int64_t job, const char *why)
{
	json_t *cancel = proto_msg_new("cancel");

	coord_stale_mark(a, job);
	if (cancel && !json_object_set_new(cancel, "job", json_integer(job)))
		coord_send_agent(c, a, cancel);
	json_decref(cancel);
	pr_warn("agent '%s': job %lld is not its job any more (%s): told to cancel it; what "
		"it sends for it is dropped", a->name, (long long)job, why);
}

/* Whether job JOB, which agent A kept running across a reconnect, is still its own (it is
 * then running again). Not when it was taken away meanwhile: that attempt was given up
 * (one side of a pair whose other side was aborted when this host went silent), it moved
 * to another host, or it has finished (WHY says which). */
static bool kept_job_ours(struct coord *c, struct coord_agent *a, int64_t job,
			  struct err *why)
{
	char state[16] = "";
	int err;

	if (coord_stale(a, job)) {
		err_set(why, "that attempt was given up while the host was silent");
		return false;
	}
	if (!store_job_state(c->store, job, state) &&
	    (!strcmp(state, "done") || !strcmp(state, "failed"))) {
		err_set(why, "it has %s meanwhile", state);
		return false;
	}
	err = store_job_accept(c->store, job, a->host_id, util_wall_ms());
	if (err == -EPERM) {
		err_set(why, "it moved to another host while this one was gone");
		return false;
	}
	if (err)
		pr_info("agent '%s' still runs job %lld: %s", a->name, (long long)job,
			store_err(c->store)->msg);
	return true;
}

static void on_hello(struct coord *c, const void *id, size_t id_len, const json_t *msg)
{
	const char *name = jget_str(msg, "agent", NULL);
	const char *version = jget_str(msg, "version", "");
	const json_t *inv = json_object_get(msg, "inventory");
	struct coord_agent *a, *other;
	int64_t host_id = 0, dropped;
	long long running = jget_int(msg, "job", 0);
	int requeued = 0;
	json_t *welcome;
	struct err taken_why;
	bool again, taken = false;

	if (!name || !*name || strlen(name) > 255) {
		coord_bad_message(c, c->agents_sock, id, id_len, "an agent", "hello",
				  "hello without an 'agent' name");
		return;
	}
	if (!json_is_object(inv)) {
		coord_bad_message(c, c->agents_sock, id, id_len, "an agent", "hello",
				  "hello from '%s' without an 'inventory' object", name);
		return;
	}
	if (store_host_hello(c->store, name, version, inv, util_wall_ms(), &host_id,
			     &requeued)) {
		pr_warn("%s", store_err(c->store)->msg);
		coord_reply(c->agents_sock, id, id_len,
			    proto_error_new("hello", "%s", store_err(c->store)->msg));
		return;
	}
	/* A connection that spoke for another agent name loses it: one name per peer. */
	other = coord_agent_by_rid(c, id, id_len);
	if (other && strcmp(other->name, name))
		other->sess.connected = false;
	a = coord_agent_by_name(c, name);
	if (!a)
		a = coord_agent_add(c, name);
	if (!a) {
		pr_warn("cannot register agent '%s': out of memory", name);
		return;
	}
	again = a->sess.connected;
	/* a new session that does not go on with the job of the last one (the agent was
	 * restarted before it was declared gone): the store queued that job again */
	dropped = again && a->job.id && a->job.id != running ? a->job.id : 0;
	coord_agent_known(a, host_id, inv);
	memcpy(a->sess.rid, id, id_len);
	a->sess.rid_len = id_len;
	a->sess.connected = true;
	coord_job_over(a, 0);
	coord_job_objects_hello(a, msg);
	a->sess.last_recv_mono = util_mono_ms();
	a->sess.seen_wall = a->sess.seen_stored_wall = util_wall_ms();
	json_decref(a->sess.progress);
	a->sess.progress = NULL;
	/* its spooled results come in before it gets a job */
	coord_results_spooled(c, a, (int)json_array_size(json_object_get(msg, "spooled")));
	if (running > 0) {
		/* it kept running a job across a reconnect: that job is its again, unless it
		 * was taken away meanwhile (told after the welcome); either way the agent is
		 * busy until its result */
		taken = !kept_job_ours(c, a, running, &taken_why);
		coord_job_kept(a, running);
		requeued = 0;
	}
	pr_info("agent '%s' %s: host %lld, kernel %s, %zu port(s)%s", name,
		again ? "registered again" : "registered", (long long)host_id,
		jget_str(json_object_get(inv, "kernel"), "release", "unknown"),
		json_array_size(json_object_get(inv, "ports")),
		requeued ? "; the job it was running is queued again" : "");
	coord_boot_hello(c, a, msg);
	welcome = proto_msg_new("welcome");
	if (welcome && !json_object_set_new(welcome, "heartbeat_ms",
					    json_integer(c->opts.heartbeat_ms)))
		coord_send_agent(c, a, welcome);
	json_decref(welcome);
	if (taken)
		take_away(c, a, running, taken_why.msg);
	/* barrier state only for the job it goes on with, if that is still its own; the
	 * other side of a dropped job's pair is told now, as if this host had gone */
	coord_link_hello(c, a, taken ? 0 : a->job.id, dropped);
	coord_machine_hello(c, a);
	coord_dispatch_agent(c, a, util_mono_ms());
}

static void on_heartbeat(struct coord *c, struct coord_agent *a, const void *id,
			 size_t id_len, const json_t *msg, struct samples *samples)
{
	/* liveness was refreshed by the caller */
}

static void on_accept(struct coord *c, struct coord_agent *a, const void *id,
		      size_t id_len, const json_t *msg, struct samples *samples)
{
	long long job = jget_int(msg, "job", -1);

	if (job < 1) {
		coord_bad_message(c, c->agents_sock, id, id_len, "an agent", "accept",
				  "accept without a 'job' id");
		return;
	}
	if (job != a->job.id) {
		/* a job message from before this session's hello (the agent was stopped, e.g.
		 * SIGSTOP, declared gone, and read it on waking), or one never sent to it */
		take_away(c, a, job, "it was not handed to this session of the agent");
		return;
	}
	coord_stale_forget(a, job);
	if (store_job_accept(c->store, job, a->host_id, util_wall_ms())) {
		pr_warn("agent '%s': %s", a->name, store_err(c->store)->msg);
		coord_reply(c->agents_sock, id, id_len,
			    proto_error_new("accept", "%s", store_err(c->store)->msg));
		return;
	}
	pr_debug("job %lld accepted by '%s'", job, a->name);
}

static void on_progress(struct coord *c, struct coord_agent *a, const void *id,
			size_t id_len, const json_t *msg, struct samples *samples)
{
	struct msg_progress p;
	struct err why;

	if (msg_progress_decode(msg, &p, &why)) {
		coord_bad_message(c, c->agents_sock, id, id_len, "an agent", "progress", "%s", why.msg);
		return;
	}
	json_decref(a->sess.progress);
	a->sess.progress = json_incref((json_t *)msg);	/* P's texts, rates are its */
	a->sess.progress_of = p;
	pr_debug("job %lld on '%s': %s %lld/%lld", (long long)p.job, a->name,
		 p.phase ? p.phase : "?", (long long)p.second, (long long)p.of);
}

/* An agent's `error`: it refused a job (e.g. busy with one it kept across a reconnect).
 * The job goes back to the queue and the agent gets no job for a heartbeat; but a job
 * refused for objects the agent lacks (`missing`) goes again at once, with their bytes. */
static void on_agent_error(struct coord *c, struct coord_agent *a, const void *id,
			   size_t id_len, const json_t *msg, struct samples *samples)
{
	const char *about = jget_str(msg, "in_reply_to", "");
	const char *says = jget_str(msg, "message", "(no message)");
	long long job = jget_int(msg, "job", 0);
	bool missing = json_array_size(json_object_get(msg, "missing")) > 0;
	char why[400];

	/* a missing object is a round trip, not a fault */
	log_msg(missing ? LOG_INFO : LOG_WARN, "agent '%s' says: %s", a->name, says);
	if (strcmp(about, "job") || job < 1 || job != a->job.id)
		return;
	/* the attempt says why it ended (not "could not be handed": it was, and refused) */
	snprintf(why, sizeof(why), COORD_REFUSED "%.370s", says);
	if (store_job_requeue(c->store, job, why))
		pr_warn("%s", store_err(c->store)->msg);
	coord_job_over(a, job);
	if (missing) {
		coord_job_objects_forget(a);
		coord_dispatch_agent(c, a, util_mono_ms());
		return;
	}
	coord_dispatch_hold(a, util_mono_ms() + c->opts.heartbeat_ms);
}

/* Whether a message about HOST (a hello's name, or the agent its connection said hello
 * as) may come from PEER: in plaintext always, with CURVE only from the key of HOST
 * (the ZAP handler set the connection's user id to the host its key speaks for,
 * zap.c). Else it is counted with the role refusals, logged and answered naming both
 * hosts (docs/security.md, "Roles"), and the caller drops it. */
static bool host_of_key(struct coord *c, const void *id, size_t id_len,
			const struct proto_peer *peer, const char *type, const char *host)
{
	if (!c->curve || !strcmp(peer->user, host))
		return true;
	coord_count_role_refused(c);
	pr_warn("refused an agent message '%s' for host '%s' from the key of host '%s': an "
		"agent key speaks only for its own host", type, host, peer->user);
	coord_reply(c->agents_sock, id, id_len,
		    proto_error_new(type, "refused: this connection's key belongs to host '%s', "
				    "and it may not speak for host '%s' (docs/security.md, "
				    "\"Roles\")", peer->user, host));
	return false;
}

/* A handler of agent A's message MSG from routing id ID; SAMPLES: its samples read from
 * the text (proto_recv_from_samples: a result's; else empty). */
typedef void (*agent_handler_fn)(struct coord *c, struct coord_agent *a, const void *id,
				 size_t id_len, const json_t *msg, struct samples *samples);

/* two-host barrier and wiring discovery: coordinator/link.c */
static void coord_link_ready_h(struct coord *c, struct coord_agent *a, const void *id,
			       size_t id_len, const json_t *msg, struct samples *samples)
{
	coord_link_ready(c, a, msg);
}

static void coord_link_report_h(struct coord *c, struct coord_agent *a, const void *id,
				size_t id_len, const json_t *msg, struct samples *samples)
{
	coord_link_report(c, a, msg);
}

/* kernel providers: coordinator/boot.c */
static void coord_boot_report_h(struct coord *c, struct coord_agent *a, const void *id,
				size_t id_len, const json_t *msg, struct samples *samples)
{
	coord_boot_report(c, a, msg);
}

static const struct {
	const char *type;
	agent_handler_fn fn;
} agent_handlers[] = {
	{ "heartbeat", on_heartbeat },
	{ "accept", on_accept },
	{ "progress", on_progress },
	{ "result", coord_on_result },
	{ "error", on_agent_error },
	{ "ready", coord_link_ready_h },
	{ "probe_report", coord_link_report_h },
	{ "boot_report", coord_boot_report_h },
};

int coord_agent_recv(struct coord *c)
{
	unsigned char id[PROTO_MAX_IDENTITY];
	size_t id_len = 0, i;
	struct coord_agent *a;
	struct samples samples;
	struct proto_peer peer;
	const char *type, *host;
	json_t *msg = NULL;
	struct err why;
	int err, valid;

	err = coord_recv(c, true, id, &id_len, &msg, &samples, &peer, &why);
	if (err == -EACCES)
		return 1;
	if (err == -EBADMSG) {
		coord_result_flush(c);
		coord_bad_message(c, c->agents_sock, id, id_len, "an agent", NULL, "%s", why.msg);
		return 1;
	}
	if (err <= 0)
		return err;
	type = proto_msg_type(msg);
	a = coord_agent_by_rid(c, id, id_len);
	if (a) {
		a->sess.last_recv_mono = util_mono_ms();
		a->sess.seen_wall = util_wall_ms();
	}
	/* members and their types (lib/proto/proto_schema.c); unknown types are refused
	 * below. A result is checked once, by its decoder (coord_on_result,
	 * lib/proto/msg_result.h), not by the schema first. */
	valid = a && !strcmp(type, "result") ? 0 :
		proto_validate(msg, PROTO_CH_AGENT_TO_COORD, &why);
	/* the results stored so far are committed before anything else happens; a
	 * heartbeat of a known agent changes nothing but its liveness (on_heartbeat), so
	 * the batch stays open across it (2 messages in 5 in bench/coordinator's (c)) */
	if (!a || (strcmp(type, "result") && strcmp(type, "heartbeat")) || valid == -EINVAL)
		coord_result_flush(c);
	if (valid == -EINVAL) {
		coord_bad_message(c, c->agents_sock, id, id_len, "an agent", type, "%s", why.msg);
		goto out;
	}
	/* a hello names its host; later messages are its connection's (a routing id
	 * taken over, ZMQ_ROUTER_HANDOVER, does not take the key along) */
	host = !strcmp(type, "hello") ? jget_str(msg, "agent", NULL) : a ? a->name : NULL;
	if (host && !host_of_key(c, id, id_len, &peer, type, host))
		goto out;
	if (!strcmp(type, "hello")) {
		on_hello(c, id, id_len, msg);
		goto out;
	}
	for (i = 0; i < ARRAY_SIZE(agent_handlers); i++)
		if (!strcmp(type, agent_handlers[i].type))
			break;
	if (i == ARRAY_SIZE(agent_handlers)) {
		coord_bad_message(c, c->agents_sock, id, id_len, "an agent", type,
				  "unknown message type '%s'", type);
	} else if (!a) {
		/* An agent of a previous coordinator, or one declared gone. Heartbeats are not
		 * answered: the agent then misses ours, reconnects and says hello (Paranoid
		 * Pirate); an answer would keep it believing that it is connected. */
		pr_debug("'%s' from an agent that has not said hello", type);
		if (strcmp(type, "heartbeat"))
			coord_reply(c->agents_sock, id, id_len,
				    proto_error_new(type, "unknown agent: say hello first"));
	} else {
		agent_handlers[i].fn(c, a, id, id_len, msg, &samples);
	}
out:
	samples_release(&samples);
	json_decref(msg);
	return 1;
}

/* --- heartbeats and liveness --- */

void coord_agents_tick(struct coord *c)
{
	int64_t now = util_mono_ms(), deadline = (int64_t)c->opts.heartbeat_ms * c->opts.liveness;
	struct coord_agent *a;
	json_t *hb;

	int events = 0;
	size_t len = sizeof(events);
	bool behind;

	/* Messages still waiting on the agents socket: the coordinator is behind, and an
	 * agent that looks silent may have its heartbeat in that queue. Nobody is declared
	 * gone until the queue is drained. */
	behind = !zmq_getsockopt(c->agents_sock, ZMQ_EVENTS, &events, &len) &&
		 (events & ZMQ_POLLIN);
	for (a = c->agents; a; a = a->next) {
		if (!a->sess.connected)
			continue;
		if (!behind && now - a->sess.last_recv_mono > deadline) {
			agent_gone(c, a, now - a->sess.last_recv_mono);
			continue;
		}
		if (now - a->last_send_mono >= c->opts.heartbeat_ms) {
			hb = proto_msg_new("heartbeat");
			if (hb && a->job.id)
				json_object_set_new(hb, "job", json_integer(a->job.id));
			if (hb)
				coord_send_agent(c, a, hb);
			json_decref(hb);
		}
		if (a->sess.seen_wall - a->sess.seen_stored_wall >= COORD_SEEN_STORE_MS) {
			if (store_host_seen(c->store, a->host_id, a->sess.seen_wall))
				pr_warn("%s", store_err(c->store)->msg);
			a->sess.seen_stored_wall = a->sess.seen_wall;
		}
	}
}

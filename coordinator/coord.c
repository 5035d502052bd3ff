/* coord.c - see coord.h. The event loop, the agent and client message handlers, the
 * timer (heartbeats, liveness, dispatch) and job dispatch.
 *
 * Everything runs on the thread that calls coord_run: handlers do a few SQLite
 * transactions and non-blocking sends (ZMQ_DONTWAIT), never a blocking wait. ROUTER
 * sockets are ZMQ_ROUTER_MANDATORY, so a send to an agent that vanished fails at once
 * (EHOSTUNREACH) and is logged, instead of being dropped silently; liveness then marks
 * the agent gone.
 */
#include "coord_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include <zmq.h>

#include "keys.h"
#include "log.h"
#include "proto_schema.h"
#include "samples.h"
#include "store_link.h"
#include "util.h"

#define COORD_TICK_MS 250
#define COORD_BATCH 64			/* messages per socket per turn: the timer runs */
#define COORD_SEEN_STORE_MS 5000	/* how often last_seen goes to the store */
#define COORD_DISPATCH_TRIES 16		/* jobs failed at dispatch before giving up a turn */
#define COORD_MAX_ATTEMPTS 3

/* --- sending --- */

int coord_send_agent(struct coord *c, struct coord_agent *a, const json_t *msg)
{
	int err = proto_send_to(c->agents_sock, a->rid, a->rid_len, msg, ZMQ_DONTWAIT);

	if (err)
		pr_debug("cannot send '%s' to agent '%s': %s", proto_msg_type(msg), a->name,
			 zmq_strerror(-err));
	else
		a->last_send_mono = util_mono_ms();
	return err;
}

/* coord_send_agent of a message already encoded: TEXT (heap, taken) of LEN bytes, a
 * message of type TYPE. */
static int send_agent_text(struct coord *c, struct coord_agent *a, const char *type,
			   char *text, size_t len)
{
	int err = proto_send_text_to(c->agents_sock, a->rid, a->rid_len, text, len,
				     ZMQ_DONTWAIT);

	if (err)
		pr_debug("cannot send '%s' to agent '%s': %s", type, a->name, zmq_strerror(-err));
	else
		a->last_send_mono = util_mono_ms();
	return err;
}

/* Send MSG (stolen; NULL means out of memory) to peer ID on SOCK. */
static void reply(void *sock, const void *id, size_t id_len, json_t *msg)
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

/* Count, log and answer a malformed or unknown message. */
static void bad_message(struct coord *c, void *sock, const void *id, size_t id_len,
			const char *side, const char *type, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
static void bad_message(struct coord *c, void *sock, const void *id, size_t id_len,
			const char *side, const char *type, const char *fmt, ...)
{
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	c->stats.bad_messages++;
	pr_warn("refused %s message: %s", side, text);
	reply(sock, id, id_len, proto_error_new(type, "%s", text));
}

/* --- agents --- */

static void dispatch_agent(struct coord *c, struct coord_agent *a, int64_t now);

static bool agent_has_rid(const struct coord_agent *a, const void *id, size_t id_len)
{
	return a && a->connected && a->rid_len == id_len && !memcmp(a->rid, id, id_len);
}

/* The connected agent whose latest hello came from routing id ID (at most one: on_hello
 * takes the id from any other). Every agent message asks, so the answer is kept in a
 * direct-mapped slot by a hash of the id, checked on use; a miss walks the list. */
static struct coord_agent *agent_by_rid(struct coord *c, const void *id, size_t id_len)
{
	const unsigned char *p = id;
	uint32_t h = 2166136261u;	/* FNV-1a */
	struct coord_agent **slot, *a;
	size_t i;

	for (i = 0; i < id_len; i++)
		h = (h ^ p[i]) * 16777619u;
	slot = &c->by_rid[h % COORD_RID_SLOTS];
	if (agent_has_rid(*slot, id, id_len))
		return *slot;
	for (a = c->agents; a; a = a->next)
		if (agent_has_rid(a, id, id_len))
			return *slot = a;
	return NULL;
}

struct coord_agent *coord_agent_by_name(struct coord *c, const char *name)
{
	struct coord_agent *a;

	for (a = c->agents; a; a = a->next)
		if (!strcmp(a->name, name))
			return a;
	return NULL;
}

static void agent_free(struct coord_agent *a)
{
	json_decref(a->inventory);
	json_decref(a->progress);
	free(a->name);
	free(a);
}

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
	int64_t running = a->job_id;
	int requeued;

	if (a->seen_wall != a->seen_stored_wall &&
	    store_host_seen(c->store, a->host_id, a->seen_wall))
		pr_warn("%s", store_errmsg(c->store));
	if (store_host_lost(c->store, a->host_id, c->opts.max_attempts, util_wall_ms(), &lost))
		pr_warn("%s", store_errmsg(c->store));
	requeued = lost.requeued;
	c->stats.jobs_moved += lost.moved;
	c->stats.jobs_lost_failed += lost.failed;
	if (lost.failed)
		pr_warn("agent '%s' gone: %d running job%s failed after %d attempts", a->name,
			lost.failed, lost.failed == 1 ? "" : "s", c->opts.max_attempts);
	if (lost.moved)
		pr_info("agent '%s' gone: %d queued job%s moved to '%s'", a->name, lost.moved,
			lost.moved == 1 ? "" : "s", agent_name_of(c, lost.moved_to));
	a->connected = false;
	a->job_id = 0;
	a->ready_job = a->go_job = 0;	/* that attempt's barrier is over */
	json_decref(a->progress);
	a->progress = NULL;
	c->stats.agents_gone++;
	if (requeued)
		pr_info("agent '%s' gone: silent for %lld ms; %d running job%s queued again",
			a->name, (long long)silent_ms, requeued, requeued == 1 ? "" : "s");
	else
		pr_info("agent '%s' gone: silent for %lld ms", a->name, (long long)silent_ms);
	/* the other side of a pair with this host is told now, not at its barrier's end */
	coord_link_lost(c, a, running);
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
	for (i = 0; job != a->job_id && i < COORD_STALE_OLDER; i++)
		if (a->stale_older[i] == job)
			return true;
	return false;
}

/* Agent A accepted JOB, handed to this session: a new attempt, whose messages count. (The
 * latest mark is dispatch_send's to forget, when it hands the job out again.) */
static void stale_forget_older(struct coord_agent *a, int64_t job)
{
	size_t i;

	for (i = 0; i < COORD_STALE_OLDER; i++)
		if (a->stale_older[i] == job)
			a->stale_older[i] = 0;
}

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
static bool kept_job_ours(struct coord *c, struct coord_agent *a, int64_t job, char *why,
			  size_t len)
{
	char state[16] = "";
	int err;

	if (coord_stale(a, job)) {
		snprintf(why, len, "that attempt was given up while the host was silent");
		return false;
	}
	if (!store_job_state(c->store, job, state) &&
	    (!strcmp(state, "done") || !strcmp(state, "failed"))) {
		snprintf(why, len, "it has %s meanwhile", state);
		return false;
	}
	err = store_job_accept(c->store, job, a->host_id, util_wall_ms());
	if (err == -EPERM) {
		snprintf(why, len, "it moved to another host while this one was gone");
		return false;
	}
	if (err)
		pr_info("agent '%s' still runs job %lld: %s", a->name, (long long)job,
			store_errmsg(c->store));
	return true;
}

static void on_hello(struct coord *c, const void *id, size_t id_len, const json_t *msg)
{
	const char *name = proto_get_str(msg, "agent", NULL);
	const char *version = proto_get_str(msg, "version", "");
	const json_t *inv = json_object_get(msg, "inventory");
	struct coord_agent *a, *other;
	int64_t host_id = 0, dropped;
	long long running = proto_get_int(msg, "job", 0);
	int requeued = 0;
	json_t *welcome;
	char taken_why[128];
	bool again, taken = false;

	if (!name || !*name || strlen(name) > 255) {
		bad_message(c, c->agents_sock, id, id_len, "an agent", "hello",
			    "hello without an 'agent' name");
		return;
	}
	if (!json_is_object(inv)) {
		bad_message(c, c->agents_sock, id, id_len, "an agent", "hello",
			    "hello from '%s' without an 'inventory' object", name);
		return;
	}
	if (store_host_hello(c->store, name, version, inv, util_wall_ms(), &host_id,
			     &requeued)) {
		pr_warn("%s", store_errmsg(c->store));
		reply(c->agents_sock, id, id_len,
		      proto_error_new("hello", "%s", store_errmsg(c->store)));
		return;
	}
	/* A connection that spoke for another agent name loses it: one name per peer. */
	other = agent_by_rid(c, id, id_len);
	if (other && strcmp(other->name, name))
		other->connected = false;
	a = coord_agent_by_name(c, name);
	if (!a) {
		a = calloc(1, sizeof(*a));
		if (!a || !(a->name = strdup(name))) {
			free(a);
			pr_warn("cannot register agent '%s': out of memory", name);
			return;
		}
		a->next = c->agents;
		c->agents = a;
	}
	again = a->connected;
	/* a new session that does not go on with the job of the last one (the agent was
	 * restarted before it was declared gone): the store queued that job again */
	dropped = again && a->job_id && a->job_id != running ? a->job_id : 0;
	a->host_id = host_id;
	memcpy(a->rid, id, id_len);
	a->rid_len = id_len;
	a->connected = true;
	a->job_id = 0;
	a->last_recv_mono = util_mono_ms();
	a->seen_wall = a->seen_stored_wall = util_wall_ms();
	json_decref(a->inventory);
	a->inventory = json_deep_copy(inv);
	json_decref(a->progress);
	a->progress = NULL;
	a->hold_until_mono = 0;
	a->gone_mono = 0;
	a->spooled = (int)json_array_size(json_object_get(msg, "spooled"));
	if (a->spooled)	/* let its spooled results in before it gets a job */
		a->hold_until_mono = util_mono_ms() + c->opts.heartbeat_ms;
	if (running > 0) {
		/* it kept running a job across a reconnect: that job is its again, unless it
		 * was taken away meanwhile (told after the welcome); either way the agent is
		 * busy until its result */
		taken = !kept_job_ours(c, a, running, taken_why, sizeof(taken_why));
		a->job_id = running;
		requeued = 0;
	}
	/* barrier state only for the job it goes on with, if that is still its own */
	if (taken || a->ready_job != a->job_id)
		a->ready_job = 0;
	if (taken || a->go_job != a->job_id)
		a->go_job = 0;
	pr_info("agent '%s' %s: host %lld, kernel %s, %zu port(s)%s", name,
		again ? "registered again" : "registered", (long long)host_id,
		proto_get_str(json_object_get(inv, "kernel"), "release", "unknown"),
		json_array_size(json_object_get(inv, "ports")),
		requeued ? "; the job it was running is queued again" : "");
	coord_boot_hello(c, a, msg);
	welcome = proto_msg_new("welcome");
	if (welcome && !json_object_set_new(welcome, "heartbeat_ms",
					    json_integer(c->opts.heartbeat_ms)))
		coord_send_agent(c, a, welcome);
	json_decref(welcome);
	if (taken)
		take_away(c, a, running, taken_why);
	/* the other side of that job's pair is told now, as if this host had gone */
	coord_link_restarted(c, a, dropped);
	coord_machine_hello(c, a);
	dispatch_agent(c, a, util_mono_ms());
}

static void on_heartbeat(struct coord *c, struct coord_agent *a, const void *id,
			 size_t id_len, const json_t *msg)
{
	/* liveness was refreshed by the caller */
}

static void on_accept(struct coord *c, struct coord_agent *a, const void *id, size_t id_len,
		      const json_t *msg)
{
	long long job = proto_get_int(msg, "job", -1);

	if (job < 1) {
		bad_message(c, c->agents_sock, id, id_len, "an agent", "accept",
			    "accept without a 'job' id");
		return;
	}
	if (job != a->job_id) {
		/* a job message from before this session's hello (the agent was stopped, e.g.
		 * SIGSTOP, declared gone, and read it on waking), or one never sent to it */
		take_away(c, a, job, "it was not handed to this session of the agent");
		return;
	}
	stale_forget_older(a, job);
	if (store_job_accept(c->store, job, a->host_id, util_wall_ms())) {
		pr_warn("agent '%s': %s", a->name, store_errmsg(c->store));
		reply(c->agents_sock, id, id_len,
		      proto_error_new("accept", "%s", store_errmsg(c->store)));
		return;
	}
	pr_debug("job %lld accepted by '%s'", job, a->name);
}

static void on_progress(struct coord *c, struct coord_agent *a, const void *id,
			size_t id_len, const json_t *msg)
{
	struct msg_progress p;
	char why[256];

	if (msg_progress_decode(msg, &p, why, sizeof(why))) {
		bad_message(c, c->agents_sock, id, id_len, "an agent", "progress", "%s", why);
		return;
	}
	json_decref(a->progress);
	a->progress = json_incref((json_t *)msg);	/* P's texts and rates are its */
	a->progress_of = p;
	pr_debug("job %lld on '%s': %s %lld/%lld", (long long)p.job, a->name,
		 p.phase ? p.phase : "?", (long long)p.second, (long long)p.of);
}

/* --- results ---
 *
 * The results of one turn of the loop are stored in one batch of the store (one commit
 * for them all, not one a result); each one's ack, log lines and effects wait for that
 * commit (result_flush), so that an ack still means stored. The batch is committed
 * before any other message is handled (agent_recv), before a second result of the same
 * agent, right after a failed result (the other side of its pair hears of it at once,
 * coordinator/link.c) and at the end of the agents' part of the turn (coord_run_once):
 * what happens stays in the order of the messages. */

/* A result stored in the open batch, its handling waiting for the commit. */
struct coord_result {
	struct coord_agent *a;
	unsigned char id[PROTO_MAX_IDENTITY];	/* the routing id it came from */
	size_t id_len;
	json_t *msg;			/* a reference: RES's texts are its */
	int64_t job;
	struct msg_result res;		/* MSG decoded, its samples released once stored */
	struct store_ingest ing;
	int err;			/* not stored: -errno, the reason in ERRMSG */
	char errmsg[1024];
};

/* How many samples result MSG carries: RES, or when it could not be decoded (NULL) what
 * the message holds. */
static size_t result_samples(const struct coord *c, const json_t *msg,
			     const struct msg_result *res)
{
	if (res)
		return res->samples.n;
	if (c->in_samples && c->in_samples->taken)
		return c->in_samples->n;
	return json_array_size(json_object_get(msg, "samples"));
}

/* A result of job JOB, which was taken away from agent A (coord_stale_mark):
 * acknowledged so that it leaves the agent's spool, not stored. The mark stays: the same
 * result sent again (the ack was lost with the agent) is dropped too. True when it was
 * one. */
static bool drop_stale_result(struct coord *c, struct coord_agent *a, int64_t job,
			      const json_t *msg, const struct msg_result *res)
{
	json_t *ack;

	if (!coord_stale(a, job))
		return false;
	ack = proto_msg_new("ack");
	if (ack && !json_object_set_new(ack, "job", json_integer(job)))
		coord_send_agent(c, a, ack);
	json_decref(ack);
	if (a->job_id == job)
		a->job_id = 0;
	if (a->spooled > 0 && --a->spooled == 0)
		a->hold_until_mono = 0;
	pr_info("job %lld: result from '%s' (%s, %zu samples) dropped: the job was taken away "
		"from it", (long long)job, a->name,
		res ? (res->failed ? "failed" : "ok") : proto_get_str(msg, "status", "?"),
		result_samples(c, msg, res));
	dispatch_agent(c, a, util_mono_ms());
	return true;
}

/* What follows the storing of result R (its commit, or its failure): the ack or the
 * error, the pair, the agent free again, the log. */
static void result_done(struct coord *c, struct coord_result *r)
{
	struct coord_agent *a = r->a;
	long long job = r->job;
	json_t *ack;

	if (r->err) {
		/* Not acknowledged: the agent keeps the result in its spool. */
		if (r->err == -EINVAL)
			c->stats.bad_messages++;
		pr_warn("agent '%s': %s", a->name, r->errmsg);
		reply(c->agents_sock, r->id, r->id_len, proto_error_new("result", "%s", r->errmsg));
		return;
	}
	ack = proto_msg_new("ack");
	if (ack && !json_object_set_new(ack, "job", json_integer(job)))
		coord_send_agent(c, a, ack);
	json_decref(ack);
	if (!r->ing.duplicate)
		coord_link_result(c, a, job, r->ing.failed, r->res.error);
	if (a->job_id == job)
		a->job_id = 0;
	if (a->spooled > 0 && --a->spooled == 0)
		a->hold_until_mono = 0;
	if (r->ing.duplicate) {
		c->stats.duplicates++;
		pr_info("job %lld: result from '%s' already stored, acknowledged again", job,
			a->name);
		return;
	}
	c->stats.results++;
	pr_info("job %lld finished on '%s': %s, %d samples%s%s", job, a->name,
		r->ing.failed ? "failed" : "done", r->ing.n_samples, r->ing.failed ? ": " : "",
		r->ing.failed ? (r->res.error ? r->res.error : "no reason given") : "");
	if (r->ing.reps_added)
		pr_info("run %lld: %d repetition%s added on '%s' (not settled yet)",
			(long long)r->ing.run_id, r->ing.reps_added, r->ing.reps_added > 1 ? "s" : "",
			a->name);
	if (r->ing.run_finished)
		pr_info("run %lld finished: %s", (long long)r->ing.run_id, r->ing.run_state);
	/* only this agent became free: the others are served by the tick */
	dispatch_agent(c, a, util_mono_ms());
}

/* Commit the open batch of results, then handle each of them in order (result_done);
 * when the commit fails, none of them is stored and each gets the error. */
static void result_flush(struct coord *c)
{
	int i, n = c->n_pending, err;

	if (!c->batch_open)
		return;
	c->batch_open = false;
	c->n_pending = 0;
	err = store_batch_end(c->store, 0);
	for (i = 0; i < n; i++) {
		struct coord_result *r = &c->pending[i];

		if (err && !r->err) {
			r->err = err;
			snprintf(r->errmsg, sizeof(r->errmsg), "cannot store result of job %lld: %s",
				 (long long)r->job, store_errmsg(c->store));
		}
		r->a->result_pending = false;
		result_done(c, r);
		json_decref(r->msg);
		r->msg = NULL;
	}
}

/* A free entry of the batch's results, or NULL when out of memory. */
static struct coord_result *result_slot(struct coord *c)
{
	if (c->n_pending == c->pending_cap) {
		int cap = c->pending_cap ? 2 * c->pending_cap : COORD_BATCH;
		struct coord_result *p = realloc(c->pending, cap * sizeof(*p));

		if (!p)
			return NULL;
		c->pending = p;
		c->pending_cap = cap;
	}
	return &c->pending[c->n_pending];
}

static void on_result(struct coord *c, struct coord_agent *a, const void *id, size_t id_len,
		      const json_t *msg)
{
	struct coord_result one, *r;
	struct msg_result res;
	char why[512];
	long long job;
	bool batched;
	int err;

	/* decoded once: what follows reads RES (lib/msg_result.h) */
	err = msg_result_decode(msg, c->in_samples, &res, why, sizeof(why));
	job = res.job;
	if (job < 1 || a->result_pending || coord_stale(a, job))
		result_flush(c);
	if (job < 1) {
		bad_message(c, c->agents_sock, id, id_len, "an agent", "result",
			    "result without a 'job' id");
		return;
	}
	if (drop_stale_result(c, a, job, msg, err ? NULL : &res)) {
		msg_result_release(&res);
		return;
	}
	/* into the turn's batch; alone when no batch can be had (then as its own write) */
	r = result_slot(c);
	batched = r && (c->batch_open || !store_batch_begin(c->store));
	if (!batched)
		r = &one;
	c->batch_open |= batched;
	r->a = a;
	memcpy(r->id, id, id_len);
	r->id_len = id_len;
	r->msg = json_incref((json_t *)msg);
	r->job = job;
	r->res = res;
	if (err) {
		memset(&r->ing, 0, sizeof(r->ing));
		r->ing.job_id = job;
		snprintf(r->errmsg, sizeof(r->errmsg), "cannot store result of job %lld: %s",
			 job, why);
	} else {
		err = store_ingest_msg(c->store, a->host_id, &r->res, util_wall_ms(), &r->ing);
		if (err)
			snprintf(r->errmsg, sizeof(r->errmsg), "%s", store_errmsg(c->store));
	}
	r->err = err;
	samples_release(&r->res.samples);	/* stored: only the texts are read after */
	if (!batched) {
		result_done(c, r);
		json_decref(r->msg);
		return;
	}
	c->n_pending++;
	a->result_pending = true;
	if (!err && r->ing.failed && !r->ing.duplicate)
		result_flush(c);
}

/* An agent's `error`: it refused a job (e.g. busy with one it kept across a reconnect).
 * The job goes back to the queue and the agent gets no job for a heartbeat. */
static void on_agent_error(struct coord *c, struct coord_agent *a, const void *id,
			   size_t id_len, const json_t *msg)
{
	const char *about = proto_get_str(msg, "in_reply_to", "");
	long long job = proto_get_int(msg, "job", 0);

	pr_warn("agent '%s' says: %s", a->name, proto_get_str(msg, "message", "(no message)"));
	if (strcmp(about, "job") || job < 1 || job != a->job_id)
		return;
	if (store_job_requeue(c->store, job))
		pr_warn("%s", store_errmsg(c->store));
	a->job_id = 0;
	a->hold_until_mono = util_mono_ms() + c->opts.heartbeat_ms;
}

typedef void (*agent_handler_fn)(struct coord *c, struct coord_agent *a, const void *id,
				 size_t id_len, const json_t *msg);

/* two-host barrier and wiring discovery: coordinator/link.c */
static void coord_link_ready_h(struct coord *c, struct coord_agent *a, const void *id,
			       size_t id_len, const json_t *msg)
{
	coord_link_ready(c, a, msg);
}

static void coord_link_report_h(struct coord *c, struct coord_agent *a, const void *id,
				size_t id_len, const json_t *msg)
{
	coord_link_report(c, a, msg);
}

/* kernel providers: coordinator/boot.c */
static void coord_boot_report_h(struct coord *c, struct coord_agent *a, const void *id,
				size_t id_len, const json_t *msg)
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
	{ "result", on_result },
	{ "error", on_agent_error },
	{ "ready", coord_link_ready_h },
	{ "probe_report", coord_link_report_h },
	{ "boot_report", coord_boot_report_h },
};

/* Receive and handle one agent message. Returns 1 when one was handled, 0 when none was
 * waiting, or -errno. */
static int agent_recv(struct coord *c)
{
	unsigned char id[PROTO_MAX_IDENTITY];
	size_t id_len = 0, i;
	struct coord_agent *a;
	struct samples samples;
	const char *type;
	json_t *msg = NULL;
	char why[256];
	int err, valid;

	err = proto_recv_from_samples(c->agents_sock, id, &id_len, &msg, &samples, ZMQ_DONTWAIT,
				      why, sizeof(why));
	if (err == -EAGAIN)
		return 0;
	if (err == -EBADMSG) {
		result_flush(c);
		bad_message(c, c->agents_sock, id, id_len, "an agent", NULL, "%s", why);
		return 1;
	}
	if (err) {
		pr_warn("cannot receive from agents: %s", zmq_strerror(-err));
		return err;
	}
	type = proto_msg_type(msg);
	a = agent_by_rid(c, id, id_len);
	if (a) {
		a->last_recv_mono = util_mono_ms();
		a->seen_wall = util_wall_ms();
	}
	/* members and their types (lib/proto_schema.c); unknown types are refused below */
	valid = proto_validate(msg, PROTO_CH_AGENT_TO_COORD, why, sizeof(why));
	/* the results stored so far are committed before anything else happens */
	if (!a || strcmp(type, "result") || valid == -EINVAL)
		result_flush(c);
	if (valid == -EINVAL) {
		bad_message(c, c->agents_sock, id, id_len, "an agent", type, "%s", why);
		goto out;
	}
	if (!strcmp(type, "hello")) {
		on_hello(c, id, id_len, msg);
		goto out;
	}
	for (i = 0; i < ARRAY_SIZE(agent_handlers); i++)
		if (!strcmp(type, agent_handlers[i].type))
			break;
	if (i == ARRAY_SIZE(agent_handlers)) {
		bad_message(c, c->agents_sock, id, id_len, "an agent", type,
			    "unknown message type '%s'", type);
	} else if (!a) {
		/* An agent of a previous coordinator, or one declared gone. Heartbeats are not
		 * answered: the agent then misses ours, reconnects and says hello (Paranoid
		 * Pirate); an answer would keep it believing that it is connected. */
		pr_debug("'%s' from an agent that has not said hello", type);
		if (strcmp(type, "heartbeat"))
			reply(c->agents_sock, id, id_len,
			      proto_error_new(type, "unknown agent: say hello first"));
	} else {
		c->in_samples = &samples;
		agent_handlers[i].fn(c, a, id, id_len, msg);
		c->in_samples = NULL;
	}
out:
	samples_release(&samples);
	json_decref(msg);
	return 1;
}

/* --- dispatch ---
 *
 * An agent that becomes free (its result, its hello) is only marked by dispatch_agent;
 * at the end of the loop's turn (coord_run_once), and for every agent at each tick and
 * submit (coord_dispatch), dispatch_batch hands out the jobs of the marked agents
 * together: it picks each one's next job and builds its message, stores all the picks
 * in one transaction (store_jobs_dispatch: one commit a turn, not one a job), and only
 * then sends the messages, so that a job is stored as running before its message
 * leaves (docs/protocol.md, "Faults"). */

#define COORD_DISPATCH_ROUNDS 4		/* batches a turn: a pair's other side goes next */

/* A job picked for an agent, its dispatch not stored yet. */
struct dispatch_pick {
	struct coord_agent *a;
	struct coord_agent *peer;	/* the other side of its pair, to serve next */
	int64_t job_id, run_id;
	json_t *spec;
	char *msg;			/* its `job` message, encoded (coord_job_message) */
	size_t msg_len;
	int err;			/* its dispatch stored (0), or -errno */
};

/* JOB of RUN could not be sent to agent A (attempt 'unsent'): once the job has been lost
 * or undelivered max_attempts times in all, it fails, and so does the other side of its
 * pair (with count 1 the store moved it to another host when its host went gone). */
static void give_up_undelivered(struct coord *c, struct coord_agent *a, int64_t job,
				int64_t run)
{
	json_t *attempts = store_query_attempts(c->store, run), *at;
	char why[300];
	size_t i;
	int n = 0;

	json_array_foreach(attempts, i, at) {
		const char *outcome = proto_get_str(at, "outcome", "");

		if (proto_get_int(at, "job", 0) == job &&
		    (!strcmp(outcome, "unsent") || !strcmp(outcome, "lost")))
			n++;
	}
	json_decref(attempts);
	if (n < c->opts.max_attempts)
		return;
	snprintf(why, sizeof(why), "not delivered or lost %d times: its host '%s' was "
		 "unreachable or went silent during each attempt", n, a->name);
	if (store_job_fail(c->store, job, why, util_wall_ms())) {
		pr_warn("%s", store_errmsg(c->store));
		return;
	}
	c->stats.jobs_lost_failed++;
	pr_warn("job %lld failed: %s", (long long)job, why);
	coord_link_failed(c, job, a->name, why);
}

static void pick_release(struct dispatch_pick *p)
{
	json_decref(p->spec);
	free(p->msg);
	memset(p, 0, sizeof(*p));
}

/* Pick agent A's next queued job and build its message into *P; nothing is stored but a
 * job failed on the way. Returns 1 with *P filled (release it), 2 when a job was failed
 * instead (try the next), 3 when it waits for its machine (machine.c), 0 when nothing
 * is queued or may go now, or -errno. */
static int dispatch_pick(struct coord *c, struct coord_agent *a, struct dispatch_pick *p)
{
	int64_t job_id = 0, run_id = 0;
	json_t *spec = NULL;
	struct coord_agent *peer = NULL;
	char why[512], *msg, *spec_text = NULL;
	size_t msg_len = 0, spec_len = 0;
	bool missing;
	int err;

	err = store_job_next_text(c->store, a->host_id, &job_id, &run_id, &spec, &spec_text,
				  &spec_len);
	if (err == -ENOENT)
		return 0;
	if (err) {
		pr_warn("%s", store_errmsg(c->store));
		return err;
	}
	/* the host must still match what the plan asked: its kernel may have changed since
	 * the submit (coordinator/boot.c) */
	if (!coord_job_fits(a, spec, why, sizeof(why))) {
		pr_warn("job %lld failed: %s", (long long)job_id, why);
		err = store_job_fail(c->store, job_id, why, util_wall_ms());
		if (err)
			pr_warn("%s", store_errmsg(c->store));
		else
			coord_link_failed(c, job_id, a->name, why);
		err = err ? err : 2;
		goto out;
	}
	/* one side of a two-host pair waits until the other host is free too */
	if (!coord_link_may_dispatch(c, a, job_id, spec, &peer)) {
		err = 0;
		goto out;
	}
	/* nor while another host of its machine runs a job (coordinator/machine.c) */
	if (!coord_machine_may(c, a, spec, peer)) {
		err = 3;
		goto out;
	}
	msg = coord_job_message(c, job_id, run_id, spec, spec_text, spec_len, &msg_len, why,
				sizeof(why), &missing);
	free(spec_text);
	spec_text = NULL;
	if (!msg) {
		if (!missing) {
			pr_warn("cannot send job %lld to '%s': %s", (long long)job_id, a->name, why);
			err = -EIO;
			goto out;
		}
		pr_warn("job %lld failed: %s", (long long)job_id, why);
		err = store_job_fail(c->store, job_id, why, util_wall_ms());
		if (err)
			pr_warn("%s", store_errmsg(c->store));
		err = err ? err : 2;
		goto out;
	}
	*p = (struct dispatch_pick){ .a = a, .peer = peer, .job_id = job_id, .run_id = run_id,
				     .spec = spec, .msg = msg, .msg_len = msg_len };
	return 1;
out:
	free(spec_text);
	json_decref(spec);
	return err;
}

/* Send the job of P, stored as dispatched, to its agent: on failure it goes back to the
 * queue; the other side of its pair is served next. */
static void dispatch_send(struct coord *c, struct dispatch_pick *p)
{
	struct coord_agent *a = p->a;
	int64_t job_id = p->job_id;
	int err;

	err = send_agent_text(c, a, "job", p->msg, p->msg_len);
	p->msg = NULL;			/* taken */
	if (err) {
		pr_warn("cannot send job %lld to '%s': %s; queued again", (long long)job_id,
			a->name, zmq_strerror(-err));
		if (store_job_requeue(c->store, job_id))
			pr_warn("%s", store_errmsg(c->store));
		/* its connection is closed (ROUTER_MANDATORY): nothing more for it until it
		 * says hello again, rather than a new 'unsent' attempt every tick */
		a->hold_until_mono = err == -EHOSTUNREACH ? INT64_MAX :
				     util_mono_ms() + c->opts.heartbeat_ms;
		give_up_undelivered(c, a, job_id, p->run_id);
		return;
	}
	a->job_id = job_id;
	coord_machine_running(a, p->spec);
	if (a->stale_job == job_id)
		a->stale_job = 0;	/* a new attempt: its result counts */
	a->ready_job = a->go_job = 0;
	c->stats.jobs_dispatched++;
	pr_info("job %lld dispatched to '%s': run %lld, variant '%s', rep %lld", (long long)job_id,
		a->name, (long long)p->run_id, proto_get_str(p->spec, "variant", "?"),
		proto_get_int(p->spec, "rep", 0));
	if (p->peer && p->peer != a)
		dispatch_agent(c, p->peer, util_mono_ms());
}

/* Whether agent A may get a job now: connected, idle and not held back. */
static bool dispatch_may(const struct coord_agent *a, int64_t now)
{
	return a->connected && !a->job_id && a->hold_until_mono <= now && !coord_boot_holds(a);
}

/* Pick a job for agent A, if it may take one, into (*PICKS)[*N] (grown, *CAP entries);
 * a picked agent holds its job id until the batch is stored, so that a pair's other side
 * and the other hosts of its machine see it taken, as they would after a send. Returns
 * 0, or -ENOMEM (A and the rest wait for the next turn). */
static int collect_one(struct coord *c, struct coord_agent *a, int64_t now,
		       struct dispatch_pick **picks, int *n, int *cap)
{
	struct dispatch_pick *p;
	int i, rc;

	a->collect_pass = c->collect_pass;
	if (*n == *cap) {
		int ncap = *cap ? 2 * *cap : 64;
		struct dispatch_pick *np = realloc(*picks, ncap * sizeof(*np));

		if (!np) {
			pr_warn("cannot dispatch: out of memory");
			c->dispatch_wanted = true;
			return -ENOMEM;
		}
		*picks = np;
		*cap = ncap;
	}
	a->dispatch_wanted = false;
	if (!dispatch_may(a, now)) {
		coord_machine_wait(c, a, false);
		return 0;
	}
	if (coord_machine_busy(c, a))	/* waits, without a look at the queue */
		return 0;
	p = &(*picks)[*n];
	for (i = 0, rc = 2; rc == 2 && i < COORD_DISPATCH_TRIES; i++)
		rc = dispatch_pick(c, a, p);
	if (rc != 3)
		coord_machine_wait(c, a, false);
	if (rc == 1) {
		a->job_id = p->job_id;
		coord_machine_running(a, p->spec);
		coord_machine_hold(a, p->peer, p->spec);
		(*n)++;
	}
	return 0;
}

static int waiter_cmp(const void *x, const void *y)
{
	const struct coord_agent *a = *(struct coord_agent *const *)x;
	const struct coord_agent *b = *(struct coord_agent *const *)y;

	return a->machine_wait < b->machine_wait ? -1 : a->machine_wait > b->machine_wait;
}

/* The agents of this pass that wait for their machine, the longest waiting first, into
 * c->waiters. Returns how many (0 also when out of memory: then in list order). */
static int collect_waiters(struct coord *c, bool all)
{
	struct coord_agent *a;
	int n = 0;

	if (c->waiters_cap < c->machine_waiting) {
		struct coord_agent **w = realloc(c->waiters, c->machine_waiting * sizeof(*w));

		if (!w)
			return 0;
		c->waiters = w;
		c->waiters_cap = c->machine_waiting;
	}
	for (a = c->agents; a && n < c->machine_waiting; a = a->next)
		if (a->machine_wait && (all || a->dispatch_wanted))
			c->waiters[n++] = a;
	qsort(c->waiters, n, sizeof(*c->waiters), waiter_cmp);
	return n;
}

/* Pick a job for every agent (ALL) or every marked one into *PICKS (grown, *CAP
 * entries): first those that wait for their machine, the longest waiting first, so that
 * the hosts of a machine take turns (machine.c), then the others in list order. Returns
 * how many. */
static int dispatch_collect(struct coord *c, bool all, struct dispatch_pick **picks,
			    int *cap)
{
	int64_t now = util_mono_ms();
	struct coord_agent *a;
	int n = 0, i, nw;

	c->collect_pass++;
	nw = c->machine_waiting ? collect_waiters(c, all) : 0;
	for (i = 0; i < nw; i++)
		if (collect_one(c, c->waiters[i], now, picks, &n, cap))
			return n;
	for (a = c->agents; a; a = a->next) {
		if ((!all && !a->dispatch_wanted) || a->collect_pass == c->collect_pass)
			continue;
		if (collect_one(c, a, now, picks, &n, cap))
			break;
	}
	return n;
}

/* Store the N picks as dispatched, in one transaction; each pick's ERR says whether its
 * job was (0), and its agent is idle again until the send. */
static void dispatch_store(struct coord *c, struct dispatch_pick *picks, int n)
{
	int64_t *ids = malloc(n * sizeof(*ids));
	int *errs = malloc(n * sizeof(*errs));
	int i, err = 0;

	if (!ids || !errs) {
		pr_warn("cannot dispatch %d job%s: out of memory", n, n == 1 ? "" : "s");
		err = -ENOMEM;
	}
	for (i = 0; !err && i < n; i++)
		ids[i] = picks[i].job_id;
	if (!err) {
		err = store_jobs_dispatch(c->store, ids, n, util_wall_ms(), errs);
		if (err)
			pr_warn("%s", store_errmsg(c->store));
	}
	for (i = 0; i < n; i++) {
		picks[i].a->job_id = 0;		/* set again when sent */
		picks[i].err = err ? err : errs[i];
		if (!err && errs[i])
			pr_warn("job %lld not dispatched to '%s': %s", (long long)picks[i].job_id,
				picks[i].a->name, errs[i] == -ESTALE ? "it is no longer queued" :
				"it is not in the store");
	}
	free(ids);
	free(errs);
}

/* Hand a job to every connected idle agent (ALL) or to those dispatch_agent marked: the
 * picks of a round are stored in one transaction, then sent; the agents that the sends
 * marked (a pair's other side) make the next round. */
static void dispatch_batch(struct coord *c, bool all)
{
	struct dispatch_pick *picks = NULL;
	int cap = 0, n, i, round;

	for (round = 0; round < COORD_DISPATCH_ROUNDS && (all || c->dispatch_wanted); round++) {
		c->dispatch_wanted = false;
		n = dispatch_collect(c, all, &picks, &cap);
		all = false;
		if (n)
			dispatch_store(c, picks, n);
		for (i = 0; i < n; i++) {
			if (!picks[i].err)
				dispatch_send(c, &picks[i]);
			pick_release(&picks[i]);
		}
	}
	free(picks);
}

/* Agent A may take a job: it gets one at the end of the turn (dispatch_batch). */
static void dispatch_agent(struct coord *c, struct coord_agent *a, int64_t now)
{
	(void)now;
	a->dispatch_wanted = true;
	c->dispatch_wanted = true;
	coord_machine_mark_waiting(a);	/* its machine may be free: their turn first */
}

void coord_dispatch(struct coord *c)
{
	dispatch_batch(c, true);
}

/* --- clients --- */

static json_t *query_reply(struct coord *c, const char *type, const char *member, json_t *v)
{
	json_t *r;

	if (!v)
		return proto_error_new(type, "%s", store_errmsg(c->store));
	r = proto_msg_new(type);
	if (!r || json_object_set_new(r, member, v)) {
		json_decref(r);
		return NULL;
	}
	return r;
}

static json_t *on_host_list(struct coord *c, const json_t *msg)
{
	json_t *hosts = store_query_hosts(c->store);

	if (hosts)
		coord_boot_hosts(c, hosts);	/* kernel switches: "boot", state "booting" */
	if (hosts)
		coord_machine_hosts(c, hosts);	/* "waits_for_machine" */
	return query_reply(c, "hosts", "hosts", hosts);
}

static json_t *on_run_list(struct coord *c, const json_t *msg)
{
	return query_reply(c, "runs", "runs", store_query_runs(c->store));
}

static json_t *on_run_show(struct coord *c, const json_t *msg)
{
	long long run = proto_get_int(msg, "run", -1);

	if (run < 1)
		return proto_error_new("run_show", "'run' must be a run id");
	return query_reply(c, "run", "run", store_query_run(c->store, run));
}

static json_t *on_result_show(struct coord *c, const json_t *msg)
{
	long long run = proto_get_int(msg, "run", -1);

	if (run < 1)
		return proto_error_new("result_show", "'run' must be a run id");
	return query_reply(c, "result", "result", store_query_result(c->store, run));
}

static json_t *on_run_cancel(struct coord *c, const json_t *msg)
{
	long long run = proto_get_int(msg, "run", -1);
	json_t *running = NULL, *r, *item, *cancel;
	struct coord_agent *a;
	size_t i;

	if (run < 1)
		return proto_error_new("run_cancel", "'run' must be a run id");
	if (store_run_cancel(c->store, run, util_wall_ms(), &running))
		return proto_error_new("run_cancel", "%s", store_errmsg(c->store));
	c->stats.runs_cancelled++;
	json_array_foreach(running, i, item) {
		a = coord_agent_by_name(c, proto_get_str(item, "host", ""));
		cancel = proto_msg_new("cancel");
		if (a && a->connected && cancel &&
		    !json_object_set(cancel, "job", json_object_get(item, "job")))
			coord_send_agent(c, a, cancel);
		json_decref(cancel);
	}
	pr_info("run %lld cancelled: %zu running job%s told to stop", run,
		json_array_size(running), json_array_size(running) == 1 ? "" : "s");
	r = proto_msg_new("cancelled");
	if (!r || json_object_set_new(r, "run", json_integer(run)) ||
	    json_object_set_new(r, "running", running)) {
		json_decref(r);
		return NULL;
	}
	return r;
}

/* Per host of run RUN (the run_show object): jobs, finished, the running job, and the
 * phase, second and rates of its agent's latest progress message. */
static json_t *watch_hosts(struct coord *c, const json_t *run)
{
	json_t *hosts = json_object(), *list = json_array(), *h, *job;
	const char *name, *state;
	struct coord_agent *a;
	size_t i;

	if (!hosts || !list)
		goto fail;
	json_array_foreach(json_object_get(run, "jobs"), i, job) {
		name = proto_get_str(job, "host", "?");
		state = proto_get_str(job, "state", "");
		h = json_object_get(hosts, name);
		if (!h) {
			h = json_pack("{s:s, s:i, s:i, s:i, s:n}", "host", name, "jobs", 0,
				      "finished", 0, "failed", 0, "job");
			if (!h || json_object_set_new(hosts, name, h))
				goto fail;
		}
		json_object_set_new(h, "jobs", json_integer(proto_get_int(h, "jobs", 0) + 1));
		if (!strcmp(state, "done") || !strcmp(state, "failed"))
			json_object_set_new(h, "finished",
					    json_integer(proto_get_int(h, "finished", 0) + 1));
		if (!strcmp(state, "failed"))
			json_object_set_new(h, "failed",
					    json_integer(proto_get_int(h, "failed", 0) + 1));
		if (!strcmp(state, "running"))
			json_object_set(h, "job", json_object_get(job, "id"));
		if (json_object_get(job, "added")) {
			/* repetitions the controller added, and the latest reason */
			json_object_set_new(h, "added",
					    json_integer(proto_get_int(h, "added", 0) + 1));
			json_object_set(h, "added_why", json_object_get(job, "added"));
		}
	}
	json_object_foreach(hosts, name, h) {
		long long running = proto_get_int(h, "job", 0);

		a = coord_agent_by_name(c, name);
		json_object_set_new(h, "connected", json_boolean(a && a->connected));
		if (running)
			json_object_set_new(h, "n", json_integer(proto_get_int(h, "finished", 0) + 1));
		if (a && a->progress && running && a->progress_of.job == running) {
			const struct msg_progress *p = &a->progress_of;

			if (p->phase)
				json_object_set_new(h, "phase", json_string(p->phase));
			if (p->has_second)
				json_object_set_new(h, "second", json_integer(p->second));
			if (p->has_of)
				json_object_set_new(h, "of", json_integer(p->of));
			if (p->rates)
				json_object_set(h, "rates", (json_t *)p->rates);
		}
		if (json_array_append(list, h))
			goto fail;
	}
	json_decref(hosts);
	return list;
fail:
	json_decref(hosts);
	json_decref(list);
	return NULL;
}

static json_t *on_run_watch(struct coord *c, const json_t *msg)
{
	long long id = proto_get_int(msg, "run", -1);
	json_t *run, *hosts, *r;

	if (id < 1)
		return proto_error_new("run_watch", "'run' must be a run id");
	run = store_query_run(c->store, id);
	if (!run)
		return proto_error_new("run_watch", "%s", store_errmsg(c->store));
	hosts = watch_hosts(c, run);
	json_object_del(run, "jobs");
	json_object_del(run, "overrides");
	r = proto_msg_new("watch");
	if (!hosts || !r || json_object_set_new(r, "run", run) ||
	    json_object_set_new(r, "hosts", hosts)) {
		json_decref(r);
		return NULL;
	}
	return r;
}

static json_t *on_run_attempts(struct coord *c, const json_t *msg)
{
	long long run = proto_get_int(msg, "run", -1);

	if (run < 1)
		return proto_error_new("run_attempts", "'run' must be a run id");
	return query_reply(c, "attempts", "attempts", store_query_attempts(c->store, run));
}

static const struct {
	const char *type;
	json_t *(*fn)(struct coord *c, const json_t *msg);
} client_handlers[] = {
	{ "submit", coord_submit },
	{ "host_list", on_host_list },
	{ "run_list", on_run_list },
	{ "run_show", on_run_show },
	{ "result_show", on_result_show },
	{ "run_cancel", on_run_cancel },
	{ "run_watch", on_run_watch },
	{ "run_attempts", on_run_attempts },
	{ "query", coord_query },
	{ "import", coord_import },
	{ "link_list", coord_link_list },
	{ "link_discover", NULL },	/* answered later: coord_link_discover */
	{ "host_boot", coord_host_boot },
	{ "bisect_get", coord_bisect_get },
	{ "bisect_start", coord_bisect_start },
	{ "bisect_add_step", coord_bisect_add_step },
	{ "bisect_finish", coord_bisect_finish },
	{ "bisect_reset", coord_bisect_reset },
	{ "noise_record", coord_noise_record },
	{ "noise_list", coord_noise_list },
};

/* Receive and answer one client request: 1 when one was handled, 0 when none waited. */
static int client_recv(struct coord *c)
{
	unsigned char id[PROTO_MAX_IDENTITY];
	size_t id_len = 0, i;
	const char *type;
	json_t *msg = NULL;
	char why[256];
	int err;

	err = proto_recv_from(c->clients_sock, id, &id_len, &msg, ZMQ_DONTWAIT, why,
			      sizeof(why));
	if (err == -EAGAIN)
		return 0;
	if (err == -EBADMSG) {
		bad_message(c, c->clients_sock, id, id_len, "a client", NULL, "%s", why);
		return 1;
	}
	if (err) {
		pr_warn("cannot receive from clients: %s", zmq_strerror(-err));
		return err;
	}
	type = proto_msg_type(msg);
	for (i = 0; i < ARRAY_SIZE(client_handlers); i++)
		if (!strcmp(type, client_handlers[i].type))
			break;
	if (i < ARRAY_SIZE(client_handlers) &&
	    proto_validate(msg, PROTO_CH_CLIENT_TO_COORD, why, sizeof(why)) == -EINVAL)
		bad_message(c, c->clients_sock, id, id_len, "a client", type, "%s", why);
	else if (i == ARRAY_SIZE(client_handlers))
		bad_message(c, c->clients_sock, id, id_len, "a client", type,
			    "unknown message type '%s'", type);
	else if (!client_handlers[i].fn)
		coord_link_discover(c, id, id_len);
	else
		reply(c->clients_sock, id, id_len, client_handlers[i].fn(c, msg));
	json_decref(msg);
	return 1;
}

/* --- CURVE: the ZAP handler (ZeroMQ RFC 27) --- */

/* Log a refused KEY from ADDRESS, at most once a minute per key: a refused peer
 * reconnects every few hundred milliseconds. */
static void log_refusal(struct coord *c, const uint8_t key[32], const char *address)
{
	int64_t now = util_mono_ms();
	struct coord_refusal *r, *oldest = &c->refusals[0];
	char z85[KEYS_Z85_LEN + 1];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(c->refusals); i++) {
		r = &c->refusals[i];
		if (r->logged_mono && !memcmp(r->key, key, 32)) {
			if (now - r->logged_mono < 60000)
				return;
			oldest = r;
			break;
		}
		if (r->logged_mono < oldest->logged_mono)
			oldest = r;
	}
	memcpy(oldest->key, key, 32);
	oldest->logged_mono = now;
	zmq_z85_encode(z85, key, 32);
	pr_warn("refused a connection from %s: key '%.8s...' is not in the allow list '%s'",
		*address ? address : "an unknown address", z85, c->authorized);
}

/* Answer one ZAP request: 200 for a CURVE key in the allow list, 400 otherwise. */
static void zap_handle(struct coord *c)
{
	enum { F_VERSION, F_REQID, F_DOMAIN, F_ADDRESS, F_IDENTITY, F_MECH, F_CRED, F_N };
	zmq_msg_t f[F_N + 1];
	char address[64] = "", mech[16] = "";
	const char *status = "400", *text = "not allowed", *user = "";
	size_t n = 0, i, sz;
	int more = 1;

	while (more && n <= F_N) {
		zmq_msg_init(&f[n]);
		if (zmq_msg_recv(&f[n], c->zap_sock, ZMQ_DONTWAIT) < 0) {
			zmq_msg_close(&f[n]);
			goto out;
		}
		more = zmq_msg_more(&f[n]);
		n++;
	}
	if (more) {			/* more frames than a CURVE request has */
		zmq_msg_t m;

		while (more) {
			zmq_msg_init(&m);
			zmq_msg_recv(&m, c->zap_sock, 0);
			more = zmq_msg_more(&m);
			zmq_msg_close(&m);
		}
	}
	if (n < F_MECH)
		goto out;		/* cannot even answer: no request id */
	sz = zmq_msg_size(&f[F_ADDRESS]);
	memcpy(address, zmq_msg_data(&f[F_ADDRESS]), sz < sizeof(address) - 1 ? sz :
	       sizeof(address) - 1);
	sz = zmq_msg_size(&f[F_MECH]);
	memcpy(mech, zmq_msg_data(&f[F_MECH]), sz < sizeof(mech) - 1 ? sz : sizeof(mech) - 1);
	if (n == F_N && !strcmp(mech, "CURVE") && zmq_msg_size(&f[F_CRED]) == 32) {
		const uint8_t *key = zmq_msg_data(&f[F_CRED]);

		user = keys_allow_name(c->allow, key);
		if (user) {
			status = "200";
			text = "OK";
			c->stats.auth_allowed++;
			pr_debug("allowed a connection from %s with key '%s'", address, user);
		} else {
			user = "";
			c->stats.auth_refused++;
			log_refusal(c, key, address);
		}
	} else {
		c->stats.auth_refused++;
		pr_warn("refused a connection from %s: mechanism '%s' instead of CURVE",
			*address ? address : "an unknown address", mech);
	}
	/* reply: version, request id, status code, status text, user id, metadata */
	zmq_send(c->zap_sock, "1.0", 3, ZMQ_SNDMORE);
	zmq_send(c->zap_sock, zmq_msg_data(&f[F_REQID]), zmq_msg_size(&f[F_REQID]), ZMQ_SNDMORE);
	zmq_send(c->zap_sock, status, 3, ZMQ_SNDMORE);
	zmq_send(c->zap_sock, text, strlen(text), ZMQ_SNDMORE);
	zmq_send(c->zap_sock, user, strlen(user), ZMQ_SNDMORE);
	zmq_send(c->zap_sock, "", 0, 0);
out:
	for (i = 0; i < n; i++)
		zmq_msg_close(&f[i]);
}

/* Read the allow list again; keep the old one when the folder cannot be read. */
static void reload_keys(struct coord *c)
{
	struct keys_allow *allow;
	char why[512];

	c->reload = 0;
	if (!c->curve) {
		pr_info("reload: plaintext coordinator, no allow list");
		return;
	}
	allow = keys_allow_load(c->authorized, why, sizeof(why));
	if (!allow) {
		pr_warn("%s; keeping the %zu allowed key%s", why, keys_allow_count(c->allow),
			keys_allow_count(c->allow) == 1 ? "" : "s");
		return;
	}
	keys_allow_destroy(&c->allow);
	c->allow = allow;
	pr_info("allow list '%s' reloaded: %zu key%s allowed", c->authorized,
		keys_allow_count(allow), keys_allow_count(allow) == 1 ? "" : "s");
}

void coord_request_reload(struct coord *c)
{
	c->reload = 1;
}

/* --- timer and loop --- */

static void tick(struct coord *c)
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
		if (!a->connected)
			continue;
		if (!behind && now - a->last_recv_mono > deadline) {
			agent_gone(c, a, now - a->last_recv_mono);
			continue;
		}
		if (now - a->last_send_mono >= c->opts.heartbeat_ms) {
			hb = proto_msg_new("heartbeat");
			if (hb && a->job_id)
				json_object_set_new(hb, "job", json_integer(a->job_id));
			if (hb)
				coord_send_agent(c, a, hb);
			json_decref(hb);
		}
		if (a->seen_wall - a->seen_stored_wall >= COORD_SEEN_STORE_MS) {
			if (store_host_seen(c->store, a->host_id, a->seen_wall))
				pr_warn("%s", store_errmsg(c->store));
			a->seen_stored_wall = a->seen_wall;
		}
	}
	coord_link_tick(c);
	coord_boot_tick(c);
	coord_dispatch(c);
}

int coord_run_once(struct coord *c, int timeout_ms)
{
	zmq_pollitem_t items[3] = {
		{ c->agents_sock, 0, ZMQ_POLLIN, 0 },
		{ c->clients_sock, 0, ZMQ_POLLIN, 0 },
		{ c->zap_sock, 0, ZMQ_POLLIN, 0 },	/* last: absent in plaintext */
	};
	int64_t now = util_mono_ms(), wait = c->next_tick_mono - now;
	int i, rc;

	if (c->reload)
		reload_keys(c);
	if (wait < 0)
		wait = 0;
	if (wait > timeout_ms)
		wait = timeout_ms;
	rc = zmq_poll(items, c->zap_sock ? 3 : 2, (long)wait);
	if (rc < 0)
		return zmq_errno() == EINTR ? 0 : -zmq_errno();
	for (i = 0; i < COORD_BATCH && c->zap_sock && (items[2].revents & ZMQ_POLLIN); i++) {
		int ev = 0;
		size_t evsz = sizeof(ev);

		zap_handle(c);
		if (zmq_getsockopt(c->zap_sock, ZMQ_EVENTS, &ev, &evsz) || !(ev & ZMQ_POLLIN))
			break;
	}
	for (i = 0; i < COORD_BATCH && (items[0].revents & ZMQ_POLLIN); i++) {
		rc = agent_recv(c);
		if (rc <= 0)
			break;
	}
	result_flush(c);	/* the turn's results: stored, then acknowledged */
	for (i = 0; i < COORD_BATCH && (items[1].revents & ZMQ_POLLIN); i++) {
		rc = client_recv(c);
		if (rc <= 0)
			break;
	}
	if (c->dispatch_wanted)		/* the agents freed in this turn, in one batch */
		dispatch_batch(c, false);
	now = util_mono_ms();
	if (now >= c->next_tick_mono) {
		tick(c);
		c->next_tick_mono = now + c->opts.tick_ms;
	}
	return 0;
}

int coord_run(struct coord *c)
{
	int err = 0;

	while (!c->stop && !err)
		err = coord_run_once(c, c->opts.tick_ms);
	if (err)
		pr_warn("event loop failed: %s", zmq_strerror(-err));
	return err;
}

void coord_stop(struct coord *c)
{
	c->stop = 1;
}

void coord_get_stats(const struct coord *c, struct coord_stats *stats)
{
	*stats = c->stats;
}

/* --- setup --- */

static void *router_new(struct coord *c, const char *endpoint, const char *what,
			bool handover)
{
	int one = 1, zero = 0;
	int64_t max = PROTO_MAX_BYTES;
	void *s = zmq_socket(c->ctx, ZMQ_ROUTER);

	if (!s) {
		pr_warn("cannot create the %s socket: %s", what, zmq_strerror(zmq_errno()));
		return NULL;
	}
	if (zmq_setsockopt(s, ZMQ_ROUTER_MANDATORY, &one, sizeof(one)) ||
	    zmq_setsockopt(s, ZMQ_MAXMSGSIZE, &max, sizeof(max)) ||
	    zmq_setsockopt(s, ZMQ_LINGER, &zero, sizeof(zero)) ||
	    (handover && zmq_setsockopt(s, ZMQ_ROUTER_HANDOVER, &one, sizeof(one))) ||
	    (c->curve && keys_set_server(s, &c->key))) {
		pr_warn("cannot set options of the %s socket: %s", what,
			zmq_strerror(zmq_errno()));
		goto fail;
	}
	if (zmq_bind(s, endpoint)) {
		pr_warn("cannot bind the %s endpoint '%s': %s", what, endpoint,
			zmq_strerror(zmq_errno()));
		goto fail;
	}
	return s;
fail:
	errno = zmq_errno();
	zmq_close(s);
	return NULL;
}

/* CURVE with a key (the allow list loaded and the ZAP handler bound before any socket
 * binds: without a handler libzmq would let every key in), or plaintext on endpoints
 * that stay on this machine. Returns 0 or -1 with errno. */
static int security_init(struct coord *c, const struct coord_opts *opts)
{
	int64_t max = 4096;
	char why[512];
	int zero = 0;

	if (!opts->key) {		/* endpoints checked by coord_new */
		pr_info("plaintext: no CURVE, every local peer is accepted");
		return 0;
	}
	if (!keys_have_curve()) {
		pr_warn("this libzmq has no CURVE support");
		errno = ENOTSUP;
		return -1;
	}
	if (!opts->authorized || !*opts->key->secret_z85) {
		pr_warn("CURVE needs the coordinator's secret key and an --authorized folder");
		errno = EINVAL;
		return -1;
	}
	c->curve = true;
	c->key = *opts->key;
	c->authorized = strdup(opts->authorized);
	if (!c->authorized)
		return -1;
	c->allow = keys_allow_load(opts->authorized, why, sizeof(why));
	if (!c->allow) {
		pr_warn("%s", why);
		return -1;
	}
	c->zap_sock = zmq_socket(c->ctx, ZMQ_REP);
	if (!c->zap_sock || zmq_setsockopt(c->zap_sock, ZMQ_LINGER, &zero, sizeof(zero)) ||
	    zmq_setsockopt(c->zap_sock, ZMQ_MAXMSGSIZE, &max, sizeof(max)) ||
	    zmq_bind(c->zap_sock, "inproc://zeromq.zap.01")) {
		pr_warn("cannot start the ZAP handler: %s", zmq_strerror(zmq_errno()));
		errno = zmq_errno();
		return -1;
	}
	pr_info("CURVE on, public key %s; allow list '%s': %zu key%s allowed",
		c->key.public_z85, c->authorized, keys_allow_count(c->allow),
		keys_allow_count(c->allow) == 1 ? "" : "s");
	return 0;
}

/* Take DB-bpflabd.lock so that a second coordinator on the same database (which would
 * requeue and dispatch the first one's jobs) refuses to start. Returns 0 or -errno. */
static int db_lock(struct coord *c, const char *db)
{
	char path[PATH_MAX];

	if (!strcmp(db, ":memory:"))
		return 0;
	if (snprintf(path, sizeof(path), "%s-bpflabd.lock", db) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	c->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (c->lock_fd < 0) {
		pr_warn("cannot open lock file '%s': %s", path, strerror(errno));
		return -errno;
	}
	if (flock(c->lock_fd, LOCK_EX | LOCK_NB)) {
		int err = -errno;

		if (err == -EWOULDBLOCK)
			pr_warn("database '%s' is in use by another bpflabd (lock '%s')", db, path);
		else
			pr_warn("cannot lock '%s': %s", path, strerror(-err));
		return err;
	}
	return 0;
}

struct coord *coord_new(const struct coord_opts *opts)
{
	char err[1024];
	struct coord *c;
	int requeued = 0, saved;

	if (!opts || !opts->agents || !opts->clients || !opts->db) {
		pr_warn("coordinator needs agents and clients endpoints and a database");
		errno = EINVAL;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	memcpy(&c->opts, opts, opts->sz < sizeof(c->opts) ? opts->sz : sizeof(c->opts));
	c->opts.sz = sizeof(c->opts);
	if (c->opts.heartbeat_ms <= 0)
		c->opts.heartbeat_ms = PROTO_HEARTBEAT_MS;
	if (c->opts.liveness <= 0)
		c->opts.liveness = PROTO_LIVENESS;
	if (c->opts.tick_ms <= 0)
		c->opts.tick_ms = COORD_TICK_MS;
	if (c->opts.max_attempts <= 0)
		c->opts.max_attempts = COORD_MAX_ATTEMPTS;
	c->lock_fd = -1;

	if (!opts->key) {
		/* plaintext only where nobody else can connect; before anything is opened */
		const char *ep = !keys_endpoint_is_local(opts->agents) ? opts->agents :
				 !keys_endpoint_is_local(opts->clients) ? opts->clients : NULL;

		if (ep) {
			pr_warn("refusing plaintext on '%s'; give --key and --authorized, or "
				"--plaintext on loopback/ipc only", ep);
			saved = EPERM;
			goto fail;
		}
	}
	saved = -db_lock(c, opts->db);
	if (saved)
		goto fail;
	c->store = store_open(opts->db, false, err, sizeof(err));
	if (!c->store) {
		saved = errno;
		pr_warn("%s", err);
		goto fail;
	}
	if (store_recover(c->store, &requeued)) {
		saved = EIO;
		pr_warn("%s", store_errmsg(c->store));
		goto fail;
	}
	if (requeued)
		pr_info("%d job%s left running by the previous coordinator queued again",
			requeued, requeued == 1 ? "" : "s");
	if (coord_boot_restore(c)) {	/* kernel switches in progress (boot.c) */
		saved = EIO;
		goto fail;
	}
	c->started_mono = util_mono_ms();
	c->absent_scan_mono = c->started_mono;	/* link.c: pairs of hosts not back yet */
	c->ctx = zmq_ctx_new();
	if (!c->ctx) {
		saved = errno;
		pr_warn("cannot create a ZeroMQ context: %s", zmq_strerror(errno));
		goto fail;
	}
	if (security_init(c, opts)) {
		saved = errno;
		goto fail;
	}
	c->agents_sock = router_new(c, opts->agents, "agents", true);
	if (!c->agents_sock) {
		saved = errno;
		goto fail;
	}
	c->clients_sock = router_new(c, opts->clients, "clients", false);
	if (!c->clients_sock) {
		saved = errno;
		goto fail;
	}
	c->next_tick_mono = util_mono_ms() + c->opts.tick_ms;
	pr_info("serving agents on %s, clients on %s, database '%s' (schema %d)", opts->agents,
		opts->clients, opts->db, store_schema_version(c->store));
	/* The strings of OPTS are not kept. */
	c->opts.agents = c->opts.clients = c->opts.db = c->opts.authorized = NULL;
	c->opts.key = NULL;
	return c;
fail:
	coord_destroy(&c);
	errno = saved;
	return NULL;
}

void coord_destroy(struct coord **cp)
{
	struct coord *c = cp ? *cp : NULL;
	struct coord_agent *a, *next;

	if (!c)
		return;
	if (c->agents_sock)
		zmq_close(c->agents_sock);
	if (c->clients_sock)
		zmq_close(c->clients_sock);
	if (c->zap_sock)
		zmq_close(c->zap_sock);
	if (c->ctx)
		zmq_ctx_term(c->ctx);
	for (a = c->agents; a; a = next) {
		next = a->next;
		agent_free(a);
	}
	coord_link_release(c);
	coord_machine_release(c);
	free(c->waiters);
	free(c->pending);	/* empty: every turn commits its results (result_flush) */
	coord_job_messages_release(c);
	store_close(&c->store);
	keys_allow_destroy(&c->allow);
	free(c->authorized);
	memset(&c->key, 0, sizeof(c->key));
	if (c->lock_fd >= 0)
		close(c->lock_fd);	/* releases the flock */
	free(c);
	*cp = NULL;
}

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

#include "log.h"
#include "util.h"

#define COORD_TICK_MS 250
#define COORD_BATCH 64			/* messages per socket per turn: the timer runs */
#define COORD_SEEN_STORE_MS 5000	/* how often last_seen goes to the store */
#define COORD_DISPATCH_TRIES 16		/* jobs failed at dispatch before giving up a turn */

/* --- sending --- */

static int send_agent(struct coord *c, struct coord_agent *a, const json_t *msg)
{
	int err = proto_send_to(c->agents_sock, a->rid, a->rid_len, msg, ZMQ_DONTWAIT);

	if (err)
		pr_debug("cannot send '%s' to agent '%s': %s", proto_msg_type(msg), a->name,
			 zmq_strerror(-err));
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

static struct coord_agent *agent_by_rid(struct coord *c, const void *id, size_t id_len)
{
	struct coord_agent *a;

	for (a = c->agents; a; a = a->next)
		if (a->connected && a->rid_len == id_len && !memcmp(a->rid, id, id_len))
			return a;
	return NULL;
}

static struct coord_agent *agent_by_name(struct coord *c, const char *name)
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

static void agent_gone(struct coord *c, struct coord_agent *a, int64_t silent_ms)
{
	int requeued = 0;

	if (a->seen_wall != a->seen_stored_wall &&
	    store_host_seen(c->store, a->host_id, a->seen_wall))
		pr_warn("%s", store_errmsg(c->store));
	if (store_host_gone(c->store, a->host_id, &requeued))
		pr_warn("%s", store_errmsg(c->store));
	a->connected = false;
	a->job_id = 0;
	json_decref(a->progress);
	a->progress = NULL;
	c->stats.agents_gone++;
	if (requeued)
		pr_info("agent '%s' gone: silent for %lld ms; %d running job%s queued again",
			a->name, (long long)silent_ms, requeued, requeued == 1 ? "" : "s");
	else
		pr_info("agent '%s' gone: silent for %lld ms", a->name, (long long)silent_ms);
}

static void on_hello(struct coord *c, const void *id, size_t id_len, const json_t *msg)
{
	const char *name = proto_get_str(msg, "agent", NULL);
	const char *version = proto_get_str(msg, "version", "");
	const json_t *inv = json_object_get(msg, "inventory");
	struct coord_agent *a, *other;
	int64_t host_id = 0;
	int requeued = 0;
	json_t *welcome;
	bool again;

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
	a = agent_by_name(c, name);
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
	pr_info("agent '%s' %s: host %lld, kernel %s, %zu port(s)%s", name,
		again ? "registered again" : "registered", (long long)host_id,
		proto_get_str(json_object_get(inv, "kernel"), "release", "unknown"),
		json_array_size(json_object_get(inv, "ports")),
		requeued ? "; the job it was running is queued again" : "");
	welcome = proto_msg_new("welcome");
	if (welcome && !json_object_set_new(welcome, "heartbeat_ms",
					    json_integer(c->opts.heartbeat_ms)))
		send_agent(c, a, welcome);
	json_decref(welcome);
	coord_dispatch(c);
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
	if (store_job_accept(c->store, job, a->host_id, util_wall_ms())) {
		pr_warn("agent '%s': %s", a->name, store_errmsg(c->store));
		reply(c->agents_sock, id, id_len,
		      proto_error_new("accept", "%s", store_errmsg(c->store)));
		return;
	}
	if (!a->job_id)
		a->job_id = job;
	pr_debug("job %lld accepted by '%s'", job, a->name);
}

static void on_progress(struct coord *c, struct coord_agent *a, const void *id,
			size_t id_len, const json_t *msg)
{
	json_decref(a->progress);
	a->progress = json_incref((json_t *)msg);
	pr_debug("job %lld on '%s': %s %lld/%lld", proto_get_int(msg, "job", 0), a->name,
		 proto_get_str(msg, "phase", "?"), proto_get_int(msg, "second", 0),
		 proto_get_int(msg, "of", 0));
}

static void on_result(struct coord *c, struct coord_agent *a, const void *id, size_t id_len,
		      const json_t *msg)
{
	long long job = proto_get_int(msg, "job", -1);
	struct store_ingest ing;
	json_t *ack;
	int err;

	if (job < 1) {
		bad_message(c, c->agents_sock, id, id_len, "an agent", "result",
			    "result without a 'job' id");
		return;
	}
	err = store_ingest_result(c->store, a->host_id, msg, util_wall_ms(), &ing);
	if (err) {
		/* Not acknowledged: the agent keeps the result in its spool. */
		if (err == -EINVAL)
			c->stats.bad_messages++;
		pr_warn("agent '%s': %s", a->name, store_errmsg(c->store));
		reply(c->agents_sock, id, id_len,
		      proto_error_new("result", "%s", store_errmsg(c->store)));
		return;
	}
	ack = proto_msg_new("ack");
	if (ack && !json_object_set_new(ack, "job", json_integer(job)))
		send_agent(c, a, ack);
	json_decref(ack);
	if (a->job_id == job)
		a->job_id = 0;
	if (ing.duplicate) {
		c->stats.duplicates++;
		pr_info("job %lld: result from '%s' already stored, acknowledged again", job,
			a->name);
		return;
	}
	c->stats.results++;
	pr_info("job %lld finished on '%s': %s, %d samples%s%s", job, a->name,
		ing.failed ? "failed" : "done", ing.n_samples, ing.failed ? ": " : "",
		ing.failed ? proto_get_str(msg, "error", "no reason given") : "");
	if (ing.run_finished)
		pr_info("run %lld finished: %s", (long long)ing.run_id, ing.run_state);
	coord_dispatch(c);
}

typedef void (*agent_handler_fn)(struct coord *c, struct coord_agent *a, const void *id,
				 size_t id_len, const json_t *msg);

static const struct {
	const char *type;
	agent_handler_fn fn;
} agent_handlers[] = {
	{ "heartbeat", on_heartbeat },
	{ "accept", on_accept },
	{ "progress", on_progress },
	{ "result", on_result },
};

/* Receive and handle one agent message. Returns 1 when one was handled, 0 when none was
 * waiting, or -errno. */
static int agent_recv(struct coord *c)
{
	unsigned char id[PROTO_MAX_IDENTITY];
	size_t id_len = 0, i;
	struct coord_agent *a;
	const char *type;
	json_t *msg = NULL;
	char why[256];
	int err;

	err = proto_recv_from(c->agents_sock, id, &id_len, &msg, ZMQ_DONTWAIT, why, sizeof(why));
	if (err == -EAGAIN)
		return 0;
	if (err == -EBADMSG) {
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
		agent_handlers[i].fn(c, a, id, id_len, msg);
	}
out:
	json_decref(msg);
	return 1;
}

/* --- dispatch --- */

/* The `job` message for JOB_ID with the objects its spec attaches, or NULL with WHY:
 * *MISSING is set when an object is not in the store (the job cannot ever run). */
static json_t *job_message(struct coord *c, int64_t job_id, int64_t run_id, json_t *spec,
			   char *why, size_t why_len, bool *missing)
{
	json_t *msg = NULL, *objects = json_object(), *entry, *job;
	size_t i, len;
	void *data;
	char *b64;
	int err;

	*missing = false;
	if (!objects)
		goto oom;
	json_array_foreach(json_object_get(spec, "attach"), i, entry) {
		const char *name = proto_get_str(entry, "object", NULL);
		const char *sha = proto_get_str(entry, "sha256", NULL);

		if (!name || !sha) {
			snprintf(why, why_len, "attach entry %zu has no object or sha256", i);
			*missing = true;
			goto fail;
		}
		if (json_object_get(objects, name))
			continue;
		err = store_object_get(c->store, sha, &data, &len);
		if (err) {
			snprintf(why, why_len, "%s", store_errmsg(c->store));
			*missing = err == -ENOENT;
			goto fail;
		}
		b64 = util_base64_encode(data, len);
		free(data);
		if (!b64 || json_object_set_new(objects, name, json_pack("{s:s, s:s}", "sha256",
								      sha, "data", b64))) {
			free(b64);
			goto oom;
		}
		free(b64);
	}
	job = json_pack("{s:I, s:I, s:O}", "id", (json_int_t)job_id, "run", (json_int_t)run_id,
			"spec", spec);
	msg = proto_msg_new("job");
	if (!job || !msg || json_object_set_new(msg, "job", job) ||
	    json_object_set(msg, "objects", objects))
		goto oom;
	json_decref(objects);
	return msg;
oom:
	snprintf(why, why_len, "out of memory");
fail:
	json_decref(objects);
	json_decref(msg);
	return NULL;
}

/* Hand agent A its next queued job. Returns 1 when a job went out, 2 when a job was failed
 * instead (try the next), 0 when nothing is queued, or -errno. */
static int dispatch_one(struct coord *c, struct coord_agent *a)
{
	int64_t job_id = 0, run_id = 0;
	json_t *spec = NULL, *msg = NULL;
	char why[512];
	bool missing;
	int err;

	err = store_job_next(c->store, a->host_id, &job_id, &run_id, &spec);
	if (err == -ENOENT)
		return 0;
	if (err) {
		pr_warn("%s", store_errmsg(c->store));
		return err;
	}
	msg = job_message(c, job_id, run_id, spec, why, sizeof(why), &missing);
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
	err = store_job_dispatch(c->store, job_id, util_wall_ms());
	if (err) {
		pr_warn("%s", store_errmsg(c->store));
		goto out;
	}
	err = send_agent(c, a, msg);
	if (err) {
		pr_warn("cannot send job %lld to '%s': %s; queued again", (long long)job_id,
			a->name, zmq_strerror(-err));
		if (store_job_requeue(c->store, job_id))
			pr_warn("%s", store_errmsg(c->store));
		goto out;
	}
	a->job_id = job_id;
	c->stats.jobs_dispatched++;
	pr_info("job %lld dispatched to '%s': run %lld, variant '%s', rep %lld", (long long)job_id,
		a->name, (long long)run_id, proto_get_str(spec, "variant", "?"),
		proto_get_int(spec, "rep", 0));
	err = 1;
out:
	json_decref(spec);
	json_decref(msg);
	return err;
}

void coord_dispatch(struct coord *c)
{
	struct coord_agent *a;
	int i, rc;

	for (a = c->agents; a; a = a->next) {
		for (i = 0; a->connected && !a->job_id && i < COORD_DISPATCH_TRIES; i++) {
			rc = dispatch_one(c, a);
			if (rc != 2)
				break;
		}
	}
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
	return query_reply(c, "hosts", "hosts", store_query_hosts(c->store));
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

static const struct {
	const char *type;
	json_t *(*fn)(struct coord *c, const json_t *msg);
} client_handlers[] = {
	{ "submit", coord_submit },
	{ "host_list", on_host_list },
	{ "run_list", on_run_list },
	{ "run_show", on_run_show },
	{ "result_show", on_result_show },
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
	if (i == ARRAY_SIZE(client_handlers))
		bad_message(c, c->clients_sock, id, id_len, "a client", type,
			    "unknown message type '%s'", type);
	else
		reply(c->clients_sock, id, id_len, client_handlers[i].fn(c, msg));
	json_decref(msg);
	return 1;
}

/* --- timer and loop --- */

static void tick(struct coord *c)
{
	int64_t now = util_mono_ms(), deadline = (int64_t)c->opts.heartbeat_ms * c->opts.liveness;
	struct coord_agent *a;
	json_t *hb;

	for (a = c->agents; a; a = a->next) {
		if (!a->connected)
			continue;
		if (now - a->last_recv_mono > deadline) {
			agent_gone(c, a, now - a->last_recv_mono);
			continue;
		}
		if (now - a->last_send_mono >= c->opts.heartbeat_ms) {
			hb = proto_msg_new("heartbeat");
			if (hb && a->job_id)
				json_object_set_new(hb, "job", json_integer(a->job_id));
			if (hb)
				send_agent(c, a, hb);
			json_decref(hb);
		}
		if (a->seen_wall - a->seen_stored_wall >= COORD_SEEN_STORE_MS) {
			if (store_host_seen(c->store, a->host_id, a->seen_wall))
				pr_warn("%s", store_errmsg(c->store));
			a->seen_stored_wall = a->seen_wall;
		}
	}
	coord_dispatch(c);
}

int coord_run_once(struct coord *c, int timeout_ms)
{
	zmq_pollitem_t items[2] = {
		{ c->agents_sock, 0, ZMQ_POLLIN, 0 },
		{ c->clients_sock, 0, ZMQ_POLLIN, 0 },
	};
	int64_t now = util_mono_ms(), wait = c->next_tick_mono - now;
	int i, rc;

	if (wait < 0)
		wait = 0;
	if (wait > timeout_ms)
		wait = timeout_ms;
	rc = zmq_poll(items, 2, (long)wait);
	if (rc < 0)
		return zmq_errno() == EINTR ? 0 : -zmq_errno();
	for (i = 0; i < COORD_BATCH && (items[0].revents & ZMQ_POLLIN); i++) {
		rc = agent_recv(c);
		if (rc <= 0)
			break;
	}
	for (i = 0; i < COORD_BATCH && (items[1].revents & ZMQ_POLLIN); i++) {
		rc = client_recv(c);
		if (rc <= 0)
			break;
	}
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
	    (handover && zmq_setsockopt(s, ZMQ_ROUTER_HANDOVER, &one, sizeof(one)))) {
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
	c->lock_fd = -1;

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
	c->ctx = zmq_ctx_new();
	if (!c->ctx) {
		saved = errno;
		pr_warn("cannot create a ZeroMQ context: %s", zmq_strerror(errno));
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
	c->opts.agents = c->opts.clients = c->opts.db = NULL;
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
	if (c->ctx)
		zmq_ctx_term(c->ctx);
	for (a = c->agents; a; a = next) {
		next = a->next;
		agent_free(a);
	}
	store_close(&c->store);
	if (c->lock_fd >= 0)
		close(c->lock_fd);	/* releases the flock */
	free(c);
	*cp = NULL;
}

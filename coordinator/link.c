// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* link.c - two-host plans and wiring discovery in the coordinator (docs/protocol.md,
 * "Links"; docs/plans.md, "Two-host plans").
 *
 * Discovery: `link_discover` from a client sends every connected agent a `probe` with
 * one nonce per port ("P-HOSTID-ROLE-RANDOM"); each answers with `probe_report`, the
 * nonces its ports received. When all have answered (or LINK_PROBE_DEADLINE_MS passed)
 * each received nonce names its sender's (host, port): a nonce from another host is a
 * link. The links replace the stored ones in one transaction (store_link.h) and the
 * client gets them. One discovery at a time.
 *
 * Pairs: a plan with `link` is submitted as two jobs per plan job, one per host (same
 * run and seq, spec "pair" with the host's role). A pair job is dispatched only when the
 * other host is connected and idle (or already running the partner); each side prepares
 * and says `ready`; when both have, both get `go`. A side whose job fails before the
 * barrier makes the other side's `go` an abort naming the failed job and its error. A
 * side that fails at its barrier because its partner was lost with its host (partner
 * queued again, last attempt 'lost') is queued again too (store_pair_requeue), so the
 * pair stays a pair. When a side's host is declared gone (coord_link_lost), or its agent
 * says hello as a new session without the side's job (it was restarted before it was
 * declared gone: coord_link_hello), the other side is told at once (`go` with
 * `abort`, before or after its go), not at the end of its barrier, and is not paired
 * with a new attempt of the lost side (coord_link_may_dispatch: a side that had its go
 * or abort fails alone, then both are queued again together). A pair that waits in the
 * queue for a gone host waits at most its barrier_ms, then both sides fail (pair_expire:
 * no other host can take one side of a pair). A host that has not said hello since this
 * coordinator started counts as gone since the start (absent_expire), so a restart does
 * not leave its pairs waiting for ever.
 *
 * Runs on the coordinator's loop thread, like coord.c.
 */
#include "coord_link.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "coord_core.h"
#include "coord_specs.h"
#include "base/log.h"
#include "plan/plan.h"
#include "sched.h"
#include "store/store_link.h"
#include "base/util.h"

#define LINK_PROBE_DEADLINE_MS 3000
#define LINK_PROBE_LISTEN_MS 1000
#define LINK_PROBE_SEND_AFTER_MS 300

struct coord_probe {
	int64_t id;
	unsigned char rid[PROTO_MAX_IDENTITY];	/* the client's */
	size_t rid_len;
	int64_t deadline_mono;
	int expected, got;
	json_t *senders;		/* nonce -> {"host_id", "host", "port"} */
	json_t *reports;		/* [{"host_id", "host", "received"}] */
	json_t *waiting;		/* host names that have not reported */
};

static int64_t probe_seq;

static void probe_free(struct coord_probe **pp)
{
	struct coord_probe *p = *pp;

	if (!p)
		return;
	json_decref(p->senders);
	json_decref(p->reports);
	json_decref(p->waiting);
	free(p);
	*pp = NULL;
}

static void reply_client(struct coord *c, const void *id, size_t id_len, json_t *msg)
{
	if (!msg)
		return;
	if (proto_send_to(c->clients_sock, id, id_len, msg, ZMQ_DONTWAIT))
		pr_debug("cannot send '%s' to a client", proto_msg_type(msg));
	json_decref(msg);
}

void coord_link_discover(struct coord *c, const void *id, size_t id_len)
{
	struct coord_probe *p;
	struct coord_agent *a;

	if (c->probe) {
		reply_client(c, id, id_len, proto_error_new("link_discover",
							    "a link discovery is already running"));
		return;
	}
	p = calloc(1, sizeof(*p));
	if (!p || !(p->senders = json_object()) || !(p->reports = json_array()) ||
	    !(p->waiting = json_array())) {
		probe_free(&p);
		reply_client(c, id, id_len, proto_error_new("link_discover", "out of memory"));
		return;
	}
	p->id = ++probe_seq;
	memcpy(p->rid, id, id_len);
	p->rid_len = id_len;
	p->deadline_mono = util_mono_ms() + LINK_PROBE_DEADLINE_MS;
	for (a = c->agents; a; a = a->next) {
		json_t *msg, *nonces = json_object(), *port;
		size_t i;

		if (!a->sess.connected || !nonces) {
			json_decref(nonces);
			continue;
		}
		json_array_foreach(json_object_get(a->inventory, "ports"), i, port) {
			const char *role = jget_str(port, "role", NULL);
			char nonce[64];

			if (!role || strlen(role) > 16)
				continue;
			snprintf(nonce, sizeof(nonce), "%lld-%lld-%s-%08x", (long long)p->id,
				 (long long)a->host_id, role, (unsigned)random());
			json_object_set_new(nonces, role, json_string(nonce));
			json_object_set_new(p->senders, nonce,
					    json_pack("{s:I, s:s, s:s}", "host_id",
						      (json_int_t)a->host_id, "host", a->name,
						      "port", role));
		}
		msg = proto_msg_new("probe");
		if (msg && !json_object_set_new(msg, "probe", json_integer(p->id)) &&
		    !json_object_set_new(msg, "nonces", nonces) &&
		    !json_object_set_new(msg, "send_after_ms", json_integer(LINK_PROBE_SEND_AFTER_MS)) &&
		    !json_object_set_new(msg, "listen_ms", json_integer(LINK_PROBE_LISTEN_MS)) &&
		    !coord_send_agent(c, a, msg)) {
			p->expected++;
			json_array_append_new(p->waiting, json_string(a->name));
		} else {
			pr_warn("link discovery: cannot send a probe to '%s'", a->name);
		}
		json_decref(msg);
	}
	if (!p->expected) {
		probe_free(&p);
		reply_client(c, id, id_len, proto_error_new("link_discover",
							    "no agent is connected"));
		return;
	}
	pr_info("link discovery %lld: probing %d hosts", (long long)p->id, p->expected);
	c->probe = p;
}

/* Match the reports' nonces to their senders, store the links, answer the client. */
static void probe_finish(struct coord *c)
{
	struct coord_probe *p = c->probe;
	struct store_link *links = NULL;
	json_t *rep, *reply = NULL, *stored;
	size_t i, n_links = 0, cap = 0, k;
	int same_host = 0, err;

	json_array_foreach(p->reports, i, rep) {
		const char *role;
		json_t *nonces;

		json_object_foreach(json_object_get(rep, "received"), role, nonces) {
			json_t *nonce;

			json_array_foreach(nonces, k, nonce) {
				const json_t *from = json_object_get(p->senders,
								     json_string_value(nonce) ?: "");
				int64_t host = jget_int(rep, "host_id", 0);

				if (!from)
					continue;	/* another discovery's, or garbage */
				if (jget_int(from, "host_id", 0) == host) {
					same_host++;
					continue;
				}
				if (n_links == cap) {
					struct store_link *m;

					cap = cap ? cap * 2 : 8;
					m = realloc(links, cap * sizeof(*links));
					if (!m)
						goto oom;
					links = m;
				}
				links[n_links].host_a = jget_int(from, "host_id", 0);
				links[n_links].port_a = jget_str(from, "port", "");
				links[n_links].host_b = host;
				links[n_links].port_b = role;
				n_links++;
			}
		}
	}
	err = store_links_replace(c->store, links, (int)n_links, util_wall_ms());
	if (err) {
		reply = proto_error_new("link_discover", "%s", store_err(c->store)->msg);
		goto out;
	}
	stored = store_query_links(c->store);
	if (!stored) {
		reply = proto_error_new("link_discover", "%s", store_err(c->store)->msg);
		goto out;
	}
	reply = proto_msg_new("links");
	if (reply) {
		json_object_set_new(reply, "links", stored);
		json_object_set_new(reply, "probed", json_integer(p->expected));
		json_object_set(reply, "missing", p->waiting);
		json_object_set_new(reply, "same_host", json_integer(same_host));
	} else {
		json_decref(stored);
	}
	pr_info("link discovery %lld: %zu links, %d of %d hosts reported", (long long)p->id,
		json_array_size(stored), p->got, p->expected);
	goto out;
oom:
	reply = proto_error_new("link_discover", "out of memory");
out:
	free(links);
	reply_client(c, p->rid, p->rid_len, reply);
	probe_free(&c->probe);
}

void coord_link_report(struct coord *c, struct coord_agent *a, const json_t *msg)
{
	struct coord_probe *p = c->probe;
	json_t *name;
	size_t i;

	if (!p || jget_int(msg, "probe", 0) != p->id) {
		pr_debug("late probe report from '%s'", a->name);
		return;
	}
	json_array_foreach(p->waiting, i, name) {
		if (!strcmp(json_string_value(name), a->name))
			break;
	}
	if (i == json_array_size(p->waiting))
		return;		/* a second report */
	json_array_remove(p->waiting, i);
	if (json_object_get(msg, "error"))
		pr_warn("link discovery: '%s': %s", a->name, jget_str(msg, "error", ""));
	json_array_append_new(p->reports, json_pack("{s:I, s:s, s:O}", "host_id",
						    (json_int_t)a->host_id, "host", a->name,
						    "received", json_object_get(msg, "received")));
	if (++p->got >= p->expected)
		probe_finish(c);
}

static bool pair_expire(struct coord *c, int64_t host_id, const char *name, int64_t gone_mono,
			int64_t now);
static void absent_expire(struct coord *c, int64_t now);

void coord_link_tick(struct coord *c)
{
	int64_t now = util_mono_ms();
	struct coord_agent *a;

	if (c->probe && now >= c->probe->deadline_mono)
		probe_finish(c);
	for (a = c->agents; a; a = a->next)
		if (!a->sess.connected && a->pair.gone_mono)
			pair_expire(c, a->host_id, a->name, a->pair.gone_mono, now);
	if (c->absent_scan_mono && now >= c->absent_scan_mono)
		absent_expire(c, now);
}

void coord_link_release(struct coord *c)
{
	probe_free(&c->probe);
}

json_t *coord_link_list(struct coord *c, const json_t *msg)
{
	json_t *links = store_query_links(c->store), *r;

	(void)msg;
	if (!links)
		return proto_error_new("link_list", "%s", store_err(c->store)->msg);
	r = proto_msg_new("links");
	if (!r || json_object_set_new(r, "links", links)) {
		json_decref(r);
		return NULL;
	}
	return r;
}

/* --- pairs --- */

static struct coord_agent *agent_of_host(struct coord *c, int64_t host_id)
{
	struct coord_agent *a;

	for (a = c->agents; a; a = a->next)
		if (a->host_id == host_id)
			return a;
	return NULL;
}

static const char *agent_name_of_host(struct coord *c, int64_t host_id)
{
	struct coord_agent *a = agent_of_host(c, host_id);

	return a ? a->name : "?";
}

bool coord_link_may_dispatch(struct coord *c, struct coord_agent *a, int64_t job,
			     const struct job_spec *spec, struct coord_agent **peer)
{
	int64_t partner, host;
	struct coord_agent *b;

	*peer = NULL;
	if (!spec->has_pair)
		return true;
	if (store_job_partner(c->store, job, &partner, &host)) {
		pr_warn("job %lld: %s", (long long)job, store_err(c->store)->msg);
		return true;	/* let it run: it fails at its barrier with a clear error */
	}
	b = agent_of_host(c, host);
	/* A partner it was told to cancel (stale) is not running for the pair; nor is one
	 * that had its go, or an abort: this side's attempt that it paired with was lost,
	 * and it fails or finishes alone (queued again with this side: pair_requeue). */
	if (!b || !b->sess.connected ||
	    (b->job.id && (b->job.id != partner || coord_stale(b, b->job.id) ||
			   b->pair.go_job == b->job.id)))
		return false;
	*peer = b;
	return true;
}

static void send_go(struct coord *c, struct coord_agent *a, int64_t job, const char *abort)
{
	json_t *go = proto_msg_new("go");

	/* at_ms: both sides time their warmup from the same instant (agent/job.c) */
	if (go && !json_object_set_new(go, "job", json_integer(job)) &&
	    !json_object_set_new(go, "at_ms", json_integer(util_wall_ms())) &&
	    (!abort || !json_object_set_new(go, "abort", json_string(abort))))
		coord_send_agent(c, a, go);
	json_decref(go);
	a->pair.go_job = job;
	a->pair.ready_job = 0;
}

void coord_link_ready(struct coord *c, struct coord_agent *a, const json_t *msg)
{
	long long job = jget_int(msg, "job", 0);
	int64_t partner, host;
	struct coord_agent *b;
	char state[16] = "";

	if (job < 1 || store_job_partner(c->store, job, &partner, &host)) {
		pr_warn("agent '%s': ready for job %lld, which is not one side of a pair",
			a->name, job);
		send_go(c, a, job, "the coordinator knows no pair for this job");
		return;
	}
	a->pair.ready_job = job;
	b = agent_of_host(c, host);
	if (!store_job_state(c->store, partner, state) && !strcmp(state, "failed")) {
		char err[400], why[512];

		store_job_error(c->store, partner, err, sizeof(err));
		snprintf(why, sizeof(why), "job %lld on '%s' failed: %s", (long long)partner,
			 agent_name_of_host(c, host), *err ? err : "no reason given");
		pr_info("pair of job %lld aborted: %s", job, why);
		send_go(c, a, job, why);
		return;
	}
	if (!strcmp(state, "done")) {
		char why[512];

		/* it ran with an earlier attempt of this side, which was lost: nothing to
		 * pair with any more */
		snprintf(why, sizeof(why), "job %lld on '%s' already finished without this side",
			 (long long)partner, agent_name_of_host(c, host));
		pr_info("pair of job %lld aborted: %s", job, why);
		send_go(c, a, job, why);
		return;
	}
	if (!b || b->pair.ready_job != partner) {
		pr_debug("job %lld on '%s' ready; waiting for job %lld", job, a->name,
			 (long long)partner);
		return;
	}
	pr_info("jobs %lld on '%s' and %lld on '%s' ready: go", job, a->name,
		(long long)partner, b->name);
	send_go(c, a, job, NULL);
	send_go(c, b, partner, NULL);
}

/* JOB on A failed at its barrier (aborted, or no go in time) or was stopped after its go
 * because its PARTNER on HOST was lost with its host or agent (or could not be sent to
 * it) and queued again: queue JOB again too, so that the pair runs together when both
 * hosts are back, up to max_attempts losses. True when requeued. */
static bool pair_requeue(struct coord *c, struct coord_agent *a, int64_t job,
			 int64_t partner, int64_t host, const char *error)
{
	char state[16] = "", outcome[16] = "", own[16] = "", why[512];
	int64_t lost = 0;
	int max = c->opts.max_attempts > 0 ? c->opts.max_attempts : 3;

	if (!error || (strncmp(error, "pair aborted: ", 14) && strncmp(error, "barrier: ", 9)))
		return false;
	/* the partner is back in the queue: lost with its host (silent, or its agent
	 * started again), or never delivered to it */
	if (store_job_state(c->store, partner, state) || strcmp(state, "queued") ||
	    store_job_last_attempt(c->store, partner, outcome, NULL) ||
	    (strcmp(outcome, "lost") && strcmp(outcome, "unsent")))
		return false;
	if (!store_job_last_attempt(c->store, job, own, &lost) && lost + 1 >= max)
		return false;
	snprintf(why, sizeof(why), "its pair was lost: job %lld on '%s' %s; queued again with "
		 "it", (long long)partner, agent_name_of_host(c, host),
		 strcmp(outcome, "unsent") ? "was lost with its host or agent" :
					     "was not delivered");
	if (store_pair_requeue(c->store, job, why)) {
		pr_warn("job %lld: cannot queue it again with its pair: %s", (long long)job,
			store_err(c->store)->msg);
		return false;
	}
	pr_info("job %lld on '%s' queued again with job %lld on '%s' (lost with its host)",
		(long long)job, a->name, (long long)partner, agent_name_of_host(c, host));
	return true;
}

void coord_link_result(struct coord *c, struct coord_agent *a, int64_t job, bool failed,
		       const char *error)
{
	int64_t partner, host;
	struct coord_agent *b;
	char why[512];

	if (a->pair.ready_job == job)
		a->pair.ready_job = 0;
	if (!failed || store_job_partner(c->store, job, &partner, &host))
		return;
	if (pair_requeue(c, a, job, partner, host, error))
		return;
	b = agent_of_host(c, host);
	if (!b || !b->sess.connected || b->job.id != partner || b->pair.go_job == partner)
		return;
	snprintf(why, sizeof(why), "job %lld on '%s' failed: %s", (long long)job, a->name,
		 error ? error : "no reason given");
	pr_info("pair of job %lld aborted: %s", (long long)partner, why);
	send_go(c, b, partner, why);
}

/* Job ONLY of agent LOST's host is lost (HOW says why, for the abort's reason), or with
 * ONLY 0 every pair job of that host is: each connected agent running the other side of
 * such a pair is told at once (`go` with `abort`, also after its go), unless that side's
 * result is stored (it finishes alone). What LOST still sends for RUNNING, the job it ran
 * (0: none), belongs to a broken pair when it is one of these: it is marked stale. */
static void abort_partners(struct coord *c, struct coord_agent *lost, int64_t only,
			   int64_t running, const char *how)
{
	char state[16], err[400], why[512];
	int64_t partner, host;
	struct coord_agent *b;

	for (b = c->agents; b; b = b->next) {
		if (b == lost || !b->sess.connected || !b->job.id ||
		    store_job_partner(c->store, b->job.id, &partner, &host) ||
		    host != lost->host_id || (only && partner != only))
			continue;
		/* a partner with its result stored: this side finishes alone */
		if (store_job_state(c->store, partner, state) || !strcmp(state, "done"))
			continue;
		if (!strcmp(state, "failed")) {
			store_job_error(c->store, partner, err, sizeof(err));
			snprintf(why, sizeof(why), "job %lld on '%s' failed: %s",
				 (long long)partner, lost->name, *err ? err : "no reason given");
		} else {
			snprintf(why, sizeof(why), "job %lld on '%s' was lost: %s",
				 (long long)partner, lost->name, how);
		}
		if (partner == running)
			coord_stale_mark(lost, running);
		pr_info("pair of job %lld on '%s' aborted at once: %s", (long long)b->job.id,
			b->name, why);
		send_go(c, b, b->job.id, why);
	}
}

void coord_link_lost(struct coord *c, struct coord_agent *lost, int64_t running)
{
	lost->pair.ready_job = lost->pair.go_job = 0;	/* that attempt's barrier ended */
	lost->pair.gone_mono = util_mono_ms();
	if (!lost->pair.gone_mono)
		lost->pair.gone_mono = 1;
	abort_partners(c, lost, 0, running, "its host went silent");
}

void coord_link_hello(struct coord *c, struct coord_agent *a, int64_t keep,
		      int64_t dropped)
{
	int64_t partner, host;

	a->pair.gone_mono = 0;
	if (a->pair.ready_job != keep)
		a->pair.ready_job = 0;
	if (a->pair.go_job != keep)
		a->pair.go_job = 0;

	/* only that job's pair: the host is back, its other queued pair jobs can still run
	 * with their partners */
	if (dropped && !store_job_partner(c->store, dropped, &partner, &host))
		abort_partners(c, a, dropped, dropped, "its agent started again");
}

void coord_link_handed(struct coord_agent *a)
{
	a->pair.ready_job = a->pair.go_job = 0;
}

void coord_link_start(struct coord *c)
{
	c->absent_scan_mono = c->started_mono;
}

void coord_link_failed(struct coord *c, int64_t job, const char *name, const char *why)
{
	char state[16] = "", reason[512], error[600];
	int64_t partner, host;
	struct coord_agent *b;

	if (store_job_partner(c->store, job, &partner, &host) ||
	    store_job_state(c->store, partner, state))
		return;
	snprintf(reason, sizeof(reason), "job %lld on '%s' failed: %.*s", (long long)job, name,
		 (int)strcspn(why, "\n"), why);
	b = agent_of_host(c, host);
	if (!strcmp(state, "running") && b && b->sess.connected && b->job.id == partner) {
		pr_info("pair of job %lld aborted: %s", (long long)partner, reason);
		send_go(c, b, partner, reason);
	} else if (!strcmp(state, "queued")) {
		snprintf(error, sizeof(error), "pair aborted: %s", reason);
		if (store_job_fail(c->store, partner, error, util_wall_ms()))
			pr_warn("%s", store_err(c->store)->msg);
		else
			pr_warn("job %lld failed: %s", (long long)partner, error);
	}
}

#define PAIR_EXPIRE_BATCH 64		/* jobs failed per tick and host */

/* The queued pair jobs of host HOST_ID (NAME, gone since GONE_MONO) whose
 * pair.barrier_ms has passed: no other host can take one side of a pair, so each fails,
 * and so does its other side. Stops at the first queued job that is not one side of a
 * pair (those wait for the host, docs/protocol.md "Faults"). Returns true while a pair
 * job of the host still waits within its barrier. */
static bool pair_expire(struct coord *c, int64_t host_id, const char *name, int64_t gone_mono,
			int64_t now)
{
	const struct coord_spec *spec;
	int64_t job, run;
	long long limit;
	bool pair;
	struct err e;
	char why[512];
	int i;

	for (i = 0; i < PAIR_EXPIRE_BATCH; i++) {
		if (store_job_next_id(c->store, host_id, &job, &run))
			return false;	/* nothing queued (or an error, logged by the next try) */
		spec = coord_spec_of(c, run, job, &e);
		if (!spec) {
			pr_warn("%s", e.msg);
			return true;
		}
		pair = spec->js.has_pair;
		limit = spec->js.pair.barrier_ms;
		if (!pair || now - gone_mono < limit)
			return pair;
		snprintf(why, sizeof(why), "its host '%s' went silent and was not back within "
			 "%lld ms (the pair's barrier); no other host can take one side of a pair",
			 name, limit);
		if (store_job_fail(c->store, job, why, util_wall_ms())) {
			pr_warn("%s", store_err(c->store)->msg);
			return true;
		}
		pr_warn("job %lld failed: %s", (long long)job, why);
		coord_link_failed(c, job, name, why);
	}
	return true;
}

#define ABSENT_SCAN_MS 1000

/* Hosts of the store that have not said hello to this coordinator: their queued pair
 * jobs wait at most their barrier from the coordinator's start, as if the host had
 * been declared gone then. Scans once a second until none of them has a pair job
 * waiting (jobs are only queued for hosts that said hello, so none come later). */
static void absent_expire(struct coord *c, int64_t now)
{
	json_t *hosts = store_query_hosts(c->store), *h;
	bool waiting = false;
	size_t i;

	if (!hosts) {
		pr_warn("%s", store_err(c->store)->msg);
		c->absent_scan_mono = now + ABSENT_SCAN_MS;
		return;
	}
	json_array_foreach(hosts, i, h) {
		int64_t id = jget_int(h, "id", 0);

		struct coord_agent *a = id > 0 ? agent_of_host(c, id) : NULL;

		/* no agent, or one made from the store that has not said hello (boot.c) */
		if (id > 0 && (!a || (!a->sess.connected && !a->pair.gone_mono)))
			waiting |= pair_expire(c, id, jget_str(h, "name", "?"),
					       c->started_mono, now);
	}
	json_decref(hosts);
	c->absent_scan_mono = waiting ? now + ABSENT_SCAN_MS : 0;
}

/* --- submit --- */

int coord_link_choose(struct coord *c, const struct plan *plan, const json_t *names,
		      struct coord_agent **gen, struct coord_agent **dut, struct err *err)
{
	struct plan match_only = *plan;
	json_t *links = store_query_links(c->store), *l;
	int64_t best = -1;
	size_t i;
	int o;

	*gen = *dut = NULL;
	if (!links)
		return err_ret(err, -EIO, "%s", store_err(c->store)->msg);
	match_only.n_ports = 0;		/* each host has only its end of the link */
	json_array_foreach(links, i, l) {
		for (o = 0; o < 2; o++) {
			const char *pg = jget_str(l, o ? "port_b" : "port_a", "");
			const char *pd = jget_str(l, o ? "port_a" : "port_b", "");
			struct coord_agent *g = agent_of_host(c, jget_int(l, o ? "host_b_id" :
									       "host_a_id", 0));
			struct coord_agent *d = agent_of_host(c, jget_int(l, o ? "host_a_id" :
									       "host_b_id", 0));
			int64_t pg_n = 0, pd_n = 0;

			if (strcmp(pg, plan->link_generator) || strcmp(pd, plan->link_dut) ||
			    !g || !d || !g->sess.connected || !d->sess.connected)
				continue;
			if (names && (!json_is_array(names) || json_array_size(names) != 2 ||
				      strcmp(json_string_value(json_array_get(names, 0)) ?: "", g->name) ||
				      strcmp(json_string_value(json_array_get(names, 1)) ?: "", d->name)))
				continue;
			if (!names && (!sched_host_matches(&match_only, g->inventory, NULL) ||
				       !sched_host_matches(&match_only, d->inventory, NULL)))
				continue;
			store_host_pending(c->store, g->host_id, &pg_n);
			store_host_pending(c->store, d->host_id, &pd_n);
			if (best < 0 || pg_n + pd_n < best) {
				best = pg_n + pd_n;
				*gen = g;
				*dut = d;
			}
		}
	}
	if (!*gen) {
		err_set(err, "no discovered link fits plan '%s' (link generator %s, dut %s%s; %zu links stored%s)",
			plan->name, plan->link_generator, plan->link_dut,
			names ? ", hosts GENERATOR,DUT as given" : "", json_array_size(links),
			json_array_size(links) ? ", none with both hosts connected and matching" :
			": run 'bpflab link discover'");
		json_decref(links);
		return -ENOENT;
	}
	json_decref(links);
	return 0;
}

// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* results.c - an agent's `result`: stored in the loop turn's batch of the store (one
 * commit for the turn's results), then acknowledged; a result of a job taken away from
 * its agent is acknowledged and dropped. See the comment on the batch below.
 *
 * Owns each agent's results part (struct coord_agent_results), the batch in struct
 * coord and the counters of results and duplicates (coord_priv.h, coord.h). Event loop
 * thread only.
 */
#include "coord_results.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord_core.h"
#include "coord_dispatch.h"
#include "coord_link.h"
#include "base/log.h"
#include "proto/msg_result.h"
#include "proto/samples.h"
#include "base/util.h"

/* --- results ---
 *
 * The results of one turn of the loop are stored in one batch of the store (one commit
 * for them all, not one a result); each one's ack, log lines and effects wait for that
 * commit (result_flush), so that an ack still means stored. The batch is committed
 * before any other message but a known agent's heartbeat is handled (agent_recv), before
 * a second result of the same agent, right after a failed result (the other side of its
 * pair hears of it at once, coordinator/link.c) and at the end of the agents' part of
 * the turn (coord_run_once): what happens stays in the order of the messages. */

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
 * the message holds (SAMPLES, read from its text, or its JSON). */
static size_t result_samples(const json_t *msg, const struct samples *samples,
			     const struct msg_result *res)
{
	if (res)
		return res->samples.n;
	if (samples && samples->taken)
		return samples->n;
	return json_array_size(json_object_get(msg, "samples"));
}

/* One result of agent A's spool is in: when it was the last, A may have a job. */
static void spool_drained(struct coord_agent *a)
{
	if (a->res.spooled > 0 && --a->res.spooled == 0)
		coord_dispatch_hold(a, 0);
}

void coord_results_spooled(struct coord *c, struct coord_agent *a, int n)
{
	a->res.spooled = n;
	coord_dispatch_hold(a, n ? util_mono_ms() + c->opts.heartbeat_ms : 0);
}

/* The `ack` of job JOB to agent A: the bytes proto_encode writes for {"v", "type": "ack",
 * "job"}, formatted straight (one a result: building and encoding it was 1.5 % of
 * bpflabd's instructions in bench/coordinator). */
static void send_ack(struct coord *c, struct coord_agent *a, int64_t job)
{
	char *text = NULL;
	int n = asprintf(&text, "{\"v\":%d,\"type\":\"ack\",\"job\":%"
			 JSON_INTEGER_FORMAT "}", PROTO_VERSION, (json_int_t)job);

	if (n >= 0)
		coord_send_agent_text(c, a, "ack", text, (size_t)n);	/* takes TEXT */
}

/* A result of job JOB, which was taken away from agent A (coord_stale_mark):
 * acknowledged so that it leaves the agent's spool, not stored. The mark stays: the same
 * result sent again (the ack was lost with the agent) is dropped too. True when it was
 * one. */
static bool drop_stale_result(struct coord *c, struct coord_agent *a, int64_t job,
			      const json_t *msg, const struct samples *samples,
			      const struct msg_result *res)
{
	if (!coord_stale(a, job))
		return false;
	send_ack(c, a, job);
	coord_job_over(a, job);
	spool_drained(a);
	pr_info("job %lld: result from '%s' (%s, %zu samples) dropped: the job was taken away "
		"from it", (long long)job, a->name,
		res ? (res->failed ? "failed" : "ok") : jget_str(msg, "status", "?"),
		result_samples(msg, samples, res));
	coord_dispatch_agent(c, a, util_mono_ms());
	return true;
}

/* What follows the storing of result R (its commit, or its failure): the ack or the
 * error, the pair, the agent free again, the log. */
static void result_done(struct coord *c, struct coord_result *r)
{
	struct coord_agent *a = r->a;
	long long job = r->job;

	if (r->err) {
		/* Not acknowledged: the agent keeps the result in its spool. */
		if (r->err == -EINVAL)
			coord_count_bad_message(c);
		pr_warn("agent '%s': %s", a->name, r->errmsg);
		coord_reply(c->agents_sock, r->id, r->id_len,
			    proto_error_new("result", "%s", r->errmsg));
		return;
	}
	send_ack(c, a, job);
	if (!r->ing.duplicate)
		coord_link_result(c, a, job, r->ing.failed, r->res.error);
	coord_job_over(a, job);
	coord_dispatch_kept_busy(c, a);	/* idle at the turn's end unless it gets a job */
	spool_drained(a);
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
	coord_dispatch_agent(c, a, util_mono_ms());
}

/* When the commit fails, none of them is stored and each gets the error. */
void coord_result_flush(struct coord *c)
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
			snprintf(r->errmsg, sizeof(r->errmsg),
				 "cannot store result of job %lld: %.900s", (long long)r->job,
				 store_err(c->store)->msg);
		}
		r->a->res.pending = false;
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

void coord_on_result(struct coord *c, struct coord_agent *a, const void *id, size_t id_len,
		     const json_t *msg, struct samples *samples)
{
	struct coord_result one, *r;
	struct msg_result res;
	struct err why;
	long long job;
	bool batched;
	int err;

	/* decoded once: what follows reads RES (lib/proto/msg_result.h) */
	err = msg_result_decode(msg, samples, &res, &why);
	job = res.job;
	if (job < 1 || a->res.pending || coord_stale(a, job))
		coord_result_flush(c);
	if (job < 1) {
		coord_bad_message(c, c->agents_sock, id, id_len, "an agent", "result",
				  "result without a 'job' id");
		return;
	}
	if (drop_stale_result(c, a, job, msg, samples, err ? NULL : &res)) {
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
		snprintf(r->errmsg, sizeof(r->errmsg), "cannot store result of job %lld: %.900s",
			 job, why.msg);
	} else {
		/* the host stays busy: its next job is picked at the turn's end */
		err = store_ingest_msg(c->store, a->host_id, &r->res, util_wall_ms(), true,
				       &r->ing);
		if (err)
			snprintf(r->errmsg, sizeof(r->errmsg), "%s", store_err(c->store)->msg);
	}
	r->err = err;
	samples_release(&r->res.samples);	/* stored: only the texts are read after */
	if (!batched) {
		result_done(c, r);
		json_decref(r->msg);
		return;
	}
	c->n_pending++;
	a->res.pending = true;
	if (!err && r->ing.failed && !r->ing.duplicate)
		coord_result_flush(c);
}

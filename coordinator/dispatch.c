// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* dispatch.c - handing queued jobs to agents: each free agent's next job is picked
 * (checked against its host, its pair's other side and its machine), the picks of a
 * turn are stored as dispatched in one transaction, then their `job` messages
 * (jobmsg.c) are sent. See the comment below. Each job's spec is its run's, kept
 * decoded (specs.c).
 *
 * Owns each agent's job part (struct coord_agent_job), the passes in struct coord, and
 * the counters of dispatched and lost jobs (coord_priv.h, coord.h).
 * Event loop thread only.
 */
#include "coord_dispatch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "coord_boot.h"
#include "coord_core.h"
#include "coord_link.h"
#include "coord_machine.h"
#include "coord_specs.h"
#include "plan/jobspec.h"
#include "base/log.h"
#include "base/util.h"

#define COORD_DISPATCH_TRIES 16		/* jobs failed at dispatch before giving up a turn */
#define UNSTORED_SAY_EVERY_MS 60000	/* rounds that cannot be stored: one warning a minute */

/* --- dispatch ---
 *
 * An agent that becomes free (its result, its hello) is only marked
 * (coord_dispatch_agent); at the end of the loop's turn (coord_dispatch_turn), and for
 * every agent at each tick and submit (coord_dispatch), dispatch_batch hands out the jobs
 * of the marked agents together: it picks each one's next job and builds its message,
 * stores all the picks in the transaction it read them in (a store batch;
 * store_jobs_dispatch: one commit a round, not one a job), and only then sends the
 * messages, so that a job is stored as running before its message leaves
 * (docs/protocol.md, "Faults"). */

#define COORD_DISPATCH_ROUNDS 4		/* batches a turn: a pair's other side goes next */

/* A job picked for an agent, its dispatch not stored yet. */
/* What a pick came to, beside its 0 or -errno (dispatch_pick). */
enum pick_outcome {
	PICK_NONE,			/* nothing queued, or nothing may go now */
	PICK_READY,			/* a job picked: its message is built */
	PICK_FAILED,			/* a job failed on the way (never runnable): next */
	PICK_WAIT,			/* the job waits for its machine (machine.c) */
};

struct dispatch_pick {
	struct coord_agent *a;
	struct coord_agent *peer;	/* the other side of its pair, to serve next */
	int64_t job_id, run_id;
	const struct coord_spec *spec;	/* its run's (specs.c) */
	char *msg;			/* its `job` message, encoded (coord_job_message) */
	size_t msg_len;
	int err;			/* its dispatch stored (0), or -errno */
};

/* JOB of RUN could not be sent to agent A (attempt 'unsent'): once the job has been lost
 * or undelivered max_attempts times in all (an agent's refusals are neither), it fails,
 * and so does the other side of its pair (with count 1 the store moved it to another
 * host when its host went gone). */
static void give_up_undelivered(struct coord *c, struct coord_agent *a, int64_t job,
				int64_t run)
{
	json_t *attempts = store_query_attempts(c->store, run), *at;
	char why[300];
	size_t i;
	int n = 0;

	json_array_foreach(attempts, i, at) {
		const char *outcome = jget_str(at, "outcome", "");

		if (jget_int(at, "job", 0) != job)
			continue;
		if (!strcmp(outcome, "lost") ||
		    (!strcmp(outcome, "unsent") &&
		     strncmp(jget_str(at, "error", ""), COORD_REFUSED, strlen(COORD_REFUSED))))
			n++;
	}
	json_decref(attempts);
	if (n < c->opts.max_attempts)
		return;
	snprintf(why, sizeof(why), "not delivered or lost %d times: its host '%s' was "
		 "unreachable or went silent during each attempt", n, a->name);
	if (store_job_fail(c->store, job, why, util_wall_ms())) {
		pr_warn("%s", store_err(c->store)->msg);
		return;
	}
	c->stats.jobs_lost_failed++;
	pr_warn("job %lld failed: %s", (long long)job, why);
	coord_link_failed(c, job, a->name, why);
}

static void pick_release(struct dispatch_pick *p)
{
	free(p->msg);
	memset(p, 0, sizeof(*p));
}

/* A dispatch round that could not be stored (WHY): its jobs stay queued and the next
 * tick tries again, so a full disk would say it four times a second. Said at once, then
 * at most once a minute with the rounds since; round_stored says when one is stored. */
static void round_unstored(struct coord *c, const char *why)
{
	int64_t now = util_mono_ms();

	c->stats.rounds_unstored++;
	if (c->unstored_rounds++ && now - c->unstored_said_mono < UNSTORED_SAY_EVERY_MS) {
		c->unstored_unsaid++;
		pr_debug("cannot store a dispatch round, its jobs stay queued: %s", why);
		return;
	}
	if (c->unstored_rounds == 1)
		pr_warn("cannot store a dispatch round, its jobs stay queued: %s (tried again "
			"each tick; said again once a minute while it fails)", why);
	else
		pr_warn("still cannot store a dispatch round (%llu more since the last line, "
			"%llu in a row): %s", (unsigned long long)c->unstored_unsaid,
			(unsigned long long)c->unstored_rounds, why);
	c->unstored_unsaid = 0;
	c->unstored_said_mono = now;
}

/* A dispatch round was stored: after rounds that were not, that is said. */
static void round_stored(struct coord *c)
{
	if (!c->unstored_rounds)
		return;
	pr_info("dispatch rounds are stored again, after %llu that could not be",
		(unsigned long long)c->unstored_rounds);
	c->unstored_rounds = c->unstored_unsaid = 0;
}

/* The round's batch (picks_begin), when it holds one, is committed. Returns 0 or the
 * commit's -errno (then nothing of the batch is stored). */
static int picks_end(struct coord *c)
{
	int err;

	if (!c->picks_batched)
		return 0;
	c->picks_batched = false;
	err = store_batch_end(c->store, 0);
	if (err)
		round_unstored(c, store_err(c->store)->msg);
	return err;
}

/* A round's picks are read in the transaction that stores them (a store batch): one
 * transaction a round, not a read transaction a pick besides (their locks were 3 % of
 * bpflabd's CPU in bench/coordinator). Without a batch (one is open already, or it
 * cannot begin) each pick reads on its own. */
static void picks_begin(struct coord *c)
{
	c->picks_batched = !store_batch_begin(c->store);
}

/* Fail job JOB_ID, picked for agent A, for WHY: it can never run there; with LINKED the
 * other side of its pair fails too. Returns 0 (try the next job) or -errno. */
static int fail_pick(struct coord *c, struct coord_agent *a, int64_t job_id, const char *why,
		     bool linked)
{
	int err;

	/* its failure is stored before the other side of its pair hears of it: the round's
	 * batch (reads only so far) ends here, the picks after it read on their own */
	picks_end(c);
	pr_warn("job %lld failed: %s", (long long)job_id, why);
	err = store_job_fail(c->store, job_id, why, util_wall_ms());
	if (err)
		pr_warn("%s", store_err(c->store)->msg);
	else if (linked)
		coord_link_failed(c, job_id, a->name, why);
	return err;
}

/* Pick agent A's next queued job and build its message into *P; nothing is stored but a
 * job failed on the way. Returns 0 with *WHAT: PICK_READY with *P filled (release it),
 * PICK_FAILED, PICK_WAIT or PICK_NONE; or -errno. */
static int dispatch_pick(struct coord *c, struct coord_agent *a, struct dispatch_pick *p,
			 enum pick_outcome *what)
{
	int64_t job_id = 0, run_id = 0;
	const struct coord_spec *spec;
	struct coord_agent *peer = NULL;
	struct err why;
	size_t msg_len = 0;
	char *msg;
	bool missing;
	int err;

	*what = PICK_NONE;
	err = store_job_next_id(c->store, a->host_id, &job_id, &run_id);
	if (err == -ENOENT)
		return 0;
	if (err) {
		pr_warn("%s", store_err(c->store)->msg);
		return err;
	}
	spec = coord_spec_of(c, run_id, job_id, &why);
	if (!spec) {
		pr_warn("cannot dispatch job %lld: %s", (long long)job_id, why.msg);
		return -EIO;
	}
	if (spec->bad) {
		err_set(&why, "its stored spec cannot be read: %.300s", spec->bad);
		*what = PICK_FAILED;
		return fail_pick(c, a, job_id, why.msg, true);
	}
	/* the host must still match what the plan asked: its kernel may have changed since
	 * the submit (coordinator/boot.c) */
	if (!coord_job_fits(a, &spec->js, &why)) {
		*what = PICK_FAILED;
		return fail_pick(c, a, job_id, why.msg, true);
	}
	/* one side of a two-host pair waits until the other host is free too */
	if (!coord_link_may_dispatch(c, a, job_id, &spec->js, &peer))
		return 0;
	/* nor while another host of its machine runs a job (coordinator/machine.c) */
	if (!coord_machine_may(c, a, &spec->js, peer)) {
		*what = PICK_WAIT;
		return 0;
	}
	msg = coord_job_message(c, a, job_id, run_id, spec, &msg_len, &why, &missing);
	if (!msg) {
		if (!missing) {
			pr_warn("cannot send job %lld to '%s': %s", (long long)job_id, a->name,
				why.msg);
			return -EIO;
		}
		*what = PICK_FAILED;
		return fail_pick(c, a, job_id, why.msg, false);
	}
	*p = (struct dispatch_pick){ .a = a, .peer = peer, .job_id = job_id, .run_id = run_id,
				     .spec = spec, .msg = msg, .msg_len = msg_len };
	*what = PICK_READY;
	return 0;
}

/* Send the job of P, stored as dispatched, to its agent: on failure it goes back to the
 * queue; the other side of its pair is served next. */
static void dispatch_send(struct coord *c, struct dispatch_pick *p)
{
	struct coord_agent *a = p->a;
	int64_t job_id = p->job_id;
	int err;

	err = coord_send_agent_text(c, a, "job", p->msg, p->msg_len);
	p->msg = NULL;			/* taken */
	if (err) {
		pr_warn("cannot send job %lld to '%s': %s; queued again", (long long)job_id,
			a->name, zmq_strerror(-err));
		if (store_job_requeue(c->store, job_id, NULL))
			pr_warn("%s", store_err(c->store)->msg);
		coord_job_objects_forget(a);	/* what it carried did not go */
		/* its connection is closed (ROUTER_MANDATORY): nothing more for it until it
		 * says hello again, rather than a new 'unsent' attempt every tick */
		a->job.hold_until_mono = err == -EHOSTUNREACH ? INT64_MAX :
				     util_mono_ms() + c->opts.heartbeat_ms;
		give_up_undelivered(c, a, job_id, p->run_id);
		return;
	}
	a->job.id = job_id;
	coord_machine_running(a, &p->spec->js);
	coord_stale_handed(a, job_id);	/* a new attempt: its result counts */
	coord_link_handed(a);
	c->stats.jobs_dispatched++;
	pr_info("job %lld dispatched to '%s': run %lld, variant '%s', rep %d", (long long)job_id,
		a->name, (long long)p->run_id, p->spec->js.variant ? p->spec->js.variant : "?",
		p->spec->js.rep);
	if (p->peer && p->peer != a)
		coord_dispatch_agent(c, p->peer, util_mono_ms());
}

/* Whether agent A may get a job now: connected, idle and not held back. */
static bool dispatch_may(const struct coord_agent *a, int64_t now)
{
	return a->sess.connected && !a->job.id && a->job.hold_until_mono <= now &&
	       !coord_boot_holds(a);
}

/* Pick a job for agent A, if it may take one, into (*PICKS)[*N] (grown, *CAP entries);
 * a picked agent holds its job id until the batch is stored, so that a pair's other side
 * and the other hosts of its machine see it taken, as they would after a send. Returns
 * 0, or -ENOMEM (A and the rest wait for the next turn). */
static int collect_one(struct coord *c, struct coord_agent *a, int64_t now,
		       struct dispatch_pick **picks, int *n, int *cap)
{
	struct dispatch_pick *p;
	enum pick_outcome what = PICK_FAILED;
	int i;

	a->job.collect_pass = c->collect_pass;
	if (*n == *cap) {
		int ncap = *cap ? 2 * *cap : 64;
		struct dispatch_pick *np = realloc(*picks, ncap * sizeof(*np));

		if (!np) {
			pr_warn("cannot dispatch: out of memory");
			coord_dispatch_later(c);
			return -ENOMEM;
		}
		*picks = np;
		*cap = ncap;
	}
	coord_dispatch_served(a);
	if (!dispatch_may(a, now)) {
		coord_machine_wait(c, a, false);
		return 0;
	}
	if (coord_machine_busy(c, a))	/* waits, without a look at the queue */
		return 0;
	p = &(*picks)[*n];
	for (i = 0; what == PICK_FAILED && i < COORD_DISPATCH_TRIES; i++)
		if (dispatch_pick(c, a, p, &what))
			what = PICK_NONE;	/* said where it failed; the next turn tries again */
	if (what != PICK_WAIT)
		coord_machine_wait(c, a, false);
	if (what == PICK_READY) {
		a->job.id = p->job_id;
		coord_machine_running(a, &p->spec->js);
		coord_machine_hold(a, p->peer, &p->spec->js);
		(*n)++;
	}
	return 0;
}

static int waiter_cmp(const void *x, const void *y)
{
	const struct coord_agent *a = *(struct coord_agent *const *)x;
	const struct coord_agent *b = *(struct coord_agent *const *)y;

	return a->machine.wait < b->machine.wait ? -1 : a->machine.wait > b->machine.wait;
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
		if (a->machine.wait && (all || a->dispatch_wanted))
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
		if ((!all && !a->dispatch_wanted) || a->job.collect_pass == c->collect_pass)
			continue;
		if (collect_one(c, a, now, picks, &n, cap))
			break;
	}
	return n;
}

/* Store the N picks as dispatched, in one transaction; each pick's ERR says whether its
 * job was (0), and its agent is idle again until the send. Returns 0 or the -errno that
 * kept them all from being stored. */
static int dispatch_store(struct coord *c, struct dispatch_pick *picks, int n)
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
			round_unstored(c, store_err(c->store)->msg);
	}
	for (i = 0; i < n; i++) {
		picks[i].a->job.id = 0;		/* set again when sent */
		picks[i].err = err ? err : errs[i];
		if (!err && errs[i])
			pr_warn("job %lld not dispatched to '%s': %s", (long long)picks[i].job_id,
				picks[i].a->name, errs[i] == -ESTALE ? "it is no longer queued" :
				"it is not in the store");
	}
	free(ids);
	free(errs);
	return err;
}

/* Hand a job to every connected idle agent (ALL) or to those coord_dispatch_agent
 * marked: the picks of a round are read and stored in one transaction, then sent; the
 * agents that the sends marked (a pair's other side) make the next round. */
static void dispatch_batch(struct coord *c, bool all)
{
	struct dispatch_pick *picks = NULL;
	int cap = 0, n, i, round, stored, err;

	for (round = 0; round < COORD_DISPATCH_ROUNDS && (all || c->dispatch_wanted); round++) {
		coord_dispatch_take(c);	/* this round serves the marks so far */
		picks_begin(c);
		n = dispatch_collect(c, all, &picks, &cap);
		all = false;
		stored = n ? dispatch_store(c, picks, n) : 0;
		err = picks_end(c);	/* the dispatches are stored before any is sent */
		if (n && !stored && !err)
			round_stored(c);
		for (i = 0; i < n; i++) {
			if (err && !picks[i].err)
				picks[i].err = err;
			if (!picks[i].err)
				dispatch_send(c, &picks[i]);
			else	/* the objects its message carried did not go */
				coord_job_objects_forget(picks[i].a);
			pick_release(&picks[i]);
		}
	}
	free(picks);
}


/* --- the agents' jobs --- */

void coord_job_kept(struct coord_agent *a, int64_t job)
{
	a->job.id = job;
}

void coord_job_over(struct coord_agent *a, int64_t job)
{
	if (!job || a->job.id == job)
		a->job.id = 0;
}

void coord_dispatch_hold(struct coord_agent *a, int64_t until_mono)
{
	a->job.hold_until_mono = until_mono;
}

void coord_count_lost_failed(struct coord *c, int n)
{
	c->stats.jobs_lost_failed += n;
}

void coord_dispatch(struct coord *c)
{
	dispatch_batch(c, true);
}

/* The hosts of the N agents AGENTS that got no job made idle (store_hosts_idle), the
 * agents taken off the list; on failure they stay for the next turn. */
static int hosts_idle(struct coord *c, struct coord_agent **agents, int n)
{
	int64_t ids[64];
	int i, k = 0, err;

	for (i = 0; i < n; i++)
		if (!agents[i]->job.id)
			ids[k++] = agents[i]->host_id;
	err = store_hosts_idle(c->store, ids, k);
	if (err) {
		pr_warn("%s", store_err(c->store)->msg);
		return err;
	}
	for (i = 0; i < n; i++)
		agents[i]->job.kept_busy = false;
	return 0;
}

/* The end of a turn's dispatch: the hosts kept busy for a next job that did not come
 * are made idle, 64 a transaction (a host's row says busy exactly while it runs a job,
 * but for the turn between its result and its next job: docs/store.md). */
static void kept_busy_release(struct coord *c)
{
	int i, n, done = 0;

	for (i = 0; i < c->n_kept_busy; i += n) {
		n = c->n_kept_busy - i < 64 ? c->n_kept_busy - i : 64;
		if (hosts_idle(c, c->kept_busy + i, n))
			break;
		done = i + n;
	}
	memmove(c->kept_busy, c->kept_busy + done,
		(c->n_kept_busy - done) * sizeof(*c->kept_busy));
	c->n_kept_busy -= done;
}

void coord_dispatch_kept_busy(struct coord *c, struct coord_agent *a)
{
	if (a->job.kept_busy)
		return;
	if (c->n_kept_busy == c->kept_busy_cap) {
		int cap = c->kept_busy_cap ? 2 * c->kept_busy_cap : 64;
		struct coord_agent **p = realloc(c->kept_busy, cap * sizeof(*p));

		if (!p) {
			/* not kept for later: made idle now, unless it runs a job */
			hosts_idle(c, &a, 1);
			return;
		}
		c->kept_busy = p;
		c->kept_busy_cap = cap;
	}
	a->job.kept_busy = true;
	c->kept_busy[c->n_kept_busy++] = a;
}

void coord_dispatch_turn(struct coord *c)
{
	if (c->dispatch_wanted)
		dispatch_batch(c, false);
	if (c->n_kept_busy)
		kept_busy_release(c);
}

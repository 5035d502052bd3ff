// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* agent.c - see agent.h. Threads: the loop (agent_run's caller) owns the DEALER socket,
 * the spool and the main end of the worker pipe; the worker thread owns the job it runs
 * and the worker end of the pipe, which is handed from one worker to the next only after
 * pthread_join. The cancel flag is the only state both touch. */
#include "agent.h"
#include "agent_int.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>
#include <zmq.h>

#include "job.h"
#include "base/log.h"
#include "proto/proto.h"
#include "probe.h"
#include "proto/proto_schema.h"
#include "spool.h"
#include "base/util.h"

#define AGENT_SHUTDOWN_WAIT_MS 30000
#define AGENT_SPOOL_RETRY_MS 1000	/* how often a result the spool refused is tried again */

struct agent *agent_new(const struct agent_opts *opts)
{
	struct agent *a = calloc(1, sizeof(*a));
	int err = ENOMEM;

	if (!a)
		goto fail;
	a->opts = *opts;
	a->heartbeat_ms = PROTO_HEARTBEAT_MS;
	a->backoff_ms = AGENT_BACKOFF_MIN_MS;
	a->boot.err_fd = -1;
	a->spool = spool_new(opts->spool_dir);
	if (!a->spool) {
		err = errno;
		goto fail;
	}
	a->objects = object_cache_new(OBJSTORE_OBJECTS, OBJSTORE_BYTES);
	if (!a->objects)
		goto fail;
	a->zctx = zmq_ctx_new();
	if (!a->zctx)
		goto zfail;
	a->pipe_main = zmq_socket(a->zctx, ZMQ_PAIR);
	a->pipe_worker = zmq_socket(a->zctx, ZMQ_PAIR);
	if (!a->pipe_main || !a->pipe_worker)
		goto zfail;
	{
		char ep[64];

		snprintf(ep, sizeof(ep), "inproc://agent-worker-%p", (void *)a);
		if (zmq_bind(a->pipe_main, ep) || zmq_connect(a->pipe_worker, ep))
			goto zfail;
	}
	return a;
zfail:
	err = zmq_errno();
fail:
	agent_destroy(&a);
	errno = err;
	return NULL;
}

static void close_sock(void **sock)
{
	if (*sock) {
		int zero = 0;

		zmq_setsockopt(*sock, ZMQ_LINGER, &zero, sizeof(zero));
		zmq_close(*sock);
		*sock = NULL;
	}
}

static void wait_worker(struct agent *a);

void agent_destroy(struct agent **ap)
{
	struct agent *a = *ap;

	if (!a)
		return;
	if (a->busy) {
		atomic_store(&a->cancel, 1);
		wait_worker(a);
	}
	if (a->boot.pid)
		provider_boot_abort(&a->boot);
	close_sock(&a->sock);
	close_sock(&a->pipe_main);
	close_sock(&a->pipe_worker);
	if (a->zctx)
		zmq_ctx_term(a->zctx);
	free(a->held);
	json_decref(a->held_job);
	spool_destroy(&a->spool);
	object_cache_destroy(&a->objects);
	free(a);
	*ap = NULL;
}

/* Send MSG to the coordinator if connected. Returns 0 or -errno. */
static int send_coord(struct agent *a, const json_t *msg)
{
	int err;

	if (!a->sock)
		return -ENOTCONN;
	err = proto_send(a->sock, msg, ZMQ_DONTWAIT);
	if (err)
		pr_debug("cannot send '%s' to the coordinator: %s", proto_msg_type(msg),
			 zmq_strerror(-err));
	else
		a->last_send_ms = util_mono_ms();
	return err;
}

/* Send REPORT (owned; NULL: nothing) to the coordinator if connected, and free it. */
static void send_report(struct agent *a, json_t *report)
{
	if (report)
		send_coord(a, report);
	json_decref(report);
}

/* Send the bytes of a result (TEXT[0..LEN), borrowed) to the coordinator if connected. */
static int send_result_text(struct agent *a, const char *text, size_t len)
{
	if (!a->sock)
		return -ENOTCONN;
	if (zmq_send(a->sock, text, len, ZMQ_DONTWAIT) < 0) {
		int err = -zmq_errno();

		pr_debug("cannot send 'result' to the coordinator: %s", zmq_strerror(-err));
		return err;
	}
	a->last_send_ms = util_mono_ms();
	return 0;
}

static void send_error(struct agent *a, const char *in_reply_to, const json_t *job,
		       const char *text)
{
	json_t *e = proto_error_new(in_reply_to, "%s", text);

	if (!e)
		return;
	if (job)
		json_object_set(e, "job", (json_t *)job);
	send_coord(a, e);
	json_decref(e);
}

static void connect_coord(struct agent *a)
{
	int zero = 0, hwm = 1000;
	int64_t maxsize = PROTO_MAX_BYTES + 4096;
	json_t *hello;

	a->sock = zmq_socket(a->zctx, ZMQ_DEALER);
	if (!a->sock) {
		pr_warn("cannot create a socket: %s", zmq_strerror(zmq_errno()));
		a->next_connect_ms = util_mono_ms() + a->backoff_ms;
		return;
	}
	zmq_setsockopt(a->sock, ZMQ_LINGER, &zero, sizeof(zero));
	zmq_setsockopt(a->sock, ZMQ_SNDHWM, &hwm, sizeof(hwm));
	zmq_setsockopt(a->sock, ZMQ_MAXMSGSIZE, &maxsize, sizeof(maxsize));
	if (a->opts.key && keys_set_client(a->sock, a->opts.key, a->opts.server_key)) {
		pr_warn("cannot set the CURVE keys: %s", zmq_strerror(zmq_errno()));
		close_sock(&a->sock);
		a->next_connect_ms = util_mono_ms() + a->backoff_ms;
		return;
	}
	if (zmq_connect(a->sock, a->opts.endpoint)) {
		pr_warn("cannot connect to '%s': %s", a->opts.endpoint, zmq_strerror(zmq_errno()));
		close_sock(&a->sock);
		a->next_connect_ms = util_mono_ms() + a->backoff_ms;
		return;
	}
	a->welcomed = false;
	a->last_recv_ms = util_mono_ms();
	hello = proto_msg_new("hello");
	if (hello) {
		json_object_set_new(hello, "agent", json_string(a->opts.inv->agent));
		json_object_set_new(hello, "version", json_string(AGENT_VERSION));
		json_object_set_new(hello, "inventory", inventory_build(a->opts.inv));
		/* a job that outlived the connection stays ours (unless it ran through a
		 * stop: stale_session); spooled results come next */
		if (a->busy && !a->discard)
			json_object_set(hello, "job", a->job_id);
		else if (a->held)
			json_object_set(hello, "job", a->held_job);
		json_object_set_new(hello, "spooled", spool_ids(a->spool));
		/* a reconnect while the provider runs, not the new kernel saying hello */
		if (a->boot.pid)
			json_object_set_new(hello, "booting", json_string(a->boot.release));
		/* job messages may name the objects it keeps by sha256 alone */
		json_object_set_new(hello, "objects_kept", json_integer(OBJSTORE_OBJECTS));
		send_coord(a, hello);
		json_decref(hello);
	}
	pr_info("connecting to '%s' as '%s'", a->opts.endpoint, a->opts.inv->agent);
}

static void lose_coord(struct agent *a)
{
	pr_warn("coordinator '%s' silent for %d ms, reconnecting in %d ms", a->opts.endpoint,
		a->heartbeat_ms * PROTO_LIVENESS, a->backoff_ms);
	close_sock(&a->sock);
	a->welcomed = false;
	a->next_connect_ms = util_mono_ms() + a->backoff_ms;
	a->backoff_ms = a->backoff_ms * 2 > AGENT_BACKOFF_MAX_MS ? AGENT_BACKOFF_MAX_MS :
								   a->backoff_ms * 2;
}

static int resend_one(void *ctx, const char *id, const char *text, size_t len)
{
	struct agent *a = ctx;

	pr_info("sending spooled result of job '%s' (%zu bytes)", id, len);
	send_result_text(a, text, len);
	return 0;
}

/* The coordinator refused a result: send the spool again later (see resend_at_ms). One
 * resend answers every error of the results it sent. */
static void resend_later(struct agent *a)
{
	if (a->resend_at_ms)
		return;
	a->resend_ms = !a->resend_ms ? a->heartbeat_ms :
		       a->resend_ms * 2 > AGENT_BACKOFF_MAX_MS ? AGENT_BACKOFF_MAX_MS :
								 a->resend_ms * 2;
	a->resend_at_ms = util_mono_ms() + a->resend_ms;
	pr_info("sending the %d spooled result%s again in %d ms", spool_count(a->spool),
		spool_count(a->spool) == 1 ? "" : "s", a->resend_ms);
}

/* Worker thread --------------------------------------------------------------------- */

static void worker_send(struct agent *a, const json_t *msg, int flags)
{
	size_t len;
	char *text = proto_encode(msg, &len);

	if (!text)
		return;
	if (zmq_send(a->pipe_worker, text, len, flags) < 0 && !(flags & ZMQ_DONTWAIT))
		pr_warn("cannot hand a message to the agent loop: %s", zmq_strerror(zmq_errno()));
	free(text);
}

static void worker_progress(void *ctx, const json_t *msg)
{
	/* progress may be dropped, never block; a barrier's `ready` must get through */
	worker_send(ctx, msg, strcmp(proto_msg_type(msg), "ready") ? ZMQ_DONTWAIT : 0);
}

static void *worker_main(void *arg)
{
	struct agent *a = arg;
	struct job_opts jo = {
		.inv = a->opts.inv,
		.bpf_dir = a->opts.bpf_dir,
		.pktgen_dir = a->opts.pktgen_dir,
		.require_sha256 = true,
		.progress = worker_progress,
		.progress_ctx = a,
		.cancel = &a->cancel,
		.go = &a->go,
		.go_abort = a->go_abort,
		.go_at_ms = &a->go_at_ms,
		.last_job_ns = a->opts.warm_up ? &a->last_job_ns : NULL,
	};

	pr_info("job '%s' started", a->job_id_text);
	if (job_run_result(a->job_msg, &jo, a->job_res)) {
		a->job_res->id = json_incref(a->job_id);
		job_result_fail(a->job_res, "out of memory");
	}
	/* the result is in a->job_res: the loop reads it after this byte */
	if (zmq_send(a->pipe_worker, "R", 1, 0) < 0)
		pr_warn("cannot hand the result to the agent loop: %s", zmq_strerror(zmq_errno()));
	return NULL;
}

static void job_finished(struct agent *a)
{
	pthread_join(a->worker, NULL);
	a->busy = false;
	json_decref(a->job_msg);
	json_decref(a->job_id);
	a->job_msg = a->job_id = NULL;
	if (a->job_res)
		job_result_release(a->job_res);
	free(a->job_res);
	a->job_res = NULL;
	a->job_id_text[0] = '\0';
	a->discard = false;
}

/* The spool's promise: a result is on disk (or in the in-memory spool) before it is sent,
 * so that one the coordinator did not acknowledge is sent again after a reconnect or a
 * restart. Spool TEXT (a result's bytes, LEN, taken) of job ID (JOB its id, N_SAMPLES
 * for the log) and send the same bytes; when the spool refuses them (a full disk), hold
 * them instead: not sent, tried again every AGENT_SPOOL_RETRY_MS (retry_held) and sent
 * once stored. */
static void deliver_result(struct agent *a, const char *id, const json_t *job, char *text,
			   size_t len, size_t n_samples)
{
	int err = spool_put(a->spool, id, text, len);

	if (!err) {
		send_result_text(a, text, len);
		free(text);
		return;
	}
	pr_warn("job '%s': result (%zu samples) not stored in the spool '%s' (%s): holding "
		"it in memory, not sent, trying again every %d ms; no new job meanwhile", id,
		n_samples, a->opts.spool_dir ? a->opts.spool_dir : "(in memory)",
		util_strerror(err), AGENT_SPOOL_RETRY_MS);
	a->held = text;
	a->held_len = len;
	a->held_job = json_incref((json_t *)job);
	snprintf(a->held_id, sizeof(a->held_id), "%s", id);
	a->held_since_ms = util_mono_ms();
	a->held_retry_ms = a->held_since_ms + AGENT_SPOOL_RETRY_MS;
}

/* RES encoded once and delivered (deliver_result); a result that cannot be encoded (out
 * of memory) is logged and lost: the coordinator runs the job again. */
static void deliver_job_result(struct agent *a, const char *id, struct job_result *res)
{
	size_t len;
	char *text = job_result_encode(res, &len);

	if (!text) {
		pr_warn("job '%s': out of memory encoding its result (%zu samples): lost", id,
			res->r.samples.n);
		return;
	}
	deliver_result(a, id, res->id, text, len, res->r.samples.n);
}

/* Try the held result again: stored, it is sent and released; else it waits for the
 * next try. Returns 0 or the spool's -errno. */
static int retry_held(struct agent *a)
{
	int err = spool_put(a->spool, a->held_id, a->held, a->held_len);

	if (err) {
		pr_debug("job '%s': result still not stored in the spool: %s", a->held_id,
			 util_strerror(err));
		a->held_retry_ms = util_mono_ms() + AGENT_SPOOL_RETRY_MS;
		return err;
	}
	pr_info("job '%s': result stored in the spool after %lld ms held in memory; sending "
		"it", a->held_id, (long long)(util_mono_ms() - a->held_since_ms));
	send_result_text(a, a->held, a->held_len);
	free(a->held);
	a->held = NULL;
	json_decref(a->held_job);
	a->held_job = NULL;
	a->held_id[0] = '\0';
	return 0;
}

/* The worker's result (a->job_res): spooled and sent, unless the job ran through a stop
 * of this agent. */
static void on_worker_result(struct agent *a)
{
	struct job_result *res = a->job_res;

	if (a->discard) {
		/* not sent, not spooled: the coordinator queued the job again */
		pr_warn("job '%s' ran through a stop of this agent: its result (%zu "
			"samples) is discarded", a->job_id_text, res->r.samples.n);
		job_finished(a);
		return;
	}
	if (a->pair_broken[0]) {
		char why[600];

		/* the other side of its pair was lost during the job: half a pair
		 * measured nothing worth keeping, and the pair runs again as a whole */
		snprintf(why, sizeof(why), "pair aborted: %s", a->pair_broken);
		if (job_result_fail(res, why))
			pr_warn("job '%s': out of memory marking its result failed", a->job_id_text);
	}
	pr_info("job '%s' finished: %s%s%s", a->job_id_text, res->r.failed ? "failed" : "ok",
		res->r.error ? ": " : "", res->r.error ? res->r.error : "");
	if (!a->pair_broken[0] && atomic_load(&a->cancel))
		/* stopped by a cancel: what it measured is kept, marked partial */
		res->r.partial = true;
	/* tests count these lines to compare with what the coordinator stored */
	pr_info("result job %s: %zu samples", a->job_id_text, res->r.samples.n);
	deliver_job_result(a, a->job_id_text, res);
	job_finished(a);
}

/* Drain the worker pipe: progress and `ready` go to the coordinator, "R" is the result.
 * Returns true when the result came. */
static bool drain_worker(struct agent *a)
{
	for (;;) {
		struct err why;
		json_t *msg;
		zmq_msg_t m;

		zmq_msg_init(&m);
		if (zmq_msg_recv(&m, a->pipe_main, ZMQ_DONTWAIT) < 0) {
			zmq_msg_close(&m);
			return false;
		}
		if (zmq_msg_size(&m) == 1 && *(const char *)zmq_msg_data(&m) == 'R') {
			zmq_msg_close(&m);
			on_worker_result(a);
			return true;
		}
		msg = proto_decode(zmq_msg_data(&m), zmq_msg_size(&m), &why);
		zmq_msg_close(&m);
		if (!msg) {
			pr_warn("bad message from the worker: %s", why.msg);
			continue;
		}
		send_coord(a, msg);
		json_decref(msg);
	}
}

/* Wait for the running job's result (after cancel), up to AGENT_SHUTDOWN_WAIT_MS. */
static void wait_worker(struct agent *a)
{
	int64_t deadline = util_mono_ms() + AGENT_SHUTDOWN_WAIT_MS;

	while (a->busy && util_mono_ms() < deadline) {
		zmq_pollitem_t it = { .socket = a->pipe_main, .events = ZMQ_POLLIN };

		if (zmq_poll(&it, 1, 200) > 0)
			drain_worker(a);
	}
	if (a->busy) {
		pr_warn("job '%s' did not stop within %d ms", a->job_id_text,
			AGENT_SHUTDOWN_WAIT_MS);
		pthread_detach(a->worker);
		a->busy = false;
		a->job_res = NULL;	/* the detached worker still writes it */
	}
}

/* Coordinator messages --------------------------------------------------------------- */

/* Refuse job ID (TEXT): it names objects this agent does not keep (their sha256 in
 * MISSING, taken); the coordinator sends it again with their bytes. */
static void refuse_missing(struct agent *a, const json_t *id, const char *text,
			   json_t *missing)
{
	json_t *e = proto_error_new("job", "job '%s' names %zu object(s) by sha256 that agent "
				    "'%s' does not keep (first %.64s): send their bytes", text,
				    json_array_size(missing), a->opts.inv->agent,
				    json_string_value(json_array_get(missing, 0)));

	pr_info("refusing job '%s': %zu object(s) not kept here", text,
		json_array_size(missing));
	if (e && !json_object_set(e, "job", (json_t *)id)) {
		json_object_set_new(e, "missing", missing);	/* taken, also on failure */
		send_coord(a, e);
	} else {
		json_decref(missing);
	}
	json_decref(e);
}

static void on_job(struct agent *a, json_t *msg)
{
	json_t *job = json_object_get(msg, "job");
	json_t *id = json_object_get(job, "id");
	json_t *objects = json_object_get(msg, "objects");
	json_t *missing = json_array();
	char text[AGENT_ID_LEN];
	json_t *accept;
	int err, n_missing = 0;

	/* the objects it carries are kept even if the job is refused: the coordinator
	 * counts them as sent */
	if (json_is_object(objects) && missing)
		n_missing = objstore_complete(a->objects, objects, missing);
	if (!missing || n_missing < 0) {
		json_decref(missing);
		send_error(a, "job", id, "out of memory");
		return;
	}
	if (!json_is_object(job) || job_id_text(msg, text, sizeof(text))) {
		json_decref(missing);
		pr_warn("job message without a usable job id");
		a->malformed++;
		send_error(a, "job", id, "job message has no valid job id");
		return;
	}
	if (a->busy || a->held || a->boot.pid) {
		char why[512];

		if (a->busy)
			snprintf(why, sizeof(why), "agent '%s' is busy with job '%s'",
				 a->opts.inv->agent, a->job_id_text);
		else if (a->held)
			snprintf(why, sizeof(why), "agent '%s' holds the result of job '%s': "
				 "its spool cannot store it", a->opts.inv->agent, a->held_id);
		else
			snprintf(why, sizeof(why), "agent '%s' is switching to kernel '%s'",
				 a->opts.inv->agent, a->boot.release);
		json_decref(missing);
		pr_warn("refusing job '%s': %s", text, why);
		send_error(a, "job", id, why);
		return;
	}
	if (n_missing) {
		refuse_missing(a, id, text, missing);
		return;
	}
	json_decref(missing);
	accept = proto_msg_new("accept");
	if (accept) {
		json_object_set(accept, "job", id);
		send_coord(a, accept);
		json_decref(accept);
	}
	a->job_res = calloc(1, sizeof(*a->job_res));
	if (!a->job_res) {
		send_error(a, "job", id, "out of memory");
		return;
	}
	a->job_msg = json_incref(msg);
	a->job_id = json_incref(id);
	snprintf(a->job_id_text, sizeof(a->job_id_text), "%s", text);
	atomic_store(&a->cancel, 0);
	atomic_store(&a->go, 0);
	atomic_store(&a->go_at_ms, 0);
	a->go_abort[0] = '\0';
	a->pair_broken[0] = '\0';
	a->busy = true;
	err = pthread_create(&a->worker, NULL, worker_main, a);
	if (err) {
		struct job_result *r = a->job_res;

		pr_warn("cannot start a worker for job '%s': %s", text, strerror(err));
		a->busy = false;
		r->id = json_incref(id);
		if (!job_result_fail(r, "cannot start a worker thread"))
			deliver_job_result(a, text, r);
		job_result_release(r);
		free(r);
		a->job_res = NULL;
		json_decref(a->job_msg);
		json_decref(a->job_id);
		a->job_msg = a->job_id = NULL;
	}
}

static void on_coord_msg(struct agent *a, json_t *msg)
{
	const char *type = proto_msg_type(msg);
	struct err why;
	char id[AGENT_ID_LEN];

	/* members and their types (lib/proto/proto_schema.c); unknown types are answered below */
	if (proto_validate(msg, PROTO_CH_COORD_TO_AGENT, &why) == -EINVAL) {
		a->malformed++;
		pr_warn("malformed message from the coordinator: %s", why.msg);
		/* a job whose spec does not decode (jobspec.h) runs to a failed result that
		 * names the member, so the job ends rather than coming back to the queue */
		if (!strcmp(type, "job") && !strncmp(why.msg, "job: job.spec.", 14)) {
			on_job(a, msg);
			return;
		}
		if (strcmp(type, "error"))	/* never answer an error with an error */
			send_error(a, type, NULL, why.msg);
		return;
	}
	if (!strcmp(type, "welcome")) {
		long long hb = jget_int(msg, "heartbeat_ms", PROTO_HEARTBEAT_MS);

		a->heartbeat_ms = hb < 100 ? 100 : hb > 60000 ? 60000 : (int)hb;
		a->welcomed = true;
		a->backoff_ms = AGENT_BACKOFF_MIN_MS;
		a->resend_at_ms = 0;
		a->resend_ms = 0;
		pr_info("welcomed by '%s' (heartbeat %d ms, %d spooled results)",
			a->opts.endpoint, a->heartbeat_ms, spool_count(a->spool));
		spool_foreach(a->spool, resend_one, a);
	} else if (!strcmp(type, "heartbeat")) {
		/* liveness already counted */
	} else if (!strcmp(type, "job")) {
		on_job(a, msg);
	} else if (!strcmp(type, "cancel")) {
		if (job_id_format(json_object_get(msg, "job"), id, sizeof(id))) {
			a->malformed++;
			send_error(a, "cancel", NULL, "cancel without a valid job id");
		} else if (a->busy && !strcmp(id, a->job_id_text)) {
			pr_info("cancelling job '%s'", id);
			atomic_store(&a->cancel, 1);
		} else {
			pr_info("cancel for job '%s', which is not running here", id);
		}
	} else if (!strcmp(type, "go")) {
		if (job_id_format(json_object_get(msg, "job"), id, sizeof(id))) {
			a->malformed++;
			send_error(a, "go", NULL, "go without a valid job id");
		} else if (a->busy && !strcmp(id, a->job_id_text)) {
			const char *abort = jget_str(msg, "abort", NULL);

			if (abort)
				pr_warn("job '%s': pair aborted: %s", id, abort);
			/* the first go counts: the worker may be reading go_abort already */
			if (abort && !atomic_load(&a->go))
				snprintf(a->go_abort, sizeof(a->go_abort), "%s", abort);
			if (!atomic_load(&a->go)) {
				atomic_store(&a->go_at_ms, jget_int(msg, "at_ms", 0));
				atomic_store(&a->go, abort ? -1 : 1);
			} else if (abort && atomic_load(&a->go) > 0 && !a->pair_broken[0]) {
				/* after go: the pair broke during the job; stop it */
				snprintf(a->pair_broken, sizeof(a->pair_broken), "%s", abort);
				atomic_store(&a->cancel, 1);
			}
		} else {
			pr_info("go for job '%s', which is not running here", id);
		}
	} else if (!strcmp(type, "boot")) {
		send_report(a, agent_on_boot(a, msg));
	} else if (!strcmp(type, "probe")) {
		send_report(a, probe_run(a->opts.inv, msg));
	} else if (!strcmp(type, "ack")) {
		if (job_id_format(json_object_get(msg, "job"), id, sizeof(id))) {
			a->malformed++;
			send_error(a, "ack", NULL, "ack without a valid job id");
		} else {
			pr_debug("result of job '%s' acknowledged", id);
			spool_drop(a->spool, id);
			a->resend_ms = 0;
		}
	} else if (!strcmp(type, "error")) {
		pr_warn("coordinator says: %s", jget_str(msg, "message", "(no message)"));
		if (!strcmp(jget_str(msg, "in_reply_to", ""), "result") &&
		    spool_count(a->spool) > 0)
			resend_later(a);
	} else {
		a->malformed++;
		snprintf(why.msg, sizeof(why.msg), "unknown message type '%s'", type);
		pr_warn("message from the coordinator: %s", why.msg);
		send_error(a, type, NULL, why.msg);
	}
}

/* Whether a message arrives after a gap longer than the liveness since the last one was
 * read (the process was stopped, e.g. SIGSTOP, or its loop was blocked): the coordinator
 * has given this session up meanwhile and may have handed its job elsewhere, so what
 * waits on the socket (a `job` among it) is dropped with the socket, unread, and the
 * agent says hello again after its backoff. A job running through a gap of one interval
 * more is stopped and its result discarded (not spooled, not claimed in the hello): its
 * windows measured a stopped process, and the coordinator has queued the job again. */
static bool stale_session(struct agent *a)
{
	int64_t gap = util_mono_ms() - a->last_recv_ms;

	if (!a->sock || gap < (int64_t)a->heartbeat_ms * PROTO_LIVENESS)
		return false;
	pr_warn("nothing read from the coordinator for %lld ms (was this process stopped?): "
		"dropping what it sent before, unread; hello again", (long long)gap);
	if (a->busy && !a->discard && gap >= (int64_t)a->heartbeat_ms * (PROTO_LIVENESS + 1)) {
		/* its windows ran through the gap (the generator stopped too): the numbers
		 * are wrong, and the coordinator has queued the job again by now (one more
		 * interval than the liveness: a message read right at the deadline is the
		 * ordinary reconnect, and the job stays valid) */
		pr_warn("job '%s' ran through that gap: stopping it; its result will be "
			"discarded", a->job_id_text);
		a->discard = true;
		atomic_store(&a->cancel, 1);
	}
	lose_coord(a);
	return true;
}

static void drain_coord(struct agent *a)
{
	while (a->sock) {
		struct err why;
		json_t *msg;
		int err = proto_recv(a->sock, &msg, ZMQ_DONTWAIT, &why);

		if (err == -EAGAIN)
			return;
		if (stale_session(a)) {
			if (!err)
				json_decref(msg);
			return;
		}
		a->last_recv_ms = util_mono_ms();
		if (err == -EBADMSG) {
			a->malformed++;
			pr_warn("malformed message from the coordinator: %s", why.msg);
			send_error(a, NULL, NULL, why.msg);
			continue;
		}
		if (err) {
			pr_warn("cannot receive from the coordinator: %s", zmq_strerror(-err));
			return;
		}
		on_coord_msg(a, msg);
		json_decref(msg);
	}
}

static void send_heartbeat(struct agent *a)
{
	json_t *hb = proto_msg_new("heartbeat");

	if (!hb)
		return;
	if (a->busy)
		json_object_set(hb, "job", a->job_id);
	else if (a->held)
		json_object_set(hb, "job", a->held_job);
	send_coord(a, hb);
	json_decref(hb);
}

static void shutdown_agent(struct agent *a)
{
	if (a->busy) {
		pr_info("stopping: cancelling job '%s'", a->job_id_text);
		atomic_store(&a->cancel, 1);
		wait_worker(a);
	}
	if (a->held && retry_held(a))
		/* never sent: the coordinator runs the job again when this host is gone */
		pr_warn("stopping: the result of job '%s' is still not stored in the spool; "
			"it is lost", a->held_id);
	if (a->boot.pid) {
		pr_info("stopping: kernel provider for '%s' still running; killed",
			a->boot.release);
		provider_boot_abort(&a->boot);
	}
	if (a->sock) {
		int linger = 1000;	/* let a final result leave */

		zmq_setsockopt(a->sock, ZMQ_LINGER, &linger, sizeof(linger));
		zmq_close(a->sock);
		a->sock = NULL;
	}
	pr_info("stopped (%lu malformed messages seen)", a->malformed);
}

int agent_run(struct agent *a)
{
	for (;;) {
		zmq_pollitem_t items[4];
		int64_t now = util_mono_ms(), wake;
		int n = 0, i_sock = -1, i_stop = -1, rc;

		if (!a->sock && now >= a->next_connect_ms)
			connect_coord(a);
		items[n++] = (zmq_pollitem_t){ .socket = a->pipe_main, .events = ZMQ_POLLIN };
		if (a->opts.stop_fd >= 0) {
			i_stop = n;
			items[n++] = (zmq_pollitem_t){ .fd = a->opts.stop_fd, .events = ZMQ_POLLIN };
		}
		if (a->sock) {
			i_sock = n;
			items[n++] = (zmq_pollitem_t){ .socket = a->sock, .events = ZMQ_POLLIN };
			wake = a->last_send_ms + a->heartbeat_ms;
			if (a->last_recv_ms + (int64_t)a->heartbeat_ms * PROTO_LIVENESS < wake)
				wake = a->last_recv_ms + (int64_t)a->heartbeat_ms * PROTO_LIVENESS;
		} else {
			wake = a->next_connect_ms;
		}
		if (a->held && wake > a->held_retry_ms)
			wake = a->held_retry_ms;
		/* a spool resend is due at its time, not at the next heartbeat */
		if (a->sock && a->welcomed && a->resend_at_ms && wake > a->resend_at_ms)
			wake = a->resend_at_ms;
		if (a->boot.pid) {	/* its output, its exit (no fd for that: a short wake) */
			if (a->boot.err_fd >= 0)
				items[n++] = (zmq_pollitem_t){ .fd = a->boot.err_fd,
							       .events = ZMQ_POLLIN };
			if (wake > now + AGENT_BOOT_POLL_MS)
				wake = now + AGENT_BOOT_POLL_MS;
		}
		rc = zmq_poll(items, n, wake > now ? wake - now : 0);
		if (rc < 0) {
			if (zmq_errno() == EINTR)
				continue;
			pr_warn("poll failed: %s", zmq_strerror(zmq_errno()));
			return -zmq_errno();
		}
		if (i_stop >= 0 && (items[i_stop].revents & ZMQ_POLLIN)) {
			struct signalfd_siginfo si;

			if (read(a->opts.stop_fd, &si, sizeof(si)) > 0)
				pr_info("signal %u received", si.ssi_signo);
			shutdown_agent(a);
			return 0;
		}
		if (items[0].revents & ZMQ_POLLIN)
			drain_worker(a);
		if (i_sock >= 0 && (items[i_sock].revents & ZMQ_POLLIN))
			drain_coord(a);
		if (a->boot.pid)
			send_report(a, agent_poll_boot(a));
		now = util_mono_ms();
		if (a->held && now >= a->held_retry_ms)
			retry_held(a);
		/* a silence one interval past the liveness means this loop did not run (the
		 * process was stopped) rather than a quiet coordinator: the same rule as a
		 * message arriving after the gap, also when nothing arrived yet */
		if (a->sock && now - a->last_recv_ms >=
			       (int64_t)a->heartbeat_ms * (PROTO_LIVENESS + 1))
			stale_session(a);
		else if (a->sock && now - a->last_recv_ms >=
				    (int64_t)a->heartbeat_ms * PROTO_LIVENESS)
			lose_coord(a);
		if (a->sock && a->welcomed && a->resend_at_ms && now >= a->resend_at_ms) {
			a->resend_at_ms = 0;
			spool_foreach(a->spool, resend_one, a);
		}
		if (a->sock && now - a->last_send_ms >= a->heartbeat_ms)
			send_heartbeat(a);
	}
}

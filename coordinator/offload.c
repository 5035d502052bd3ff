// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* offload.c - the coordinator's worker thread: big client frames parsed, reading
 * requests answered, off the event loop (coord_offload.h has the contract).
 *
 * Measured reason (bench/README.md, "big runs"): a 160,000-job import is a 17 MiB frame
 * whose decoding alone holds a thread for longer than the loop's 50 ms budget, and the
 * result of such a run is read and encoded in about a second; meanwhile agents'
 * heartbeats and other clients would wait. The worker has its own read-only SQLite
 * connection (WAL), so it never takes the write lock the loop needs.
 *
 * Threads: two workers run worker(), one per lane (parsing and freeing; reading); the
 * loop calls the exported functions. The lists and STOP are under LOCK; an item belongs
 * to one side at a time.
 */
#include "coord_offload.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "coord_core.h"
#include "base/log.h"
#include "proto/proto_schema.h"
#include "store/store.h"

enum { W_PARSE, W_READ, W_DROP };

/* Two threads, each with its queue: one parses and frees (no store), one reads (its
 * own connection), so that a `run list` does not wait behind a 17 MiB import's parse. */
enum { L_PARSE, L_READ, L__N };

struct lane {
	struct coord_offload *o;
	pthread_t thread;
	bool started;
	pthread_cond_t wake;
	struct coord_work *todo, **todo_tail;
	struct store *ro;		/* L_READ's */
};

struct coord_offload {
	pthread_mutex_t lock;
	bool stop;
	struct lane lanes[L__N];
	struct coord_work *done, **done_tail;
	int efd;
};

/* --- the worker --- */

/* The answer to reading request MSG from store ST: a new reference, or NULL (ENOMEM). */
static json_t *answer(struct store *st, const json_t *msg)
{
	const char *type = proto_msg_type(msg);
	long long run = jget_int(msg, "run", -1);
	json_t *v = NULL, *r;
	const char *reply = NULL, *member = NULL;
	char db_id[STORE_DB_ID_LEN];

	if (!strcmp(type, "query")) {
		const json_t *filter = json_object_get(msg, "filter");

		if (filter && !json_is_object(filter))
			return proto_error_new(type, "'filter' must be an object");
		v = store_query_values(st, filter);
		/* the database's id: `result export` makes ids no other database makes */
		if (v && store_db_id(st, db_id)) {
			json_decref(v);
			v = NULL;
		}
		reply = "values", member = "values";
	} else if (!strcmp(type, "query_spread")) {
		const json_t *filter = json_object_get(msg, "filter");

		if (!json_is_object(filter))
			return proto_error_new(type, "'filter' must be an object");
		v = store_query_run_spread(st, filter);
		reply = "run_spread", member = "run_spread";
	} else if (!strcmp(type, "run_list")) {
		v = store_query_runs(st);
		reply = "runs", member = "runs";
	} else if (run < 1) {
		return proto_error_new(type, "'run' must be a run id");
	} else if (!strcmp(type, "result_show")) {
		v = store_query_result(st, run);
		reply = "result", member = "result";
	} else if (!strcmp(type, "result_seconds")) {
		v = store_query_seconds(st, run, 0);
		reply = "seconds", member = "seconds";
	} else if (!strcmp(type, "run_show")) {
		v = store_query_run(st, run);
		reply = "run", member = "run";
	} else {
		v = store_query_attempts(st, run);
		reply = "attempts", member = "attempts";
	}
	if (!v)
		return proto_error_new(type, "%s", store_err(st)->msg);
	r = proto_msg_new(reply);
	if (!r || json_object_set_new(r, member, v) ||
	    (!strcmp(type, "query") && json_object_set_new(r, "db_id", json_string(db_id)))) {
		json_decref(r);
		return NULL;
	}
	return r;
}

/* Do item W on lane L: parse its frame (and check an import), answer its request, or
 * drop its message. */
static void work(struct lane *l, struct coord_work *w)
{
	json_t *r;

	if (w->kind == W_DROP) {
		json_decref(w->msg);
		w->msg = NULL;
		return;
	}
	if (w->kind == W_READ) {
		r = answer(l->ro, w->msg);
		w->reply = r ? proto_encode(r, &w->reply_len) : NULL;
		if (!w->reply)
			err_set(&w->why, "out of memory");
		json_decref(r);
		return;
	}
	w->msg = proto_decode(zmq_msg_data(&w->frame), zmq_msg_size(&w->frame), &w->why);
	zmq_msg_close(&w->frame);
	zmq_msg_init(&w->frame);
	if (!w->msg)
		return;
	w->validated = proto_validate(w->msg, PROTO_CH_CLIENT_TO_COORD, &w->why) != -EINVAL;
	if (w->validated && !strcmp(proto_msg_type(w->msg), "import")) {
		w->check_err = store_import_check(json_object_get(w->msg, "import"), &w->why);
		w->checked = !w->check_err;
	}
}

static void *worker(void *arg)
{
	struct lane *l = arg;
	struct coord_offload *o = l->o;
	struct coord_work *w;
	uint64_t one = 1;

	pthread_mutex_lock(&o->lock);
	for (;;) {
		while (!o->stop && !l->todo)
			pthread_cond_wait(&l->wake, &o->lock);
		if (o->stop)
			break;
		w = l->todo;
		l->todo = w->next;
		if (!l->todo)
			l->todo_tail = &l->todo;
		pthread_mutex_unlock(&o->lock);
		w->next = NULL;
		work(l, w);
		pthread_mutex_lock(&o->lock);
		*o->done_tail = w;
		o->done_tail = &w->next;
		if (write(o->efd, &one, sizeof(one)) < 0) {
			/* the counter is full: the loop has a wake-up pending already */
		}
	}
	pthread_mutex_unlock(&o->lock);
	return NULL;
}

/* --- the loop's side --- */

void coord_offload_free(struct coord_work *w)
{
	if (!w)
		return;
	zmq_msg_close(&w->frame);
	json_decref(w->msg);
	free(w->reply);
	free(w);
}

static void free_list(struct coord_work *w)
{
	struct coord_work *next;

	for (; w; w = next) {
		next = w->next;
		coord_offload_free(w);
	}
}

int coord_offload_start(struct coord *c, const char *db)
{
	struct coord_offload *o = calloc(1, sizeof(*o));
	struct err err;
	int rc, i;

	if (!o)
		return -ENOMEM;
	o->efd = -1;
	o->done_tail = &o->done;
	pthread_mutex_init(&o->lock, NULL);
	for (i = 0; i < L__N; i++) {
		o->lanes[i].o = o;
		o->lanes[i].todo_tail = &o->lanes[i].todo;
		pthread_cond_init(&o->lanes[i].wake, NULL);
	}
	c->offload = o;
	o->lanes[L_READ].ro = store_open(db, true, &err);
	if (!o->lanes[L_READ].ro) {
		rc = -errno;
		pr_warn("worker thread: %s", err.msg);
		return rc;
	}
	o->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (o->efd < 0) {
		rc = -errno;
		pr_warn("cannot make the worker's eventfd: %s", strerror(errno));
		return rc;
	}
	for (i = 0; i < L__N; i++) {
		rc = pthread_create(&o->lanes[i].thread, NULL, worker, &o->lanes[i]);
		if (rc) {
			pr_warn("cannot start a worker thread: %s", strerror(rc));
			return -rc;
		}
		o->lanes[i].started = true;
	}
	return 0;
}

void coord_offload_stop(struct coord *c)
{
	struct coord_offload *o = c->offload;
	int i;

	if (!o)
		return;
	pthread_mutex_lock(&o->lock);
	o->stop = true;
	for (i = 0; i < L__N; i++)
		pthread_cond_signal(&o->lanes[i].wake);
	pthread_mutex_unlock(&o->lock);
	for (i = 0; i < L__N; i++) {
		if (o->lanes[i].started)	/* after its current item: no cancel */
			pthread_join(o->lanes[i].thread, NULL);
		free_list(o->lanes[i].todo);
		store_close(&o->lanes[i].ro);
		pthread_cond_destroy(&o->lanes[i].wake);
	}
	free_list(o->done);
	if (o->efd >= 0)
		close(o->efd);
	pthread_mutex_destroy(&o->lock);
	free(o);
	c->offload = NULL;
}

int coord_offload_fd(const struct coord *c)
{
	return c->offload ? c->offload->efd : -1;
}

static struct coord_work *work_new(int kind, const void *id, size_t id_len)
{
	struct coord_work *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->kind = kind;
	w->id_len = id_len < sizeof(w->id) ? id_len : sizeof(w->id);
	memcpy(w->id, id, w->id_len);
	zmq_msg_init(&w->frame);
	return w;
}

static void push(struct coord_offload *o, struct coord_work *w)
{
	struct lane *l = &o->lanes[w->kind == W_READ ? L_READ : L_PARSE];

	pthread_mutex_lock(&o->lock);
	*l->todo_tail = w;
	l->todo_tail = &w->next;
	pthread_cond_signal(&l->wake);
	pthread_mutex_unlock(&o->lock);
}

int coord_offload_parse(struct coord *c, const void *id, size_t id_len, zmq_msg_t *frame)
{
	struct coord_work *w = work_new(W_PARSE, id, id_len);

	if (!w)
		return -ENOMEM;
	zmq_msg_move(&w->frame, frame);
	push(c->offload, w);
	return 0;
}

bool coord_offload_reads(const char *type)
{
	static const char *const reads[] = { "result_show", "result_seconds", "run_show",
					     "run_attempts", "query", "query_spread",
					     "run_list" };
	size_t i;

	for (i = 0; i < sizeof(reads) / sizeof(reads[0]); i++)
		if (!strcmp(type, reads[i]))
			return true;
	return false;
}

int coord_offload_read(struct coord *c, const void *id, size_t id_len, const json_t *msg)
{
	struct coord_work *w = work_new(W_READ, id, id_len);

	if (!w)
		return -ENOMEM;
	w->msg = json_incref((json_t *)msg);
	push(c->offload, w);
	return 0;
}

void coord_offload_drop(struct coord *c, json_t *v)
{
	struct coord_work *w = v && c->offload ? work_new(W_DROP, "", 0) : NULL;

	if (!w) {
		json_decref(v);
		return;
	}
	w->msg = v;
	push(c->offload, w);
}

struct coord_work *coord_offload_next(struct coord *c)
{
	struct coord_offload *o = c->offload;
	struct coord_work *w;
	uint64_t n;

	if (!o)
		return NULL;
	for (;;) {
		pthread_mutex_lock(&o->lock);
		w = o->done;
		if (w) {
			o->done = w->next;
			if (!o->done)
				o->done_tail = &o->done;
		} else if (read(o->efd, &n, sizeof(n)) < 0) {
			/* EAGAIN: nothing was counted since the last read */
		}
		pthread_mutex_unlock(&o->lock);
		if (!w || w->kind == W_PARSE)
			return w;
		if (w->kind == W_DROP) {
			coord_offload_free(w);
			continue;
		}
		if (w->reply) {
			int err = proto_send_text_to(c->clients_sock, w->id, w->id_len, w->reply,
						     w->reply_len, ZMQ_DONTWAIT);

			w->reply = NULL;	/* taken */
			if (err)
				pr_debug("cannot send '%s' reply: %s", proto_msg_type(w->msg),
					 zmq_strerror(-err));
		} else {
			coord_reply(c->clients_sock, w->id, w->id_len,
				    proto_error_new(proto_msg_type(w->msg), "%s", w->why.msg));
		}
		coord_offload_free(w);
	}
}

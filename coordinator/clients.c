// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* clients.c - clients' requests: receiving one, checking it (lib/proto/proto_schema.c) and
 * handing it to its handler by type; the handlers of host_list, run_watch and run_cancel
 * are here, the others in their own files (coord_clients.h). A frame over
 * COORD_PARSE_INLINE bytes is parsed on the worker thread, and the requests that only
 * read the store (run_list, result_show, result_seconds, run_show, run_attempts, query)
 * are answered there (coord_offload.h); an import is written in parts between loop
 * turns (query.c).
 *
 * Event loop thread only.
 */
#include "coord_clients.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <zmq.h>

#include "coord_boot.h"
#include "coord_core.h"
#include "coord_link.h"
#include "coord_machine.h"
#include "coord_offload.h"
#include "base/log.h"
#include "proto/proto_schema.h"
#include "base/util.h"

static json_t *query_reply(struct coord *c, const char *type, const char *member, json_t *v)
{
	json_t *r;

	if (!v)
		return proto_error_new(type, "%s", store_err(c->store)->msg);
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

static json_t *on_run_cancel(struct coord *c, const json_t *msg)
{
	long long run = jget_int(msg, "run", -1);
	json_t *running = NULL, *r, *item, *cancel;
	struct coord_agent *a;
	size_t i;

	if (run < 1)
		return proto_error_new("run_cancel", "'run' must be a run id");
	if (store_run_cancel(c->store, run, util_wall_ms(), &running))
		return proto_error_new("run_cancel", "%s", store_err(c->store)->msg);
	c->stats.runs_cancelled++;
	json_array_foreach(running, i, item) {
		a = coord_agent_by_name(c, jget_str(item, "host", ""));
		cancel = proto_msg_new("cancel");
		if (a && a->sess.connected && cancel &&
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
		name = jget_str(job, "host", "?");
		state = jget_str(job, "state", "");
		h = json_object_get(hosts, name);
		if (!h) {
			h = json_pack("{s:s, s:i, s:i, s:i, s:n}", "host", name, "jobs", 0,
				      "finished", 0, "failed", 0, "job");
			if (!h || json_object_set_new(hosts, name, h))
				goto fail;
		}
		json_object_set_new(h, "jobs", json_integer(jget_int(h, "jobs", 0) + 1));
		if (!strcmp(state, "done") || !strcmp(state, "failed"))
			json_object_set_new(h, "finished",
					    json_integer(jget_int(h, "finished", 0) + 1));
		if (!strcmp(state, "failed"))
			json_object_set_new(h, "failed",
					    json_integer(jget_int(h, "failed", 0) + 1));
		if (!strcmp(state, "running"))
			json_object_set(h, "job", json_object_get(job, "id"));
		if (json_object_get(job, "added")) {
			/* repetitions the controller added, and the latest reason */
			json_object_set_new(h, "added",
					    json_integer(jget_int(h, "added", 0) + 1));
			json_object_set(h, "added_why", json_object_get(job, "added"));
		}
	}
	json_object_foreach(hosts, name, h) {
		long long running = jget_int(h, "job", 0);

		a = coord_agent_by_name(c, name);
		json_object_set_new(h, "connected", json_boolean(a && a->sess.connected));
		if (running)
			json_object_set_new(h, "n", json_integer(jget_int(h, "finished", 0) + 1));
		if (a && a->sess.progress && running && a->sess.progress_of.job == running) {
			const struct msg_progress *p = &a->sess.progress_of;

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
	long long id = jget_int(msg, "run", -1);
	json_t *run, *hosts, *r;

	if (id < 1)
		return proto_error_new("run_watch", "'run' must be a run id");
	run = store_query_run(c->store, id);
	if (!run)
		return proto_error_new("run_watch", "%s", store_err(c->store)->msg);
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

static const struct {
	const char *type;
	json_t *(*fn)(struct coord *c, const json_t *msg);
} client_handlers[] = {
	{ "submit", coord_submit },
	{ "host_list", on_host_list },
	{ "run_list", NULL },		/* answered on the worker: coord_offload_read */
	{ "run_show", NULL },
	{ "result_show", NULL },
	{ "result_seconds", NULL },
	{ "run_cancel", on_run_cancel },
	{ "run_watch", on_run_watch },
	{ "run_attempts", NULL },
	{ "query", NULL },
	{ "query_spread", NULL },
	{ "import", NULL },		/* in parts: coord_import_start */
	{ "link_list", coord_link_list },
	{ "link_discover", NULL },	/* answered later: coord_link_discover */
	{ "host_boot", coord_host_boot },
	{ "bisect_get", coord_bisect_get },
	{ "bisect_list", coord_bisect_list },
	{ "bisect_start", coord_bisect_start },
	{ "bisect_add_step", coord_bisect_add_step },
	{ "bisect_finish", coord_bisect_finish },
	{ "bisect_reset", coord_bisect_reset },
	{ "noise_record", coord_noise_record },
	{ "noise_list", coord_noise_list },
};

/* Answer request MSG of client ID. W: the worker's item when it parsed MSG (validated
 * there, and an import checked), else NULL. */
static void handle(struct coord *c, const void *id, size_t id_len, const json_t *msg,
		   const struct coord_work *w)
{
	const char *type = proto_msg_type(msg);
	struct err why;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(client_handlers); i++)
		if (!strcmp(type, client_handlers[i].type))
			break;
	if (i < ARRAY_SIZE(client_handlers) && w && !w->validated)
		coord_bad_message(c, c->clients_sock, id, id_len, "a client", type, "%s", w->why.msg);
	else if (i < ARRAY_SIZE(client_handlers) && !w &&
		 proto_validate(msg, PROTO_CH_CLIENT_TO_COORD, &why) == -EINVAL)
		coord_bad_message(c, c->clients_sock, id, id_len, "a client", type, "%s", why.msg);
	else if (i == ARRAY_SIZE(client_handlers))
		coord_bad_message(c, c->clients_sock, id, id_len, "a client", type,
				  "unknown message type '%s'", type);
	else if (!strcmp(type, "import") && w && w->check_err)
		coord_reply(c->clients_sock, id, id_len,
			    proto_error_new(type, "cannot import '%s': %s",
					    jget_str(json_object_get(msg, "import"), "source",
							  "?"), w->why.msg));
	else if (!strcmp(type, "import"))
		coord_import_start(c, id, id_len, msg, w && w->checked);
	else if (coord_offload_reads(type)) {
		if (coord_offload_read(c, id, id_len, msg))
			coord_reply(c->clients_sock, id, id_len, NULL);	/* logs: no memory */
	} else if (!client_handlers[i].fn)
		coord_link_discover(c, id, id_len);
	else
		coord_reply(c->clients_sock, id, id_len, client_handlers[i].fn(c, msg));
}

void coord_client_parsed(struct coord *c, struct coord_work *w)
{
	if (!w->msg)
		coord_bad_message(c, c->clients_sock, w->id, w->id_len, "a client", NULL, "%s",
				  w->why.msg);
	else
		handle(c, w->id, w->id_len, w->msg, w);
	coord_offload_drop(c, w->msg);	/* a big message: freed off the loop too */
	w->msg = NULL;
	coord_offload_free(w);
}

int coord_client_recv(struct coord *c)
{
	unsigned char id[PROTO_MAX_IDENTITY];
	size_t id_len = 0;
	struct proto_peer peer;
	json_t *msg = NULL;
	zmq_msg_t frame;
	struct err why;
	int err;

	err = proto_recv_frame_from(c->clients_sock, id, &id_len, &frame, &peer, ZMQ_DONTWAIT, &why);
	if ((!err || err == -EBADMSG) && !coord_peer_allowed(c, false, &peer)) {
		/* the refusal names the message's type when it is small enough to read */
		if (!err && zmq_msg_size(&frame) <= COORD_PARSE_INLINE)
			msg = proto_decode(zmq_msg_data(&frame), zmq_msg_size(&frame), &why);
		zmq_msg_close(&frame);
		coord_refuse_role(c, false, id, id_len, &peer, &msg, NULL);
		return 1;
	}
	if (err == -EBADMSG) {
		zmq_msg_close(&frame);
		coord_bad_message(c, c->clients_sock, id, id_len, "a client", NULL, "%s", why.msg);
		return 1;
	}
	if (err) {
		zmq_msg_close(&frame);
		if (err == -EAGAIN)
			return 0;
		pr_warn("cannot receive from clients: %s", zmq_strerror(-err));
		return err;
	}
	/* a big frame (an import of many jobs) is decoded off the loop */
	if (zmq_msg_size(&frame) > COORD_PARSE_INLINE &&
	    !coord_offload_parse(c, id, id_len, &frame)) {
		zmq_msg_close(&frame);
		return 1;
	}
	msg = proto_decode(zmq_msg_data(&frame), zmq_msg_size(&frame), &why);
	zmq_msg_close(&frame);
	if (!msg) {
		coord_bad_message(c, c->clients_sock, id, id_len, "a client", NULL, "%s", why.msg);
		return 1;
	}
	handle(c, id, id_len, msg, NULL);
	json_decref(msg);
	return 1;
}

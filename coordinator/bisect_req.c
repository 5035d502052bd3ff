// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* bisect_req.c - the coordinator's bisect_* client requests (docs/protocol.md, "Bisect
 * sessions"): `bpflab bisect` keeps its session in the coordinator's database through
 * these, so the CLI needs no access to the database file (docs/bisect.md, "Sessions").
 *
 * Each request is one call of lib/store/store_bisect.c on the coordinator's store, in one
 * transaction; every reply is `bisect` with the session as it is after the request
 * (steps included), or `error` with store_err(c->store)->msg. The invariants live in the
 * store: at most one active session, a step appended only as the next one (the `seq`
 * the client read: of two CLIs racing for step N the second is refused), a final step
 * and the end of its session written together. Called from the event loop
 * (coordinator/clients.c's handler table); nothing is kept in the process.
 */
#include "coord_clients.h"

#include "base/log.h"
#include "proto/proto.h"
#include "store/store_bisect.h"
#include "base/util.h"

/* The reply to request TYPE: `bisect` with session ID (0: the active one, else the
 * latest), or an error; NULL when out of memory. */
static json_t *session_reply(struct coord *c, const char *type, int64_t id)
{
	json_t *ses = store_bisect_get(c->store, id), *r;

	if (!ses)
		return proto_error_new(type, "%s", store_err(c->store)->msg);
	r = proto_msg_new("bisect");
	if (!r || json_object_set_new(r, "session", ses)) {
		json_decref(r);
		return NULL;
	}
	return r;
}

json_t *coord_bisect_get(struct coord *c, const json_t *msg)
{
	return session_reply(c, "bisect_get", jget_int(msg, "id", 0));
}

json_t *coord_bisect_list(struct coord *c, const json_t *msg)
{
	json_t *list = store_bisect_list(c->store), *r;

	(void)msg;
	if (!list)
		return proto_error_new("bisect_list", "%s", store_err(c->store)->msg);
	r = proto_msg_new("bisect_sessions");
	if (!r || json_object_set_new(r, "sessions", list)) {
		json_decref(r);
		return NULL;
	}
	return r;
}

json_t *coord_bisect_start(struct coord *c, const json_t *msg)
{
	const json_t *ses = json_object_get(msg, "session");
	int64_t id = 0;

	if (store_bisect_start(c->store, ses, util_wall_ms(), &id))
		return proto_error_new("bisect_start", "%s", store_err(c->store)->msg);
	pr_info("bisect session %lld started: %s of '%s' from '%s' to '%s'", (long long)id,
		jget_str(ses, "metric", "?"), jget_str(ses, "plan", "?"),
		jget_str(ses, "good", "?"), jget_str(ses, "bad", "?"));
	return session_reply(c, "bisect_start", id);
}

json_t *coord_bisect_add_step(struct coord *c, const json_t *msg)
{
	const json_t *end = json_object_get(msg, "end");
	int64_t id = jget_int(msg, "id", 0), seq = jget_int(msg, "seq", 0);
	const char *state = json_is_object(end) ? jget_str(end, "state", "") : NULL;

	if (store_bisect_add_step(c->store, id, seq, json_object_get(msg, "step"), state,
				  json_object_get(end, "result"), util_wall_ms()))
		return proto_error_new("bisect_add_step", "%s", store_err(c->store)->msg);
	if (state)
		pr_info("bisect session %lld %s after %lld steps", (long long)id, state,
			(long long)seq);
	return session_reply(c, "bisect_add_step", id);
}

json_t *coord_bisect_finish(struct coord *c, const json_t *msg)
{
	const json_t *end = json_object_get(msg, "end");
	int64_t id = jget_int(msg, "id", 0);

	if (store_bisect_end(c->store, id, jget_int(msg, "steps", -1),
			     jget_str(end, "state", ""), json_object_get(end, "result"),
			     util_wall_ms()))
		return proto_error_new("bisect_finish", "%s", store_err(c->store)->msg);
	pr_info("bisect session %lld %s", (long long)id, jget_str(end, "state", ""));
	return session_reply(c, "bisect_finish", id);
}

json_t *coord_bisect_reset(struct coord *c, const json_t *msg)
{
	int64_t id = 0;

	if (store_bisect_reset(c->store, jget_int(msg, "id", 0), util_wall_ms(), &id))
		return proto_error_new("bisect_reset", "%s", store_err(c->store)->msg);
	pr_info("bisect session %lld reset", (long long)id);
	return session_reply(c, "bisect_reset", id);
}

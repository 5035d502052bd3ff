// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* bisect_session.c - where a bisect session lives (bisect_int.h): a backend over the
 * coordinator's bisect_* requests, or over the database file itself with --db, written
 * once so that both print the same; the engine rebuilt by replaying a session's stored
 * steps (bisect_load); and the stored values a step or a judgement takes
 * (bisect_values_get: one variant, one subject, one timing mode).
 */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bisect_int.h"
#include "analysis/analysis.h"
#include "proto/proto.h"
#include "store/store.h"
#include "store/store_bisect.h"
#include "base/util.h"

/* The coordinator's answer to request TYPE ("host_list", "run_show" with RUN, "query"
 * with FILTER): the reply's MEMBER (new reference), or NULL after printing the error.
 * Always the coordinator, also with --db. */
json_t *bisect_coord_ask(const char *type, long long run, const json_t *filter,
			 const char *want, const char *member)
{
	json_t *req = proto_msg_new(type), *reply = NULL, *out = NULL;

	if (!req || (run && json_object_set_new(req, "run", json_integer(run))) ||
	    (filter && json_object_set(req, "filter", (json_t *)filter))) {
		cli_error("out of memory");
		goto out;
	}
	if (cli_request(req, want, &reply))
		goto out;
	out = json_incref(json_object_get(reply, member));
	if (!out)
		cli_error("malformed '%s' reply from coordinator at '%s': no '%s'", want,
			  cli.coordinator, member);
out:
	json_decref(req);
	json_decref(reply);
	return out;
}
/* --- where the session lives: the coordinator, or the database file (--db) --- */


/* The session ID of the database, or NULL after printing the error. */
static json_t *db_session(struct session_be *be, int64_t id)
{
	json_t *ses = store_bisect_get(be->st, id);

	if (!ses)
		cli_fail(-errno, store_err(be->st));
	return ses;
}

static json_t *db_get(struct session_be *be, int64_t id)
{
	return db_session(be, id);
}

static json_t *db_list(struct session_be *be)
{
	json_t *list = store_bisect_list(be->st);

	if (!list)
		cli_fail(-errno, store_err(be->st));
	return list;
}

static json_t *db_start(struct session_be *be, const json_t *ses)
{
	int64_t id;
	int rc = store_bisect_start(be->st, ses, util_wall_ms(), &id);

	if (rc) {
		cli_fail(rc, store_err(be->st));
		return NULL;
	}
	return db_session(be, id);
}

static json_t *db_add_step(struct session_be *be, int64_t id, int64_t seq,
			   const json_t *step, const json_t *end)
{
	int rc = store_bisect_add_step(be->st, id, seq, step,
				       end ? jget_str(end, "state", "") : NULL,
				       json_object_get(end, "result"), util_wall_ms());

	if (rc) {
		cli_fail(rc, store_err(be->st));
		return NULL;
	}
	return db_session(be, id);
}

static json_t *db_finish(struct session_be *be, int64_t id, int64_t steps,
			 const json_t *end)
{
	int rc = store_bisect_end(be->st, id, steps, jget_str(end, "state", ""),
				  json_object_get(end, "result"), util_wall_ms());

	if (rc) {
		cli_fail(rc, store_err(be->st));
		return NULL;
	}
	return db_session(be, id);
}

static json_t *db_reset(struct session_be *be)
{
	int64_t id;
	int rc = store_bisect_reset(be->st, 0, util_wall_ms(), &id);

	if (rc) {
		cli_fail(rc, store_err(be->st));
		return NULL;
	}
	return db_session(be, id);
}

static json_t *db_values(struct session_be *be, const json_t *filter)
{
	json_t *rows = store_query_values(be->st, filter);

	if (!rows)
		cli_fail(-errno, store_err(be->st));
	return rows;
}

static const struct session_ops db_ops = {
	.get = db_get, .list = db_list, .start = db_start, .add_step = db_add_step, .finish = db_finish,
	.reset = db_reset, .values = db_values,
};

/* Free REQ (a request that could not be filled): NULL. */
static json_t *drop(json_t *req)
{
	json_decref(req);
	return NULL;
}

/* Send REQ (stolen; NULL: out of memory) and return the session of the `bisect` reply. */
static json_t *coord_session(json_t *req)
{
	json_t *reply = NULL, *ses = NULL;

	if (!req) {
		cli_error("out of memory");
		return NULL;
	}
	if (!cli_request(req, "bisect", &reply)) {
		ses = json_incref(json_object_get(reply, "session"));
		if (!ses)
			cli_error("malformed 'bisect' reply from coordinator at '%s': no "
				  "'session'", cli.coordinator);
	}
	json_decref(req);
	json_decref(reply);
	return ses;
}

static json_t *coord_get(struct session_be *be, int64_t id)
{
	json_t *req = proto_msg_new("bisect_get");

	if (req && id && json_object_set_new(req, "id", json_integer(id)))
		req = drop(req);
	return coord_session(req);
}

static json_t *coord_list(struct session_be *be)
{
	return bisect_coord_ask("bisect_list", 0, NULL, "bisect_sessions", "sessions");
}

static json_t *coord_start(struct session_be *be, const json_t *ses)
{
	json_t *req = proto_msg_new("bisect_start");

	if (req && json_object_set(req, "session", (json_t *)ses))
		req = drop(req);
	return coord_session(req);
}

static json_t *coord_add_step(struct session_be *be, int64_t id, int64_t seq,
			      const json_t *step, const json_t *end)
{
	json_t *req = proto_msg_new("bisect_add_step");

	if (req && (json_object_set_new(req, "id", json_integer(id)) ||
		    json_object_set_new(req, "seq", json_integer(seq)) ||
		    json_object_set(req, "step", (json_t *)step) ||
		    (end && json_object_set(req, "end", (json_t *)end))))
		req = drop(req);
	return coord_session(req);
}

static json_t *coord_finish(struct session_be *be, int64_t id, int64_t steps,
			    const json_t *end)
{
	json_t *req = proto_msg_new("bisect_finish");

	if (req && (json_object_set_new(req, "id", json_integer(id)) ||
		    json_object_set_new(req, "steps", json_integer(steps)) ||
		    json_object_set(req, "end", (json_t *)end)))
		req = drop(req);
	return coord_session(req);
}

static json_t *coord_reset(struct session_be *be)
{
	return coord_session(proto_msg_new("bisect_reset"));
}

static json_t *coord_values(struct session_be *be, const json_t *filter)
{
	return bisect_coord_ask("query", 0, filter, "values", "values");
}

static const struct session_ops coord_ops = {
	.get = coord_get, .list = coord_list, .start = coord_start, .add_step = coord_add_step,
	.finish = coord_finish, .reset = coord_reset, .values = coord_values,
};

/* The backend: the database file with --db FILE (opened READONLY or not), else the
 * coordinator. Returns 0 or an exit status after the error. */
int bisect_be_open(struct session_be *be, bool readonly)
{
	struct err err;

	*be = (struct session_be){ .ops = &coord_ops };
	if (!cli.db)
		return 0;
	be->st = store_open(cli.db, readonly, &err);
	if (!be->st)
		return cli_error("%s", *err.msg ? err.msg : strerror(errno));
	be->ops = &db_ops;
	return 0;
}

void bisect_be_close(struct session_be *be)
{
	store_close(&be->st);
}

int bisect_release(struct bopts *o, struct session_be *be, json_t *ses, struct bisect *b,
		   int ret)
{
	bisect_destroy(&b);
	json_decref(ses);
	json_decref(o->overrides);
	bisect_be_close(be);
	return ret;
}

/* The timing mode of a value row: "wall" when the host did not say. */
static const char *row_timing(const json_t *r)
{
	return jget_str(r, "timing", "wall");
}



/* Append NAME to LIST unless it is empty or there. Returns 0 or -ENOMEM. */
static int add_name(json_t *list, const char *name)
{
	json_t *v;
	size_t i;

	json_array_foreach(list, i, v)
		if (!strcmp(json_string_value(v), name))
			return 0;
	return *name ? json_array_append_new(list, json_string(name)) : 0;
}

int bisect_vals_pooled(const struct vals *x, const char *side, const char *kernel,
		       bool strict)
{
	json_t *entry;
	char text[1024];

	if (json_array_size(x->hosts) < 2 && json_array_size(x->builds) < 2)
		return 0;
	entry = json_pack("{s:s, s:s, s:O, s:O}", "side", side, "group", kernel, "hosts",
			  x->hosts, "builds", x->builds);
	if (!entry) {
		cli_error("out of memory");
		return -ENOMEM;
	}
	analysis_pooled_text(entry, "kernel", text, sizeof(text));
	json_decref(entry);
	if (strict)
		return cli_error("%s; --strict refuses to pool them", text);
	fprintf(stderr, "bisect: note: %s; its figures pool them (--strict refuses)\n", text);
	return 0;
}

void bisect_vals_release(struct vals *x)
{
	free(x->v);
	json_decref(x->runs);
	json_decref(x->hosts);
	json_decref(x->builds);
	*x = (struct vals){ 0 };
}

/* The values Q selects into *OUT (released first), from BE. A sample is one variant and
 * one subject: when Q leaves either open and the values have several, nothing is taken
 * (bisect_sample_check: bad input). Returns 0, or the exit status after the error. */
int bisect_values_get(struct session_be *be, const struct vsel *q, struct vals *out)
{
	json_t *filter = json_pack("{s:s}", "metric", q->metric), *rows = NULL, *r, *u;
	const char **names = NULL;
	struct err why;
	size_t i, k, n_rows;
	int ret;

	bisect_vals_release(out);
	out->runs = json_array();
	out->hosts = json_array();
	out->builds = json_array();
	if (!filter || !out->runs || !out->hosts || !out->builds)
		goto oom;
	if (q->plan && !q->runs)
		json_object_set_new(filter, "plan", json_string(q->plan));
	if (q->variant)
		json_object_set_new(filter, "variant", json_string(q->variant));
	if (q->subject)
		json_object_set_new(filter, "subject", json_string(q->subject));
	if (q->runs)
		json_object_set(filter, "runs", (json_t *)q->runs);
	rows = be->ops->values(be, filter);
	if (!rows) {
		ret = CLI_EXIT_FAIL;	/* said by the backend */
		goto out;
	}
	n_rows = json_array_size(rows);
	out->v = calloc(n_rows + 1, sizeof(*out->v));
	names = calloc(2 * n_rows + 1, sizeof(*names));	/* variants, then subjects */
	if (!out->v || !names)
		goto oom;
	json_array_foreach(rows, i, r) {
		const char *kr = jget_str(r, "kernel_release", NULL);
		long long rid = jget_int(r, "run", 0);
		bool seen = false;

		if (q->kernel && (!kr || strcmp(kr, q->kernel)))
			continue;
		if (q->timing && strcmp(row_timing(r), q->timing))
			continue;
		if (rid == q->skip_run)
			continue;
		json_array_foreach(q->used, k, u)
			seen |= json_integer_value(u) == rid;
		if (seen)
			continue;
		/* a session step takes one run at a time: the next one is for the next round */
		if (q->one_run && json_array_size(out->runs) &&
		    json_integer_value(json_array_get(out->runs, 0)) != rid)
			continue;
		/* one timing mode per call: the first row's decides */
		if (*out->timing && strcmp(out->timing, row_timing(r)))
			continue;
		if (!out->n) {
			snprintf(out->timing, sizeof(out->timing), "%s", row_timing(r));
			snprintf(out->unit, sizeof(out->unit), "%s", jget_str(r, "unit", ""));
			snprintf(out->host, sizeof(out->host), "%s", jget_str(r, "host", ""));
			snprintf(out->kernel, sizeof(out->kernel), "%s", kr ? kr : "");
		}
		names[out->n] = jget_str(r, "variant", NULL);
		names[n_rows + out->n] = jget_str(r, "subject", NULL);
		out->v[out->n++] = json_number_value(json_object_get(r, "value"));
		seen = false;
		json_array_foreach(out->runs, k, u)
			seen |= json_integer_value(u) == rid;
		if (!seen && json_array_append_new(out->runs, json_integer(rid)))
			goto oom;
		if (add_name(out->hosts, jget_str(r, "host", "")) ||
		    add_name(out->builds, jget_str(r, "kernel_build", "")))
			goto oom;
	}
	/* never pool several variants or subjects into one sample */
	memmove(names + out->n, names + n_rows, out->n * sizeof(*names));
	if (bisect_sample_check(q->variant ? NULL : names, q->subject ? NULL : names + out->n,
				out->n, &why)) {
		char what[160];

		if (q->runs)
			snprintf(what, sizeof(what), "run %lld%s", (long long)json_integer_value(
				 json_array_get(q->runs, 0)), json_array_size(q->runs) > 1 ?
				 " and others" : "");
		else
			snprintf(what, sizeof(what), "plan '%s'", q->plan ? q->plan : "?");
		err_prefix(&why, "metric '%s' of %s", q->metric, what);
		out->n = 0;
		ret = cli_fail(-EINVAL, &why);
		goto out;
	}
	ret = 0;
	goto out;
oom:
	ret = cli_error("out of memory");
out:
	free(names);
	json_decref(rows);
	json_decref(filter);
	return ret;
}

/* Open the backend (READONLY for a database file) and load the session into *SES and
 * its replayed engine into *B. Returns 0 or an exit status after the error. */
int bisect_load(struct session_be *be, int64_t id, json_t **ses, struct bisect **b,
		bool readonly)
{
	int ret = bisect_be_open(be, readonly);

	if (ret)
		return ret;
	*ses = be->ops->get(be, id);
	if (!*ses)
		return CLI_EXIT_FAIL;
	*b = bisect_session_replay(*ses);
	if (!*b)
		return cli_error("cannot replay bisect session %lld: its steps do not fit "
				 "its kernels", jget_int(*ses, "id", 0));
	return 0;
}

// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* msg_result.c - see msg_result.h: the `result` and `progress` messages decoded into
 * structs in one pass over their members, and encoded back. */
#include "proto/msg_result.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "proto/proto.h"

static int fail(struct err *why, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct err *why, const char *path, const char *fmt, ...)
{
	char text[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	err_set(why, "%s: %s", path, text);
	return -EINVAL;
}

/* The members of a message that the decoders read, found in one pass. */
struct members {
	const json_t *job, *status, *error, *verifier_log, *env, *started, *finished;
	const json_t *samples, *partial, *verdicts, *details;
	const json_t *phase, *second, *of, *rates;
};

static void find_members(const json_t *msg, struct members *m)
{
	const char *key;
	json_t *v;

	memset(m, 0, sizeof(*m));
	json_object_foreach((json_t *)msg, key, v) {
		switch (key[0]) {
		case 'e':
			if (!strcmp(key, "error"))
				m->error = v;
			else if (!strcmp(key, "env"))
				m->env = v;
			break;
		case 'f':
			if (!strcmp(key, "finished_ms"))
				m->finished = v;
			break;
		case 'j':
			if (!strcmp(key, "job"))
				m->job = v;
			break;
		case 'o':
			if (!strcmp(key, "of"))
				m->of = v;
			break;
		case 'p':
			if (!strcmp(key, "partial"))
				m->partial = v;
			else if (!strcmp(key, "phase"))
				m->phase = v;
			break;
		case 'r':
			if (!strcmp(key, "rates"))
				m->rates = v;
			break;
		case 's':
			if (!strcmp(key, "status"))
				m->status = v;
			else if (!strcmp(key, "started_ms"))
				m->started = v;
			else if (!strcmp(key, "samples"))
				m->samples = v;
			else if (!strcmp(key, "second"))
				m->second = v;
			break;
		case 'v':
			if (!strcmp(key, "verdicts"))
				m->verdicts = v;
			else if (!strcmp(key, "verdict_details"))
				m->details = v;
			else if (!strcmp(key, "verifier_log"))
				m->verifier_log = v;
			break;
		}
	}
}

/* A job id: a positive integer (required). */
static int get_job(const json_t *v, const char *path, int64_t *job, struct err *why)
{
	if (!json_is_integer(v) || json_integer_value(v) < 1)
		return fail(why, path, "must be a positive integer, not %s",
			    util_json_type_name(v));
	*job = json_integer_value(v);
	return 0;
}

/* An optional text: absent or null gives NULL. */
static int get_text(const json_t *v, const char *path, const char **s, struct err *why)
{
	*s = json_string_value(v);
	if (v && !*s && !json_is_null(v))
		return fail(why, path, "must be a string or null, not %s", util_json_type_name(v));
	return 0;
}

/* An optional integer into *X and *HAS. */
static int get_int(const json_t *v, const char *path, bool *has, int64_t *x, struct err *why)
{
	*has = v != NULL;
	if (v && !json_is_integer(v))
		return fail(why, path, "must be an integer, not %s", util_json_type_name(v));
	*x = v ? json_integer_value(v) : 0;
	return 0;
}

static int check_verdicts(const json_t *v, const json_t *d, struct err *why)
{
	const char *key;
	json_t *item;
	size_t i;

	if (v && !json_is_array(v))
		return fail(why, "result.verdicts", "must be an array, not %s",
			    util_json_type_name(v));
	json_array_foreach(v, i, item) {
		if (!json_is_string(item) || !json_string_length(item) ||
		    json_string_length(item) > MSG_VERDICT_MAX_LEN) {
			char path[48];

			snprintf(path, sizeof(path), "result.verdicts[%zu]", i);
			return fail(why, path, "must be a name of 1 to %d bytes, not %s",
				    MSG_VERDICT_MAX_LEN, util_json_type_name(item));
		}
	}
	if (json_array_size(v) > MSG_VERDICTS_MAX)
		return fail(why, "result.verdicts", "has more than %d names",
			    MSG_VERDICTS_MAX);
	if (d && !json_is_object(d) && !json_is_null(d))
		return fail(why, "result.verdict_details", "must be an object or null, "
			    "not %s", util_json_type_name(d));
	json_object_foreach((json_t *)d, key, item) {
		if (!json_is_string(item))
			return fail(why, "result.verdict_details", "'%.64s' must be a "
				    "string, not %s", key, util_json_type_name(item));
	}
	return 0;
}

int msg_result_decode(const json_t *msg, struct samples *scanned, struct msg_result *out,
		      struct err *why)
{
	struct samples *moved = NULL;
	const char *status;
	struct members m;
	int err;

	memset(out, 0, sizeof(*out));
	out->job = -1;
	if (!json_is_object(msg))
		return fail(why, "result", "must be an object, not %s", util_json_type_name(msg));
	find_members(msg, &m);
	if (get_job(m.job, "result.job", &out->job, why)) {
		out->job = -1;
		return -EINVAL;
	}
	status = json_string_value(m.status);
	if (!status || (strcmp(status, "ok") && strcmp(status, "failed")))
		return fail(why, "result.status", "must be 'ok' or 'failed'");
	out->failed = !strcmp(status, "failed");
	if (scanned && scanned->taken) {
		out->samples = *scanned;
		memset(scanned, 0, sizeof(*scanned));
		moved = scanned;
	} else {
		err = samples_from_json(m.samples, &out->samples, why);
		if (err)
			return err;
	}
	err = -EINVAL;
	if (check_verdicts(m.verdicts, m.details, why))
		goto fail;
	out->verdicts = m.verdicts;
	out->verdict_details = json_is_object(m.details) ? m.details : NULL;
	if (m.partial && !json_is_boolean(m.partial)) {
		fail(why, "result.partial", "must be a boolean, not %s",
		     util_json_type_name(m.partial));
		goto fail;
	}
	out->partial = json_is_true(m.partial);
	if (get_text(m.error, "result.error", &out->error, why) ||
	    get_text(m.verifier_log, "result.verifier_log", &out->verifier_log, why) ||
	    get_int(m.started, "result.started_ms", &out->has_started, &out->started_ms, why) ||
	    get_int(m.finished, "result.finished_ms", &out->has_finished, &out->finished_ms,
		    why))
		goto fail;
	if (out->error && strlen(out->error) > MSG_ERROR_MAX_LEN) {
		fail(why, "result.error", "is longer than %d bytes", MSG_ERROR_MAX_LEN);
		goto fail;
	}
	if (m.env && !json_is_object(m.env) && !json_is_null(m.env)) {
		fail(why, "result.env", "must be an object or null, not %s",
		     util_json_type_name(m.env));
		goto fail;
	}
	out->env = json_is_object(m.env) ? m.env : NULL;
	return 0;
fail:
	if (moved)	/* back where it came from */
		*moved = out->samples;
	else
		samples_release(&out->samples);
	memset(&out->samples, 0, sizeof(out->samples));
	return err;
}

void msg_result_release(struct msg_result *r)
{
	samples_release(&r->samples);
	memset(r, 0, sizeof(*r));
}

/* Member KEY of OBJ set to V (stolen); false when out of memory. */
static bool put(json_t *obj, const char *key, json_t *v)
{
	return v && !json_object_set_new(obj, key, v);
}

static json_t *sample_encode(const struct sample *s)
{
	json_t *o = json_object();

	/* "subject" and "seq" always, as docs/protocol.md shows them ("" and null: none) */
	if (o && put(o, "metric", json_string(s->metric)) &&
	    put(o, "subject", json_string(s->subject)) &&
	    put(o, "value", json_real(s->value)) &&
	    (!s->unit || put(o, "unit", json_string(s->unit))) &&
	    put(o, "window", json_string(s->window)) &&
	    put(o, "seq", s->seq < 0 ? json_null() : json_integer(s->seq)) &&
	    (!s->outlier || put(o, "outlier", json_true())))
		return o;
	json_decref(o);
	return NULL;
}

json_t *msg_result_encode(const struct msg_result *r)
{
	json_t *msg = proto_msg_new("result"), *arr = json_array();
	size_t i;

	if (!msg || !arr || !put(msg, "job", json_integer(r->job)) ||
	    !put(msg, "status", json_string(r->failed ? "failed" : "ok")) ||
	    (r->error && !put(msg, "error", json_string(r->error))) ||
	    (r->verifier_log && !put(msg, "verifier_log", json_string(r->verifier_log))) ||
	    (r->env && json_object_set(msg, "env", (json_t *)r->env)) ||
	    (r->has_started && !put(msg, "started_ms", json_integer(r->started_ms))) ||
	    (r->has_finished && !put(msg, "finished_ms", json_integer(r->finished_ms))) ||
	    (r->partial && !put(msg, "partial", json_true())) ||
	    (r->verdicts && json_object_set(msg, "verdicts", (json_t *)r->verdicts)) ||
	    (r->verdict_details &&
	     json_object_set(msg, "verdict_details", (json_t *)r->verdict_details)))
		goto fail;
	for (i = 0; i < r->samples.n; i++)
		if (json_array_append_new(arr, sample_encode(&r->samples.v[i])))
			goto fail;
	if (json_object_set_new(msg, "samples", arr))
		goto fail_msg;
	return msg;
fail:
	json_decref(arr);
fail_msg:
	json_decref(msg);
	return NULL;
}

/* Member KEY (a name needing no escape) of the object being written, after a comma. */
static void text_key(struct proto_text *o, const char *key)
{
	proto_text_put(o, ",\"", 2);
	proto_text_put(o, key, strlen(key));
	proto_text_put(o, "\":", 2);
}

/* A text as json_string would take it (valid UTF-8, else the encoding fails). */
static void text_string(struct proto_text *o, const char *s)
{
	size_t n = strlen(s);

	if (!util_utf8_valid(s, n, NULL))
		o->failed = true;
	else
		proto_text_string(o, s, n);
}

/* Member KEY with text S, or else value V. */
static void text_member(struct proto_text *o, const char *key, const char *s, const json_t *v)
{
	text_key(o, key);
	if (s)
		text_string(o, s);
	else
		proto_text_value(o, v);
}

static void text_int(struct proto_text *o, int64_t v)
{
	char num[32];
	int n = snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, (json_int_t)v);

	proto_text_put(o, num, (size_t)n);
}

char *msg_result_encode_text(const struct msg_result *r, size_t *len)
{
	struct proto_text o = { 0 };
	char head[64];
	size_t i;
	int n;

	/* the members in msg_result_encode's order, each written as proto_encode would */
	n = snprintf(head, sizeof(head), "{\"v\":%d,\"type\":\"result\",\"job\":",
		     PROTO_VERSION);
	proto_text_put(&o, head, (size_t)n);
	text_int(&o, r->job);
	text_key(&o, "status");
	proto_text_string(&o, r->failed ? "failed" : "ok", r->failed ? 6 : 2);
	if (r->error)
		text_member(&o, "error", r->error, NULL);
	if (r->verifier_log)
		text_member(&o, "verifier_log", r->verifier_log, NULL);
	if (r->env)
		text_member(&o, "env", NULL, r->env);
	if (r->has_started) {
		text_key(&o, "started_ms");
		text_int(&o, r->started_ms);
	}
	if (r->has_finished) {
		text_key(&o, "finished_ms");
		text_int(&o, r->finished_ms);
	}
	if (r->partial)
		proto_text_put(&o, ",\"partial\":true", 15);
	if (r->verdicts)
		text_member(&o, "verdicts", NULL, r->verdicts);
	if (r->verdict_details)
		text_member(&o, "verdict_details", NULL, r->verdict_details);
	proto_text_put(&o, ",\"samples\":[", 12);
	for (i = 0; i < r->samples.n && !o.failed; i++) {
		const struct sample *smp = &r->samples.v[i];

		proto_text_put(&o, i ? ",{\"metric\":" : "{\"metric\":", i ? 11 : 10);
		text_string(&o, smp->metric);
		text_member(&o, "subject", smp->subject, NULL);
		text_key(&o, "value");
		proto_text_real(&o, smp->value);
		if (smp->unit)
			text_member(&o, "unit", smp->unit, NULL);
		text_member(&o, "window", smp->window, NULL);
		text_key(&o, "seq");
		if (smp->seq < 0)
			proto_text_put(&o, "null", 4);
		else
			text_int(&o, smp->seq);
		if (smp->outlier)
			proto_text_put(&o, ",\"outlier\":true", 15);
		proto_text_put(&o, "}", 1);
	}
	proto_text_put(&o, "]}", 2);
	return proto_text_finish(&o, len);
}

int msg_progress_decode(const json_t *msg, struct msg_progress *out, struct err *why)
{
	static const char *const phases[] = { "prepare", "warmup", "rate", "cost", "cleanup" };
	struct members m;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(msg))
		return fail(why, "progress", "must be an object, not %s",
			    util_json_type_name(msg));
	find_members(msg, &m);
	if (get_job(m.job, "progress.job", &out->job, why))
		return -EINVAL;
	if (m.phase) {
		out->phase = json_string_value(m.phase);
		for (i = 0; out->phase && i < sizeof(phases) / sizeof(phases[0]); i++)
			if (!strcmp(out->phase, phases[i]))
				break;
		if (!out->phase || i == sizeof(phases) / sizeof(phases[0]))
			return fail(why, "progress.phase", "unknown phase (prepare, "
				    "warmup, rate, cost, cleanup)");
	}
	if (get_int(m.second, "progress.second", &out->has_second, &out->second, why) ||
	    get_int(m.of, "progress.of", &out->has_of, &out->of, why))
		return -EINVAL;
	if (m.rates && !json_is_object(m.rates) && !json_is_null(m.rates))
		return fail(why, "progress.rates", "must be an object or null, not %s",
			    util_json_type_name(m.rates));
	out->rates = m.rates;
	return 0;
}

json_t *msg_progress_encode(const struct msg_progress *p)
{
	json_t *msg = proto_msg_new("progress");

	if (!msg || !put(msg, "job", json_integer(p->job)) ||
	    (p->phase && !put(msg, "phase", json_string(p->phase))) ||
	    (p->has_second && !put(msg, "second", json_integer(p->second))) ||
	    (p->has_of && !put(msg, "of", json_integer(p->of))) ||
	    (p->rates && json_object_set(msg, "rates", (json_t *)p->rates))) {
		json_decref(msg);
		return NULL;
	}
	return msg;
}

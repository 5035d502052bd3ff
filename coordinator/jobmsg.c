// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* jobmsg.c - the `job` message of a dispatch (dispatch.c, dispatch_pick), encoded.
 *
 * Every job of a run carries the same objects, and their bytes are most of a message
 * (the base64 of each BPF object it attaches). An agent that keeps objects (its hello's
 * objects_kept) gets an object's bytes once a session, and later messages name it by
 * sha256 alone (docs/protocol.md, "Objects once a session"); struct coord_agent_objects
 * is what went to it. The objects part of a message, {"NAME": {"sha256", "data"}, ...}
 * or {"NAME": {"sha256"}, ...}, is encoded once for each list of attach entries and kept
 * in COORD_JOBMSG_SLOTS slots (the oldest replaced first); a part that mixes the two is
 * made for its message. A job then costs copies of its spec's text (kept with its run's
 * decoded spec, specs.c) and of that part. The objects themselves come from
 * lib/plan/objects.h's cache (read and checked once by sha256); a kept part cannot go
 * stale for the same reason (an object's bytes are stored under their sha256). The bytes
 * are those proto_encode writes for the message built as jansson values: {"v", "type",
 * "job": {"id", "run", "spec"}, "objects"}. Event loop thread only.
 */
#include "coord_dispatch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord_specs.h"
#include "base/jget.h"
#include "plan/objects.h"

/* A part larger than this is encoded for each message and not kept. */
#define COORD_JOBMSG_KEEP_BYTES (OBJECT_CACHE_BYTES / COORD_JOBMSG_SLOTS)

/* Object loader of the cache: the store's bytes. */
static int object_load(void *arg, const char *sha256, void **data, size_t *len)
{
	struct coord *c = arg;

	return store_object_get(c->store, sha256, data, len);
}

/* Object NAME of attach entry I (sha256 SHA) for a `job` message: its cached entry
 * {"sha256", "data"}, or NULL with WHY (*MISSING when it can never be sent). */
static json_t *job_object(struct coord *c, size_t i, const char *name, const char *sha,
			  struct err *why, bool *missing)
{
	json_t *entry;

	if (!c->objects)
		c->objects = object_cache_new(OBJECT_CACHE_SLOTS, OBJECT_CACHE_BYTES);
	entry = c->objects ? object_cache_get(c->objects, sha, object_load, c) : NULL;
	if (entry)
		return entry;
	if (!c->objects || errno == ENOMEM) {
		err_set(why, "out of memory");
	} else if (errno == EBADMSG) {
		err_set(why, "object '%s' in the store does not match its sha256 %s", name, sha);
		*missing = true;
	} else if (errno == EINVAL) {
		err_set(why, "attach entry %zu has a malformed sha256", i);
		*missing = true;
	} else {
		*missing = errno == ENOENT;
		err_set(why, "%s", store_err(c->store)->msg);
	}
	return NULL;
}

/* Whether agent A has object SHA: its bytes went to it in this session. */
static bool agent_has(const struct coord_agent *a, const char *sha)
{
	int i;

	for (i = 0; i < a->objs.n; i++)
		if (!strcmp(a->objs.sha256[i], sha))
			return true;
	return false;
}

/* The bytes of object SHA go to agent A (if it keeps objects). */
static void agent_sent(struct coord_agent *a, const char *sha)
{
	if (!a->objs.kept || agent_has(a, sha) || strlen(sha) >= sizeof(a->objs.sha256[0]))
		return;
	snprintf(a->objs.sha256[a->objs.next], sizeof(a->objs.sha256[0]), "%s", sha);
	a->objs.next = (a->objs.next + 1) % a->objs.kept;
	if (a->objs.n < a->objs.kept)
		a->objs.n++;
}

void coord_job_objects_hello(struct coord_agent *a, const json_t *hello)
{
	long long kept = jget_int(hello, "objects_kept", 0);

	a->objs = (struct coord_agent_objects){
		.kept = kept <= 0 ? 0 : kept > COORD_AGENT_OBJECTS ? COORD_AGENT_OBJECTS :
			(int)kept,
	};
}

void coord_job_objects_forget(struct coord_agent *a)
{
	a->objs.n = a->objs.next = 0;
}

/* The objects SPEC attaches, {"NAME": {"sha256", "data"}, ...}, as jansson values, or
 * NULL with WHY: *MISSING is set when an object is not in the store (the job cannot ever
 * run). With HAS (an agent), an object it has is {"sha256"} alone; with REFS, every one. */
static json_t *job_objects(struct coord *c, const struct job_spec *spec,
			   const struct coord_agent *has, bool refs, struct err *why,
			   bool *missing)
{
	json_t *objects = json_object();
	int i;

	if (!objects)
		goto oom;
	for (i = 0; i < spec->n_attach; i++) {
		const char *name = spec->attach[i].object, *sha = spec->attach[i].sha256;
		json_t *obj;

		if (!name || !sha) {
			err_set(why, "attach entry %d has no object or sha256", i);
			*missing = true;
			goto fail;
		}
		if (json_object_get(objects, name))
			continue;
		if (refs || (has && agent_has(has, sha)))
			obj = json_pack("{ss}", "sha256", sha);
		else
			obj = job_object(c, (size_t)i, name, sha, why, missing);
		if (!obj)
			goto fail;
		if (json_object_set_new(objects, name, obj))
			goto oom;
	}
	return objects;
oom:
	err_set(why, "out of memory");
fail:
	json_decref(objects);
	return NULL;
}

/* OBJECTS encoded into *TEXT (heap) and *LEN, then released; -1 with WHY. */
static int encode_objects(json_t *objects, char **text, size_t *len, struct err *why)
{
	*text = objects ? proto_encode(objects, len) : NULL;
	if (objects && !*text)
		err_set(why, "out of memory");
	json_decref(objects);
	return *text ? 0 : -1;
}

/* What names SPEC's attach list, "OBJECT\0SHA256\0" for each entry, into *LEN bytes
 * (heap); NULL when an entry lacks either (job_objects says why) or out of memory. */
static char *attach_key(const struct job_spec *spec, size_t *len)
{
	size_t n = 0, cap = 0;
	char *key = NULL, *nk;
	int i;

	for (i = 0; i < spec->n_attach; i++) {
		const char *name = spec->attach[i].object, *sha = spec->attach[i].sha256;
		size_t ln, ls;

		if (!name || !sha)
			goto fail;
		ln = strlen(name) + 1;
		ls = strlen(sha) + 1;
		if (n + ln + ls > cap) {
			cap = 2 * (n + ln + ls) + 64;
			nk = realloc(key, cap);
			if (!nk)
				goto fail;
			key = nk;
		}
		memcpy(key + n, name, ln);
		memcpy(key + n + ln, sha, ls);
		n += ln + ls;
	}
	if (!key)
		key = malloc(1);	/* no objects: an empty key */
	*len = n;
	return key;
fail:
	free(key);
	return NULL;
}

/* The kept slot of SPEC's attach list into *OUT, found or made: 0 (*OUT NULL when the
 * list has no key: its part is made for each message), or -1 with WHY and *MISSING as
 * job_objects. */
static int jobmsg_slot(struct coord *c, const struct job_spec *spec,
		       struct coord_jobmsg **out, struct err *why, bool *missing)
{
	struct coord_jobmsg *slot, made = { 0 };
	char *key = attach_key(spec, &made.key_len);
	int i;

	*out = NULL;
	if (!key)
		return 0;
	for (i = 0; i < COORD_JOBMSG_SLOTS; i++) {
		slot = &c->jobmsg[i];
		if (slot->key && slot->key_len == made.key_len &&
		    !memcmp(slot->key, key, made.key_len)) {
			free(key);
			*out = slot;
			return 0;
		}
	}
	made.key = key;
	if (encode_objects(job_objects(c, spec, NULL, false, why, missing), &made.text,
			   &made.len, why) ||
	    encode_objects(job_objects(c, spec, NULL, true, why, missing), &made.refs,
			   &made.refs_len, why)) {
		free(made.key);
		free(made.text);
		return -1;
	}
	if (made.len > COORD_JOBMSG_KEEP_BYTES) {
		free(made.text);
		made.text = NULL;
		made.len = 0;
	}
	slot = &c->jobmsg[c->jobmsg_next++ % COORD_JOBMSG_SLOTS];
	free(slot->key);
	free(slot->text);
	free(slot->refs);
	*slot = made;
	*out = slot;
	return 0;
}

/* The encoded objects part of SPEC's job message for agent A into *TEXT and *LEN: kept
 * in a slot (*OWNED false) or made for this message only (*OWNED true: free it). The
 * objects A has are named by sha256 alone, the others carry their bytes (and A has them
 * from now on). -1 with WHY and *MISSING as job_objects. */
static int objects_text(struct coord *c, struct coord_agent *a, const struct job_spec *spec,
			const char **text, size_t *len, bool *owned, struct err *why,
			bool *missing)
{
	struct coord_jobmsg *slot;
	int i, have = 0;
	char *t;

	if (jobmsg_slot(c, spec, &slot, why, missing))
		return -1;
	for (i = 0; a->objs.n && i < spec->n_attach; i++)
		if (spec->attach[i].sha256 && agent_has(a, spec->attach[i].sha256))
			have++;
	*owned = false;
	if (slot && have && have == spec->n_attach) {
		*text = slot->refs;
		*len = slot->refs_len;
	} else if (slot && slot->text && !have) {
		*text = slot->text;
		*len = slot->len;
	} else {
		if (encode_objects(job_objects(c, spec, have ? a : NULL, false, why, missing),
				   &t, len, why))
			return -1;
		*text = t;
		*owned = true;
	}
	for (i = 0; i < spec->n_attach; i++)
		if (spec->attach[i].sha256)
			agent_sent(a, spec->attach[i].sha256);
	return 0;
}

char *coord_job_message(struct coord *c, struct coord_agent *a, int64_t job_id,
			int64_t run_id, const struct coord_spec *spec, size_t *len,
			struct err *why, bool *missing)
{
	static const char mid[] = "},\"objects\":";
	const char *objs;
	char head[128], *msg = NULL;
	size_t olen = 0, hlen;
	bool owned;

	*missing = false;
	if (objects_text(c, a, &spec->js, &objs, &olen, &owned, why, missing))
		return NULL;
	hlen = (size_t)snprintf(head, sizeof(head), "{\"v\":%d,\"type\":\"job\",\"job\":{\"id\":%"
				JSON_INTEGER_FORMAT ",\"run\":%" JSON_INTEGER_FORMAT ",\"spec\":",
				PROTO_VERSION, (json_int_t)job_id, (json_int_t)run_id);
	msg = malloc(hlen + spec->len + sizeof(mid) - 1 + olen + 2);
	if (msg) {
		char *p = msg;

		memcpy(p, head, hlen);
		p += hlen;
		memcpy(p, spec->text, spec->len);
		p += spec->len;
		memcpy(p, mid, sizeof(mid) - 1);
		p += sizeof(mid) - 1;
		memcpy(p, objs, olen);
		p += olen;
		*p++ = '}';
		*p = '\0';
		*len = (size_t)(p - msg);
	} else {
		err_set(why, "out of memory");
	}
	if (owned)
		free((char *)objs);
	return msg;
}

void coord_job_messages_release(struct coord *c)
{
	int i;

	for (i = 0; i < COORD_JOBMSG_SLOTS; i++) {
		free(c->jobmsg[i].key);
		free(c->jobmsg[i].text);
		free(c->jobmsg[i].refs);
		c->jobmsg[i] = (struct coord_jobmsg){ 0 };
	}
	object_cache_destroy(&c->objects);
}

// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* proto_schema.c - see proto_schema.h. One table per channel; each entry names a message
 * type and its members. A member list is an array of `struct field` ended by a NULL name;
 * the name "*" applies to every member of an object used as a map (objects to attach). */
#include "proto/proto_schema.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "plan/jobspec.h"
#include "base/util.h"

enum {
	T_STR = 1, T_INT = 2, T_REAL = 4, T_BOOL = 8, T_NULL = 16, T_OBJ = 32, T_ARR = 64,
	T_NUM = T_INT | T_REAL,
};

#define NAME_MAX_LEN 255
#define MAX_DEPTH 4

struct field {
	const char *name;		/* NULL ends a list; "*": every member of a map */
	unsigned types;			/* allowed JSON types (T_*) */
	bool required;
	bool positive;			/* integers must be >= 1 */
	size_t max;			/* string bytes / array elements / map members; 0: any */
	const char *const *oneof;	/* allowed string values, NULL-terminated */
	const struct field *fields;	/* T_OBJ: its members; T_ARR: each element's */
	unsigned elem_types;		/* T_ARR: allowed element types; 0: any */
	/* T_OBJ: checked by this instead of FIELDS (a value with a decoder of its own);
	 * PATH is the value's path text; 0 or -EINVAL with WHY */
	int (*check)(const json_t *v, const char *path, struct err *why);
};

struct schema {
	const char *type;
	const struct field *fields;
};

/* --- shared pieces --- */

static const char *const statuses[] = { "ok", "failed", NULL };
static const char *const windows[] = { "rate", "cost", NULL };
static const char *const phases[] = { "prepare", "warmup", "rate", "cost", "cleanup", NULL };

static const struct field no_fields[] = { { .name = NULL } };

static const struct field error_fields[] = {
	{ .name = "message", .types = T_STR, .max = 65536 },
	{ .name = "in_reply_to", .types = T_STR | T_NULL, .max = NAME_MAX_LEN },
	/* from an agent: the job it refuses */
	{ .name = "job", .types = T_INT | T_STR | T_NULL, .max = 127 },
	/* to a client: the request's plan cannot run as written (the CLI exits 2) */
	{ .name = "invalid", .types = T_BOOL },
	/* from an agent: the sha256 of objects the refused job names and it does not keep */
	{ .name = "missing", .types = T_ARR, .elem_types = T_STR, .max = 256 },
	{ .name = NULL },
};

static const struct field heartbeat_fields[] = {
	{ .name = "job", .types = T_INT | T_STR | T_NULL, .max = 127 },
	{ .name = NULL },
};

static const struct field object_entry[] = {
	{ .name = "sha256", .types = T_STR, .required = true, .max = 64 },
	{ .name = "data", .types = T_STR, .required = true },
	{ .name = NULL },
};

static const struct field objects_map[] = {
	{ .name = "*", .types = T_OBJ, .fields = object_entry },
	{ .name = NULL },
};

/* a job's: an object the agent keeps from an earlier job is named by its sha256 alone */
static const struct field job_object_entry[] = {
	{ .name = "sha256", .types = T_STR, .required = true, .max = 64 },
	{ .name = "data", .types = T_STR },
	{ .name = NULL },
};

static const struct field job_objects_map[] = {
	{ .name = "*", .types = T_OBJ, .fields = job_object_entry },
	{ .name = NULL },
};

/* --- agent -> coordinator --- */

static const struct field hello_fields[] = {
	{ .name = "agent", .types = T_STR, .required = true, .max = NAME_MAX_LEN },
	{ .name = "version", .types = T_STR, .max = 64 },
	{ .name = "inventory", .types = T_OBJ, .required = true },
	/* a job still running across a reconnect, and the results it will resend */
	{ .name = "job", .types = T_INT | T_STR | T_NULL, .max = 127 },
	{ .name = "spooled", .types = T_ARR, .elem_types = T_INT | T_STR, .max = 100000 },
	/* its kernel provider still runs `boot RELEASE` (a reconnect, not the new kernel) */
	{ .name = "booting", .types = T_STR | T_NULL, .max = NAME_MAX_LEN },
	/* how many objects of `job` messages it keeps by sha256 (none when absent) */
	{ .name = "objects_kept", .types = T_INT },
	{ .name = NULL },
};

static const struct field job_ref[] = {
	{ .name = "job", .types = T_INT, .required = true, .positive = true },
	{ .name = NULL },
};

static const struct field progress_fields[] = {
	{ .name = "job", .types = T_INT, .required = true, .positive = true },
	{ .name = "phase", .types = T_STR, .oneof = phases },
	{ .name = "second", .types = T_INT },
	{ .name = "of", .types = T_INT },
	{ .name = "rates", .types = T_OBJ | T_NULL },
	{ .name = NULL },
};

static const struct field sample_fields[] = {
	{ .name = "metric", .types = T_STR, .required = true, .max = NAME_MAX_LEN },
	{ .name = "value", .types = T_NUM, .required = true },
	{ .name = "subject", .types = T_STR | T_NULL, .max = NAME_MAX_LEN },
	{ .name = "unit", .types = T_STR | T_NULL, .max = 32 },
	{ .name = "window", .types = T_STR | T_NULL, .oneof = windows },
	{ .name = "seq", .types = T_INT | T_NULL },
	{ .name = NULL },
};

static const struct field result_fields[] = {
	{ .name = "job", .types = T_INT, .required = true, .positive = true },
	{ .name = "status", .types = T_STR, .required = true, .oneof = statuses },
	{ .name = "error", .types = T_STR | T_NULL, .max = 65536 },
	{ .name = "verifier_log", .types = T_STR | T_NULL },
	{ .name = "env", .types = T_OBJ | T_NULL },
	{ .name = "started_ms", .types = T_INT },
	{ .name = "finished_ms", .types = T_INT },
	{ .name = "samples", .types = T_ARR, .elem_types = T_OBJ, .fields = sample_fields },
	{ .name = "partial", .types = T_BOOL },	/* stopped by a cancel */
	{ .name = "verdicts", .types = T_ARR, .elem_types = T_STR, .max = 16 },
	{ .name = "verdict_details", .types = T_OBJ | T_NULL },
	{ .name = NULL },
};

/* two-host plans and wiring discovery (docs/protocol.md, "Links") */
static const struct field probe_report_fields[] = {
	{ .name = "probe", .types = T_INT, .required = true, .positive = true },
	{ .name = "received", .types = T_OBJ, .required = true, .max = 64 },
	{ .name = "error", .types = T_STR | T_NULL, .max = 4096 },
	{ .name = NULL },
};

/* kernel providers (docs/protocol.md, "Kernel providers") */
static const struct field boot_report_fields[] = {
	{ .name = "kernel", .types = T_STR, .required = true, .max = NAME_MAX_LEN },
	{ .name = "status", .types = T_STR, .required = true, .oneof = statuses },
	{ .name = "error", .types = T_STR | T_NULL, .max = 65536 },
	{ .name = "ms", .types = T_INT },
	{ .name = NULL },
};

static const struct schema agent_to_coord[] = {
	{ "hello", hello_fields },
	{ "heartbeat", heartbeat_fields },
	{ "accept", job_ref },
	{ "progress", progress_fields },
	{ "result", result_fields },
	{ "error", error_fields },
	{ "ready", job_ref },
	{ "probe_report", probe_report_fields },
	{ "boot_report", boot_report_fields },
	{ NULL, NULL },
};

/* --- coordinator -> agent --- */

static const struct field welcome_fields[] = {
	{ .name = "heartbeat_ms", .types = T_INT },
	{ .name = NULL },
};

/* The job spec is checked by decoding it (lib/plan/jobspec.h), as the agent will. */
static int check_spec(const json_t *v, const char *path, struct err *why)
{
	struct job_spec spec;
	int ret = jobspec_decode(v, path, &spec, why);

	jobspec_release(&spec);
	return ret ? -EINVAL : 0;
}

static const struct field job_body[] = {
	{ .name = "id", .types = T_INT | T_STR, .required = true, .positive = true, .max = 127 },
	{ .name = "run", .types = T_INT },
	{ .name = "spec", .types = T_OBJ, .required = true, .check = check_spec },
	{ .name = NULL },
};

static const struct field job_fields[] = {
	{ .name = "job", .types = T_OBJ, .required = true, .fields = job_body },
	{ .name = "objects", .types = T_OBJ, .fields = job_objects_map },
	{ .name = NULL },
};

static const struct field job_id_fields[] = {
	{ .name = "job", .types = T_INT | T_STR, .required = true, .max = 127 },
	{ .name = NULL },
};

static const struct field probe_fields[] = {
	{ .name = "probe", .types = T_INT, .required = true, .positive = true },
	{ .name = "nonces", .types = T_OBJ, .required = true, .max = 64 },
	{ .name = "send_after_ms", .types = T_INT },
	{ .name = "listen_ms", .types = T_INT },
	{ .name = NULL },
};

static const struct field go_fields[] = {
	{ .name = "job", .types = T_INT | T_STR, .required = true, .max = 127 },
	{ .name = "abort", .types = T_STR | T_NULL, .max = 4096 },
	{ .name = "at_ms", .types = T_INT },
	{ .name = NULL },
};

static const struct field boot_fields[] = {
	{ .name = "kernel", .types = T_STR, .required = true, .max = NAME_MAX_LEN },
	{ .name = NULL },
};

static const struct schema coord_to_agent[] = {
	{ "welcome", welcome_fields },
	{ "heartbeat", heartbeat_fields },
	{ "job", job_fields },
	{ "ack", job_id_fields },
	{ "cancel", job_id_fields },
	{ "go", go_fields },
	{ "probe", probe_fields },
	{ "boot", boot_fields },
	{ "error", error_fields },
	{ NULL, NULL },
};

/* --- client -> coordinator --- */

static const struct field submit_fields[] = {
	{ .name = "plan_file", .types = T_STR, .max = 4096 },
	{ .name = "plan_text", .types = T_STR, .required = true },
	{ .name = "overrides", .types = T_ARR, .elem_types = T_STR },
	{ .name = "objects", .types = T_OBJ, .fields = objects_map },
	{ .name = "hosts", .types = T_ARR, .elem_types = T_STR, .max = 4096 },
	{ .name = NULL },
};

static const struct field run_ref[] = {
	{ .name = "run", .types = T_INT, .required = true, .positive = true },
	{ .name = NULL },
};

/* store_query_values's filter (lib/store/store.h); its members are checked there */
static const struct field query_fields[] = {
	{ .name = "filter", .types = T_OBJ | T_NULL },
	{ .name = NULL },
};

/* store_import's object (lib/store/store.h); its rows are checked there */
static const struct field import_fields[] = {
	{ .name = "import", .types = T_OBJ, .required = true },
	{ .name = NULL },
};

/* bisect sessions (docs/bisect.md, "Sessions"); the store checks the rest */
static const struct field bisect_session_fields[] = {
	{ .name = "plan", .types = T_STR, .required = true, .max = 4096 },
	{ .name = "metric", .types = T_STR, .required = true, .max = NAME_MAX_LEN },
	{ .name = "kernels", .types = T_ARR, .required = true, .elem_types = T_STR, .max = 1024 },
	{ .name = "good", .types = T_STR, .required = true, .max = NAME_MAX_LEN },
	{ .name = "bad", .types = T_STR, .required = true, .max = NAME_MAX_LEN },
	{ .name = "variant", .types = T_STR | T_NULL, .max = NAME_MAX_LEN },
	{ .name = "subject", .types = T_STR | T_NULL, .max = NAME_MAX_LEN },
	{ .name = "opts", .types = T_OBJ | T_NULL },
	{ .name = NULL },
};

static const struct field bisect_start_fields[] = {
	{ .name = "session", .types = T_OBJ, .required = true, .fields = bisect_session_fields },
	{ .name = NULL },
};

static const struct field bisect_id_fields[] = {
	{ .name = "id", .types = T_INT, .positive = true },
	{ .name = NULL },
};

static const char *const bisect_ends[] = { "done", "failed", NULL };

static const struct field bisect_end_fields[] = {
	{ .name = "state", .types = T_STR, .required = true, .oneof = bisect_ends },
	{ .name = "result", .types = T_OBJ | T_NULL },
	{ .name = NULL },
};

static const struct field bisect_step_fields[] = {
	{ .name = "kernel", .types = T_STR, .required = true, .max = NAME_MAX_LEN },
	{ .name = "verdict", .types = T_STR, .required = true, .max = 32 },
	{ .name = "values", .types = T_ARR, .required = true, .elem_types = T_NUM },
	{ .name = "runs", .types = T_ARR, .elem_types = T_INT },
	{ .name = "p", .types = T_NUM | T_NULL },
	{ .name = "note", .types = T_STR | T_NULL, .max = 4096 },
	{ .name = NULL },
};

static const struct field bisect_add_step_fields[] = {
	{ .name = "id", .types = T_INT, .required = true, .positive = true },
	{ .name = "seq", .types = T_INT, .required = true, .positive = true },
	{ .name = "step", .types = T_OBJ, .required = true, .fields = bisect_step_fields },
	{ .name = "end", .types = T_OBJ | T_NULL, .fields = bisect_end_fields },
	{ .name = NULL },
};

static const struct field bisect_finish_fields[] = {
	{ .name = "id", .types = T_INT, .required = true, .positive = true },
	{ .name = "steps", .types = T_INT },
	{ .name = "end", .types = T_OBJ, .required = true, .fields = bisect_end_fields },
	{ .name = NULL },
};

static const struct field host_boot_fields[] = {
	{ .name = "host", .types = T_STR, .required = true, .max = NAME_MAX_LEN },
	{ .name = "kernel", .types = T_STR, .required = true, .max = NAME_MAX_LEN },
	{ .name = NULL },
};

static const struct schema client_to_coord[] = {
	{ "submit", submit_fields },
	{ "host_list", no_fields },
	{ "run_list", no_fields },
	{ "run_show", run_ref },
	{ "result_show", run_ref },
	{ "result_seconds", run_ref },
	{ "run_cancel", run_ref },
	{ "run_watch", run_ref },
	{ "run_attempts", run_ref },
	{ "query", query_fields },
	{ "query_spread", query_fields },
	{ "import", import_fields },
	{ "link_discover", no_fields },
	{ "link_list", no_fields },
	{ "host_boot", host_boot_fields },
	{ "bisect_get", bisect_id_fields },
	{ "bisect_list", no_fields },
	{ "bisect_start", bisect_start_fields },
	{ "bisect_add_step", bisect_add_step_fields },
	{ "bisect_finish", bisect_finish_fields },
	{ "bisect_reset", bisect_id_fields },
	{ "noise_record", run_ref },
	{ "noise_list", no_fields },
	{ NULL, NULL },
};

/* --- coordinator -> client --- */

static const struct field submitted_fields[] = {
	{ .name = "run", .types = T_INT, .required = true, .positive = true },
	{ .name = "jobs", .types = T_INT },
	{ .name = "hosts", .types = T_ARR, .elem_types = T_STR },
	{ .name = NULL },
};

static const struct field hosts_fields[] = {
	{ .name = "hosts", .types = T_ARR, .required = true, .elem_types = T_OBJ },
	{ .name = NULL },
};

static const struct field runs_fields[] = {
	{ .name = "runs", .types = T_ARR, .required = true, .elem_types = T_OBJ },
	{ .name = NULL },
};

static const struct field run_fields[] = {
	{ .name = "run", .types = T_OBJ, .required = true },
	{ .name = NULL },
};

static const struct field result_reply_fields[] = {
	{ .name = "result", .types = T_OBJ, .required = true },
	{ .name = NULL },
};

static const struct field seconds_reply_fields[] = {
	{ .name = "seconds", .types = T_OBJ, .required = true },
	{ .name = NULL },
};

static const struct field links_fields[] = {
	{ .name = "links", .types = T_ARR, .required = true, .elem_types = T_OBJ },
	{ .name = NULL },
};

static const struct field cancelled_fields[] = {
	{ .name = "run", .types = T_INT, .required = true, .positive = true },
	{ .name = "running", .types = T_ARR, .required = true, .elem_types = T_OBJ },
	{ .name = NULL },
};

static const struct field watch_fields[] = {
	{ .name = "run", .types = T_OBJ, .required = true },
	{ .name = "hosts", .types = T_ARR, .required = true, .elem_types = T_OBJ },
	{ .name = NULL },
};

static const struct field attempt_fields[] = {
	{ .name = "job", .types = T_INT, .required = true, .positive = true },
	{ .name = "attempt", .types = T_INT },
	{ .name = "host", .types = T_STR | T_NULL, .max = NAME_MAX_LEN },
	{ .name = "started_ms", .types = T_INT | T_NULL },
	{ .name = "ended_ms", .types = T_INT | T_NULL },
	{ .name = "outcome", .types = T_STR | T_NULL, .max = 64 },
	{ .name = "error", .types = T_STR | T_NULL, .max = 65536 },
	{ .name = NULL },
};

static const struct field attempts_fields[] = {
	{ .name = "attempts", .types = T_ARR, .required = true, .elem_types = T_OBJ,
	  .fields = attempt_fields },
	{ .name = NULL },
};

static const struct field values_fields[] = {
	{ .name = "values", .types = T_ARR, .required = true, .elem_types = T_OBJ },
	{ .name = "db_id", .types = T_STR, .max = 64 },
	{ .name = NULL },
};

/* store_query_run_spread's rows (lib/store/store.h) */
static const struct field run_spread_fields[] = {
	{ .name = "run_spread", .types = T_ARR, .required = true, .elem_types = T_OBJ },
	{ .name = NULL },
};

static const struct field imported_fields[] = {
	{ .name = "run", .types = T_INT, .required = true, .positive = true },
	{ .name = NULL },
};

static const struct field bisect_reply_fields[] = {
	{ .name = "session", .types = T_OBJ, .required = true },
	{ .name = NULL },
};

static const struct field bisect_list_fields[] = {
	{ .name = "sessions", .types = T_ARR, .required = true, .elem_types = T_OBJ },
	{ .name = NULL },
};

static const struct field booting_fields[] = {
	{ .name = "host", .types = T_STR, .required = true, .max = NAME_MAX_LEN },
	{ .name = "kernel", .types = T_STR, .required = true, .max = NAME_MAX_LEN },
	{ .name = "from", .types = T_STR | T_NULL, .max = NAME_MAX_LEN },
	{ .name = NULL },
};

/* noise floors (lib/store/store_noise.h); one row per host, metric and subject */
static const struct field noise_fields[] = {
	{ .name = "noise", .types = T_ARR, .required = true, .elem_types = T_OBJ },
	{ .name = NULL },
};

static const struct schema coord_to_client[] = {
	{ "submitted", submitted_fields },
	{ "hosts", hosts_fields },
	{ "runs", runs_fields },
	{ "run", run_fields },
	{ "result", result_reply_fields },
	{ "seconds", seconds_reply_fields },
	{ "links", links_fields },
	{ "cancelled", cancelled_fields },
	{ "watch", watch_fields },
	{ "attempts", attempts_fields },
	{ "values", values_fields },
	{ "run_spread", run_spread_fields },
	{ "imported", imported_fields },
	{ "booting", booting_fields },
	{ "bisect", bisect_reply_fields },
	{ "bisect_sessions", bisect_list_fields },
	{ "noise", noise_fields },
	{ "error", error_fields },
	{ NULL, NULL },
};

static const struct schema *const channels[PROTO_CH_COUNT] = {
	[PROTO_CH_AGENT_TO_COORD] = agent_to_coord,
	[PROTO_CH_COORD_TO_AGENT] = coord_to_agent,
	[PROTO_CH_CLIENT_TO_COORD] = client_to_coord,
	[PROTO_CH_COORD_TO_CLIENT] = coord_to_client,
};

/* --- checking --- */

/* Where a value sits in the message: a chain of nodes on the checker's stack, from the
 * value up to the message. Its text ("samples[3].value", "objects.x.o.sha256") is made
 * only when a message names it, not for every value checked. */
struct path {
	const struct path *up;		/* NULL: a member of the message itself */
	const char *name;		/* a member's name; NULL: element INDEX of an array */
	size_t index;
	bool map_key;			/* a member of a map: its name shown up to 64 bytes */
};

#define PATH_TEXT_LEN 192

/* Write P's text into OUT (LEN bytes, truncated like snprintf); returns the length the
 * whole text has. */
static size_t path_text(const struct path *p, char *out, size_t len)
{
	size_t off, room;

	if (!p) {
		if (len)
			out[0] = '\0';
		return 0;
	}
	off = path_text(p->up, out, len);
	room = off < len ? len - off : 0;
	if (p->name)
		off += snprintf(room ? out + off : NULL, room, "%s%.*s", off ? "." : "",
				p->map_key ? 64 : INT_MAX, p->name);
	else
		off += snprintf(room ? out + off : NULL, room, "[%zu]", p->index);
	return off;
}

/* Write "'PATH' MESSAGE" into WHY; returns -EINVAL. */
static int bad(const struct path *p, struct err *why, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int bad(const struct path *p, struct err *why, const char *fmt, ...)
{
	char path[PATH_TEXT_LEN], text[256];
	va_list ap;

	path_text(p, path, sizeof(path));
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	err_set(why, "'%s' %s", path, text);
	return -EINVAL;
}

static unsigned type_of(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_STRING: return T_STR;
	case JSON_INTEGER: return T_INT;
	case JSON_REAL: return T_REAL;
	case JSON_TRUE:
	case JSON_FALSE: return T_BOOL;
	case JSON_NULL: return T_NULL;
	case JSON_OBJECT: return T_OBJ;
	case JSON_ARRAY: return T_ARR;
	}
	return 0;
}

static const char *types_text(unsigned t, char *out, size_t len)
{
	static const struct { unsigned t; const char *name; } names[] = {
		{ T_OBJ, "an object" }, { T_ARR, "an array" }, { T_STR, "a string" },
		{ T_INT, "an integer" }, { T_REAL, "a number" }, { T_BOOL, "a boolean" },
		{ T_NULL, "null" },
	};
	size_t i, off = 0;

	out[0] = '\0';
	if ((t & T_NUM) == T_NUM)
		t &= ~T_INT;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (!(t & names[i].t))
			continue;
		off += snprintf(out + off, off < len ? len - off : 0, "%s%s", off ? " or " : "",
				names[i].name);
	}
	return out;
}

static int check_fields(const json_t *obj, const struct field *fields, const struct path *p,
			int depth, struct err *why);

static int check_string(const json_t *v, const struct field *f, const struct path *p,
			struct err *why)
{
	const char *s = json_string_value(v);
	size_t len = json_string_length(v);
	const char *const *o;

	if (f->max && len > f->max)
		return bad(p, why, "is longer than %zu bytes", f->max);
	if (memchr(s, '\0', len))
		return bad(p, why, "contains a NUL character");
	if (!f->oneof)
		return 0;
	for (o = f->oneof; *o; o++)
		if (!strcmp(*o, s))
			return 0;
	return bad(p, why, "has an unknown value '%.64s'", s);
}

static int check_array(const json_t *v, const struct field *f, const struct path *p,
		       int depth, struct err *why)
{
	struct path elem = { .up = p };
	char buf[96];
	const json_t *e;
	size_t i;

	if (f->max && json_array_size(v) > f->max)
		return bad(p, why, "has more than %zu elements", f->max);
	json_array_foreach(v, i, e) {
		elem.index = i;
		if (f->elem_types && !(type_of(e) & f->elem_types))
			return bad(&elem, why, "must be %s",
				   types_text(f->elem_types, buf, sizeof(buf)));
		if (f->fields && json_is_object(e) &&
		    check_fields(e, f->fields, &elem, depth + 1, why))
			return -EINVAL;
	}
	return 0;
}

/* Check value V of member F; P names it in messages. */
static int check_value(const json_t *v, const struct field *f, const struct path *p,
		       int depth, struct err *why)
{
	unsigned t = type_of(v);
	char buf[96];

	if (!(t & f->types))
		return bad(p, why, "must be %s", types_text(f->types, buf, sizeof(buf)));
	switch (t) {
	case T_STR:
		return check_string(v, f, p, why);
	case T_INT:
		if (f->positive && json_integer_value(v) < 1)
			return bad(p, why, "must be a positive integer");
		return 0;
	case T_ARR:
		return check_array(v, f, p, depth, why);
	case T_OBJ:
		if (f->check) {
			char path[PATH_TEXT_LEN];

			path_text(p, path, sizeof(path));
			return f->check(v, path, why);
		}
		if (!f->fields)
			return 0;
		if (f->max && json_object_size(v) > f->max)
			return bad(p, why, "has more than %zu members", f->max);
		return check_fields(v, f->fields, p, depth + 1, why);
	}
	return 0;
}

/* Every member of map OBJ against F (a "*" entry). */
static int check_map(const json_t *obj, const struct field *f, const struct path *p,
		     int depth, struct err *why)
{
	struct path member = { .up = p, .map_key = true };
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)obj, key, v) {
		member.name = key;
		if (check_value(v, f, &member, depth, why))
			return -EINVAL;
	}
	return 0;
}

static int check_fields(const json_t *obj, const struct field *fields, const struct path *p,
			int depth, struct err *why)
{
	struct path member = { .up = p };
	const struct field *f;
	const json_t *v;

	if (depth > MAX_DEPTH) {	/* the tables are our own: a bug, not input */
		char path[PATH_TEXT_LEN];

		path_text(p, path, sizeof(path));
		err_set(why, "schema nested too deep at '%s'", path);
		return -EINVAL;
	}
	for (f = fields; f->name; f++) {
		if (f->name[0] == '*' && !f->name[1]) {
			if (check_map(obj, f, p, depth, why))
				return -EINVAL;
			continue;
		}
		member.name = f->name;
		v = json_object_get(obj, f->name);
		if (!v) {
			if (f->required)
				return bad(&member, why, "is required");
			continue;
		}
		if (check_value(v, f, &member, depth, why))
			return -EINVAL;
	}
	return 0;
}

static const struct schema *find(enum proto_channel ch, const char *type)
{
	const struct schema *s;

	if ((unsigned)ch >= PROTO_CH_COUNT || !type)
		return NULL;
	for (s = channels[ch]; s->type; s++)
		if (!strcmp(s->type, type))
			return s;
	return NULL;
}

int proto_validate(const json_t *msg, enum proto_channel ch, struct err *why)
{
	const char *type = json_string_value(json_object_get(msg, "type"));
	const struct schema *s;

	if (!json_is_object(msg) || !type) {
		err_set(why, "no message \"type\"");
		return -EINVAL;
	}
	s = find(ch, type);
	if (!s) {
		err_set(why, "unknown message type '%.64s'", type);
		return -ENOENT;
	}
	if (check_fields(msg, s->fields, NULL, 0, why)) {
		/* name the message: "result: 'samples[2].value' must be a number" */
		char inner[256];

		snprintf(inner, sizeof(inner), "%.255s", why ? why->msg : "");
		err_set(why, "%s: %s", type, inner);
		return -EINVAL;
	}
	return 0;
}

const char *proto_schema_type(enum proto_channel ch, size_t i)
{
	const struct schema *s;

	if ((unsigned)ch >= PROTO_CH_COUNT)
		return NULL;
	for (s = channels[ch]; s->type; s++, i--)
		if (!i)
			return s->type;
	return NULL;
}

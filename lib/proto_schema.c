/* proto_schema.c - see proto_schema.h. One table per channel; each entry names a message
 * type and its members. A member list is an array of `struct field` ended by a NULL name;
 * the name "*" applies to every member of an object used as a map (objects to attach). */
#include "proto_schema.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

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

/* --- agent -> coordinator --- */

static const struct field hello_fields[] = {
	{ .name = "agent", .types = T_STR, .required = true, .max = NAME_MAX_LEN },
	{ .name = "version", .types = T_STR, .max = 64 },
	{ .name = "inventory", .types = T_OBJ, .required = true },
	/* a job still running across a reconnect, and the results it will resend */
	{ .name = "job", .types = T_INT | T_STR | T_NULL, .max = 127 },
	{ .name = "spooled", .types = T_ARR, .elem_types = T_INT | T_STR, .max = 100000 },
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

static const struct schema agent_to_coord[] = {
	{ "hello", hello_fields },
	{ "heartbeat", heartbeat_fields },
	{ "accept", job_ref },
	{ "progress", progress_fields },
	{ "result", result_fields },
	{ "error", error_fields },
	{ "ready", job_ref },
	{ "probe_report", probe_report_fields },
	{ NULL, NULL },
};

/* --- coordinator -> agent --- */

static const struct field welcome_fields[] = {
	{ .name = "heartbeat_ms", .types = T_INT },
	{ .name = NULL },
};

static const struct field job_body[] = {
	{ .name = "id", .types = T_INT | T_STR, .required = true, .positive = true, .max = 127 },
	{ .name = "run", .types = T_INT },
	{ .name = "spec", .types = T_OBJ, .required = true },
	{ .name = NULL },
};

static const struct field job_fields[] = {
	{ .name = "job", .types = T_OBJ, .required = true, .fields = job_body },
	{ .name = "objects", .types = T_OBJ, .fields = objects_map },
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

/* store_query_values's filter (lib/store.h); its members are checked there */
static const struct field query_fields[] = {
	{ .name = "filter", .types = T_OBJ | T_NULL },
	{ .name = NULL },
};

/* store_import's object (lib/store.h); its rows are checked there */
static const struct field import_fields[] = {
	{ .name = "import", .types = T_OBJ, .required = true },
	{ .name = NULL },
};

static const struct schema client_to_coord[] = {
	{ "submit", submit_fields },
	{ "host_list", no_fields },
	{ "run_list", no_fields },
	{ "run_show", run_ref },
	{ "result_show", run_ref },
	{ "run_cancel", run_ref },
	{ "run_watch", run_ref },
	{ "run_attempts", run_ref },
	{ "query", query_fields },
	{ "import", import_fields },
	{ "link_discover", no_fields },
	{ "link_list", no_fields },
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
	{ .name = NULL },
};

static const struct field imported_fields[] = {
	{ .name = "run", .types = T_INT, .required = true, .positive = true },
	{ .name = NULL },
};

static const struct schema coord_to_client[] = {
	{ "submitted", submitted_fields },
	{ "hosts", hosts_fields },
	{ "runs", runs_fields },
	{ "run", run_fields },
	{ "result", result_reply_fields },
	{ "links", links_fields },
	{ "cancelled", cancelled_fields },
	{ "watch", watch_fields },
	{ "attempts", attempts_fields },
	{ "values", values_fields },
	{ "imported", imported_fields },
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

static int check_fields(const json_t *obj, const struct field *fields, const char *path,
			int depth, char *why, size_t why_len);

/* Check value V of member F; PATH names it in messages. */
static int check_value(const json_t *v, const struct field *f, const char *path, int depth,
		       char *why, size_t why_len)
{
	unsigned t = type_of(v);
	char buf[96];

	if (!(t & f->types)) {
		snprintf(why, why_len, "'%s' must be %s", path, types_text(f->types, buf,
									   sizeof(buf)));
		return -EINVAL;
	}
	if (t == T_STR) {
		const char *s = json_string_value(v);
		size_t len = json_string_length(v);

		if (f->max && len > f->max) {
			snprintf(why, why_len, "'%s' is longer than %zu bytes", path, f->max);
			return -EINVAL;
		}
		if (strlen(s) != len) {
			snprintf(why, why_len, "'%s' contains a NUL character", path);
			return -EINVAL;
		}
		if (f->oneof) {
			const char *const *o;

			for (o = f->oneof; *o; o++)
				if (!strcmp(*o, s))
					break;
			if (!*o) {
				snprintf(why, why_len, "'%s' has an unknown value '%.64s'", path, s);
				return -EINVAL;
			}
		}
	} else if (t == T_INT) {
		if (f->positive && json_integer_value(v) < 1) {
			snprintf(why, why_len, "'%s' must be a positive integer", path);
			return -EINVAL;
		}
	} else if (t == T_ARR) {
		size_t i;
		const json_t *e;

		if (f->max && json_array_size(v) > f->max) {
			snprintf(why, why_len, "'%s' has more than %zu elements", path, f->max);
			return -EINVAL;
		}
		json_array_foreach(v, i, e) {
			char sub[192];

			snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
			if (f->elem_types && !(type_of(e) & f->elem_types)) {
				snprintf(why, why_len, "'%s' must be %s", sub,
					 types_text(f->elem_types, buf, sizeof(buf)));
				return -EINVAL;
			}
			if (f->fields && json_is_object(e) &&
			    check_fields(e, f->fields, sub, depth + 1, why, why_len))
				return -EINVAL;
		}
	} else if (t == T_OBJ && f->fields) {
		if (f->max && json_object_size(v) > f->max) {
			snprintf(why, why_len, "'%s' has more than %zu members", path, f->max);
			return -EINVAL;
		}
		return check_fields(v, f->fields, path, depth + 1, why, why_len);
	}
	return 0;
}

static int check_fields(const json_t *obj, const struct field *fields, const char *path,
			int depth, char *why, size_t why_len)
{
	const struct field *f;

	if (depth > MAX_DEPTH) {	/* the tables are our own: a bug, not input */
		snprintf(why, why_len, "schema nested too deep at '%s'", path);
		return -EINVAL;
	}
	for (f = fields; f->name; f++) {
		char sub[192];

		if (!strcmp(f->name, "*")) {
			const char *key;
			json_t *v;

			json_object_foreach((json_t *)obj, key, v) {
				snprintf(sub, sizeof(sub), "%s%s%.64s", path, *path ? "." : "", key);
				if (check_value(v, f, sub, depth, why, why_len))
					return -EINVAL;
			}
			continue;
		}
		snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "." : "", f->name);
		{
			const json_t *v = json_object_get(obj, f->name);

			if (!v) {
				if (f->required) {
					snprintf(why, why_len, "'%s' is required", sub);
					return -EINVAL;
				}
				continue;
			}
			if (check_value(v, f, sub, depth, why, why_len))
				return -EINVAL;
		}
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

int proto_validate(const json_t *msg, enum proto_channel ch, char *why, size_t why_len)
{
	const char *type = json_string_value(json_object_get(msg, "type"));
	const struct schema *s;

	if (!json_is_object(msg) || !type) {
		snprintf(why, why_len, "no message \"type\"");
		return -EINVAL;
	}
	s = find(ch, type);
	if (!s) {
		snprintf(why, why_len, "unknown message type '%.64s'", type);
		return -ENOENT;
	}
	if (check_fields(msg, s->fields, "", 0, why, why_len)) {
		/* name the message: "result: 'samples[2].value' must be a number" */
		char inner[256];

		snprintf(inner, sizeof(inner), "%s", why);
		snprintf(why, why_len, "%s: %s", type, inner);
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

// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* jobspec_decode.c - see jobspec.h. A job spec (JSON) into a struct job_spec.
 *
 * The decoder walks the spec object member by member with the path of each in a buffer
 * on its stack (written into WHY only when a member is refused): an unknown member, a
 * wrong type, a bad enum or a value out of range is refused with its path
 * ("spec.attach[0].hook: ..."). Strings are borrowed from the JSON, which the struct
 * keeps a reference to (spec->json).
 */
#include "plan/jobspec.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#define PATH_LEN 256

/* the members of each object of the spec, in encoding order */
static const char *const spec_keys[] = {
	"plan", "variant", "rep", "point", "ports", "traffic", "attach", "metrics", "repeat",
	"share_machine", "verifier", "link", "pair", "search", "latency",
	"hosts_match", NULL,
};
static const char *const traffic_keys[] = {
	"generator", "from", "packet", "threads", "to", "cpus", "duration_ms", "warmup_ms",
	"rate_pps", "rate_share", "burst", NULL,
};
static const char *const packet_keys[] = { "size", "proto", "flows", "dst_mac", NULL };
static const char *const attach_keys[] = {
	"port", "hook", "mode", "tc_mode", "object", "program", "maps", "counters", "sha256",
	NULL,
};
static const char *const slot_keys[] = { "key", "port", "qsize", "value", "program", NULL };
static const char *const counters_keys[] = { "map", "keys", NULL };
static const char *const repeat_keys[] = { "min", "max", "until", "on", NULL };
static const char *const link_keys[] = { "generator", "dut", NULL };
static const char *const pair_keys[] = { "role", "peer", "link", "barrier_ms", NULL };
static const char *const search_keys[] = {
	"goals", "width", "exceed", "trial_ms", "total_ms", "min_rate_pps", "max_rate_pps",
	"method", NULL,
};
static const char *const goal_keys[] = { "name", "loss", NULL };
static const char *const latency_keys[] = { "loads", "port", "goal", NULL };
static const char *const load_keys[] = { "share", "pps", NULL };

struct dec {
	struct err *err;
};

static int fail(struct dec *d, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct dec *d, const char *path, const char *fmt, ...)
{
	char text[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	err_set(d->err, "%s%s%s", path, text[0] == ' ' ? "" : ": ", text);
	return -EINVAL;
}

static int nomem(struct dec *d)
{
	err_set(d->err, "out of memory");
	return -ENOMEM;
}

/* PATH.KEY (or PATH[INDEX] with KEY NULL) into OUT (PATH_LEN bytes; a longer path is
 * cut, which only shortens a message). */
static const char *sub(char *out, const char *path, const char *key, size_t index)
{
	int n;

	if (key)
		n = snprintf(out, PATH_LEN, "%s.%s", path, key);
	else
		n = snprintf(out, PATH_LEN, "%s[%zu]", path, index);
	if (n >= PATH_LEN)	/* cut: say so */
		memcpy(out + PATH_LEN - 4, "...", 4);
	return out;
}

static int want(struct dec *d, const json_t *v, json_type type, const char *path,
		const char *what)
{
	if (v && json_typeof(v) == type)
		return 0;
	return fail(d, path, "must be %s, not %s", what, util_json_type_name(v));
}

/* NAMES (NULL-terminated) as "a, b, c" in OUT. */
static const char *joined(const char *const *names, char *out, size_t len)
{
	size_t off = 0, i;

	out[0] = '\0';
	for (i = 0; names[i] && off < len; i++)
		off += (size_t)snprintf(out + off, len - off, "%s%s", i ? ", " : "", names[i]);
	return out;
}

/* OBJ must be an object with members from KEYS only. */
static int want_object(struct dec *d, const json_t *obj, const char *path,
		       const char *const *keys)
{
	char p[PATH_LEN], known[256];
	const char *key;
	size_t i;
	json_t *v;

	if (want(d, obj, JSON_OBJECT, path, "an object"))
		return -EINVAL;
	json_object_foreach((json_t *)obj, key, v) {
		for (i = 0; keys[i] && strcmp(keys[i], key); i++)
			;
		if (!keys[i])
			return fail(d, sub(p, path, key, 0), "unknown field (%s has: %s)", path,
				    joined(keys, known, sizeof(known)));
	}
	return 0;
}

/* Member KEY of OBJ into *V, NULL when absent; when there, its path into P and -EINVAL
 * unless it is of TYPE (WHAT names it). */
static int member(struct dec *d, const json_t *obj, const char *path, const char *key,
		  json_type type, const char *what, char *p, const json_t **v)
{
	*v = json_object_get(obj, key);
	return *v ? want(d, *v, type, sub(p, path, key, 0), what) : 0;
}

static int get_str(struct dec *d, const json_t *obj, const char *path, const char *key,
		   const char **out)
{
	char p[PATH_LEN];
	const json_t *v;

	if (member(d, obj, path, key, JSON_STRING, "a string", p, &v))
		return -EINVAL;
	if (v)
		*out = json_string_value(v);
	return 0;
}

static int get_int(struct dec *d, const json_t *obj, const char *path, const char *key,
		   long long lo, long long hi, long long *out)
{
	char p[PATH_LEN];
	const json_t *v;
	long long x;

	if (member(d, obj, path, key, JSON_INTEGER, "an integer", p, &v))
		return -EINVAL;
	if (!v)
		return 0;
	x = json_integer_value(v);
	if (x < lo || x > hi)
		return fail(d, p, " %lld is out of range %lld..%lld", x, lo, hi);
	*out = x;
	return 0;
}

/* get_int into an int (LO and HI within int's range). */
static int get_i(struct dec *d, const json_t *obj, const char *path, const char *key,
		 long long lo, long long hi, int *out)
{
	long long x = *out;
	int ret = get_int(d, obj, path, key, lo, hi, &x);

	*out = (int)x;
	return ret;
}

static int get_enum(struct dec *d, const json_t *obj, const char *path, const char *key,
		    const char *const *names, int *out)
{
	const char *s = NULL;
	char p[PATH_LEN], list[128];
	int i, ret = get_str(d, obj, path, key, &s);

	if (ret || !s)
		return ret;
	for (i = 0; names[i]; i++) {
		if (!strcmp(names[i], s)) {
			*out = i;
			return 0;
		}
	}
	return fail(d, sub(p, path, key, 0), "unknown %s '%.64s' (%s)", key, s,
		    joined(names, list, sizeof(list)));
}

/* An array member of OBJ: *ARR (NULL when absent) and its size. */
static int get_array(struct dec *d, const json_t *obj, const char *path, const char *key,
		     const json_t **arr, size_t max)
{
	char p[PATH_LEN];
	const json_t *v;

	*arr = NULL;
	if (member(d, obj, path, key, JSON_ARRAY, "an array", p, &v))
		return -EINVAL;
	if (!v)
		return 0;
	if (max && json_array_size(v) > max)
		return fail(d, p, "has more than %zu elements", max);
	*arr = v;
	return 0;
}

/* An array of strings member KEY of OBJ into a new *OUT (*N entries); *PRESENT (may be
 * NULL) says whether it was there. */
static int get_strings(struct dec *d, const json_t *obj, const char *path, const char *key,
		       const char ***out, int *n, bool *present)
{
	const json_t *arr, *v;
	char p[PATH_LEN], q[PATH_LEN];
	size_t i;

	if (get_array(d, obj, path, key, &arr, 0))
		return -EINVAL;
	if (present)
		*present = arr != NULL;
	if (!arr)
		return 0;
	*out = calloc(json_array_size(arr) + 1, sizeof(**out));
	if (!*out)
		return nomem(d);
	sub(p, path, key, 0);
	json_array_foreach(arr, i, v) {
		if (want(d, v, JSON_STRING, sub(q, p, NULL, i), "a string"))
			return -EINVAL;
		(*out)[(*n)++] = json_string_value(v);
	}
	return 0;
}

/* An object of strings member KEY of OBJ (point, hosts_match) into *OUT. */
static int get_kvs(struct dec *d, const json_t *obj, const char *path, const char *key,
		   struct job_kv **out, int *n)
{
	char p[PATH_LEN], q[PATH_LEN];
	const json_t *map;
	const char *k;
	json_t *v;

	if (member(d, obj, path, key, JSON_OBJECT, "an object", p, &map))
		return -EINVAL;
	if (!map)
		return 0;
	*out = calloc(json_object_size(map) + 1, sizeof(**out));
	if (!*out)
		return nomem(d);
	json_object_foreach((json_t *)map, k, v) {
		if (want(d, v, JSON_STRING, sub(q, p, k, 0), "a string"))
			return -EINVAL;
		(*out)[*n].key = k;
		(*out)[(*n)++].value = json_string_value(v);
	}
	return 0;
}

/* traffic.rate_share: a number in (0, 1], and not beside rate_pps. */
static int decode_share(struct dec *d, const json_t *t, const char *path,
			struct job_traffic *out)
{
	const json_t *v = json_object_get(t, "rate_share");
	char p[PATH_LEN];
	double x;

	if (!v)
		return 0;
	sub(p, path, "rate_share", 0);
	if (!json_is_number(v))
		return fail(d, p, "must be a number, not %s", util_json_type_name(v));
	x = json_number_value(v);
	if (!(x > 0 && x <= 1))
		return fail(d, p, " %g is out of range (0, 1]", x);
	if (out->rate_pps)
		return fail(d, p, "cannot be given with %s.rate_pps", path);
	out->rate_share = x;
	return 0;
}

static int decode_traffic(struct dec *d, const json_t *t, const char *path,
			  struct job_traffic *out)
{
	const json_t *packet = json_object_get(t, "packet"), *cpus = NULL, *v;
	char pp[PATH_LEN], p[PATH_LEN];
	long long x;
	size_t i;
	int e;

	if (want_object(d, t, path, traffic_keys))
		return -EINVAL;
	e = get_enum(d, t, path, "generator", jobspec_generator_names, (int *)&out->generator) ?:
	    get_str(d, t, path, "from", &out->from);
	if (e)
		return e;
	if (packet) {
		sub(pp, path, "packet", 0);
		e = want_object(d, packet, pp, packet_keys) ?:
		    get_i(d, packet, pp, "size", 1, 65535, &out->size) ?:
		    get_enum(d, packet, pp, "proto", jobspec_proto_names, (int *)&out->proto) ?:
		    get_i(d, packet, pp, "flows", 1, JOBSPEC_MAX_FLOWS, &out->flows) ?:
		    get_str(d, packet, pp, "dst_mac", &out->dst_mac);
		if (e)
			return e;
	}
	e = get_i(d, t, path, "threads", 1, JOBSPEC_MAX_THREADS, &out->threads) ?:
	    get_str(d, t, path, "to", &out->to) ?:
	    get_array(d, t, path, "cpus", &cpus, JOBSPEC_MAX_CPUS);
	if (e)
		return e;
	if (cpus && json_array_size(cpus)) {
		out->cpus = calloc(json_array_size(cpus), sizeof(*out->cpus));
		if (!out->cpus)
			return nomem(d);
		sub(pp, path, "cpus", 0);
		json_array_foreach(cpus, i, v) {
			if (want(d, v, JSON_INTEGER, sub(p, pp, NULL, i), "an integer"))
				return -EINVAL;
			x = json_integer_value(v);
			if (x < 0 || x > JOBSPEC_MAX_CPU)
				return fail(d, p, " %lld is out of range 0..%d", x, JOBSPEC_MAX_CPU);
			out->cpus[out->n_cpus++] = (int)x;
		}
	}
	x = 0;
	e = get_int(d, t, path, "duration_ms", 1, JOBSPEC_MAX_DURATION_MS, &x);
	out->duration_ms = x;
	x = 0;
	e = e ?: get_int(d, t, path, "warmup_ms", 0, JOBSPEC_MAX_WARMUP_MS, &x);
	out->warmup_ms = x;
	x = 0;
	e = e ?: get_int(d, t, path, "rate_pps", 1, JOBSPEC_MAX_RATE_PPS, &x);
	out->rate_pps = x;
	e = e ?: get_i(d, t, path, "burst", 1, JOBSPEC_MAX_BURST, &out->burst);
	return e ?: decode_share(d, t, path, out);
}

static int decode_slot(struct dec *d, const json_t *s, const char *path, struct job_slot *out)
{
	long long x = 0;
	int e;

	if (want_object(d, s, path, slot_keys))
		return -EINVAL;
	if (!json_object_get(s, "key"))
		return fail(d, path, "needs a key");
	e = get_int(d, s, path, "key", LLONG_MIN, LLONG_MAX, &out->key) ?:
	    get_str(d, s, path, "port", &out->port) ?:
	    get_i(d, s, path, "qsize", 1, JOBSPEC_MAX_QSIZE, &out->qsize) ?:
	    get_int(d, s, path, "value", LLONG_MIN, LLONG_MAX, &x) ?:
	    get_str(d, s, path, "program", &out->program);
	out->has_value = json_object_get(s, "value") != NULL;
	out->value = x;
	return e;
}

static int decode_maps(struct dec *d, const json_t *maps, const char *path,
		       struct job_attach *a)
{
	char p[PATH_LEN], q[PATH_LEN];
	const char *name;
	const json_t *s;
	json_t *slots;
	size_t i;
	int e;

	if (want(d, maps, JSON_OBJECT, path, "an object"))
		return -EINVAL;
	a->maps = calloc(json_object_size(maps) + 1, sizeof(*a->maps));
	if (!a->maps)
		return nomem(d);
	json_object_foreach((json_t *)maps, name, slots) {
		struct job_map *m = &a->maps[a->n_maps++];

		m->name = name;
		if (want(d, slots, JSON_ARRAY, sub(p, path, name, 0), "an array"))
			return -EINVAL;
		m->slots = calloc(json_array_size(slots) + 1, sizeof(*m->slots));
		if (!m->slots)
			return nomem(d);
		json_array_foreach(slots, i, s) {
			e = decode_slot(d, s, sub(q, p, NULL, i), &m->slots[m->n_slots++]);
			if (e)
				return e;
		}
	}
	return 0;
}

/* A counters index: a canonical decimal number (what the encoder writes back). */
static int counter_index(const char *s, unsigned int *out)
{
	unsigned long long v = 0;
	const char *c;

	if (!*s || (s[0] == '0' && s[1]) || strlen(s) > 10)
		return -EINVAL;
	for (c = s; *c; c++) {
		if (*c < '0' || *c > '9')
			return -EINVAL;
		v = v * 10 + (unsigned)(*c - '0');
	}
	if (v > UINT_MAX)
		return -EINVAL;
	*out = (unsigned int)v;
	return 0;
}

static int decode_counters(struct dec *d, const json_t *list, const char *path,
			   struct job_attach *a)
{
	char p[PATH_LEN], q[PATH_LEN], r[PATH_LEN];
	const json_t *entry, *keys;
	const char *idx;
	json_t *name;
	size_t i;

	if (want(d, list, JSON_ARRAY, path, "an array"))
		return -EINVAL;
	a->counters = calloc(json_array_size(list) + 1, sizeof(*a->counters));
	if (!a->counters)
		return nomem(d);
	json_array_foreach(list, i, entry) {
		struct job_counters *ct = &a->counters[a->n_counters++];

		sub(p, path, NULL, i);
		if (want_object(d, entry, p, counters_keys) ||
		    get_str(d, entry, p, "map", &ct->map))
			return -EINVAL;
		if (!ct->map)
			return fail(d, p, "needs a map");
		keys = json_object_get(entry, "keys");
		if (!keys)
			continue;
		if (want(d, keys, JSON_OBJECT, sub(q, p, "keys", 0), "an object"))
			return -EINVAL;
		ct->keys = calloc(json_object_size(keys) + 1, sizeof(*ct->keys));
		if (!ct->keys)
			return nomem(d);
		json_object_foreach((json_t *)keys, idx, name) {
			struct job_counter_key *k = &ct->keys[ct->n_keys++];

			sub(r, q, idx, 0);
			if (counter_index(idx, &k->index))
				return fail(d, r, "is not a counter index (a decimal number)");
			if (want(d, name, JSON_STRING, r, "a string"))
				return -EINVAL;
			k->name = json_string_value(name);
		}
	}
	return 0;
}

/* Entry I of the attach array, at PATH. */
static int decode_entry(struct dec *d, const json_t *e, const char *path, size_t i,
			struct job_attach *a)
{
	const json_t *tc = json_object_get(e, "tc_mode"), *v;
	char p[PATH_LEN];
	const char *s;
	int ret;

	if (want_object(d, e, path, attach_keys))
		return -EINVAL;
	if (get_str(d, e, path, "port", &a->port) || get_str(d, e, path, "object", &a->object) ||
	    get_str(d, e, path, "program", &a->program))
		return -EINVAL;
	if (!a->port || !json_object_get(e, "hook") || !a->object || !a->program)
		return fail(d, path, "attach entry %zu needs port, hook, object and program", i);
	ret = get_enum(d, e, path, "hook", jobspec_hook_names, (int *)&a->hook) ?:
	      get_enum(d, e, path, "mode", jobspec_xdp_mode_names, (int *)&a->mode);
	if (ret)
		return ret;
	if (tc) {
		/* the agent's words before the spec had one decoder */
		s = json_string_value(tc);
		for (ret = 0; s && jobspec_tc_mode_names[ret] &&
			      strcmp(jobspec_tc_mode_names[ret], s); ret++)
			;
		if (!s || !jobspec_tc_mode_names[ret] || a->hook == JOB_HOOK_XDP)
			return fail(d, sub(p, path, "tc_mode", 0),
				    "attach entry %zu: tc_mode must be auto, tcx or clsact, and only with a tc hook (it is %s%.64s%s with hook %s)",
				    i, s ? "'" : "", s ? s : util_json_type_name(tc), s ? "'" : "",
				    jobspec_hook_names[a->hook]);
		a->tc_mode = (enum job_tc_mode)ret;
	}
	if ((v = json_object_get(e, "maps")) && decode_maps(d, v, sub(p, path, "maps", 0), a))
		return -EINVAL;
	if ((v = json_object_get(e, "counters")) &&
	    decode_counters(d, v, sub(p, path, "counters", 0), a))
		return -EINVAL;
	return get_str(d, e, path, "sha256", &a->sha256);
}

static int decode_attach(struct dec *d, const json_t *arr, const char *path,
			 struct job_attach **out, int *n)
{
	char p[PATH_LEN];
	const json_t *e;
	size_t i;
	int ret;

	if (want(d, arr, JSON_ARRAY, path, "an array"))
		return -EINVAL;
	*out = calloc(json_array_size(arr) + 1, sizeof(**out));
	if (!*out)
		return nomem(d);
	json_array_foreach(arr, i, e) {
		ret = decode_entry(d, e, sub(p, path, NULL, i), i, &(*out)[(*n)++]);
		if (ret)
			return ret;
	}
	return 0;
}

static int decode_link(struct dec *d, const json_t *obj, const char *path, const char *key,
		       const char **gen, const char **dut)
{
	const json_t *link = json_object_get(obj, key);
	char p[PATH_LEN];

	if (!link)
		return 0;
	sub(p, path, key, 0);
	return want_object(d, link, p, link_keys) ?: get_str(d, link, p, "generator", gen) ?:
	       get_str(d, link, p, "dut", dut);
}

static int decode_pair(struct dec *d, const json_t *pair, const char *path,
		       struct job_pair *out)
{
	long long x = out->barrier_ms;
	int e;

	if (want_object(d, pair, path, pair_keys))
		return -EINVAL;
	if (!json_object_get(pair, "role"))
		return fail(d, path, "needs a role (generator or dut)");
	e = get_enum(d, pair, path, "role", jobspec_pair_role_names, (int *)&out->role) ?:
	    get_str(d, pair, path, "peer", &out->peer) ?:
	    decode_link(d, pair, path, "link", &out->link_generator, &out->link_dut) ?:
	    get_int(d, pair, path, "barrier_ms", 0, JOBSPEC_MAX_DURATION_MS, &x);
	out->barrier_ms = x;
	return e;
}

static int decode_repeat(struct dec *d, const json_t *r, const char *path,
			 struct job_repeat *out)
{
	const json_t *until = json_object_get(r, "until");
	char p[PATH_LEN];

	if (want_object(d, r, path, repeat_keys) ||
	    get_i(d, r, path, "min", 0, INT_MAX, &out->min) ||
	    get_i(d, r, path, "max", 0, INT_MAX, &out->max) ||
	    get_strings(d, r, path, "on", &out->on, &out->n_on, NULL))
		return -EINVAL;
	if (!until)
		return 0;
	sub(p, path, "until", 0);
	if (!json_is_number(until))
		return fail(d, p, "must be a number, not %s", util_json_type_name(until));
	out->until = json_number_value(until);
	if (!(out->until >= 0 && out->until <= 1))
		return fail(d, p, " %g is out of range 0..1", out->until);
	return 0;
}

/* A required number member KEY of OBJ in [0, 1), or (0, 1) with LO_OUT. */
static int get_fraction(struct dec *d, const json_t *obj, const char *path, const char *key,
			bool lo_out, double *out)
{
	const json_t *v = json_object_get(obj, key);
	char p[PATH_LEN];
	double x;

	sub(p, path, key, 0);
	if (!v)
		return fail(d, p, "is required");
	if (!json_is_number(v))
		return fail(d, p, "must be a number, not %s", util_json_type_name(v));
	x = json_number_value(v);
	if (!(x >= 0 && x < 1) || (lo_out && !(x > 0)))
		return fail(d, p, " %g is out of range %s0..1)", x, lo_out ? "(" : "[");
	*out = x;
	return 0;
}

/* A required integer member, as get_int. */
static int need_int(struct dec *d, const json_t *obj, const char *path, const char *key,
		    long long lo, long long hi, int64_t *out)
{
	long long x = -1;
	char p[PATH_LEN];

	if (!json_object_get(obj, key))
		return fail(d, sub(p, path, key, 0), "is required");
	if (get_int(d, obj, path, key, lo, hi, &x))
		return -EINVAL;
	*out = x;
	return 0;
}

static int decode_search(struct dec *d, const json_t *o, const char *path,
			 struct job_search *out)
{
	char p[PATH_LEN], g[PATH_LEN];
	const json_t *goals, *goal;
	size_t i;

	if (want_object(d, o, path, search_keys) ||
	    get_enum(d, o, path, "method", jobspec_search_method_names, (int *)&out->method) ||
	    get_array(d, o, path, "goals", &goals, JOBSPEC_MAX_GOALS))
		return -EINVAL;
	sub(p, path, "goals", 0);
	if (!goals || !json_array_size(goals))
		return fail(d, p, "needs at least one goal");
	json_array_foreach(goals, i, goal) {
		struct job_search_goal *sg = &out->goals[i];

		sub(g, p, NULL, i);
		if (want_object(d, goal, g, goal_keys) || get_str(d, goal, g, "name", &sg->name) ||
		    get_fraction(d, goal, g, "loss", false, &sg->loss))
			return -EINVAL;
		if (!sg->name || !sg->name[0])
			return fail(d, g, "needs a name");
	}
	out->n_goals = (int)json_array_size(goals);
	if (get_fraction(d, o, path, "width", true, &out->width) ||
	    get_fraction(d, o, path, "exceed", false, &out->exceed) ||
	    need_int(d, o, path, "trial_ms", 1, JOBSPEC_MAX_DURATION_MS, &out->trial_ms) ||
	    need_int(d, o, path, "total_ms", 1, JOBSPEC_MAX_DURATION_MS, &out->total_ms) ||
	    need_int(d, o, path, "min_rate_pps", 1, JOBSPEC_MAX_RATE_PPS, &out->min_rate_pps) ||
	    need_int(d, o, path, "max_rate_pps", 1, JOBSPEC_MAX_RATE_PPS, &out->max_rate_pps))
		return -EINVAL;
	if (out->total_ms < out->trial_ms)
		return fail(d, sub(p, path, "total_ms", 0), " %lld is less than trial_ms %lld",
			    (long long)out->total_ms, (long long)out->trial_ms);
	if (out->min_rate_pps >= out->max_rate_pps)
		return fail(d, sub(p, path, "min_rate_pps", 0), " %lld is not below max_rate_pps %lld",
			    (long long)out->min_rate_pps, (long long)out->max_rate_pps);
	return 0;
}

static int decode_latency(struct dec *d, const json_t *o, const char *path,
			  struct job_latency *out)
{
	char p[PATH_LEN], e[PATH_LEN], f[PATH_LEN];
	const json_t *loads, *load, *share;
	size_t i;

	if (want_object(d, o, path, latency_keys) ||
	    get_array(d, o, path, "loads", &loads, JOBSPEC_MAX_LOADS) ||
	    get_str(d, o, path, "port", &out->port) || get_str(d, o, path, "goal", &out->goal))
		return -EINVAL;
	sub(p, path, "loads", 0);
	if (!loads || !json_array_size(loads))
		return fail(d, p, "needs at least one load");
	json_array_foreach(loads, i, load) {
		struct job_latency_load *ld = &out->loads[i];
		double x;

		sub(e, p, NULL, i);
		if (want_object(d, load, e, load_keys))
			return -EINVAL;
		share = json_object_get(load, "share");
		if (share && json_object_get(load, "pps"))
			return fail(d, e, "has both share and pps");
		if (!share) {
			if (need_int(d, load, e, "pps", 1, JOBSPEC_MAX_RATE_PPS, &ld->pps))
				return -EINVAL;
			continue;
		}
		sub(f, e, "share", 0);
		if (!json_is_number(share))
			return fail(d, f, "must be a number, not %s", util_json_type_name(share));
		x = json_number_value(share);
		if (!(x > 0 && x <= 1))
			return fail(d, f, " %g is out of range (0..1]", x);
		ld->share = x;
	}
	out->n_loads = (int)json_array_size(loads);
	return 0;
}

static int decode(struct dec *d, const json_t *j, const char *path, struct job_spec *s)
{
	char p[PATH_LEN];
	const json_t *v;

	if (want_object(d, j, path, spec_keys) || get_str(d, j, path, "plan", &s->plan) ||
	    get_str(d, j, path, "variant", &s->variant) ||
	    get_i(d, j, path, "rep", 0, INT_MAX, &s->rep) ||
	    get_kvs(d, j, path, "point", &s->point, &s->n_point) ||
	    get_strings(d, j, path, "ports", &s->ports, &s->n_ports, NULL))
		return -EINVAL;
	if ((v = json_object_get(j, "traffic")) &&
	    decode_traffic(d, v, sub(p, path, "traffic", 0), &s->traffic))
		return -EINVAL;
	if ((v = json_object_get(j, "attach")) &&
	    decode_attach(d, v, sub(p, path, "attach", 0), &s->attach, &s->n_attach))
		return -EINVAL;
	if (get_strings(d, j, path, "metrics", &s->metrics, &s->n_metrics, &s->has_metrics))
		return -EINVAL;
	if ((v = json_object_get(j, "repeat"))) {
		s->has_repeat = true;
		if (decode_repeat(d, v, sub(p, path, "repeat", 0), &s->repeat))
			return -EINVAL;
	}
	if ((v = json_object_get(j, "share_machine"))) {
		if (!json_is_boolean(v))
			return fail(d, sub(p, path, "share_machine", 0), "must be a boolean, not %s",
				    util_json_type_name(v));
		s->share_machine = json_is_true(v);
	}
	if (get_enum(d, j, path, "verifier", jobspec_verifier_names, (int *)&s->verifier))
		return -EINVAL;
	if (decode_link(d, j, path, "link", &s->link_generator, &s->link_dut))
		return -EINVAL;
	if ((v = json_object_get(j, "pair"))) {
		s->has_pair = true;
		if (decode_pair(d, v, sub(p, path, "pair", 0), &s->pair))
			return -EINVAL;
	}
	if ((v = json_object_get(j, "search"))) {
		s->has_search = true;
		if (decode_search(d, v, sub(p, path, "search", 0), &s->search))
			return -EINVAL;
	}
	if ((v = json_object_get(j, "latency"))) {
		s->has_latency = true;
		if (decode_latency(d, v, sub(p, path, "latency", 0), &s->latency))
			return -EINVAL;
	}
	return get_kvs(d, j, path, "hosts_match", &s->hosts_match, &s->n_hosts_match);
}

int jobspec_decode(const json_t *json, const char *path, struct job_spec *spec,
		   struct err *err)
{
	struct dec d = { .err = err };
	int ret;

	jobspec_init(spec);
	err_clear(err);
	ret = decode(&d, json, path ? path : "spec", spec);
	if (ret) {
		jobspec_release(spec);
		return ret == -ENOMEM ? -ENOMEM : -EINVAL;
	}
	spec->json = json_incref((json_t *)json);
	return 0;
}

int jobspec_decode_attach(const json_t *json, struct job_attach **attach, int *n,
			  struct err *err)
{
	struct dec d = { .err = err };
	int ret;

	*attach = NULL;
	*n = 0;
	err_clear(err);
	ret = decode_attach(&d, json, "spec.attach", attach, n);
	if (ret) {
		jobspec_attach_free(*attach, *n);
		*attach = NULL;
		*n = 0;
	}
	return ret;
}

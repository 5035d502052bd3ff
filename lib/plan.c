/* plan.c - see plan.h. Plan validation, overrides, matrix points and job expansion.
 *
 * The text is parsed into a positioned tree (plan_tree.c), the -s overrides replace or
 * create nodes in it, and plan_build() checks the tree against the plan format
 * (docs/plans.md) while filling a struct plan. The strings of a struct plan are not
 * copies: they point into the tree's nodes, which the plan owns (plan->tree) and frees in
 * plan_destroy(); only the arrays are the plan's own.
 *
 * A matrix point is a set of temporary overrides: each axis value is put into the tree
 * (plan_tree_set with undo), the tree is built again into a scratch struct plan, and the
 * changes are undone in reverse order. plan_parse() does that for every point so that a
 * bad point refuses the plan; plan_expand() does it again to write the job specs. A point
 * may not vary the matrix, repeat or the variants, so the scratch plan skips the matrix
 * and borrows the plan's variants: a point costs the small sections only. The number of
 * jobs (points x repeat x variants) and of attach entries over all jobs are checked
 * before any point is built, and every list a plan may hold has a bound (below), so the
 * work stays linear in the text plus linear in the (capped) expansion.
 *
 * Called from the CLI and the coordinator's thread; no global state, no logging (errors
 * go to struct plan_error for the caller to print).
 */
#include "plan.h"
#include "plan_tree.h"
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLAN_MAX_NAME 128		/* plan and variant names, roles, programs */
#define PLAN_MAX_PORTS 64
#define PLAN_MAX_VARIANTS 1000
#define PLAN_MAX_ATTACH 16		/* per variant */
#define PLAN_MAX_ATTACH_TOTAL 400000	/* attach entries over all jobs of a plan */
#define PLAN_MAX_MATCH 64
#define PLAN_MAX_HOSTS 10000
#define PLAN_MAX_AXES 16
#define PLAN_MAX_VALUE 1024		/* length of a matrix value or a selector */
#define PLAN_MAX_OBJECT 1024		/* length of an object name or path */
#define PLAN_MAX_KEY 256		/* length of an override or matrix key */
#define PLAN_MAX_REPEAT 1000
#define PLAN_MAX_DURATION_MS JOBSPEC_MAX_DURATION_MS
#define PLAN_MAX_WARMUP_MS (600 * 1000)
#define PLAN_MAX_CPUS JOBSPEC_MAX_CPUS	/* traffic.cpus entries */
#define PLAN_MAX_FILL_MAPS 8		/* maps filled per attach entry */
#define PLAN_MAX_FILLS 256		/* slots per filled map */
#define PLAN_MAX_COUNTER_MAPS 8		/* counters entries per attach entry */
#define PLAN_MAX_COUNTER_KEYS 64	/* keys per counters entry */
#define PLAN_MAX_QSIZE JOBSPEC_MAX_QSIZE	/* the kernel's cpumap limit */

/* Maps whose keys may contain dots: below them the rest of a path is one key. */
static const char *const one_key_maps[] = { "hosts.match", "variants", "matrix", NULL };

static const char *const root_keys[] = {
	"name", "description", "hosts", "ports", "traffic", "variants", "matrix", "repeat",
	"metrics", "link", "min_effect", "share_machine", NULL,
};
static const char *const repeat_keys[] = { "min", "max", "until", "on", NULL };
static const char *const link_keys[] = { "generator", "dut", NULL };
static const char *const hosts_keys[] = { "match", "count", NULL };
static const char *const traffic_keys[] = {
	"generator", "from", "to", "packet", "threads", "cpus", "duration", "warmup", NULL,
};
static const char *const packet_keys[] = { "size", "proto", "flows", NULL };
static const char *const attach_keys[] = {
	"port", "hook", "mode", "tc_mode", "object", "program", "maps", "counters", NULL,
};
static const char *const fill_keys[] = { "key", "port", "program", "qsize", "value", NULL };
static const char *const counter_keys[] = { "map", "keys", NULL };

/* enum names: the job spec's (jobspec.h) */
#define hook_names jobspec_hook_names
#define mode_names jobspec_xdp_mode_names
#define tc_mode_names jobspec_tc_mode_names
#define generator_names jobspec_generator_names
#define proto_names jobspec_proto_names

static const char *const known_metrics[] = {
	"port.rx_pps", "port.tx_pps", "port.drop_pps", "gen.tx_pps", "prog.ns_per_run",
	"prog.run_pps", "cpu.softirq", "cpu.busy", "counter.pps", NULL,
};
static const char *const default_metrics[] = {
	"port.rx_pps", "port.tx_pps", "port.drop_pps", "gen.tx_pps", "prog.ns_per_run",
	"prog.run_pps",
};

const char *plan_hook_name(enum plan_hook hook)
{
	return jobspec_name(hook_names, hook);
}

const char *plan_xdp_mode_name(enum plan_xdp_mode mode)
{
	return jobspec_name(mode_names, mode);
}

const char *plan_tc_mode_name(enum plan_tc_mode mode)
{
	return jobspec_name(tc_mode_names, mode);
}

const char *plan_generator_name(enum plan_generator gen)
{
	return jobspec_name(generator_names, gen);
}

const char *plan_proto_name(enum plan_proto proto)
{
	return jobspec_name(proto_names, proto);
}

bool plan_metric_known(const char *name)
{
	const char *const *m;

	for (m = known_metrics; name && *m; m++) {
		if (!strcmp(*m, name))
			return true;
	}
	return false;
}

/* ---- messages ---- */

/* TEXT for a message: at most 64 characters, control characters and non-ASCII bytes
 * escaped, so that hostile input cannot garble a terminal or a log line. */
static const char *shown(const char *text, char *buf, size_t len)
{
	size_t o = 0, i;

	for (i = 0; text[i] && o + 8 < len; i++) {
		unsigned char ch = (unsigned char)text[i];

		if (i == 64) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		if (ch < 0x20 || ch >= 0x7f || ch == '\\')
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", ch);
		else
			buf[o++] = (char)ch;
	}
	buf[o] = '\0';
	return buf;
}

/* What NODE is, for "got ...": 'text', a map, a list, nothing. */
static const char *got(const struct plan_node *node, char *buf, size_t len)
{
	char tmp[400];

	if (!node || plan_node_is_null(node))
		return "nothing";
	if (node->kind == PLAN_NODE_MAP)
		return "a map";
	if (node->kind == PLAN_NODE_SEQ)
		return "a list";
	snprintf(buf, len, "'%s'", shown(node->text, tmp, sizeof(tmp)));
	return buf;
}

/* "a, b, c" of a NULL-terminated list or of N strings, cut short with "..." */
static const char *joined(const char *const *list, int n, char *buf, size_t len)
{
	size_t o = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; n < 0 ? list[i] != NULL : i < n; i++) {
		size_t need = strlen(list[i]) + 2;

		if (o + need + 4 >= len) {
			snprintf(buf + o, len - o, "%s...", i ? ", " : "");
			break;
		}
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "", list[i]);
	}
	return buf;
}

/* Validation state: where errors go and what to put in front of them. */
struct vctx {
	const char *file;
	struct plan_error *err;
	const char *point;		/* "matrix point k=v, ..." while building a point */
	const struct plan *base;	/* the plan whose point is built */
	const char *subject;		/* "variant 'drop'" inside a variant */
};

static int vfail(struct vctx *c, const struct plan_node *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Fill the error: "FILE:L:C: [ORIGIN: | POINT: ][SUBJECT: ]message", or "FILE: ..." for
 * a node that has no place in the file. Returns -EINVAL. */
static int vfail(struct vctx *c, const struct plan_node *at, const char *fmt, ...)
{
	char msg[768], pre[640] = "";
	size_t o = 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (at && at->origin)
		o = (size_t)snprintf(pre, sizeof(pre), "%s: ", at->origin);
	else if (c->point)
		o = (size_t)snprintf(pre, sizeof(pre), "%s: ", c->point);
	if (c->subject && o < sizeof(pre))
		snprintf(pre + o, sizeof(pre) - o, "%s: ", c->subject);
	c->err->line = at ? at->line : 0;
	c->err->col = at ? at->col : 0;
	if (c->err->line)
		n = snprintf(c->err->text, sizeof(c->err->text), "%s:%d:%d: %s%s", c->file,
			     c->err->line, c->err->col, pre, msg);
	else
		n = snprintf(c->err->text, sizeof(c->err->text), "%s: %s%s", c->file, pre, msg);
	if (n >= (int)sizeof(c->err->text))	/* show that it was cut */
		memcpy(c->err->text + sizeof(c->err->text) - 4, "...", 4);
	return -EINVAL;
}

static int set_error(struct plan_error *err, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int set_error(struct plan_error *err, int line, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->text, sizeof(err->text), fmt, ap);
	va_end(ap);
	err->line = line;
	err->col = col;
	return -EINVAL;
}

static int oom(struct vctx *c)
{
	set_error(c->err, 0, 0, "%s: out of memory", c->file);
	return -ENOMEM;
}

/* ---- typed values ---- */

static bool in_list(const char *const *list, const char *s)
{
	for (; *list; list++) {
		if (!strcmp(*list, s))
			return true;
	}
	return false;
}

/* Letters, digits and the characters in EXTRA, 1 to MAX long. */
static bool name_ok(const char *s, const char *extra, size_t max)
{
	size_t i;

	for (i = 0; s[i]; i++) {
		char ch = s[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || strchr(extra, ch)))
			return false;
	}
	return i > 0 && i <= max;
}

/* The value of an optional KEY in MAP, NULL when absent or null. */
static struct plan_node *opt(const struct plan_node *map, const char *key)
{
	struct plan_node *v = plan_node_get(map, key, NULL);

	return plan_node_is_null(v) ? NULL : v;
}

static int check_keys(struct vctx *c, const struct plan_node *map,
		      const char *const *known, const char *where)
{
	char buf[400], list[300];
	int i;

	for (i = 0; i + 1 < map->n; i += 2) {
		const struct plan_node *key = map->kids[i];

		if (!in_list(known, key->text))
			return vfail(c, key, "unknown key '%s' in %s (expected one of: %s)",
				     shown(key->text, buf, sizeof(buf)), where,
				     joined(known, -1, list, sizeof(list)));
	}
	return 0;
}

/* The value of a required KEY (possibly a null node), or an error at the map. */
static int need(struct vctx *c, const struct plan_node *map, const char *key,
		const char *where, struct plan_node **out)
{
	*out = plan_node_get(map, key, NULL);
	if (*out)
		return 0;
	if (where)
		return vfail(c, map, "missing required key '%s' in %s", key, where);
	return vfail(c, map, "missing required key '%s'", key);
}

static int want_map(struct vctx *c, const struct plan_node *node, const char *path)
{
	char buf[400];

	if (node && node->kind == PLAN_NODE_MAP)
		return 0;
	return vfail(c, node, "%s: expected a map, got %s", path, got(node, buf, sizeof(buf)));
}

static int want_list(struct vctx *c, const struct plan_node *node, const char *path,
		     const char *what, int max)
{
	char buf[400];

	if (!node || node->kind != PLAN_NODE_SEQ || !node->n)
		return vfail(c, node, "%s: expected a non-empty list of %s, got %s", path, what,
			     node && node->kind == PLAN_NODE_SEQ ? "an empty list" :
			     got(node, buf, sizeof(buf)));
	if (node->n > max)
		return vfail(c, node, "%s: at most %d %s are supported, got %d", path, max,
			     what, node->n);
	return 0;
}

/* A scalar that is neither null nor empty. */
static int want_text(struct vctx *c, const struct plan_node *node, const char *path,
		     const char *what, size_t max)
{
	char buf[400];

	if (!node || node->kind != PLAN_NODE_SCALAR || !node->text[0])
		return vfail(c, node, "%s: expected %s, got %s", path, what,
			     got(node, buf, sizeof(buf)));
	if (strlen(node->text) > max)
		return vfail(c, node, "%s: expected %s of at most %zu characters", path, what,
			     max);
	return 0;
}

static int want_name(struct vctx *c, const struct plan_node *node, const char *path,
		     const char *extra, const char *what)
{
	char buf[400];

	if (node && node->kind == PLAN_NODE_SCALAR && name_ok(node->text, extra, PLAN_MAX_NAME))
		return 0;
	return vfail(c, node, "%s: expected %s, got %s", path, what, got(node, buf, sizeof(buf)));
}

/* Decimal integer of the whole scalar ("-" allowed, no spaces, no "+"). */
static bool parse_int(const struct plan_node *node, long long *out)
{
	const char *s;

	if (!node || node->kind != PLAN_NODE_SCALAR)
		return false;
	s = node->text;
	if (!*s || *s == ' ' || *s == '\t' || *s == '+')
		return false;
	return util_parse_int(s, out) == 0;
}

static int want_int(struct vctx *c, const struct plan_node *node, const char *path,
		    long long lo, long long hi, int *out)
{
	char buf[400];
	long long v;

	if (parse_int(node, &v) && v >= lo && v <= hi) {
		*out = (int)v;
		return 0;
	}
	return vfail(c, node, "%s: expected an integer from %lld to %lld, got %s", path, lo,
		     hi, got(node, buf, sizeof(buf)));
}

static int want_enum(struct vctx *c, const struct plan_node *node, const char *path,
		     const char *const *names, int *out)
{
	char buf[400], list[200];
	int i;

	for (i = 0; node && node->kind == PLAN_NODE_SCALAR && names[i]; i++) {
		if (!strcmp(names[i], node->text)) {
			*out = i;
			return 0;
		}
	}
	return vfail(c, node, "%s: expected one of %s, got %s", path,
		     joined(names, -1, list, sizeof(list)), got(node, buf, sizeof(buf)));
}

static int want_duration(struct vctx *c, const struct plan_node *node, const char *path,
			 int64_t lo, int64_t hi, const char *range, int64_t *out)
{
	char buf[400];
	int64_t ms;

	if (node && node->kind == PLAN_NODE_SCALAR &&
	    !util_parse_duration_ms(node->text, &ms) && ms >= lo && ms <= hi) {
		*out = ms;
		return 0;
	}
	return vfail(c, node, "%s: expected a duration from %s (such as 10s, 500ms or 2m), got %s",
		     path, range, got(node, buf, sizeof(buf)));
}

/* Whether ROLE is one of P's ports; otherwise an error at NODE naming them. */
static int want_port(struct vctx *c, const struct plan *p, const struct plan_node *node,
		     const char *what)
{
	char buf[400], list[300];
	int i;

	if (want_name(c, node, what, "_-", "a port role"))
		return -EINVAL;
	for (i = 0; i < p->n_ports; i++) {
		if (!strcmp(p->ports[i], node->text))
			return 0;
	}
	return vfail(c, node, "%s '%s' is not one of the plan's ports (%s)", what,
		     shown(node->text, buf, sizeof(buf)),
		     joined((const char *const *)p->ports, p->n_ports, list, sizeof(list)));
}

/* Whether KEY is a dotted path: non-empty parts, at most PLAN_MAX_KEY long. */
static bool key_path_ok(const char *key)
{
	size_t len = strlen(key);

	return len && len <= PLAN_MAX_KEY && key[0] != '.' && key[len - 1] != '.' &&
	       !strstr(key, "..");
}

/* ---- sections ---- */

static int build_hosts(struct vctx *c, const struct plan_node *hosts, struct plan *p)
{
	const struct plan_node *match, *count;
	char buf[400];
	int i, ret;

	if ((ret = want_map(c, hosts, "hosts")) || (ret = check_keys(c, hosts, hosts_keys, "hosts")))
		return ret;
	match = opt(hosts, "match");
	if (match) {
		if ((ret = want_map(c, match, "hosts.match")))
			return ret;
		if (match->n / 2 > PLAN_MAX_MATCH)
			return vfail(c, match, "hosts.match: at most %d selectors are supported",
				     PLAN_MAX_MATCH);
		p->match = calloc(match->n / 2 + 1, sizeof(*p->match));
		if (!p->match)
			return oom(c);
		for (i = 0; i + 1 < match->n; i += 2) {
			const struct plan_node *k = match->kids[i], *v = match->kids[i + 1];
			struct plan_match *m = &p->match[p->n_match];

			if (!name_ok(k->text, "._-", PLAN_MAX_NAME))
				return vfail(c, k, "hosts.match: expected an inventory key such as port.driver or kernel.release, got '%s'",
					     shown(k->text, buf, sizeof(buf)));
			if ((ret = want_text(c, v, "hosts.match", "a value", PLAN_MAX_VALUE)))
				return ret;
			m->key = k->text;
			m->value = v->text;
			m->line = k->line;
			m->col = k->col;
			p->n_match++;
		}
	}
	count = opt(hosts, "count");
	p->host_count = 0;
	if (count && !(count->kind == PLAN_NODE_SCALAR && !strcmp(count->text, "all"))) {
		long long v;

		if (!parse_int(count, &v) || v < 1 || v > PLAN_MAX_HOSTS)
			return vfail(c, count, "hosts.count: expected 'all' or an integer from 1 to %d, got %s",
				     PLAN_MAX_HOSTS, got(count, buf, sizeof(buf)));
		p->host_count = (int)v;
	}
	return 0;
}

static int build_ports(struct vctx *c, const struct plan_node *ports, struct plan *p)
{
	char buf[400];
	int i, j, ret;

	if ((ret = want_list(c, ports, "ports", "port roles", PLAN_MAX_PORTS)))
		return ret;
	p->ports = calloc(ports->n, sizeof(*p->ports));
	if (!p->ports)
		return oom(c);
	for (i = 0; i < ports->n; i++) {
		const struct plan_node *role = ports->kids[i];

		if ((ret = want_name(c, role, "ports", "_-",
				     "a port role of letters, digits, '_' and '-'")))
			return ret;
		for (j = 0; j < i; j++) {
			if (!strcmp(ports->kids[j]->text, role->text))
				return vfail(c, role, "ports: duplicate port '%s' (first at %d:%d)",
					     shown(role->text, buf, sizeof(buf)),
					     ports->kids[j]->line, ports->kids[j]->col);
		}
		p->ports[p->n_ports++] = role->text;
	}
	return 0;
}

/* traffic.cpus: a list of CPU numbers (or one number, so that a matrix can vary it). */
static int build_cpus(struct vctx *c, const struct plan_node *node, struct plan_traffic *t)
{
	const struct plan_node *one[1] = { node };
	const struct plan_node *const *kids = one;
	int n = 1, i, j, ret;

	if (node->kind != PLAN_NODE_SCALAR) {
		if ((ret = want_list(c, node, "traffic.cpus", "CPU numbers", PLAN_MAX_CPUS)))
			return ret;
		kids = (const struct plan_node *const *)node->kids;
		n = node->n;
	}
	t->cpus = calloc(n, sizeof(*t->cpus));
	if (!t->cpus)
		return oom(c);
	for (i = 0; i < n; i++) {
		if ((ret = want_int(c, kids[i], "traffic.cpus", 0, JOBSPEC_MAX_CPU, &t->cpus[i])))
			return ret;
		t->n_cpus++;
		for (j = 0; j < i; j++) {
			if (t->cpus[j] == t->cpus[i])
				return vfail(c, kids[i], "traffic.cpus: duplicate CPU %d (first at %d:%d)",
					     t->cpus[i], kids[j]->line, kids[j]->col);
		}
	}
	return 0;
}

static int build_traffic(struct vctx *c, const struct plan_node *traffic, struct plan *p)
{
	struct plan_traffic *t = &p->traffic;
	const struct plan_node *packet, *node, *size = NULL;
	int v, ret;

	if ((ret = want_map(c, traffic, "traffic")) ||
	    (ret = check_keys(c, traffic, traffic_keys, "traffic")))
		return ret;
	if ((node = opt(traffic, "generator"))) {
		if ((ret = want_enum(c, node, "traffic.generator", generator_names, &v)))
			return ret;
		t->generator = v;
	}
	node = opt(traffic, "from");
	if (t->generator != PLAN_GEN_NONE && !node && (ret = need(c, traffic, "from", "traffic",
								  (struct plan_node **)&node)))
		return ret;
	if (node) {
		if ((ret = want_port(c, p, node, "traffic.from")))
			return ret;
		t->from = t->generator == PLAN_GEN_NONE ? NULL : node->text;
	}
	if ((node = opt(traffic, "to"))) {
		if ((ret = want_port(c, p, node, "traffic.to")))
			return ret;
		if (t->from && !strcmp(t->from, node->text))
			return vfail(c, node, "traffic.to: the destination must differ from traffic.from '%s'",
				     t->from);
		t->to = node->text;
	}
	if ((node = opt(traffic, "cpus")) && (ret = build_cpus(c, node, t)))
		return ret;
	packet = opt(traffic, "packet");
	if (packet) {
		if ((ret = want_map(c, packet, "traffic.packet")) ||
		    (ret = check_keys(c, packet, packet_keys, "traffic.packet")))
			return ret;
		if ((node = opt(packet, "proto"))) {
			if ((ret = want_enum(c, node, "traffic.packet.proto", proto_names, &v)))
				return ret;
			t->proto = v;
		}
		if ((size = opt(packet, "size")) &&
		    (ret = want_int(c, size, "traffic.packet.size", 60, 9000, &t->size)))
			return ret;
		if ((node = opt(packet, "flows")) &&
		    (ret = want_int(c, node, "traffic.packet.flows", 1, PLAN_MAX_FLOWS, &t->flows)))
			return ret;
	}
	if (t->proto == PLAN_PROTO_UDP6 && t->size < 62)
		return vfail(c, size, "traffic.packet.size: udp6 frames need at least 62 bytes, got %d",
			     t->size);
	if ((node = opt(traffic, "threads")) &&
	    (ret = want_int(c, node, "traffic.threads", 1, JOBSPEC_MAX_THREADS, &t->threads)))
		return ret;
	if ((ret = need(c, traffic, "duration", "traffic", (struct plan_node **)&node)) ||
	    (ret = want_duration(c, node, "traffic.duration", 1, PLAN_MAX_DURATION_MS,
				 "1ms to 60m", &t->duration_ms)))
		return ret;
	if ((node = opt(traffic, "warmup")) &&
	    (ret = want_duration(c, node, "traffic.warmup", 0, PLAN_MAX_WARMUP_MS, "0s to 10m",
				 &t->warmup_ms)))
		return ret;
	return 0;
}

/* A C identifier of at most PLAN_MAX_NAME characters (program and map names). */
static bool ident_ok(const struct plan_node *node)
{
	return node && node->kind == PLAN_NODE_SCALAR && name_ok(node->text, "_", PLAN_MAX_NAME) &&
	       !(node->text[0] >= '0' && node->text[0] <= '9');
}

/* A map key or value: a decimal integer from LO to HI. */
static int want_ll(struct vctx *c, const struct plan_node *node, const char *path,
		   long long lo, long long hi, long long *out)
{
	char buf[400];

	if (parse_int(node, out) && *out >= lo && *out <= hi)
		return 0;
	return vfail(c, node, "%s: expected an integer from %lld to %lld, got %s", path, lo, hi,
		     got(node, buf, sizeof(buf)));
}

/* One slot of maps.NAME into F. */
static int build_fill(struct vctx *c, const struct plan *p, const struct plan_node *map,
		      const struct plan_node *slot, struct plan_map_fill *f)
{
	const struct plan_node *port, *qsize, *value, *prog, *key;
	char path[300], buf[400];
	int ret;

	snprintf(path, sizeof(path), "maps.%s", map->text);
	if (!slot || slot->kind != PLAN_NODE_MAP)
		return vfail(c, slot, "%s: a slot must be a map such as {key: 0, port: b}, got %s",
			     path, got(slot, buf, sizeof(buf)));
	if ((ret = check_keys(c, slot, fill_keys, "a map slot")))
		return ret;
	f->map = map->text;
	f->map_line = map->line;
	f->map_col = map->col;
	f->line = slot->line;
	f->col = slot->col;
	if ((ret = need(c, slot, "key", "a map slot", (struct plan_node **)&key)))
		return ret;
	snprintf(path, sizeof(path), "maps.%s.key", map->text);
	if ((ret = want_ll(c, key, path, 0, INT64_MAX, &f->key)))
		return ret;
	port = opt(slot, "port");
	qsize = opt(slot, "qsize");
	value = opt(slot, "value");
	prog = opt(slot, "program");
	if (!port && !qsize && !value)
		return vfail(c, slot, "maps.%s: a slot needs one of port (devmap), qsize (cpumap) or value (array, hash)",
			     map->text);
	if ((port && qsize) || (port && value) || (qsize && value))
		return vfail(c, value ? value : qsize, "maps.%s: port, qsize and value exclude each other",
			     map->text);
	if (port) {
		snprintf(path, sizeof(path), "maps.%s: port", map->text);
		if ((ret = want_port(c, p, port, path)))
			return ret;
		f->port = port->text;
	}
	if (qsize) {
		snprintf(path, sizeof(path), "maps.%s.qsize", map->text);
		if ((ret = want_int(c, qsize, path, 1, PLAN_MAX_QSIZE, &f->qsize)))
			return ret;
	}
	if (value) {
		snprintf(path, sizeof(path), "maps.%s.value", map->text);
		if ((ret = want_ll(c, value, path, INT64_MIN, INT64_MAX, &f->value)))
			return ret;
		f->has_value = true;
	}
	if (prog) {
		if (value)
			return vfail(c, prog, "maps.%s: program goes with port (devmap) or qsize (cpumap), not value",
				     map->text);
		if (!ident_ok(prog))
			return vfail(c, prog, "maps.%s.program: expected a program (function) name, got %s",
				     map->text, got(prog, buf, sizeof(buf)));
		f->program = prog->text;
		f->program_line = prog->line;
		f->program_col = prog->col;
	}
	return 0;
}

/* An attach entry's maps: {NAME: [slot, ...], ...}. */
static int build_fills(struct vctx *c, const struct plan *p, const struct plan_node *maps,
		       struct plan_attach *a)
{
	char buf[400], path[300];
	int i, j, k, n = 0, ret;

	if ((ret = want_map(c, maps, "maps")))
		return ret;
	if (maps->n / 2 > PLAN_MAX_FILL_MAPS)
		return vfail(c, maps, "maps: at most %d maps are supported", PLAN_MAX_FILL_MAPS);
	for (i = 0; i + 1 < maps->n; i += 2) {
		const struct plan_node *name = maps->kids[i], *list = maps->kids[i + 1];

		if (!ident_ok(name))
			return vfail(c, name, "maps: expected a map name, got '%s'",
				     shown(name->text, buf, sizeof(buf)));
		snprintf(path, sizeof(path), "maps.%s", name->text);
		if ((ret = want_list(c, list, path, "slots", PLAN_MAX_FILLS)))
			return ret;
		n += list->n;
	}
	a->fills = calloc(n ? n : 1, sizeof(*a->fills));
	if (!a->fills)
		return oom(c);
	for (i = 0; i + 1 < maps->n; i += 2) {
		const struct plan_node *name = maps->kids[i], *list = maps->kids[i + 1];
		int first = a->n_fills;

		for (j = 0; j < list->n; j++) {
			struct plan_map_fill *f = &a->fills[a->n_fills];

			if ((ret = build_fill(c, p, name, list->kids[j], f)))
				return ret;
			a->n_fills++;
			for (k = first; k < a->n_fills - 1; k++) {
				if (a->fills[k].key == f->key)
					return vfail(c, list->kids[j], "maps.%s: duplicate key %lld (first at %d:%d)",
						     name->text, f->key, a->fills[k].line,
						     a->fills[k].col);
			}
		}
	}
	return 0;
}

/* An attach entry's counters: [{map: NAME, keys: {INDEX: name, ...}}, ...]. Counter
 * names are sample subjects, so they must differ from those of the N_PREV entries of the
 * variant before A (PREV). */
static int build_counters(struct vctx *c, const struct plan_node *list, struct plan_attach *a,
			  const struct plan_attach *prev, int n_prev)
{
	char buf[400], path[300];
	int i, j, k, pi, n = 0, ret;

	if ((ret = want_list(c, list, "counters", "counter maps", PLAN_MAX_COUNTER_MAPS)))
		return ret;
	for (i = 0; i < list->n; i++) {
		const struct plan_node *e = list->kids[i], *map, *keys;

		if (!e || e->kind != PLAN_NODE_MAP)
			return vfail(c, e, "counters: an entry must be a map such as {map: stats, keys: {0: rx}}, got %s",
				     got(e, buf, sizeof(buf)));
		if ((ret = check_keys(c, e, counter_keys, "a counters entry")) ||
		    (ret = need(c, e, "map", "a counters entry", (struct plan_node **)&map)) ||
		    (ret = need(c, e, "keys", "a counters entry", (struct plan_node **)&keys)))
			return ret;
		if (!ident_ok(map))
			return vfail(c, map, "counters: map: expected a map name, got %s",
				     got(map, buf, sizeof(buf)));
		for (j = 0; j < i; j++) {
			const struct plan_node *other = plan_node_get(list->kids[j], "map", NULL);

			if (!strcmp(other->text, map->text))
				return vfail(c, map, "counters: map '%s' is listed twice (first at %d:%d)",
					     map->text, other->line, other->col);
		}
		snprintf(path, sizeof(path), "counters.%s.keys", map->text);
		if ((ret = want_map(c, keys, path)))
			return ret;
		if (!keys->n || keys->n / 2 > PLAN_MAX_COUNTER_KEYS)
			return vfail(c, keys, "%s: expected 1 to %d keys, got %d", path,
				     PLAN_MAX_COUNTER_KEYS, keys->n / 2);
		n += keys->n / 2;
	}
	a->counters = calloc(n ? n : 1, sizeof(*a->counters));
	if (!a->counters)
		return oom(c);
	for (i = 0; i < list->n; i++) {
		const struct plan_node *map = plan_node_get(list->kids[i], "map", NULL);
		const struct plan_node *keys = plan_node_get(list->kids[i], "keys", NULL);

		snprintf(path, sizeof(path), "counters.%s.keys", map->text);
		for (j = 0; j + 1 < keys->n; j += 2) {
			const struct plan_node *key = keys->kids[j], *name = keys->kids[j + 1];
			struct plan_counter *ct = &a->counters[a->n_counters];
			long long idx;

			if (!parse_int(key, &idx) || idx < 0 || idx > UINT32_MAX)
				return vfail(c, key, "%s: keys must be integers from 0 to %u (slots of the map), got '%s'",
					     path, UINT32_MAX, shown(key->text, buf, sizeof(buf)));
			if ((ret = want_name(c, name, path, "._-",
					     "a counter name of letters, digits, '.', '_' and '-'")))
				return ret;
			ct->map = map->text;
			ct->key = (unsigned int)idx;
			ct->name = name->text;
			ct->line = key->line;
			ct->col = key->col;
			ct->map_line = map->line;
			ct->map_col = map->col;
			for (k = 0; k < a->n_counters; k++) {
				const struct plan_counter *o = &a->counters[k];

				if (!strcmp(o->map, ct->map) && o->key == ct->key)
					return vfail(c, key, "%s: duplicate key %u (first at %d:%d)",
						     path, ct->key, o->line, o->col);
				if (!strcmp(o->name, ct->name))
					return vfail(c, name, "counters: duplicate counter name '%s' (first at %d:%d)",
						     ct->name, o->line, o->col);
			}
			for (pi = 0; pi < n_prev; pi++) {
				for (k = 0; k < prev[pi].n_counters; k++) {
					const struct plan_counter *o = &prev[pi].counters[k];

					if (!strcmp(o->name, ct->name))
						return vfail(c, name, "counters: duplicate counter name '%s' (first at %d:%d)",
							     ct->name, o->line, o->col);
				}
			}
			a->n_counters++;
		}
	}
	return 0;
}

static int build_attach(struct vctx *c, const struct plan *p, const struct plan_node *entry,
			struct plan_attach *a, const struct plan_attach *prev, int n_prev)
{
	struct plan_node *node;
	char buf[400];
	int v, ret;

	if (!entry || entry->kind != PLAN_NODE_MAP)
		return vfail(c, entry, "an attach entry must be a map such as {port: a, object: x.bpf.o, program: p}, got %s",
			     got(entry, buf, sizeof(buf)));
	if ((ret = check_keys(c, entry, attach_keys, "an attach entry")))
		return ret;
	a->line = entry->line;
	a->col = entry->col;
	if ((ret = need(c, entry, "port", "an attach entry", &node)) ||
	    (ret = want_port(c, p, node, "port")))
		return ret;
	a->port = node->text;
	if ((node = opt(entry, "hook"))) {
		if ((ret = want_enum(c, node, "hook", hook_names, &v)))
			return ret;
		a->hook = v;
	}
	if ((node = opt(entry, "mode"))) {
		if (a->hook != PLAN_HOOK_XDP)
			return vfail(c, node, "mode applies to hook xdp only, not %s",
				     plan_hook_name(a->hook));
		if ((ret = want_enum(c, node, "mode", mode_names, &v)))
			return ret;
		a->mode = v;
	}
	if ((node = opt(entry, "tc_mode"))) {
		if (a->hook == PLAN_HOOK_XDP)
			return vfail(c, node, "tc_mode applies to hooks tc-ingress and tc-egress only, not xdp");
		if ((ret = want_enum(c, node, "tc_mode", tc_mode_names, &v)))
			return ret;
		a->tc_mode = v;
	}
	if ((ret = need(c, entry, "object", "an attach entry", &node)) ||
	    (ret = want_text(c, node, "object", "an object name or path", PLAN_MAX_OBJECT)))
		return ret;
	a->object = node->text;
	a->object_line = node->line;
	a->object_col = node->col;
	if ((ret = need(c, entry, "program", "an attach entry", &node)))
		return ret;
	if (!node || node->kind != PLAN_NODE_SCALAR ||
	    !name_ok(node->text, "_", PLAN_MAX_NAME) ||
	    (node->text[0] >= '0' && node->text[0] <= '9'))
		return vfail(c, node, "program: expected a program (function) name, got %s",
			     got(node, buf, sizeof(buf)));
	a->program = node->text;
	a->program_line = node->line;
	a->program_col = node->col;
	if ((node = opt(entry, "maps")) && (ret = build_fills(c, p, node, a)))
		return ret;
	if ((node = opt(entry, "counters")) && (ret = build_counters(c, node, a, prev, n_prev)))
		return ret;
	return 0;
}

static int build_variants(struct vctx *c, const struct plan_node *variants, struct plan *p)
{
	char subject[300], buf[400];
	int i, j, k, ret;

	if ((ret = want_map(c, variants, "variants")))
		return ret;
	if (!variants->n)
		return vfail(c, variants, "variants: expected at least one variant");
	if (variants->n / 2 > PLAN_MAX_VARIANTS)
		return vfail(c, variants, "variants: at most %d variants are supported",
			     PLAN_MAX_VARIANTS);
	p->variants = calloc(variants->n / 2, sizeof(*p->variants));
	if (!p->variants)
		return oom(c);
	for (i = 0; i + 1 < variants->n; i += 2) {
		const struct plan_node *name = variants->kids[i], *list = variants->kids[i + 1];
		struct plan_variant *var = &p->variants[p->n_variants++];

		if ((ret = want_name(c, name, "variants", "._-",
				     "a variant name of letters, digits, '.', '_' and '-'")))
			return ret;
		var->name = name->text;
		var->line = name->line;
		var->col = name->col;
		snprintf(subject, sizeof(subject), "variant '%s'", name->text);
		c->subject = subject;
		if ((ret = want_list(c, list, "attach", "attach entries", PLAN_MAX_ATTACH)))
			return ret;
		var->attach = calloc(list->n, sizeof(*var->attach));
		if (!var->attach)
			return oom(c);
		for (j = 0; j < list->n; j++) {
			struct plan_attach *a = &var->attach[j];

			var->n_attach++;	/* so that a failed entry is released too */
			if ((ret = build_attach(c, p, list->kids[j], a, var->attach, j)))
				return ret;
			for (k = 0; k < j; k++) {
				const struct plan_attach *b = &var->attach[k];

				if (!strcmp(a->port, b->port) && a->hook == b->hook)
					return vfail(c, list->kids[j],
						     "port '%s' already has a %s program in this variant (at %d:%d)",
						     shown(a->port, buf, sizeof(buf)),
						     plan_hook_name(a->hook), b->line, b->col);
			}
		}
		c->subject = NULL;
	}
	return 0;
}

struct sorted_value {
	const char *text;
	int index;
};

static int cmp_sorted_values(const void *a, const void *b)
{
	const struct sorted_value *x = a, *y = b;
	int r = strcmp(x->text, y->text);

	return r ? r : x->index - y->index;
}

/* Index of the first repeated item of LIST (the repeat that comes first in the list),
 * with the index of its earlier twin in *FIRST; -1 when all differ; -ENOMEM. Sorting
 * keeps this O(n log n) for long lists. */
static int find_duplicate(const struct plan_node *list, int *first)
{
	struct sorted_value *sv = malloc(list->n * sizeof(*sv));
	int i, dup = -1;

	if (!sv)
		return -ENOMEM;
	for (i = 0; i < list->n; i++) {
		sv[i].text = list->kids[i]->text;
		sv[i].index = i;
	}
	qsort(sv, list->n, sizeof(*sv), cmp_sorted_values);
	for (i = 1; i < list->n; i++) {
		/* In a run of equal texts the first is the original and the second the
		 * earliest repeat. */
		if (strcmp(sv[i].text, sv[i - 1].text))
			continue;
		if (i >= 2 && !strcmp(sv[i - 2].text, sv[i].text))
			continue;
		if (dup < 0 || sv[i].index < dup) {
			dup = sv[i].index;
			*first = sv[i - 1].index;
		}
	}
	free(sv);
	return dup;
}

static int build_matrix(struct vctx *c, const struct plan_node *matrix, struct plan *p)
{
	char buf[400], kbuf[400];
	int i, j, first = 0, ret = 0;

	if ((ret = want_map(c, matrix, "matrix")))
		return ret;
	if (matrix->n / 2 > PLAN_MAX_AXES)
		return vfail(c, matrix, "matrix: at most %d keys are supported", PLAN_MAX_AXES);
	p->matrix = calloc(matrix->n / 2 + 1, sizeof(*p->matrix));
	if (!p->matrix)
		return oom(c);
	for (i = 0; i + 1 < matrix->n; i += 2) {
		const struct plan_node *key = matrix->kids[i], *list = matrix->kids[i + 1];
		struct plan_axis *ax = &p->matrix[p->n_axes];
		const char *k = key->text;
		size_t root_len = strcspn(k, ".");

		if (!key_path_ok(k))
			return vfail(c, key, "matrix: expected a key path such as traffic.packet.size, got '%s'",
				     shown(k, buf, sizeof(buf)));
		if ((root_len == 6 && !strncmp(k, "matrix", 6)) ||
		    (root_len == 6 && !strncmp(k, "repeat", 6)) ||
		    (root_len == 8 && !strncmp(k, "variants", 8)))
			return vfail(c, key, "matrix: '%s' cannot be varied by the matrix",
				     shown(k, buf, sizeof(buf)));
		for (j = 0; j < p->n_axes; j++) {
			const char *o = p->matrix[j].key;
			size_t lo = strlen(o), lk = strlen(k);

			if ((lo < lk && !strncmp(o, k, lo) && k[lo] == '.') ||
			    (lk < lo && !strncmp(o, k, lk) && o[lk] == '.'))
				return vfail(c, key, "matrix: '%s' overlaps '%s' (at %d:%d)",
					     shown(k, buf, sizeof(buf)), shown(o, kbuf, sizeof(kbuf)),
					     p->matrix[j].line, p->matrix[j].col);
		}
		snprintf(kbuf, sizeof(kbuf), "matrix %s", shown(k, buf, sizeof(buf)));
		if ((ret = want_list(c, list, kbuf, "values", PLAN_MAX_JOBS)))
			return ret;
		ax->key = key->text;
		ax->line = key->line;
		ax->col = key->col;
		ax->values = calloc(list->n, sizeof(*ax->values));
		if (!ax->values)
			return oom(c);
		p->n_axes++;
		for (j = 0; j < list->n; j++) {
			const struct plan_node *v = list->kids[j];

			if (v->kind != PLAN_NODE_SCALAR)
				return vfail(c, v, "%s: values must be scalars, got %s", kbuf,
					     got(v, buf, sizeof(buf)));
			if (strlen(v->text) > PLAN_MAX_VALUE)
				return vfail(c, v, "%s: values must be at most %d characters", kbuf,
					     PLAN_MAX_VALUE);
			ax->values[ax->n_values++] = v->text;
		}
		j = find_duplicate(list, &first);
		if (j == -ENOMEM)
			return oom(c);
		if (j >= 0)
			return vfail(c, list->kids[j], "%s: duplicate value '%s' (first at %d:%d)",
				     kbuf, shown(list->kids[j]->text, buf, sizeof(buf)),
				     list->kids[first]->line, list->kids[first]->col);
	}
	return 0;
}

static int build_metrics(struct vctx *c, const struct plan_node *metrics, struct plan *p)
{
	char buf[400], list[300];
	int i, j, ret;

	if ((ret = want_list(c, metrics, "metrics", "metric names",
			     (int)ARRAY_SIZE(known_metrics) - 1)))
		return ret;
	p->metrics = calloc(metrics->n, sizeof(*p->metrics));
	if (!p->metrics)
		return oom(c);
	for (i = 0; i < metrics->n; i++) {
		const struct plan_node *m = metrics->kids[i];

		if (m->kind != PLAN_NODE_SCALAR || !plan_metric_known(m->text))
			return vfail(c, m, "metrics: unknown metric %s (known: %s)",
				     got(m, buf, sizeof(buf)),
				     joined(known_metrics, -1, list, sizeof(list)));
		for (j = 0; j < i; j++) {
			if (!strcmp(p->metrics[j], m->text))
				return vfail(c, m, "metrics: duplicate metric '%s' (first at %d:%d)",
					     m->text, metrics->kids[j]->line, metrics->kids[j]->col);
		}
		p->metrics[p->n_metrics++] = m->text;
	}
	return 0;
}

/* Free what plan_build allocated (the arrays; strings belong to the tree). */
static void plan_fields_release(struct plan *p)
{
	int i, j;

	free(p->match);
	free(p->ports);
	for (i = 0; p->variants && i < p->n_variants; i++) {
		for (j = 0; p->variants[i].attach && j < p->variants[i].n_attach; j++) {
			free(p->variants[i].attach[j].fills);
			free(p->variants[i].attach[j].counters);
		}
		free(p->variants[i].attach);
	}
	free(p->traffic.cpus);
	free(p->variants);
	for (i = 0; p->matrix && i < p->n_axes; i++)
		free(p->matrix[i].values);
	free(p->matrix);
	free(p->metrics);
	free(p->repeat_on);
	p->repeat_on = NULL;
	p->n_repeat_on = 0;
	p->name = p->description = NULL;
	p->match = NULL;
	p->n_match = 0;
	p->host_count = 0;
	p->ports = NULL;
	p->n_ports = 0;
	memset(&p->traffic, 0, sizeof(p->traffic));
	p->variants = NULL;
	p->n_variants = 0;
	p->matrix = NULL;
	p->n_axes = 0;
	p->repeat = 0;
	p->metrics = NULL;
	p->n_metrics = 0;
}

/* Number of matrix points, saturated at PLAN_MAX_JOBS + 1. */
static long long plan_points(const struct plan *p)
{
	long long points = 1;
	int i;

	for (i = 0; i < p->n_axes; i++) {
		points *= p->matrix[i].n_values;
		if (points > PLAN_MAX_JOBS)
			return PLAN_MAX_JOBS + 1;
	}
	return points;
}

/* Whether any attach entry of P exports counters. */
static bool plan_has_counters(const struct plan *p)
{
	int v, i;

	for (v = 0; v < p->n_variants; v++) {
		for (i = 0; i < p->variants[v].n_attach; i++) {
			if (p->variants[v].attach[i].n_counters)
				return true;
		}
	}
	return false;
}

/* Check ROOT against the plan format and fill P's fields. On error P may hold partial
 * arrays: the caller releases them either way. */
/* link: {generator: X, dut: Y}: two distinct port roles of the plan. */
static int build_link(struct vctx *c, const struct plan_node *link, struct plan *p)
{
	struct plan_node *gen, *dut;
	int ret;

	if ((ret = want_map(c, link, "link")) || (ret = check_keys(c, link, link_keys, "link")) ||
	    (ret = need(c, link, "generator", "link", &gen)) ||
	    (ret = want_port(c, p, gen, "link.generator")) ||
	    (ret = need(c, link, "dut", "link", &dut)) || (ret = want_port(c, p, dut, "link.dut")))
		return ret;
	if (!strcmp(gen->text, dut->text))
		return vfail(c, dut, "link.dut: the device under test's port must differ from the generator's '%s'",
			     gen->text);
	p->link_generator = gen->text;
	p->link_dut = dut->text;
	p->link_line = link->line;
	p->link_col = link->col;
	return 0;
}

/* A two-host plan: exactly the link's two ports, traffic out of the generator's. */
static int check_link(struct vctx *c, const struct plan_node *root, struct plan *p)
{
	struct plan_node *node = NULL;

	if (p->n_ports != 2) {
		plan_node_get(root, "ports", &node);
		return vfail(c, node, "ports: a plan with a link has exactly its two ports ('%s' and '%s')",
			     p->link_generator, p->link_dut);
	}
	if (p->traffic.to) {
		plan_node_get(root, "traffic", &node);
		return vfail(c, node, "traffic.to: a plan with a link sends to the device under test's port '%s'; leave 'to' out",
			     p->link_dut);
	}
	if (p->traffic.from && strcmp(p->traffic.from, p->link_generator)) {
		plan_node_get(root, "traffic", &node);
		return vfail(c, node, "traffic.from: a plan with a link sends out of the generator's port '%s', not '%s'",
			     p->link_generator, p->traffic.from);
	}
	return 0;
}

/* A percentage "2%", "0.5 %" or a bare number of percent ("2"), strictly inside
 * (LO, HI) percent, into *OUT as a fraction (0.02). */
static int want_percent(struct vctx *c, const struct plan_node *node, const char *path,
			double lo, double hi, double *out)
{
	char buf[400], *end;
	double v;

	if (node && node->kind == PLAN_NODE_SCALAR && node->text[0]) {
		errno = 0;
		v = strtod(node->text, &end);
		while (*end == ' ')
			end++;
		if (*end == '%')
			end++;
		if (!errno && !*end && end != node->text && v > lo && v < hi) {
			*out = v / 100;
			return 0;
		}
	}
	return vfail(c, node, "%s: expected a percentage above %g %% and below %g %% (such as 2%%), got %s",
		     path, lo, hi, got(node, buf, sizeof(buf)));
}

static int want_bool(struct vctx *c, const struct plan_node *node, const char *path,
		     bool *out)
{
	static const char *const names[] = { "false", "true", NULL };
	int v;
	int ret = want_enum(c, node, path, names, &v);

	if (!ret)
		*out = v == 1;
	return ret;
}

/* `repeat: N` or `repeat: {min: 3, max: 20, until: 2%, on: [prog.ns_per_run]}`. The
 * metrics of `on` are checked against the plan's metrics by check_repeat_on, once those
 * are known. */
static int build_repeat(struct vctx *c, const struct plan_node *node, struct plan *p)
{
	const struct plan_node *min, *max, *until, *on;
	char buf[400];
	int ret, i;

	p->repeat_line = node->line;
	p->repeat_col = node->col;
	if (node->kind != PLAN_NODE_MAP) {
		ret = want_int(c, node, "repeat", 1, PLAN_MAX_REPEAT, &p->repeat);
		p->repeat_max = p->repeat;
		return ret;
	}
	if ((ret = check_keys(c, node, repeat_keys, "repeat")))
		return ret;
	min = plan_node_get(node, "min", NULL);
	max = plan_node_get(node, "max", NULL);
	until = plan_node_get(node, "until", NULL);
	on = plan_node_get(node, "on", NULL);
	if (!max || plan_node_is_null(max))
		return vfail(c, node, "repeat: missing required key 'max' (the most repetitions to add up to)");
	if ((ret = want_int(c, max, "repeat.max", 1, PLAN_MAX_REPEAT, &p->repeat_max)))
		return ret;
	/* 5: below it compare takes a rank test, which cannot reach p < 0.05 with 3 + 3
	 * values (docs/analysis.md); a side settled at 3 could never show a change */
	p->repeat = p->repeat_max < 5 ? p->repeat_max : 5;
	if (min && !plan_node_is_null(min) &&
	    (ret = want_int(c, min, "repeat.min", 1, PLAN_MAX_REPEAT, &p->repeat)))
		return ret;
	if (p->repeat > p->repeat_max)
		return vfail(c, min ? min : node, "repeat: min %d is more than max %d",
			     p->repeat, p->repeat_max);
	p->repeat_until = 0.02;
	if (until && !plan_node_is_null(until) &&
	    (ret = want_percent(c, until, "repeat.until", 0, 100, &p->repeat_until)))
		return ret;
	if (!on || plan_node_is_null(on))
		return 0;
	if ((ret = want_list(c, on, "repeat.on", "metric names",
			     (int)ARRAY_SIZE(known_metrics) - 1)))
		return ret;
	p->repeat_on = calloc((size_t)on->n + 1, sizeof(*p->repeat_on));
	if (!p->repeat_on)
		return oom(c);
	for (i = 0; i < on->n; i++) {
		const struct plan_node *m = on->kids[i];

		if (m->kind != PLAN_NODE_SCALAR || !plan_metric_known(m->text))
			return vfail(c, m, "repeat.on: unknown metric %s", got(m, buf, sizeof(buf)));
		p->repeat_on[p->n_repeat_on++] = m->text;
	}
	return 0;
}

/* Every metric of repeat.on must be measured: one of the plan's metrics. */
static int check_repeat_on(struct vctx *c, const struct plan_node *root, struct plan *p)
{
	const struct plan_node *on = NULL, *rep = plan_node_get(root, "repeat", NULL);
	char list[400];
	int i, j;

	if (rep && rep->kind == PLAN_NODE_MAP)
		on = plan_node_get(rep, "on", NULL);
	for (i = 0; i < p->n_repeat_on; i++) {
		for (j = 0; j < p->n_metrics; j++)
			if (!strcmp(p->repeat_on[i], p->metrics[j]))
				break;
		if (j == p->n_metrics)
			return vfail(c, on && i < on->n ? on->kids[i] : rep,
				     "repeat.on: '%s' is not among the plan's metrics (%s)",
				     p->repeat_on[i],
				     joined((const char *const *)p->metrics, p->n_metrics, list,
					    sizeof(list)));
	}
	return 0;
}

static int plan_build(struct vctx *c, const struct plan_node *root, struct plan *p)
{
	struct plan_node *node;
	long long jobs, attach;
	char buf[400];
	int i, ret;

	p->traffic.size = JOBSPEC_DEFAULT_SIZE;
	p->traffic.proto = PLAN_PROTO_UDP4;
	p->traffic.flows = JOBSPEC_DEFAULT_FLOWS;
	p->traffic.threads = JOBSPEC_DEFAULT_THREADS;
	p->traffic.warmup_ms = 1000;
	p->traffic.generator = PLAN_GEN_XDP_LIVE;
	p->repeat = 1;
	p->repeat_max = 1;
	p->min_effect = 0.02;

	if (!root || plan_node_is_null(root))
		return vfail(c, NULL, "empty plan");
	if (root->kind != PLAN_NODE_MAP)
		return vfail(c, root, "a plan must be a map of keys (name, ports, traffic, ...), got %s",
			     got(root, buf, sizeof(buf)));
	if ((ret = check_keys(c, root, root_keys, "the plan")))
		return ret;
	if ((ret = need(c, root, "name", NULL, &node)) ||
	    (ret = need(c, root, "ports", NULL, &node)) ||
	    (ret = need(c, root, "traffic", NULL, &node)) ||
	    (ret = need(c, root, "variants", NULL, &node)))
		return ret;
	if ((ret = build_ports(c, plan_node_get(root, "ports", NULL), p)))
		return ret;
	for (i = 0; i + 1 < root->n; i += 2) {
		const char *key = root->kids[i]->text;

		node = root->kids[i + 1];
		if (!strcmp(key, "name")) {
			ret = want_name(c, node, "name", "._-",
					"a plan name of letters, digits, '.', '_' and '-'");
			p->name = node->text;
		} else if (!strcmp(key, "description")) {
			if (plan_node_is_null(node))
				continue;
			ret = node->kind == PLAN_NODE_SCALAR ? 0 :
			      vfail(c, node, "description: expected a text, got %s",
				    got(node, buf, sizeof(buf)));
			p->description = node->text;
		} else if (!strcmp(key, "hosts")) {
			ret = plan_node_is_null(node) ? 0 : build_hosts(c, node, p);
		} else if (!strcmp(key, "traffic")) {
			ret = build_traffic(c, node, p);
		} else if (!strcmp(key, "variants")) {
			/* Nor the variants: a point can change neither them nor the ports
			 * they refer to, so share the plan's (see point_release). */
			if (c->base) {
				p->variants = c->base->variants;
				p->n_variants = c->base->n_variants;
				continue;
			}
			ret = build_variants(c, node, p);
		} else if (!strcmp(key, "matrix")) {
			/* A point cannot change the matrix (it was checked with the plan). */
			ret = plan_node_is_null(node) || c->point ? 0 : build_matrix(c, node, p);
		} else if (!strcmp(key, "repeat")) {
			ret = plan_node_is_null(node) || c->point ? 0 : build_repeat(c, node, p);
		} else if (!strcmp(key, "min_effect")) {
			ret = plan_node_is_null(node) ? 0 :
			      want_percent(c, node, "min_effect", 0, 100, &p->min_effect);
		} else if (!strcmp(key, "share_machine")) {
			ret = plan_node_is_null(node) ? 0 :
			      want_bool(c, node, "share_machine", &p->share_machine);
		} else if (!strcmp(key, "metrics")) {
			ret = plan_node_is_null(node) ? 0 : build_metrics(c, node, p);
		} else if (!strcmp(key, "link")) {
			ret = build_link(c, node, p);
		}
		if (ret)
			return ret;
	}
	if (p->link_generator && (ret = check_link(c, root, p)))
		return ret;
	if (!p->metrics) {
		p->metrics = calloc(ARRAY_SIZE(default_metrics) + 1, sizeof(*p->metrics));
		if (!p->metrics)
			return oom(c);
		for (i = 0; i < (int)ARRAY_SIZE(default_metrics); i++)
			p->metrics[i] = (char *)default_metrics[i];
		p->n_metrics = (int)ARRAY_SIZE(default_metrics);
		if (plan_has_counters(p))
			p->metrics[p->n_metrics++] = "counter.pps";
	}
	if (c->point)
		return 0;		/* sizes were checked with the plan */
	if ((ret = check_repeat_on(c, root, p)))
		return ret;
	if (p->repeat_until > 0 && p->link_generator)
		return vfail(c, plan_node_get(root, "repeat", NULL),
			     "repeat: adaptive repetitions (until) are not supported with link (two-host plans) yet; give repeat a number");
	/* adaptive repetitions may add jobs up to repeat.max */
	jobs = plan_points(p) * p->repeat_max * p->n_variants;
	if (jobs > PLAN_MAX_JOBS) {
		/* at the key that makes it large: the matrix, else repeat */
		node = NULL;
		if (!p->n_axes || !plan_node_get(root, "matrix", &node))
			plan_node_get(root, "repeat", &node);
		if (!node)
			plan_node_get(root, "variants", &node);
		if (plan_points(p) > PLAN_MAX_JOBS)
			return vfail(c, node, "the matrix has more than %d points", PLAN_MAX_JOBS);
		return vfail(c, node, "the plan expands to %lld jobs (repeat %d x %lld matrix points x %d variants), more than %d",
			     jobs, p->repeat_max, plan_points(p), p->n_variants, PLAN_MAX_JOBS);
	}
	for (i = 0, attach = 0; i < p->n_variants; i++)
		attach += p->variants[i].n_attach;
	attach *= plan_points(p) * p->repeat_max;
	if (attach > PLAN_MAX_ATTACH_TOTAL) {
		node = NULL;
		plan_node_get(root, "variants", &node);
		return vfail(c, node, "the plan expands to %lld attach entries over its jobs, more than %d",
			     attach, PLAN_MAX_ATTACH_TOTAL);
	}
	return 0;
}

/* ---- matrix points ---- */

/* Release a plan built for a point: its variants are the base plan's. */
static void point_release(struct plan *scratch)
{
	scratch->variants = NULL;
	scratch->n_variants = 0;
	plan_fields_release(scratch);
}

/* A point being applied to the tree. */
struct point_state {
	struct plan_tree_undo undo[PLAN_MAX_AXES];
	char origin[PLAN_MAX_AXES][600];
	char label[2048];		/* "matrix point k=v, k=v" */
	int n_applied;
};

static void point_unapply(struct point_state *ps)
{
	while (ps->n_applied)
		plan_tree_undo(&ps->undo[--ps->n_applied]);
}

/* Put point INDEX of BASE's matrix into TREE (digits: first axis outermost). Values go in
 * with the position of the matrix value and the origin "matrix KEY=VALUE". Fills
 * POINT_VALUES when given. */
static int point_apply(struct vctx *c, const struct plan *base, struct plan_tree *tree,
		       long long index, struct point_state *ps, json_t *point_values)
{
	const struct plan_node *matrix = plan_node_get(tree->root, "matrix", NULL);
	int digit[PLAN_MAX_AXES];
	size_t lo = 0;
	int i, ret;

	for (i = base->n_axes - 1; i >= 0; i--) {
		digit[i] = (int)(index % base->matrix[i].n_values);
		index /= base->matrix[i].n_values;
	}
	lo = (size_t)snprintf(ps->label, sizeof(ps->label), "matrix point ");
	for (i = 0; i < base->n_axes; i++) {
		const struct plan_node *vnode = matrix->kids[2 * i + 1]->kids[digit[i]];
		const struct plan_axis *ax = &base->matrix[i];
		char kbuf[400], vbuf[400], why[300];
		struct plan_node *node;

		snprintf(ps->origin[i], sizeof(ps->origin[i]), "matrix %s=%s",
			 shown(ax->key, kbuf, sizeof(kbuf)), shown(vnode->text, vbuf, sizeof(vbuf)));
		if (lo < sizeof(ps->label))
			lo += (size_t)snprintf(ps->label + lo, sizeof(ps->label) - lo, "%s%s",
					       i ? ", " : "", ps->origin[i] + 7);
		if (point_values && json_object_set_new(point_values, ax->key,
							json_string(vnode->text)))
			return oom(c);
		node = plan_node_new(PLAN_NODE_SCALAR, vnode->text, vnode->line, vnode->col,
				     ps->origin[i]);
		if (!node)
			return oom(c);
		node->plain = vnode->plain;
		ret = plan_tree_set(tree, ax->key, node, vnode->line, vnode->col, ps->origin[i],
				    one_key_maps, &ps->undo[ps->n_applied], why, sizeof(why));
		if (ret) {
			if (ret != -ENOMEM)
				vfail(c, node, "%s", why);
			plan_node_free(node);
			return ret == -ENOMEM ? oom(c) : -EINVAL;
		}
		ps->n_applied++;
	}
	return 0;
}

/* Validate every point of P's matrix as a whole plan. */
static int check_points(struct vctx *c, struct plan *p)
{
	struct point_state *ps;
	long long points = plan_points(p), k;
	int ret = 0;

	if (!p->n_axes)
		return 0;
	ps = calloc(1, sizeof(*ps));
	if (!ps)
		return oom(c);
	for (k = 0; k < points && !ret; k++) {
		struct plan scratch = { 0 };

		ret = point_apply(c, p, p->tree, k, ps, NULL);
		if (!ret) {
			c->point = ps->label;
			c->base = p;
			ret = plan_build(c, p->tree->root, &scratch);
			c->point = NULL;
			c->base = NULL;
		}
		point_release(&scratch);
		point_unapply(ps);
	}
	free(ps);
	return ret;
}

/* ---- overrides ---- */

int plan_override_parse(const char *arg, struct plan_override *ov, struct plan_error *err)
{
	struct plan_error scratch;
	const char *eq;
	char buf[400];

	if (!err)
		err = &scratch;
	memset(ov, 0, sizeof(*ov));
	eq = arg ? strchr(arg, '=') : NULL;
	if (!eq || eq == arg)
		return set_error(err, 0, 0, "invalid override '%s': expected KEY=VALUE",
				 arg ? shown(arg, buf, sizeof(buf)) : "");
	if (strchr(eq + 1, '\n') || strchr(eq + 1, '\r'))
		return set_error(err, 0, 0, "invalid override '%s': the value must be one line",
				 shown(arg, buf, sizeof(buf)));
	ov->key = strndup(arg, (size_t)(eq - arg));
	ov->value = strdup(eq + 1);
	if (!ov->key || !ov->value) {
		plan_override_release(ov);
		set_error(err, 0, 0, "out of memory");
		return -ENOMEM;
	}
	if (!key_path_ok(ov->key)) {
		plan_override_release(ov);
		return set_error(err, 0, 0,
				 "invalid override '%s': expected a key path such as traffic.packet.size",
				 shown(arg, buf, sizeof(buf)));
	}
	return 0;
}

void plan_override_release(struct plan_override *ov)
{
	if (!ov)
		return;
	free(ov->key);
	free(ov->value);
	ov->key = ov->value = NULL;
}

/* Put one override into TREE. */
static int apply_override(struct vctx *c, struct plan_tree *tree, const struct plan_override *ov)
{
	char kbuf[400], vbuf[400], origin[900], why[300];
	struct plan_tree *vtree = NULL;
	struct plan_tree_error terr;
	struct plan_node *value;
	const char *own;
	int ret;

	snprintf(origin, sizeof(origin), "override '%s=%s'",
		 shown(ov->key ? ov->key : "", kbuf, sizeof(kbuf)),
		 shown(ov->value ? ov->value : "", vbuf, sizeof(vbuf)));
	if (!ov->key || !ov->value || !key_path_ok(ov->key))
		return set_error(c->err, 0, 0, "%s: %s: expected a key path such as traffic.packet.size",
				 c->file, origin);
	if (strchr(ov->value, '\n') || strchr(ov->value, '\r'))
		return set_error(c->err, 0, 0, "%s: %s: the value must be one line", c->file, origin);
	own = plan_tree_add_origin(tree, origin);
	if (!own)
		return oom(c);
	ret = plan_tree_parse(ov->value, strlen(ov->value), own, &vtree, &terr);
	if (ret == -ENOMEM)
		return oom(c);
	if (ret)
		return set_error(c->err, 0, 0, "%s: %s: %s", c->file, origin, terr.msg);
	value = vtree->root;
	vtree->root = NULL;
	plan_tree_destroy(&vtree);
	if (!value) {
		value = plan_node_new(PLAN_NODE_SCALAR, "", 0, 0, own);
		if (!value)
			return oom(c);
	}
	ret = plan_tree_set(tree, ov->key, value, 0, 0, own, one_key_maps, NULL, why,
			    sizeof(why));
	if (ret) {
		plan_node_free(value);
		if (ret == -ENOMEM)
			return oom(c);
		return set_error(c->err, 0, 0, "%s: %s: %s", c->file, origin, why);
	}
	/* A key set on the command line is no longer varied by the matrix. */
	if (strncmp(ov->key, "matrix", 6) || (ov->key[6] && ov->key[6] != '.'))
		plan_node_remove(plan_node_get(tree->root, "matrix", NULL), ov->key);
	return 0;
}

/* ---- parse, load, destroy ---- */

struct plan *plan_parse(const char *file, const char *text, size_t len,
			const struct plan_override *ov, int n_ov, struct plan_error *err)
{
	struct plan_error scratch;
	struct vctx c = { .file = file ? file : "<plan>", .err = err ? err : &scratch };
	struct plan_tree_error terr;
	struct plan *p;
	int i, ret;

	c.err->text[0] = '\0';
	c.err->line = c.err->col = 0;
	if (!text && len) {
		set_error(c.err, 0, 0, "%s: no plan text", c.file);
		errno = EINVAL;
		return NULL;
	}
	if (len > PLAN_MAX_BYTES) {
		set_error(c.err, 0, 0, "%s: the plan is larger than %u bytes", c.file,
			  PLAN_MAX_BYTES);
		errno = EINVAL;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		ret = oom(&c);
		goto out;
	}
	p->file = strdup(c.file);
	p->text = malloc(len + 1);
	if (!p->file || !p->text) {
		ret = oom(&c);
		goto out;
	}
	if (len)
		memcpy(p->text, text, len);
	p->text[len] = '\0';
	p->text_len = len;
	util_sha256_hex(p->text, len, p->sha256);

	ret = plan_tree_parse(p->text, len, NULL, &p->tree, &terr);
	if (ret == -ENOMEM) {
		ret = oom(&c);
		goto out;
	}
	if (ret) {
		set_error(c.err, terr.line, terr.col, "%s:%d:%d: %s", c.file, terr.line, terr.col,
			  terr.msg);
		goto out;
	}
	if (!p->tree->root || plan_node_is_null(p->tree->root) ||
	    p->tree->root->kind != PLAN_NODE_MAP) {
		ret = plan_build(&c, p->tree->root, p);	/* says what is wrong */
		goto out;
	}
	for (i = 0; i < n_ov; i++) {
		ret = apply_override(&c, p->tree, &ov[i]);
		if (ret)
			goto out;
	}
	ret = plan_build(&c, p->tree->root, p);
	if (!ret)
		ret = check_points(&c, p);
out:
	if (ret) {
		plan_destroy(&p);
		errno = -ret;
		return NULL;
	}
	return p;
}

struct plan *plan_load(const char *file, const struct plan_override *ov, int n_ov,
		       struct plan_error *err)
{
	struct plan_error scratch;
	struct plan *p;
	char *text = NULL;
	char buf[400];
	size_t len = 0;
	int ret;

	if (!err)
		err = &scratch;
	ret = util_read_file(file, PLAN_MAX_BYTES, &text, &len);
	if (ret == -EFBIG) {
		set_error(err, 0, 0, "%s: the plan is larger than %u bytes", file, PLAN_MAX_BYTES);
		errno = EINVAL;
		return NULL;
	}
	if (ret) {
		set_error(err, 0, 0, "cannot open plan '%s': %s", shown(file, buf, sizeof(buf)),
			  strerror(-ret));
		errno = -ret;
		return NULL;
	}
	p = plan_parse(file, text, len, ov, n_ov, err);
	ret = errno;
	free(text);
	errno = ret;
	return p;
}

void plan_destroy(struct plan **planp)
{
	struct plan *p = planp ? *planp : NULL;

	if (!p)
		return;
	plan_fields_release(p);
	plan_tree_destroy(&p->tree);
	free(p->file);
	free(p->text);
	free(p);
	*planp = NULL;
}

/* ---- expansion ---- */

/* A copy of the pointer array ITEMS (N entries; never NULL unless out of memory). */
static const char **strings_dup(char *const *items, int n)
{
	const char **out = calloc((size_t)n + 1, sizeof(*out));
	int i;

	for (i = 0; out && i < n; i++)
		out[i] = items[i];
	return out;
}

/* A's fills as the spec's maps: one map per run of fills of one map (plans keep the
 * fills of a map together). */
static int spec_maps(const struct plan_attach *a, struct job_attach *ja)
{
	struct job_map *m = NULL;
	int i;

	ja->maps = calloc((size_t)a->n_fills + 1, sizeof(*ja->maps));
	if (!ja->maps)
		return -ENOMEM;
	for (i = 0; i < a->n_fills; i++) {
		const struct plan_map_fill *f = &a->fills[i];

		if (!i || strcmp(a->fills[i - 1].map, f->map)) {
			m = &ja->maps[ja->n_maps++];
			m->name = f->map;
			m->slots = calloc((size_t)(a->n_fills - i), sizeof(*m->slots));
			if (!m->slots)
				return -ENOMEM;
		}
		m->slots[m->n_slots++] = (struct job_slot){
			.key = f->key, .port = f->port, .qsize = f->qsize,
			.has_value = f->has_value, .value = f->value, .program = f->program,
		};
	}
	return 0;
}

/* A's counters (flattened, one per key) as the spec's: one entry per run of one map. */
static int spec_counters(const struct plan_attach *a, struct job_attach *ja)
{
	struct job_counters *ct = NULL;
	int i;

	ja->counters = calloc((size_t)a->n_counters + 1, sizeof(*ja->counters));
	if (!ja->counters)
		return -ENOMEM;
	for (i = 0; i < a->n_counters; i++) {
		const struct plan_counter *pc = &a->counters[i];

		if (!i || strcmp(a->counters[i - 1].map, pc->map)) {
			ct = &ja->counters[ja->n_counters++];
			ct->map = pc->map;
			ct->keys = calloc((size_t)(a->n_counters - i), sizeof(*ct->keys));
			if (!ct->keys)
				return -ENOMEM;
		}
		ct->keys[ct->n_keys++] = (struct job_counter_key){ .index = pc->key,
								   .name = pc->name };
	}
	return 0;
}

/* The job spec (docs/protocol.md) for variant V of plan P at REP, POINT: the struct
 * filled from the plan (its strings borrowed from P and POINT), then encoded. */
static json_t *job_spec(const struct plan *p, int v, int rep, const json_t *point)
{
	const struct plan_variant *var = &p->variants[v];
	const struct plan_traffic *t = &p->traffic;
	struct job_spec s;
	json_t *spec = NULL, *value;
	const char *key;
	int i;

	jobspec_init(&s);
	s.plan = p->name;
	s.variant = var->name;
	s.rep = rep;
	s.point = calloc(json_object_size(point) + 1, sizeof(*s.point));
	s.ports = strings_dup(p->ports, p->n_ports);
	s.n_ports = p->n_ports;
	s.has_metrics = true;
	s.metrics = strings_dup(p->metrics, p->n_metrics);
	s.n_metrics = p->n_metrics;
	s.attach = calloc((size_t)var->n_attach + 1, sizeof(*s.attach));
	if (!s.point || !s.ports || !s.metrics || !s.attach)
		goto out;
	json_object_foreach((json_t *)point, key, value) {
		s.point[s.n_point].key = key;
		s.point[s.n_point++].value = json_string_value(value);
	}
	s.traffic = (struct job_traffic){
		.generator = t->generator, .from = t->from, .size = t->size, .proto = t->proto,
		.flows = t->flows, .threads = t->threads, .to = t->to,
		.duration_ms = t->duration_ms, .warmup_ms = t->warmup_ms,
	};
	if (t->n_cpus) {
		s.traffic.cpus = calloc((size_t)t->n_cpus, sizeof(*s.traffic.cpus));
		if (!s.traffic.cpus)
			goto out;
		memcpy(s.traffic.cpus, t->cpus, (size_t)t->n_cpus * sizeof(*t->cpus));
		s.traffic.n_cpus = t->n_cpus;
	}
	for (i = 0; i < var->n_attach; i++) {
		const struct plan_attach *a = &var->attach[i];
		struct job_attach *ja = &s.attach[s.n_attach++];

		*ja = (struct job_attach){
			.port = a->port, .hook = a->hook, .mode = a->mode, .tc_mode = a->tc_mode,
			.object = a->object, .program = a->program,
		};
		if ((a->n_fills && spec_maps(a, ja)) || (a->n_counters && spec_counters(a, ja)))
			goto out;
	}
	if (p->repeat_until > 0) {
		s.has_repeat = true;
		s.repeat.min = p->repeat;
		s.repeat.max = p->repeat_max;
		s.repeat.until = p->repeat_until;
		s.repeat.on = p->n_repeat_on ? strings_dup(p->repeat_on, p->n_repeat_on) :
					       strings_dup(p->metrics, p->n_metrics);
		s.repeat.n_on = p->n_repeat_on ? p->n_repeat_on : p->n_metrics;
		if (!s.repeat.on)
			goto out;
	}
	s.share_machine = p->share_machine;
	s.link_generator = p->link_generator;
	s.link_dut = p->link_dut;
	spec = jobspec_encode(&s);
out:
	jobspec_release(&s);
	return spec;
}

json_t *plan_pair_spec(const json_t *spec, const char *role, const char *peer)
{
	struct job_attach *all, *mine = NULL;
	const char **ports, *port = NULL;
	struct job_spec s;
	json_t *side = NULL;
	char why[256];
	bool gen = role && !strcmp(role, "generator");
	int i, n_all, n_ports, ret;

	ret = jobspec_decode(spec, "spec", &s, why, sizeof(why));
	if (ret) {
		errno = -ret;
		return NULL;
	}
	if (gen)
		port = s.link_generator;
	else if (role && !strcmp(role, "dut"))
		port = s.link_dut;
	if (!port || !peer) {
		jobspec_release(&s);
		errno = EINVAL;
		return NULL;
	}
	/* this side's attach entries and port (borrowed for the encoding) */
	mine = calloc((size_t)s.n_attach + 1, sizeof(*mine));
	if (!mine) {
		jobspec_release(&s);
		errno = ENOMEM;
		return NULL;
	}
	all = s.attach;
	n_all = s.n_attach;
	ports = s.ports;
	n_ports = s.n_ports;
	s.n_attach = 0;
	for (i = 0; i < n_all; i++)
		if (!strcmp(all[i].port, port))
			mine[s.n_attach++] = all[i];
	s.attach = mine;
	s.ports = &port;
	s.n_ports = 1;
	s.has_pair = true;
	s.pair = (struct job_pair){
		.role = gen ? JOB_PAIR_GENERATOR : JOB_PAIR_DUT, .peer = peer,
		.link_generator = s.link_generator, .link_dut = s.link_dut,
		.barrier_ms = JOBSPEC_DEFAULT_BARRIER_MS,
	};
	s.link_generator = s.link_dut = NULL;
	if (!gen) {
		/* the device under test only measures */
		s.traffic.generator = JOB_GEN_NONE;
		s.traffic.from = NULL;
		s.traffic.n_cpus = 0;
	}
	side = jobspec_encode(&s);
	ret = errno;
	s.attach = all;
	s.n_attach = n_all;
	s.ports = ports;
	s.n_ports = n_ports;
	free(mine);
	jobspec_release(&s);
	errno = ret;
	return side;
}

void plan_jobs_free(struct plan_job *jobs, int n)
{
	int i;

	for (i = 0; jobs && i < n; i++) {
		json_decref(jobs[i].point_values);
		json_decref(jobs[i].spec);
	}
	free(jobs);
}

int plan_expand(const struct plan *plan, struct plan_job **jobsp, int *np,
		struct plan_error *err)
{
	struct plan_error scratch;
	struct vctx c = { .err = err ? err : &scratch };
	struct point_state *ps = NULL;
	struct plan_job *jobs = NULL;
	long long points, total, k;
	int n_var, rep, v, ret = 0;

	*jobsp = NULL;
	*np = 0;
	if (!plan || !plan->tree)
		return -EINVAL;
	c.file = plan->file;
	c.err->text[0] = '\0';
	c.err->line = c.err->col = 0;
	points = plan_points(plan);
	n_var = plan->n_variants;
	total = points * plan->repeat * n_var;
	if (total > PLAN_MAX_JOBS || total <= 0)
		return set_error(c.err, 0, 0, "%s: the plan expands to %lld jobs, more than %d",
				 plan->file, total, PLAN_MAX_JOBS);
	jobs = calloc((size_t)total, sizeof(*jobs));
	ps = calloc(1, sizeof(*ps));
	if (!jobs || !ps) {
		ret = oom(&c);
		goto out;
	}
	for (k = 0; k < points && !ret; k++) {
		struct plan scratch_plan = { 0 };
		const struct plan *pp = plan;
		json_t *values = json_object();

		if (!values) {
			ret = oom(&c);
			break;
		}
		if (plan->n_axes) {
			ret = point_apply(&c, plan, plan->tree, k, ps, values);
			if (!ret) {
				c.point = ps->label;
				c.base = plan;
				ret = plan_build(&c, plan->tree->root, &scratch_plan);
				c.point = NULL;
				c.base = NULL;
			}
			pp = &scratch_plan;
		}
		for (rep = 1; rep <= plan->repeat && !ret; rep++) {
			for (v = 0; v < n_var && !ret; v++) {
				long long seq = ((rep - 1) * points + k) * n_var + v;
				struct plan_job *job = &jobs[seq];

				job->seq = (int)seq;
				job->variant = v;
				job->point = (int)k;
				job->rep = rep;
				job->point_values = json_deep_copy(values);
				job->spec = job_spec(pp, v, rep, values);
				if (!job->point_values || !job->spec)
					ret = oom(&c);
			}
		}
		json_decref(values);
		point_release(&scratch_plan);
		point_unapply(ps);
	}
out:
	free(ps);
	if (ret) {
		plan_jobs_free(jobs, (int)(jobs ? total : 0));
		return ret;
	}
	*jobsp = jobs;
	*np = (int)total;
	return 0;
}

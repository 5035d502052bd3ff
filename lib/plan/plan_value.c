// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* plan_value.c - see plan_int.h. Validation messages and typed values of the plan tree.
 *
 * Every check of a plan node ends here: an error is formatted once, in plan_vfail(), as
 * "FILE:LINE:COL: [ORIGIN: | POINT: ][SUBJECT: ]message", with the node's position or
 * the origin of the override or matrix point that put it there; texts from the plan are
 * shown through plan_shown() so that they cannot garble a terminal. The want_* helpers
 * check one node for a type (map, list, text, name, integer, enum, duration, port role).
 */
#include "plan/plan_int.h"
#include "base/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* ---- messages ---- */

/* TEXT for a message: at most 64 characters, control characters and non-ASCII bytes
 * escaped, so that hostile input cannot garble a terminal or a log line. */
const char *plan_shown(const char *text, char *buf, size_t len)
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
const char *plan_got(const struct plan_node *node, char *buf, size_t len)
{
	char tmp[400];

	if (!node || plan_node_is_null(node))
		return "nothing";
	if (node->kind == PLAN_NODE_MAP)
		return "a map";
	if (node->kind == PLAN_NODE_SEQ)
		return "a list";
	snprintf(buf, len, "'%s'", plan_shown(node->text, tmp, sizeof(tmp)));
	return buf;
}

/* "a, b, c" of a NULL-terminated list or of N strings, cut short with "..." */
const char *plan_joined(const char *const *list, int n, char *buf, size_t len)
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

/* Fill the error: "FILE:L:C: [ORIGIN: | POINT: ][SUBJECT: ]message", or "FILE: ..." for
 * a node that has no place in the file. Returns -EINVAL. */
int plan_vfail(struct vctx *c, const struct plan_node *at, const char *fmt, ...)
{
	char msg[768], pre[640] = "";
	size_t o = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (at && at->origin)
		o = (size_t)snprintf(pre, sizeof(pre), "%s: ", at->origin);
	else if (c->point)
		o = (size_t)snprintf(pre, sizeof(pre), "%s: ", c->point);
	if (c->subject && o < sizeof(pre))
		snprintf(pre + o, sizeof(pre) - o, "%s: ", c->subject);
	return err_at(c->err, c->file, at ? at->line : 0, at ? at->col : 0, "%s%s", pre, msg);
}

int plan_oom(struct vctx *c)
{
	err_set(c->err, "%s: out of memory", c->file);
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

bool plan_name_valid(const char *name)
{
	return util_name_ok(name, PLAN_NAME_EXTRA, PLAN_MAX_NAME);
}

/* The value of an optional KEY in MAP, NULL when absent or null. */
struct plan_node *plan_opt(const struct plan_node *map, const char *key)
{
	struct plan_node *v = plan_node_get(map, key, NULL);

	return plan_node_is_null(v) ? NULL : v;
}

int plan_check_keys(struct vctx *c, const struct plan_node *map,
		    const char *const *known, const char *where)
{
	char buf[400], list[300];
	int i;

	for (i = 0; i + 1 < map->n; i += 2) {
		const struct plan_node *key = map->kids[i];

		if (!in_list(known, key->text))
			return plan_vfail(c, key, "unknown key '%s' in %s (expected one of: %s)",
					  plan_shown(key->text, buf, sizeof(buf)), where,
					  plan_joined(known, -1, list, sizeof(list)));
	}
	return 0;
}

/* The value of a required KEY (possibly a null node), or an error at the map. */
int plan_need(struct vctx *c, const struct plan_node *map, const char *key,
	      const char *where, struct plan_node **out)
{
	*out = plan_node_get(map, key, NULL);
	if (*out)
		return 0;
	if (where)
		return plan_vfail(c, map, "missing required key '%s' in %s", key, where);
	return plan_vfail(c, map, "missing required key '%s'", key);
}

int plan_want_map(struct vctx *c, const struct plan_node *node, const char *path)
{
	char buf[400];

	if (node && node->kind == PLAN_NODE_MAP)
		return 0;
	return plan_vfail(c, node, "%s: expected a map, got %s", path,
			  plan_got(node, buf, sizeof(buf)));
}

int plan_want_list(struct vctx *c, const struct plan_node *node, const char *path,
		   const char *what, int max)
{
	char buf[400];

	if (!node || node->kind != PLAN_NODE_SEQ || !node->n)
		return plan_vfail(c, node, "%s: expected a non-empty list of %s, got %s", path,
				  what, node && node->kind == PLAN_NODE_SEQ ? "an empty list" :
				  plan_got(node, buf, sizeof(buf)));
	if (node->n > max)
		return plan_vfail(c, node, "%s: at most %d %s are supported, got %d", path, max,
				  what, node->n);
	return 0;
}

/* A scalar that is neither null nor empty. */
int plan_want_text(struct vctx *c, const struct plan_node *node, const char *path,
		   const char *what, size_t max)
{
	char buf[400];

	if (!node || node->kind != PLAN_NODE_SCALAR || !node->text[0])
		return plan_vfail(c, node, "%s: expected %s, got %s", path, what,
				  plan_got(node, buf, sizeof(buf)));
	if (strlen(node->text) > max)
		return plan_vfail(c, node, "%s: expected %s of at most %zu characters", path, what,
				  max);
	return 0;
}

int plan_want_name(struct vctx *c, const struct plan_node *node, const char *path,
		   const char *extra, const char *what)
{
	char buf[400];

	if (node && node->kind == PLAN_NODE_SCALAR &&
	    util_name_ok(node->text, extra, PLAN_MAX_NAME))
		return 0;
	return plan_vfail(c, node, "%s: expected %s, got %s", path, what,
			  plan_got(node, buf, sizeof(buf)));
}

/* Decimal integer of the whole scalar ("-" allowed, no spaces, no "+"). */
bool plan_parse_int(const struct plan_node *node, long long *out)
{
	const char *s;

	if (!node || node->kind != PLAN_NODE_SCALAR)
		return false;
	s = node->text;
	if (!*s || *s == ' ' || *s == '\t' || *s == '+')
		return false;
	return util_parse_int(s, out) == 0;
}

int plan_want_int(struct vctx *c, const struct plan_node *node, const char *path,
		  long long lo, long long hi, int *out)
{
	char buf[400];
	long long v;

	if (plan_parse_int(node, &v) && v >= lo && v <= hi) {
		*out = (int)v;
		return 0;
	}
	return plan_vfail(c, node, "%s: expected an integer from %lld to %lld, got %s", path, lo,
			  hi, plan_got(node, buf, sizeof(buf)));
}

int plan_want_enum(struct vctx *c, const struct plan_node *node, const char *path,
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
	return plan_vfail(c, node, "%s: expected one of %s, got %s", path,
			  plan_joined(names, -1, list, sizeof(list)),
			  plan_got(node, buf, sizeof(buf)));
}

int plan_want_duration(struct vctx *c, const struct plan_node *node, const char *path,
		       int64_t lo, int64_t hi, const char *range, int64_t *out)
{
	char buf[400];
	int64_t ms;

	if (node && node->kind == PLAN_NODE_SCALAR &&
	    !util_parse_duration_ms(node->text, &ms) && ms >= lo && ms <= hi) {
		*out = ms;
		return 0;
	}
	return plan_vfail(c, node,
			  "%s: expected a duration from %s (such as 10s, 500ms or 2m), got %s", path, range, plan_got(node, buf, sizeof(buf)));
}

bool plan_parse_percent(const struct plan_node *node, double *out, bool *sign)
{
	char *end;
	double v;

	if (!node || node->kind != PLAN_NODE_SCALAR || !node->text[0])
		return false;
	errno = 0;
	v = strtod(node->text, &end);
	while (*end == ' ')
		end++;
	*sign = *end == '%';
	if (*sign)
		end++;
	if (errno || *end || end == node->text || v != v)
		return false;
	*out = v;
	return true;
}

int plan_want_percent(struct vctx *c, const struct plan_node *node, const char *path,
		      double lo, double hi, double *out)
{
	char buf[400];
	bool sign;
	double v;

	if (plan_parse_percent(node, &v, &sign) && v > lo && v < hi) {
		*out = v / 100;
		return 0;
	}
	return plan_vfail(c, node, "%s: expected a percentage above %g %% and below %g %% (such as 2%%), got %s",
			  path, lo, hi, plan_got(node, buf, sizeof(buf)));
}

/* Whether ROLE is one of P's ports; otherwise an error at NODE naming them. */
int plan_want_port(struct vctx *c, const struct plan *p, const struct plan_node *node,
		   const char *what)
{
	char buf[400], list[300];
	int i;

	if (plan_want_name(c, node, what, "_-", "a port role"))
		return -EINVAL;
	for (i = 0; i < p->n_ports; i++) {
		if (!strcmp(p->ports[i], node->text))
			return 0;
	}
	return plan_vfail(c, node, "%s '%s' is not one of the plan's ports (%s)", what,
			  plan_shown(node->text, buf, sizeof(buf)),
			  plan_joined((const char *const *)p->ports, p->n_ports, list,
				      sizeof(list)));
}

/* Whether KEY is a dotted path: non-empty parts, at most PLAN_MAX_KEY long. */
bool plan_key_path_ok(const char *key)
{
	size_t len = strlen(key);

	return len && len <= PLAN_MAX_KEY && key[0] != '.' && key[len - 1] != '.' &&
	       !strstr(key, "..");
}


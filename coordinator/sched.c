// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* sched.c - see sched.h. Host selection for a submitted plan: inventory selectors, port
 * roles and the host count. Called from the coordinator's event loop; no I/O. */
#include "sched.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VER_MAX 8

/* The leading dotted numbers of S into COMP; returns how many (0: none). */
static int ver_parse(const char *s, long long comp[VER_MAX])
{
	int n = 0;

	while (s && n < VER_MAX && isdigit((unsigned char)*s)) {
		long long v = 0;

		for (; isdigit((unsigned char)*s); s++)
			v = v < 100000000000LL ? v * 10 + (*s - '0') : v;
		comp[n++] = v;
		if (*s != '.' || !isdigit((unsigned char)s[1]))
			break;
		s++;
	}
	return n;
}

int sched_version_cmp(const char *a, const char *b, int ncomp, bool *ok)
{
	long long ca[VER_MAX], cb[VER_MAX];
	int na = ver_parse(a, ca), nb = ver_parse(b, cb), lim, i;

	if (ok)
		*ok = na && nb;
	if (!na || !nb)
		return 0;
	lim = ncomp > 0 ? ncomp : (na > nb ? na : nb);
	if (lim > VER_MAX)
		lim = VER_MAX;
	for (i = 0; i < lim; i++) {
		long long x = i < na ? ca[i] : 0, y = i < nb ? cb[i] : 0;

		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

bool sched_value_matches(const char *have, const char *want)
{
	static const char *const ops[] = { ">=", "<=", "!=", "==", ">", "<", "=" };
	long long comp[VER_MAX];
	const char *op = NULL, *rest;
	size_t i;
	bool ok;
	int c;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]) && !op; i++)
		if (!strncmp(want, ops[i], strlen(ops[i])))
			op = ops[i];
	if (!op)
		return !strcmp(have, want);
	for (rest = want + strlen(op); *rest == ' '; rest++)
		;
	if (!strcmp(op, "=") || !strcmp(op, "==") || !strcmp(op, "!=")) {
		c = sched_version_cmp(have, rest, ver_parse(rest, comp), &ok);
		return ok && (op[0] == '!' ? c != 0 : c == 0);
	}
	c = sched_version_cmp(have, rest, 0, &ok);
	if (!ok)
		return false;
	if (!strcmp(op, ">="))
		return c >= 0;
	if (!strcmp(op, "<="))
		return c <= 0;
	return op[0] == '>' ? c > 0 : c < 0;
}

/* A scalar inventory value as text into BUF; false for objects, arrays and null. */
static bool scalar_text(const json_t *v, char *buf, size_t len)
{
	if (!v)
		return false;
	switch (json_typeof(v)) {
	case JSON_STRING:
		snprintf(buf, len, "%s", json_string_value(v));
		return true;
	case JSON_INTEGER:
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
		return true;
	case JSON_REAL:
		snprintf(buf, len, "%.17g", json_real_value(v));
		return true;
	case JSON_TRUE:
	case JSON_FALSE:
		snprintf(buf, len, "%s", json_is_true(v) ? "true" : "false");
		return true;
	default:
		return false;
	}
}

/* Append to BUF (of LEN bytes, NUL-terminated) without overflowing. */
static void append(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

/* Whether inventory port PORT plays one of the N ROLES (any port when N is 0). */
static bool plays_role(const json_t *port, const char *const *roles, int n)
{
	const char *role = json_string_value(json_object_get(port, "role"));
	int i;

	if (!n)
		return true;
	for (i = 0; role && i < n; i++)
		if (!strcmp(role, roles[i]))
			return true;
	return false;
}

/* OBJ at dotted PATH, or NULL. */
static const json_t *path_get(const json_t *obj, const char *path)
{
	char seg[128];
	const char *dot;
	size_t n;

	while (obj && *path) {
		dot = strchr(path, '.');
		n = dot ? (size_t)(dot - path) : strlen(path);
		if (n >= sizeof(seg))
			return NULL;
		memcpy(seg, path, n);
		seg[n] = '\0';
		obj = json_object_get(obj, seg);
		path += dot ? n + 1 : n;
	}
	return obj;
}

/* Whether INV matches selector KEY: WANT. A port.* selector asks it of the ports that play
 * one of the N ROLES (the plan's ports: `port.driver: vmxnet3` says the plan's ports are
 * vmxnet3 ones, whatever else the host has), of any port when N is 0. */
static bool selector_matches(const json_t *inv, const char *key, const char *want,
			     const char *const *roles, int n, struct err *why)
{
	const json_t *v, *port;
	char text[512];
	size_t i;

	if (!strcmp(key, "kernel"))
		key = "kernel.release";
	if (!strncmp(key, "port.", 5)) {
		json_array_foreach(json_object_get(inv, "ports"), i, port) {
			if (!plays_role(port, roles, n))
				continue;
			if (scalar_text(path_get(port, key + 5), text, sizeof(text)) &&
			    sched_value_matches(text, want))
				return true;
		}
		if (why) {
			char list[256] = "";
			int r;

			for (r = 0; r < n; r++)
				append(list, sizeof(list), "%s%s", r ? ", " : " of roles ", roles[r]);
			err_set(why, "no port%s with %s '%s'", list, key + 5, want);
		}
		return false;
	}
	v = path_get(inv, key);
	if (!v && !strchr(key, '.'))
		v = json_object_get(json_object_get(inv, "labels"), key);
	if (!scalar_text(v, text, sizeof(text))) {
		err_set(why, "no '%s' in its inventory", key);
		return false;
	}
	if (sched_value_matches(text, want))
		return true;
	err_set(why, "%s is '%s', not '%s'", key, text, want);
	return false;
}

/* Whether INV has a port for each of the N ROLES; when not, WHY names the first missing. */
static bool has_roles(const json_t *inv, const char *const *roles, int n, struct err *why)
{
	int i;

	for (i = 0; i < n; i++) {
		if (!plan_inventory_port(inv, roles[i])) {
			err_set(why, "no port for role '%s'", roles[i]);
			return false;
		}
	}
	return true;
}

bool sched_xdp_mode_fits(const json_t *inventory, const char *role, enum job_xdp_mode mode,
			 const char *variant, struct err *why)
{
	const char *want = jobspec_xdp_mode_name(mode);
	const json_t *port, *modes, *m;
	char have[64] = "";
	size_t i;

	if (mode != JOB_XDP_NATIVE && mode != JOB_XDP_OFFLOAD)
		return true;	/* generic: every driver; auto: native or generic */
	port = plan_inventory_port(inventory, role);
	modes = json_object_get(json_object_get(port, "xdp"), "modes");
	if (!json_is_array(modes))
		return true;	/* an older agent's inventory, or modes unknown */
	json_array_foreach(modes, i, m) {
		const char *s = json_string_value(m);

		if (!s)
			continue;
		if (!strcmp(s, want))
			return true;
		append(have, sizeof(have), "%s%s", have[0] ? ", " : "", s);
	}
	err_set(why, "port '%s' (%s, %s) has XDP modes %s; the plan asks %s (variant '%s')",
		role, json_string_value(json_object_get(port, "name")) ?: "?",
		json_string_value(json_object_get(port, "driver")) ?: "no driver",
		have[0] ? have : "none", want, variant ? variant : "?");
	return false;
}

/* Whether every XDP entry of PLAN's variants on a port INVENTORY has can attach in its
 * mode (a role the inventory lacks is has_roles's to refuse, or another host's end of a
 * link). */
static bool plan_xdp_fits(const struct plan *plan, const json_t *inventory, struct err *why)
{
	int v, i;

	for (v = 0; v < plan->n_variants; v++) {
		const struct plan_variant *pv = &plan->variants[v];

		for (i = 0; i < pv->n_attach; i++) {
			const struct plan_attach *a = &pv->attach[i];

			if (a->hook == JOB_HOOK_XDP &&
			    !sched_xdp_mode_fits(inventory, a->port, a->mode, pv->name, why))
				return false;
		}
	}
	return true;
}

bool sched_host_has_ports(const struct plan *plan, const json_t *inventory, struct err *why)
{
	return has_roles(inventory, (const char *const *)plan->ports, plan->n_ports, why) &&
	       plan_xdp_fits(plan, inventory, why);
}

bool sched_host_matches(const struct plan *plan, const json_t *inventory, struct err *why)
{
	int i;

	for (i = 0; i < plan->n_match; i++)
		if (!selector_matches(inventory, plan->match[i].key, plan->match[i].value,
				      (const char *const *)plan->ports, plan->n_ports, why))
			return false;
	return sched_host_has_ports(plan, inventory, why);
}


/* Append selector I (0-based) KEY: WANT of a "hosts.match ..." description to BUF. */
static void describe_selector(char *buf, size_t len, int i, const char *key, const char *want)
{
	append(buf, len, "%s%s%s%s", i ? ", " : " ", key,
	       want[0] && strchr("<>=!", want[0]) ? "" : "=", want);
}

/* End a description of N_MATCH selectors with its N_PORTS port ROLES. */
static void describe_ports(char *buf, size_t len, int n_match, const char *const *roles,
			   int n_ports)
{
	int i;

	if (!n_match)
		append(buf, len, " (any)");
	for (i = 0; i < n_ports; i++)
		append(buf, len, "%s%s", i ? ", " : "; ports ", roles[i]);
}

/* "hosts.match port.driver=veth, kernel.release>=6.1; ports a, b" */
static void describe(const struct plan *plan, char *buf, size_t len)
{
	int i;

	buf[0] = '\0';
	append(buf, len, "hosts.match");
	for (i = 0; i < plan->n_match; i++)
		describe_selector(buf, len, i, plan->match[i].key, plan->match[i].value);
	describe_ports(buf, len, plan->n_match, (const char *const *)plan->ports, plan->n_ports);
}

/* The same for a job spec's hosts_match and ports. */
static void describe_spec(const struct job_spec *spec, char *buf, size_t len)
{
	int i;

	buf[0] = '\0';
	append(buf, len, "hosts.match");
	for (i = 0; i < spec->n_hosts_match; i++)
		describe_selector(buf, len, i, spec->hosts_match[i].key,
				  spec->hosts_match[i].value);
	describe_ports(buf, len, spec->n_hosts_match, spec->ports, spec->n_ports);
}

bool sched_jobspec_fits(const struct job_spec *spec, const json_t *inventory, struct err *why,
			char *asked, size_t asked_len)
{
	bool fits = true;
	int i;

	for (i = 0; fits && i < spec->n_hosts_match; i++)
		fits = selector_matches(inventory, spec->hosts_match[i].key,
					spec->hosts_match[i].value, spec->ports, spec->n_ports,
					why);
	fits = fits && has_roles(inventory, spec->ports, spec->n_ports, why);
	for (i = 0; fits && i < spec->n_attach; i++)
		fits = spec->attach[i].hook != JOB_HOOK_XDP ||
		       sched_xdp_mode_fits(inventory, spec->attach[i].port, spec->attach[i].mode,
					   spec->variant, why);
	if (!fits && asked)
		describe_spec(spec, asked, asked_len);
	return fits;
}

bool sched_spec_fits(const json_t *spec, const json_t *inventory, struct err *why,
		     char *asked, size_t asked_len)
{
	struct job_spec s;
	bool fits;

	if (jobspec_decode(spec, "spec", &s, why)) {
		if (asked)
			snprintf(asked, asked_len, "a job spec that cannot be read");
		return false;
	}
	fits = sched_jobspec_fits(&s, inventory, why, asked, asked_len);
	jobspec_release(&s);
	return fits;
}

static int by_pending_then_name(const void *a, const void *b)
{
	const struct sched_host *x = *(struct sched_host *const *)a;
	const struct sched_host *y = *(struct sched_host *const *)b;

	if (x->pending != y->pending)
		return x->pending < y->pending ? -1 : 1;
	if (!x->switching != !y->switching)
		return x->switching ? 1 : -1;
	return strcmp(x->name, y->name);
}

int sched_choose(const struct plan *plan, struct sched_host *hosts, int n, struct err *err)
{
	struct sched_host **match = NULL;
	char desc[512], reasons[768] = "", counts[96];
	struct err why;
	int i, n_match = 0, n_switching = 0, want, ret;

	match = calloc(n ? n : 1, sizeof(*match));
	if (!match)
		return err_ret(err, -ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		hosts[i].chosen = false;
		n_switching += !!hosts[i].switching;
		if (sched_host_matches(plan, hosts[i].inventory, &why))
			match[n_match++] = &hosts[i];
		else if (i < 3 && hosts[i].switching)
			append(reasons, sizeof(reasons), "; '%s' (switching to kernel '%s'): %s",
			       hosts[i].name, hosts[i].switching, why.msg);
		else if (i < 3)
			append(reasons, sizeof(reasons), "; '%s': %s", hosts[i].name, why.msg);
	}
	describe(plan, desc, sizeof(desc));
	snprintf(counts, sizeof(counts), "%d host%s connected%s", n, n == 1 ? "" : "s",
		 n_switching ? " or switching kernels" : "");
	want = plan->host_count > 0 ? plan->host_count : n_match;
	if (!n_match) {
		ret = err_ret(err, -ENOENT, "no host matches the plan (%s; %s%s)", desc, counts,
			      reasons);
		goto out;
	}
	if (want > n_match) {
		ret = err_ret(err, -ERANGE, "the plan wants %d hosts but %d match%s (%s; %s)",
			      want, n_match, n_match == 1 ? "es" : "", desc, counts);
		goto out;
	}
	if (plan->host_count > 0)
		qsort(match, n_match, sizeof(*match), by_pending_then_name);
	for (i = 0; i < want; i++)
		match[i]->chosen = true;
	ret = want;
out:
	free(match);
	return ret;
}

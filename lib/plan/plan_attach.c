// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* plan_attach.c - see plan_int.h. The variants section: each variant's attach entries
 * (port, hook, modes, object, program) with the map slots they fill (`maps`) and the
 * counters they export (`counters`). Used by plan_build().
 */
#include "plan/plan_int.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const attach_keys[] = {
	"port", "hook", "mode", "tc_mode", "object", "program", "maps", "counters", NULL,
};
static const char *const fill_keys[] = { "key", "port", "program", "qsize", "value", NULL };
static const char *const counter_keys[] = { "map", "keys", NULL };

/* A C identifier of at most PLAN_MAX_NAME characters (program and map names). */
static bool ident_ok(const struct plan_node *node)
{
	return node && node->kind == PLAN_NODE_SCALAR &&
	       util_name_ok(node->text, "_", PLAN_MAX_NAME) &&
	       !(node->text[0] >= '0' && node->text[0] <= '9');
}

/* A map key or value: a decimal integer from LO to HI. */
static int want_ll(struct vctx *c, const struct plan_node *node, const char *path,
		   long long lo, long long hi, long long *out)
{
	char buf[400];

	if (plan_parse_int(node, out) && *out >= lo && *out <= hi)
		return 0;
	return plan_vfail(c, node, "%s: expected an integer from %lld to %lld, got %s", path, lo,
			  hi, plan_got(node, buf, sizeof(buf)));
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
		return plan_vfail(c, slot,
				  "%s: a slot must be a map such as {key: 0, port: b}, got %s",
				  path, plan_got(slot, buf, sizeof(buf)));
	if ((ret = plan_check_keys(c, slot, fill_keys, "a map slot")))
		return ret;
	f->map = map->text;
	f->map_line = map->line;
	f->map_col = map->col;
	f->line = slot->line;
	f->col = slot->col;
	if ((ret = plan_need(c, slot, "key", "a map slot", (struct plan_node **)&key)))
		return ret;
	snprintf(path, sizeof(path), "maps.%s.key", map->text);
	if ((ret = want_ll(c, key, path, 0, INT64_MAX, &f->key)))
		return ret;
	port = plan_opt(slot, "port");
	qsize = plan_opt(slot, "qsize");
	value = plan_opt(slot, "value");
	prog = plan_opt(slot, "program");
	if (!port && !qsize && !value)
		return plan_vfail(c, slot, "maps.%s: a slot needs one of port (devmap), qsize (cpumap) or value (array, hash)",
				  map->text);
	if ((port && qsize) || (port && value) || (qsize && value))
		return plan_vfail(c, value ? value : qsize, "maps.%s: port, qsize and value exclude each other",
				  map->text);
	if (port) {
		snprintf(path, sizeof(path), "maps.%s: port", map->text);
		if ((ret = plan_want_port(c, p, port, path)))
			return ret;
		f->port = port->text;
	}
	if (qsize) {
		snprintf(path, sizeof(path), "maps.%s.qsize", map->text);
		if ((ret = plan_want_int(c, qsize, path, 1, JOBSPEC_MAX_QSIZE, &f->qsize)))
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
			return plan_vfail(c, prog, "maps.%s: program goes with port (devmap) or qsize (cpumap), not value",
					  map->text);
		if (!ident_ok(prog))
			return plan_vfail(c, prog, "maps.%s.program: expected a program (function) name, got %s",
					  map->text, plan_got(prog, buf, sizeof(buf)));
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

	if ((ret = plan_want_map(c, maps, "maps")))
		return ret;
	if (maps->n / 2 > PLAN_MAX_FILL_MAPS)
		return plan_vfail(c, maps, "maps: at most %d maps are supported",
				  PLAN_MAX_FILL_MAPS);
	for (i = 0; i + 1 < maps->n; i += 2) {
		const struct plan_node *name = maps->kids[i], *list = maps->kids[i + 1];

		if (!ident_ok(name))
			return plan_vfail(c, name, "maps: expected a map name, got '%s'",
					  plan_shown(name->text, buf, sizeof(buf)));
		snprintf(path, sizeof(path), "maps.%s", name->text);
		if ((ret = plan_want_list(c, list, path, "slots", PLAN_MAX_FILLS)))
			return ret;
		n += list->n;
	}
	a->fills = calloc(n ? n : 1, sizeof(*a->fills));
	if (!a->fills)
		return plan_oom(c);
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
					return plan_vfail(c, list->kids[j], "maps.%s: duplicate key %lld (first at %d:%d)",
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

	if ((ret = plan_want_list(c, list, "counters", "counter maps", PLAN_MAX_COUNTER_MAPS)))
		return ret;
	for (i = 0; i < list->n; i++) {
		const struct plan_node *e = list->kids[i], *map, *keys;

		if (!e || e->kind != PLAN_NODE_MAP)
			return plan_vfail(c, e, "counters: an entry must be a map such as {map: stats, keys: {0: rx}}, got %s",
					  plan_got(e, buf, sizeof(buf)));
		if ((ret = plan_check_keys(c, e, counter_keys, "a counters entry")) ||
		    (ret = plan_need(c, e, "map", "a counters entry", (struct plan_node **)&map)) ||
		    (ret = plan_need(c, e, "keys", "a counters entry", (struct plan_node **)&keys)))
			return ret;
		if (!ident_ok(map))
			return plan_vfail(c, map, "counters: map: expected a map name, got %s",
					  plan_got(map, buf, sizeof(buf)));
		for (j = 0; j < i; j++) {
			const struct plan_node *other = plan_node_get(list->kids[j], "map", NULL);

			if (!strcmp(other->text, map->text))
				return plan_vfail(c, map, "counters: map '%s' is listed twice (first at %d:%d)",
						  map->text, other->line, other->col);
		}
		snprintf(path, sizeof(path), "counters.%s.keys", map->text);
		if ((ret = plan_want_map(c, keys, path)))
			return ret;
		if (!keys->n || keys->n / 2 > PLAN_MAX_COUNTER_KEYS)
			return plan_vfail(c, keys, "%s: expected 1 to %d keys, got %d", path,
					  PLAN_MAX_COUNTER_KEYS, keys->n / 2);
		n += keys->n / 2;
	}
	a->counters = calloc(n ? n : 1, sizeof(*a->counters));
	if (!a->counters)
		return plan_oom(c);
	for (i = 0; i < list->n; i++) {
		const struct plan_node *map = plan_node_get(list->kids[i], "map", NULL);
		const struct plan_node *keys = plan_node_get(list->kids[i], "keys", NULL);

		snprintf(path, sizeof(path), "counters.%s.keys", map->text);
		for (j = 0; j + 1 < keys->n; j += 2) {
			const struct plan_node *key = keys->kids[j], *name = keys->kids[j + 1];
			struct plan_counter *ct = &a->counters[a->n_counters];
			long long idx;

			if (!plan_parse_int(key, &idx) || idx < 0 || idx > UINT32_MAX)
				return plan_vfail(c, key, "%s: keys must be integers from 0 to %u (slots of the map), got '%s'",
						  path, UINT32_MAX, plan_shown(key->text, buf, sizeof(buf)));
			if ((ret = plan_want_name(c, name, path, "._-",
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
					return plan_vfail(c, key, "%s: duplicate key %u (first at %d:%d)",
							  path, ct->key, o->line, o->col);
				if (!strcmp(o->name, ct->name))
					return plan_vfail(c, name, "counters: duplicate counter name '%s' (first at %d:%d)",
							  ct->name, o->line, o->col);
			}
			for (pi = 0; pi < n_prev; pi++) {
				for (k = 0; k < prev[pi].n_counters; k++) {
					const struct plan_counter *o = &prev[pi].counters[k];

					if (!strcmp(o->name, ct->name))
						return plan_vfail(c, name, "counters: duplicate counter name '%s' (first at %d:%d)",
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
		return plan_vfail(c, entry, "an attach entry must be a map such as {port: a, object: x.bpf.o, program: p}, got %s",
				  plan_got(entry, buf, sizeof(buf)));
	if ((ret = plan_check_keys(c, entry, attach_keys, "an attach entry")))
		return ret;
	a->line = entry->line;
	a->col = entry->col;
	if ((ret = plan_need(c, entry, "port", "an attach entry", &node)) ||
	    (ret = plan_want_port(c, p, node, "port")))
		return ret;
	a->port = node->text;
	if ((node = plan_opt(entry, "hook"))) {
		if ((ret = plan_want_enum(c, node, "hook", jobspec_hook_names, &v)))
			return ret;
		a->hook = v;
	}
	if ((node = plan_opt(entry, "mode"))) {
		if (a->hook != JOB_HOOK_XDP)
			return plan_vfail(c, node, "mode applies to hook xdp only, not %s",
					  jobspec_hook_name(a->hook));
		if ((ret = plan_want_enum(c, node, "mode", jobspec_xdp_mode_names, &v)))
			return ret;
		a->mode = v;
	}
	if ((node = plan_opt(entry, "tc_mode"))) {
		if (a->hook == JOB_HOOK_XDP)
			return plan_vfail(c, node, "tc_mode applies to hooks tc-ingress and tc-egress only, not xdp");
		if ((ret = plan_want_enum(c, node, "tc_mode", jobspec_tc_mode_names, &v)))
			return ret;
		a->tc_mode = v;
	}
	if ((ret = plan_need(c, entry, "object", "an attach entry", &node)) ||
	    (ret = plan_want_text(c, node, "object", "an object name or path", PLAN_MAX_OBJECT)))
		return ret;
	a->object = node->text;
	a->object_line = node->line;
	a->object_col = node->col;
	if ((ret = plan_need(c, entry, "program", "an attach entry", &node)))
		return ret;
	if (!node || node->kind != PLAN_NODE_SCALAR ||
	    !util_name_ok(node->text, "_", PLAN_MAX_NAME) ||
	    (node->text[0] >= '0' && node->text[0] <= '9'))
		return plan_vfail(c, node, "program: expected a program (function) name, got %s",
				  plan_got(node, buf, sizeof(buf)));
	a->program = node->text;
	a->program_line = node->line;
	a->program_col = node->col;
	if ((node = plan_opt(entry, "maps")) && (ret = build_fills(c, p, node, a)))
		return ret;
	if ((node = plan_opt(entry, "counters")) &&
	    (ret = build_counters(c, node, a, prev, n_prev)))
		return ret;
	return 0;
}

int plan_build_variants(struct vctx *c, const struct plan_node *variants, struct plan *p)
{
	char subject[300], buf[400];
	int i, j, k, ret;

	if ((ret = plan_want_map(c, variants, "variants")))
		return ret;
	if (!variants->n)
		return plan_vfail(c, variants, "variants: expected at least one variant");
	if (variants->n / 2 > PLAN_MAX_VARIANTS)
		return plan_vfail(c, variants, "variants: at most %d variants are supported",
				  PLAN_MAX_VARIANTS);
	p->variants = calloc(variants->n / 2, sizeof(*p->variants));
	if (!p->variants)
		return plan_oom(c);
	for (i = 0; i + 1 < variants->n; i += 2) {
		const struct plan_node *name = variants->kids[i], *list = variants->kids[i + 1];
		struct plan_variant *var = &p->variants[p->n_variants++];

		if ((ret = plan_want_name(c, name, "variants", "._-",
					  "a variant name of letters, digits, '.', '_' and '-'")))
			return ret;
		var->name = name->text;
		var->line = name->line;
		var->col = name->col;
		snprintf(subject, sizeof(subject), "variant '%s'", name->text);
		c->subject = subject;
		if ((ret = plan_want_list(c, list, "attach", "attach entries", PLAN_MAX_ATTACH)))
			return ret;
		var->attach = calloc(list->n, sizeof(*var->attach));
		if (!var->attach)
			return plan_oom(c);
		for (j = 0; j < list->n; j++) {
			struct plan_attach *a = &var->attach[j];

			var->n_attach++;	/* so that a failed entry is released too */
			if ((ret = build_attach(c, p, list->kids[j], a, var->attach, j)))
				return ret;
			for (k = 0; k < j; k++) {
				const struct plan_attach *b = &var->attach[k];

				if (!strcmp(a->port, b->port) && a->hook == b->hook)
					return plan_vfail(c, list->kids[j],
							  "port '%s' already has a %s program in this variant (at %d:%d)",
							  plan_shown(a->port, buf, sizeof(buf)),
							  jobspec_hook_name(a->hook), b->line, b->col);
			}
		}
		c->subject = NULL;
	}
	return 0;
}


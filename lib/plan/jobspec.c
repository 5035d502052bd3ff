// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* jobspec.c - see jobspec.h. The enum names, a spec's init and release, and the encoder;
 * the decoder is jobspec_decode.c.
 *
 * The encoder writes the members in the order of the struct, which is the order the plan
 * expansion (lib/plan/plan_expand.c) always wrote them in, followed by what the coordinator
 * adds (attach[].sha256, pair, hosts_match: plan_expand_opts fills them before the one
 * encoding), so its bytes are the wire format as it was. */
#include "plan/jobspec.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

const char *const jobspec_hook_names[] = { "xdp", "tc-ingress", "tc-egress", NULL };
const char *const jobspec_xdp_mode_names[] = { "native", "generic", "offload", "auto",
						 NULL };
const char *const jobspec_tc_mode_names[] = { "auto", "tcx", "clsact", NULL };
const char *const jobspec_generator_names[] = { "xdp-live", "udp", "pktgen", "none", NULL };
const char *const jobspec_proto_names[] = { "udp4", "udp6", NULL };
const char *const jobspec_pair_role_names[] = { "generator", "dut", NULL };
const char *const jobspec_verifier_names[] = { "none", "stats", NULL };
const char *const jobspec_search_method_names[] = { "mlrsearch", "binary", NULL };

const char *jobspec_name(const char *const *names, int v)
{
	int i;

	for (i = 0; names[i]; i++)
		if (i == v)
			return names[i];
	return "?";
}

void jobspec_init(struct job_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	spec->traffic.generator = JOB_GEN_NONE;
	spec->traffic.size = JOBSPEC_DEFAULT_SIZE;
	spec->traffic.proto = JOB_PROTO_UDP4;
	spec->traffic.flows = JOBSPEC_DEFAULT_FLOWS;
	spec->traffic.threads = JOBSPEC_DEFAULT_THREADS;
	spec->pair.barrier_ms = JOBSPEC_DEFAULT_BARRIER_MS;
}

void jobspec_attach_free(struct job_attach *attach, int n)
{
	int i, j;

	for (i = 0; attach && i < n; i++) {
		for (j = 0; j < attach[i].n_maps; j++)
			free(attach[i].maps[j].slots);
		for (j = 0; j < attach[i].n_counters; j++)
			free(attach[i].counters[j].keys);
		free(attach[i].maps);
		free(attach[i].counters);
	}
	free(attach);
}

void jobspec_release(struct job_spec *spec)
{
	if (!spec)
		return;
	free(spec->point);
	free(spec->ports);
	free(spec->traffic.cpus);
	jobspec_attach_free(spec->attach, spec->n_attach);
	free(spec->metrics);
	free(spec->repeat.on);
	free(spec->hosts_match);
	json_decref(spec->json);
	jobspec_init(spec);
}

/* ---- encoding ---- */

/* Set KEY of OBJ to VALUE (a new reference, NULL: out of memory); false on failure. */
static bool put(json_t *obj, const char *key, json_t *value)
{
	return value && !json_object_set_new(obj, key, value);
}

static bool push(json_t *arr, json_t *value)
{
	return value && !json_array_append_new(arr, value);
}

/* OBJ when OK, else NULL with OBJ dropped: the end of every encoder below. */
static json_t *done(json_t *obj, bool ok)
{
	if (ok && obj)
		return obj;
	json_decref(obj);
	return NULL;
}

static json_t *strings(const char *const *items, int n)
{
	json_t *arr = json_array();
	int i;

	for (i = 0; arr && i < n && push(arr, json_string(items[i])); i++)
		;
	return done(arr, i == n);
}

static json_t *kvs(const struct job_kv *kv, int n)
{
	json_t *obj = json_object();
	int i;

	for (i = 0; obj && i < n && put(obj, kv[i].key, json_string(kv[i].value)); i++)
		;
	return done(obj, i == n);
}

static json_t *link_json(const char *gen, const char *dut)
{
	json_t *link = json_object();

	return done(link, (!gen || put(link, "generator", json_string(gen))) &&
			  (!dut || put(link, "dut", json_string(dut))));
}

static json_t *traffic_json(const struct job_traffic *t)
{
	json_t *traffic = json_object(), *packet = json_object(), *cpus = NULL;
	bool ok;
	int i;

	ok = traffic && packet && put(packet, "size", json_integer(t->size)) &&
	     put(packet, "proto", json_string(jobspec_proto_name(t->proto))) &&
	     put(packet, "flows", json_integer(t->flows)) &&
	     (!t->dst_mac || put(packet, "dst_mac", json_string(t->dst_mac)));
	ok = ok && put(traffic, "generator", json_string(jobspec_generator_name(t->generator))) &&
	     (!t->from || put(traffic, "from", json_string(t->from))) &&
	     put(traffic, "packet", json_incref(packet)) &&
	     put(traffic, "threads", json_integer(t->threads)) &&
	     (!t->to || put(traffic, "to", json_string(t->to)));
	if (ok && t->n_cpus) {
		cpus = json_array();
		for (i = 0; cpus && i < t->n_cpus && push(cpus, json_integer(t->cpus[i])); i++)
			;
		ok = put(traffic, "cpus", done(cpus, i == t->n_cpus));
	}
	ok = ok && (!t->duration_ms || put(traffic, "duration_ms", json_integer(t->duration_ms))) &&
	     put(traffic, "warmup_ms", json_integer(t->warmup_ms)) &&
	     (!t->rate_pps || put(traffic, "rate_pps", json_integer(t->rate_pps))) &&
	     (!(t->rate_share > 0) || put(traffic, "rate_share", json_real(t->rate_share))) &&
	     (!t->burst || put(traffic, "burst", json_integer(t->burst)));
	json_decref(packet);
	return done(traffic, ok);
}

static json_t *slot_json(const struct job_slot *s)
{
	json_t *slot = json_object();

	return done(slot, put(slot, "key", json_integer(s->key)) &&
			  (!s->port || put(slot, "port", json_string(s->port))) &&
			  (!s->qsize || put(slot, "qsize", json_integer(s->qsize))) &&
			  (!s->has_value || put(slot, "value", json_integer(s->value))) &&
			  (!s->program || put(slot, "program", json_string(s->program))));
}

static json_t *maps_json(const struct job_attach *a)
{
	json_t *maps = json_object(), *slots;
	bool ok = maps;
	int i, j;

	for (i = 0; ok && i < a->n_maps; i++) {
		const struct job_map *m = &a->maps[i];

		slots = json_array();
		for (j = 0; slots && j < m->n_slots && push(slots, slot_json(&m->slots[j])); j++)
			;
		ok = put(maps, m->name, done(slots, j == m->n_slots));
	}
	return done(maps, ok);
}

static json_t *counters_json(const struct job_attach *a)
{
	json_t *list = json_array(), *keys, *entry;
	bool ok = list;
	char idx[16];
	int i, j;

	for (i = 0; ok && i < a->n_counters; i++) {
		const struct job_counters *ct = &a->counters[i];

		keys = json_object();
		for (j = 0; keys && j < ct->n_keys; j++) {
			snprintf(idx, sizeof(idx), "%u", ct->keys[j].index);
			if (!put(keys, idx, json_string(ct->keys[j].name)))
				break;
		}
		keys = done(keys, j == ct->n_keys);
		entry = json_object();
		ok = push(list, done(entry, keys && put(entry, "map", json_string(ct->map)) &&
					    put(entry, "keys", json_incref(keys))));
		json_decref(keys);
	}
	return done(list, ok);
}

static json_t *entry_json(const struct job_attach *a)
{
	json_t *e = json_object();
	bool xdp = a->hook == JOB_HOOK_XDP;

	return done(e, put(e, "port", json_string(a->port)) &&
		       put(e, "hook", json_string(jobspec_hook_name(a->hook))) &&
		       (xdp ? put(e, "mode", json_string(jobspec_xdp_mode_name(a->mode))) :
			      put(e, "tc_mode", json_string(jobspec_tc_mode_name(a->tc_mode)))) &&
		       put(e, "object", json_string(a->object)) &&
		       put(e, "program", json_string(a->program)) &&
		       (!a->n_maps || put(e, "maps", maps_json(a))) &&
		       (!a->n_counters || put(e, "counters", counters_json(a))) &&
		       (!a->sha256 || put(e, "sha256", json_string(a->sha256))));
}

static json_t *repeat_json(const struct job_repeat *r)
{
	json_t *obj = json_object();

	return done(obj, put(obj, "min", json_integer(r->min)) &&
			 put(obj, "max", json_integer(r->max)) &&
			 put(obj, "until", json_real(r->until)) &&
			 put(obj, "on", strings(r->on, r->n_on)));
}

static json_t *pair_json(const struct job_pair *p)
{
	json_t *obj = json_object();

	return done(obj, put(obj, "role", json_string(jobspec_pair_role_name(p->role))) &&
			 (!p->peer || put(obj, "peer", json_string(p->peer))) &&
			 (!(p->link_generator || p->link_dut) ||
			  put(obj, "link", link_json(p->link_generator, p->link_dut))) &&
			 put(obj, "barrier_ms", json_integer(p->barrier_ms)));
}

static json_t *search_json(const struct job_search *s)
{
	json_t *search = json_object(), *goals = json_array();
	bool ok = search && goals;
	int i;

	for (i = 0; ok && i < s->n_goals; i++) {
		json_t *g = json_object();

		ok = push(goals, done(g, g && put(g, "name", json_string(s->goals[i].name)) &&
					 put(g, "loss", json_real(s->goals[i].loss))));
	}
	ok = ok && (s->method == JOB_SEARCH_MLRSEARCH ||
		    put(search, "method", json_string(jobspec_search_method_names[s->method]))) &&
	     put(search, "goals", json_incref(goals)) &&
	     put(search, "width", json_real(s->width)) &&
	     put(search, "exceed", json_real(s->exceed)) &&
	     put(search, "trial_ms", json_integer(s->trial_ms)) &&
	     put(search, "total_ms", json_integer(s->total_ms)) &&
	     put(search, "min_rate_pps", json_integer(s->min_rate_pps)) &&
	     put(search, "max_rate_pps", json_integer(s->max_rate_pps));
	json_decref(goals);
	return done(search, ok);
}

static json_t *latency_json(const struct job_latency *l)
{
	json_t *lat = json_object(), *loads = json_array();
	bool ok = lat && loads;
	int i;

	for (i = 0; ok && i < l->n_loads; i++) {
		const struct job_latency_load *ld = &l->loads[i];
		json_t *o = json_object();

		ok = push(loads, done(o, o && (ld->share > 0 ?
					       put(o, "share", json_real(ld->share)) :
					       put(o, "pps", json_integer(ld->pps)))));
	}
	ok = ok && put(lat, "loads", json_incref(loads)) &&
	     (!l->port || put(lat, "port", json_string(l->port))) &&
	     (!l->goal || put(lat, "goal", json_string(l->goal)));
	json_decref(loads);
	return done(lat, ok);
}

json_t *jobspec_encode(const struct job_spec *s)
{
	json_t *spec = json_object(), *attach = json_array();
	bool ok = spec && attach;
	int i;

	for (i = 0; ok && i < s->n_attach; i++)
		ok = push(attach, entry_json(&s->attach[i]));
	ok = ok && (!s->plan || put(spec, "plan", json_string(s->plan))) &&
	     (!s->variant || put(spec, "variant", json_string(s->variant))) &&
	     put(spec, "rep", json_integer(s->rep)) &&
	     put(spec, "point", kvs(s->point, s->n_point)) &&
	     put(spec, "ports", strings(s->ports, s->n_ports)) &&
	     put(spec, "traffic", traffic_json(&s->traffic)) &&
	     put(spec, "attach", json_incref(attach)) &&
	     (!s->has_metrics || put(spec, "metrics", strings(s->metrics, s->n_metrics))) &&
	     (!s->has_repeat || put(spec, "repeat", repeat_json(&s->repeat))) &&
	     (!s->share_machine || put(spec, "share_machine", json_true())) &&
	     (s->verifier == JOB_VERIFIER_NONE ||
	      put(spec, "verifier", json_string(jobspec_verifier_name(s->verifier)))) &&
	     (!(s->link_generator || s->link_dut) ||
	      put(spec, "link", link_json(s->link_generator, s->link_dut))) &&
	     (!s->has_pair || put(spec, "pair", pair_json(&s->pair))) &&
	     (!s->has_search || put(spec, "search", search_json(&s->search))) &&
	     (!s->has_latency || put(spec, "latency", latency_json(&s->latency))) &&
	     (!s->n_hosts_match || put(spec, "hosts_match", kvs(s->hosts_match,
								  s->n_hosts_match)));
	json_decref(attach);
	spec = done(spec, ok);
	if (!spec)
		errno = ENOMEM;
	return spec;
}

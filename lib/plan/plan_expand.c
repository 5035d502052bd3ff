// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* plan_expand.c - see plan.h. A plan into its jobs: for every matrix point, repetition
 * and variant (variants interleaved within a repetition) the job spec filled as a struct
 * job_spec and encoded through jobspec.h, once: what bpflabd's submit adds (each attach
 * entry's sha256, the plan's hosts.match, a two-host job's two sides) is filled in
 * before the encoding (plan_expand_opts); plan_pair_spec() derives the two halves of a
 * two-host job from an encoded spec. The number of jobs and of attach entries was bounded when the plan was
 * built, so the work is linear in the (capped) expansion.
 */
#include "plan/plan_int.h"
#include "plan/objects.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The job spec (docs/protocol.md) for variant V of plan P at REP, POINT, filled into *S
 * (initialised here; its strings borrowed from P, POINT and OPTS; release it): with
 * OPTS, each attach entry's sha256 and the plan's hosts.match (MATCH, N_MATCH entries).
 * Returns 0, -ENOMEM, or -EINVAL with ERR set (an object OPTS->objs lacks). */
static int job_fill(struct vctx *c, const struct plan *p, int v, int rep, const json_t *point,
		    const struct plan_expand_opts *opts, struct job_kv *match, int n_match,
		    struct job_spec *s)
{
	const struct plan_variant *var = &p->variants[v];
	const struct plan_traffic *t = &p->traffic;
	json_t *value;
	const char *key;
	int i;

	jobspec_init(s);
	s->plan = p->name;
	s->variant = var->name;
	s->rep = rep;
	s->point = calloc(json_object_size(point) + 1, sizeof(*s->point));
	s->ports = strings_dup(p->ports, p->n_ports);
	s->n_ports = p->n_ports;
	s->has_metrics = true;
	s->metrics = strings_dup(p->metrics, p->n_metrics);
	s->n_metrics = p->n_metrics;
	s->attach = calloc((size_t)var->n_attach + 1, sizeof(*s->attach));
	if (!s->point || !s->ports || !s->metrics || !s->attach)
		return -ENOMEM;
	json_object_foreach((json_t *)point, key, value) {
		s->point[s->n_point].key = key;
		s->point[s->n_point++].value = json_string_value(value);
	}
	s->traffic = (struct job_traffic){
		.generator = t->generator, .from = t->from, .size = t->size, .proto = t->proto,
		.flows = t->flows, .threads = t->threads, .to = t->to,
		.duration_ms = t->duration_ms, .warmup_ms = t->warmup_ms,
		.rate_pps = t->rate_pps, .rate_share = t->rate_share, .burst = t->burst,
	};
	if (t->n_cpus) {
		s->traffic.cpus = calloc((size_t)t->n_cpus, sizeof(*s->traffic.cpus));
		if (!s->traffic.cpus)
			return -ENOMEM;
		memcpy(s->traffic.cpus, t->cpus, (size_t)t->n_cpus * sizeof(*t->cpus));
		s->traffic.n_cpus = t->n_cpus;
	}
	for (i = 0; i < var->n_attach; i++) {
		const struct plan_attach *a = &var->attach[i];
		struct job_attach *ja = &s->attach[s->n_attach++];

		*ja = (struct job_attach){
			.port = a->port, .hook = a->hook, .mode = a->mode, .tc_mode = a->tc_mode,
			.object = a->object, .program = a->program,
		};
		if ((a->n_fills && spec_maps(a, ja)) || (a->n_counters && spec_counters(a, ja)))
			return -ENOMEM;
		if (opts && opts->objs) {
			const struct plan_object *o = plan_objects_find(opts->objs, a->object);

			if (!o)
				return err_at(c->err, p->file, 0, 0, "object '%s' was not "
					      "submitted", a->object);
			ja->sha256 = o->sha256;
		}
	}
	if (p->repeat_until > 0) {
		s->has_repeat = true;
		s->repeat.min = p->repeat;
		s->repeat.max = p->repeat_max;
		s->repeat.until = p->repeat_until;
		s->repeat.on = p->n_repeat_on ? strings_dup(p->repeat_on, p->n_repeat_on) :
						strings_dup(p->metrics, p->n_metrics);
		s->repeat.n_on = p->n_repeat_on ? p->n_repeat_on : p->n_metrics;
		if (!s->repeat.on)
			return -ENOMEM;
	}
	s->share_machine = p->share_machine;
	s->verifier = (enum job_verifier)p->verifier;
	s->link_generator = p->link_generator;
	s->link_dut = p->link_dut;
	s->has_search = p->has_search;
	s->search = p->search;
	s->has_latency = p->has_latency;
	s->latency = p->latency;
	s->hosts_match = match;
	s->n_hosts_match = n_match;
	return 0;
}

/* One side of the two-host job S (its link set) encoded: GEN's (else the dut's), with
 * PEER the other host. S is as it was after. NULL with errno (EINVAL: S has no link). */
static json_t *pair_side(struct job_spec *s, bool gen, const char *peer)
{
	struct job_spec side = *s;
	const char *port = gen ? s->link_generator : s->link_dut;
	json_t *out;
	int i;

	if (!port || !peer) {
		errno = EINVAL;
		return NULL;
	}
	/* this side's attach entries and port, borrowed for the encoding */
	side.attach = calloc((size_t)s->n_attach + 1, sizeof(*side.attach));
	if (!side.attach) {
		errno = ENOMEM;
		return NULL;
	}
	side.n_attach = 0;
	for (i = 0; i < s->n_attach; i++)
		if (!strcmp(s->attach[i].port, port))
			side.attach[side.n_attach++] = s->attach[i];
	side.ports = &port;
	side.n_ports = 1;
	side.has_pair = true;
	side.pair = (struct job_pair){
		.role = gen ? JOB_PAIR_GENERATOR : JOB_PAIR_DUT, .peer = peer,
		.link_generator = s->link_generator, .link_dut = s->link_dut,
		.barrier_ms = JOBSPEC_DEFAULT_BARRIER_MS,
	};
	side.link_generator = side.link_dut = NULL;
	if (!gen) {
		/* the device under test only measures */
		side.traffic.generator = JOB_GEN_NONE;
		side.traffic.from = NULL;
		side.traffic.n_cpus = 0;
	}
	out = jobspec_encode(&side);
	i = errno;
	free(side.attach);
	errno = i;
	return out;
}

json_t *plan_pair_spec(const json_t *spec, const char *role, const char *peer)
{
	struct job_spec s;
	json_t *side = NULL;
	int ret;

	ret = jobspec_decode(spec, "spec", &s, NULL);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	if (role && (!strcmp(role, "generator") || !strcmp(role, "dut")))
		side = pair_side(&s, !strcmp(role, "generator"), peer);
	else
		errno = EINVAL;
	ret = errno;
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

/* The plan's hosts.match as spec entries (borrowed strings), into *OUT (heap, *N). */
static int match_kvs(const struct plan *plan, struct job_kv **out, int *n)
{
	int k;

	*out = calloc((size_t)plan->n_match + 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (k = 0; k < plan->n_match; k++)
		(*out)[k] = (struct job_kv){ plan->match[k].key, plan->match[k].value };
	*n = plan->n_match;
	return 0;
}

/* The jobs of variant V at REP, POINT (VALUES) into JOB (two with a pair: JOB[0], JOB[1]),
 * each spec filled and encoded once. */
static int expand_one(struct vctx *c, const struct plan *pp, int v, int rep, int point,
		      long long seq, json_t *values, const struct plan_expand_opts *opts,
		      struct job_kv *match, int n_match, struct plan_job *job)
{
	bool pair = opts && (opts->pair_generator || opts->pair_dut);
	struct job_spec s;
	int k, ret;

	ret = job_fill(c, pp, v, rep, values, opts, match, n_match, &s);
	for (k = 0; !ret && k < (pair ? 2 : 1); k++) {
		job[k] = (struct plan_job){ .seq = (int)seq, .variant = v, .point = point,
					    .rep = rep };
		job[k].point_values = json_deep_copy(values);
		job[k].spec = !pair ? jobspec_encode(&s) :
			      pair_side(&s, !k, k ? opts->pair_generator : opts->pair_dut);
		if (pair && !job[k].spec && errno == EINVAL)
			ret = err_at(c->err, pp->file, 0, 0, "the plan has no link: its jobs "
				     "have no sides");
		else if (!job[k].point_values || !job[k].spec)
			ret = -ENOMEM;
	}
	s.hosts_match = NULL;	/* the expansion's, shared by every job */
	s.n_hosts_match = 0;
	jobspec_release(&s);
	return ret == -ENOMEM ? plan_oom(c) : ret;
}

int plan_expand(const struct plan *plan, struct plan_job **jobsp, int *np,
		struct err *err)
{
	return plan_expand_opts(plan, NULL, jobsp, np, err);
}

int plan_expand_opts(const struct plan *plan, const struct plan_expand_opts *opts,
		     struct plan_job **jobsp, int *np, struct err *err)
{
	struct vctx c = { .err = err };
	struct point_state *ps = NULL;
	struct plan_job *jobs = NULL;
	struct job_kv *match = NULL;
	long long points, total, k;
	int n_var, rep, v, ret = 0, n_match = 0, sides;

	*jobsp = NULL;
	*np = 0;
	if (!plan || !plan->tree)
		return -EINVAL;
	c.file = plan->file;
	err_clear(c.err);
	sides = opts && (opts->pair_generator || opts->pair_dut) ? 2 : 1;
	points = plan_points(plan);
	n_var = plan->n_variants;
	total = points * plan->repeat * n_var;
	if (total > PLAN_MAX_JOBS || total <= 0)
		return err_at(c.err, plan->file, 0, 0, "the plan expands to %lld jobs, more than %d",
			      total, PLAN_MAX_JOBS);
	jobs = calloc((size_t)(total * sides), sizeof(*jobs));
	ps = calloc(1, sizeof(*ps));
	if (!jobs || !ps || (opts && opts->hosts_match && plan->n_match &&
			     match_kvs(plan, &match, &n_match))) {
		ret = plan_oom(&c);
		goto out;
	}
	for (k = 0; k < points && !ret; k++) {
		struct plan scratch_plan = { 0 };
		const struct plan *pp = plan;
		json_t *values = json_object();

		if (!values) {
			ret = plan_oom(&c);
			break;
		}
		if (plan->n_axes) {
			ret = plan_point_apply(&c, plan, plan->tree, k, ps, values);
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

				ret = expand_one(&c, pp, v, rep, (int)k, seq, values, opts, match,
						 n_match, &jobs[seq * sides]);
			}
		}
		json_decref(values);
		plan_point_release(&scratch_plan);
		plan_point_unapply(ps);
	}
out:
	free(ps);
	free(match);
	if (ret) {
		plan_jobs_free(jobs, (int)(jobs ? total * sides : 0));
		return ret;
	}
	*jobsp = jobs;
	*np = (int)(total * sides);
	return 0;
}

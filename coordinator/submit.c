// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* submit.c - the coordinator's `submit` handler: a client's plan text, overrides and
 * object bytes become a stored run whose jobs are queued on the chosen hosts.
 *
 * Order: overrides, plan_parse, objects (each sha256 checked against its bytes),
 * plan_objects_check, host choice (sched.c; a plan with a link: its two hosts, link.c),
 * plan_expand_opts (each attach entry with its object's sha256, each spec with the
 * plan's hosts.match, checked again when the job is handed out: coordinator/boot.c,
 * coord_job_fits; a link's jobs in their two sides), traffic.rate against each chosen
 * host's ports (plan_rate_check: refused "invalid"), each spec encoded once, then
 * store_run_create_hosts in one transaction, and the run's specs kept decoded for its
 * dispatch (specs.c). Any failure answers with an error message and stores nothing.
 * Runs on the event loop's thread; the plan work is CPU only (a plan is at most
 * PLAN_MAX_BYTES).
 *
 * A host switching its kernel (coordinator/boot.c) is a candidate as the kernel it
 * switches to: its inventory with kernel.release the target (jobs wait for the switch);
 * --hosts refuses it (docs/kernels.md, "Kernel switches and runs").
 */
#include "coord_clients.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord_boot.h"
#include "coord_core.h"
#include "coord_dispatch.h"
#include "coord_link.h"
#include "coord_specs.h"
#include "base/log.h"
#include "base/vercmp.h"
#include "plan/jobspec.h"
#include "plan/objects.h"
#include "plan/plan.h"
#include "sched.h"
#include "base/util.h"

#define SUBMIT_MAX_JOBS 1000000		/* jobs of one run, over all its hosts */

struct submit {
	struct plan_override *ov;
	int n_ov;
	struct plan *plan;
	struct plan_objects objs;
	struct plan_job *jobs;
	int n_jobs;
	struct sched_host *hosts;
	int n_hosts;
	json_t *targets;	/* switching hosts' inventories as they will be (owned) */
	char **texts;		/* each job's spec encoded (heap, N_JOBS) */
	size_t *lens;
	struct store_job_new *jn;
	int64_t *job_ids;	/* the stored jobs' ids, in JN's order */
	int *spec_of;		/* JN[k]'s job in JOBS */
	struct store_run_host *rh;
	bool invalid;		/* the plan cannot run on its hosts: the reply says "invalid" */
	struct err err;		/* why the submit is refused */
};

static int parse_overrides(struct submit *s, const json_t *overrides)
{
	const json_t *v;
	size_t i;

	if (!overrides || json_is_null(overrides))
		return 0;
	if (!json_is_array(overrides))
		return err_ret(&s->err, -EINVAL,
			       "'overrides' must be an array of KEY=VALUE strings");
	s->ov = calloc(json_array_size(overrides) + 1, sizeof(*s->ov));
	if (!s->ov)
		return err_ret(&s->err, -ENOMEM, "out of memory");
	json_array_foreach(overrides, i, v) {
		if (!json_is_string(v))
			return err_ret(&s->err, -EINVAL,
				       "'overrides' must be an array of KEY=VALUE strings");
		if (plan_override_parse(json_string_value(v), &s->ov[i], &s->err))
			return -EINVAL;
		s->n_ov++;
	}
	return 0;
}

static int add_objects(struct submit *s, const json_t *objects)
{
	char hex[SHA256_HEX_LEN];
	const char *name;
	const json_t *o;
	size_t len;
	void *buf;
	int err;

	if (!objects || json_is_null(objects))
		return 0;	/* plan_objects_check names what is missing */
	if (!json_is_object(objects))
		return err_ret(&s->err, -EINVAL, "'objects' must map names to {sha256, data}");
	json_object_foreach((json_t *)objects, name, o) {
		const char *sha = jget_str(o, "sha256", NULL);
		const char *data = jget_str(o, "data", NULL);

		if (!sha || !data)
			return err_ret(&s->err, -EINVAL,
				       "object '%s' without 'sha256' and 'data'", name);
		err = util_base64_decode(data, &buf, &len);
		if (err)
			return err_ret(&s->err, err, "object '%s': 'data' is not base64", name);
		util_sha256_hex(buf, len, hex);
		if (strcmp(hex, sha)) {
			free(buf);
			return err_ret(&s->err, -EINVAL,
				       "object '%s': its bytes hash to %s, not %s", name, hex,
				       sha);
		}
		err = plan_objects_add(&s->objs, name, buf, len);
		free(buf);
		if (err)
			return err_ret(&s->err, err, "object '%s' cannot be used: %s", name,
				       strerror(-err));
	}
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct sched_host *)a)->name, ((const struct sched_host *)b)->name);
}

/* The submitter's --hosts NAMES (an array of host names) replace hosts.match and count:
 * each must be connected and have the plan's port roles; all of them are chosen. Returns
 * how many, or -errno with the reason in S->err. */
static int named_hosts(struct coord *c, struct submit *s, const json_t *names)
{
	struct coord_agent *a;
	const json_t *v;
	struct err why;
	size_t i, j;

	if (!json_is_array(names) || !json_array_size(names))
		return err_ret(&s->err, -EINVAL,
			       "'hosts' must be a non-empty array of host names");
	s->hosts = calloc(json_array_size(names), sizeof(*s->hosts));
	if (!s->hosts)
		return err_ret(&s->err, -ENOMEM, "out of memory");
	json_array_foreach(names, i, v) {
		const char *name = json_string_value(v);
		struct sched_host *h = &s->hosts[s->n_hosts];

		if (!name)
			return err_ret(&s->err, -EINVAL,
				       "'hosts' must be a non-empty array of host names");
		for (j = 0; j < i; j++)
			if (!strcmp(name, s->hosts[j].name))
				return err_ret(&s->err, -EINVAL, "host '%s' is named twice",
					       name);
		a = coord_agent_by_name(c, name);
		if (!a)
			return err_ret(&s->err, -ENOENT,
				       "host '%s' is not known to the coordinator", name);
		if (coord_boot_holds(a))
			return err_ret(&s->err, -EBUSY, "host '%s' is switching to kernel "
				       "'%s' (bpflab host boot): name it when the switch is "
				       "done, or let the plan's hosts.match choose", name,
				       a->boot.kernel);
		if (!a->sess.connected)
			return err_ret(&s->err, -ENOENT, "host '%s' is not connected", name);
		if (!sched_host_has_ports(s->plan, a->inventory, &why))
			return err_ret(&s->err, -ENOENT, "host '%s' cannot run plan '%s': %s",
				       name, s->plan->name, why.msg);
		h->id = a->host_id;
		h->name = a->name;
		h->inventory = a->inventory;
		h->chosen = true;
		s->n_hosts++;
	}
	return s->n_hosts;
}

/* Agent A's inventory as it will be after its switch: its kernel is the target's
 * release (and nothing else of the old kernel's), the rest as it is. Kept in S->targets.
 * NULL when out of memory. */
static const json_t *target_inventory(struct submit *s, const struct coord_agent *a)
{
	json_t *inv = json_deep_copy(a->inventory);

	if (!inv || json_array_append_new(s->targets, inv))
		return NULL;	/* appending steals inv, also when it fails */
	if (json_object_set_new(inv, "kernel", json_pack("{s:s}", "release", a->boot.kernel)))
		return NULL;
	return inv;
}

/* The connected hosts and those switching their kernel (connected or not) as
 * candidates, then sched_choose. Returns how many were chosen. */
static int choose_hosts(struct coord *c, struct submit *s)
{
	struct coord_agent *a;
	int n = 0, err;

	for (a = c->agents; a; a = a->next)
		n += a->sess.connected || coord_boot_holds(a);
	s->hosts = calloc(n ? n : 1, sizeof(*s->hosts));
	s->targets = json_array();
	if (!s->hosts || !s->targets)
		return err_ret(&s->err, -ENOMEM, "out of memory");
	for (a = c->agents; a; a = a->next) {
		struct sched_host *h = &s->hosts[s->n_hosts];

		if (!a->sess.connected && !coord_boot_holds(a))
			continue;
		h->id = a->host_id;
		h->name = a->name;
		h->inventory = a->inventory;
		if (coord_boot_holds(a)) {
			h->switching = a->boot.kernel;
			h->inventory = target_inventory(s, a);
			if (!h->inventory)
				return err_ret(&s->err, -ENOMEM, "out of memory");
		}
		if (store_host_pending(c->store, a->host_id, &h->pending))
			return err_ret(&s->err, -EIO, "%s", store_err(c->store)->msg);
		s->n_hosts++;
	}
	qsort(s->hosts, s->n_hosts, sizeof(*s->hosts), by_name);
	err = sched_choose(s->plan, s->hosts, s->n_hosts, &s->err);
	return err;
}

/* Refuse the plan when a host it runs on has an agent older than the oldest that
 * decodes this build's job specs (the inventory's agent_version; an agent from before
 * there was one is not judged). */
static int check_agent_versions(struct submit *s)
{
	int h;

	for (h = 0; h < s->n_hosts; h++) {
		const char *v = json_string_value(json_object_get(s->hosts[h].inventory,
								  "agent_version"));

		if (!(s->hosts[h].chosen || (s->plan->link_generator && h < 2)) || !v)
			continue;
		if (vercmp(v, JOBSPEC_AGENT_MIN) < 0)
			return err_ret(&s->err, -EPROTO, "host '%s' runs bpflab-agent %s, "
				       "older than %s, the oldest that runs this coordinator's "
				       "jobs: upgrade it (docs/deploy.md, \"Upgrades\")",
				       s->hosts[h].name, v, JOBSPEC_AGENT_MIN);
	}
	return 0;
}

/* A plan with a link: the two hosts of a discovered link (coord_link_choose; NAMES, the
 * submitter's --hosts, must then be GENERATOR,DUT) as S->hosts[0] and [1]; the expansion
 * splits every job into its two sides. Returns 1 (each side has one host) or -errno. */
static int link_hosts(struct coord *c, struct submit *s, const json_t *names)
{
	struct coord_agent *gen, *dut;
	int err;

	if (json_is_null(names))
		names = NULL;
	err = coord_link_choose(c, s->plan, names, &gen, &dut, &s->err);
	if (err)
		return err;
	s->hosts = calloc(2, sizeof(*s->hosts));
	if (!s->hosts)
		return err_ret(&s->err, -ENOMEM, "out of memory");
	s->hosts[0] = (struct sched_host){ .id = gen->host_id, .name = gen->name,
					   .inventory = gen->inventory, .chosen = true };
	s->hosts[1] = (struct sched_host){ .id = dut->host_id, .name = dut->name,
					   .inventory = dut->inventory, .chosen = true };
	s->n_hosts = 2;
	return 1;	/* each job has one host */
}

/* Every job's traffic.rate and search.max_rate against each host it runs on
 * (plan_rate_check): a share on a port without a speed, or a rate above the line rate,
 * refuses the plan as invalid. */
static int check_rates(struct submit *s)
{
	int i, h;

	if (!s->plan->traffic.rate_pps && !(s->plan->traffic.rate_share > 0) &&
	    !s->plan->has_search && !s->plan->n_axes)
		return 0;
	for (i = 0; i < s->n_jobs; i++) {
		for (h = 0; h < s->n_hosts; h++) {
			const struct sched_host *sh = &s->hosts[h];

			if (s->plan->link_generator ? h != i % 2 : !sh->chosen)
				continue;
			if (plan_rate_check(s->plan, s->jobs[i].spec, sh->inventory, sh->name,
					    &s->err)) {
				s->invalid = true;
				return -EINVAL;
			}
		}
	}
	return 0;
}

static json_t *submitted(struct submit *s, int64_t run_id, int n_jobs)
{
	json_t *msg = proto_msg_new("submitted"), *names = json_array();
	int i;

	for (i = 0; names && i < s->n_hosts; i++)
		if (s->hosts[i].chosen && json_array_append_new(names,
							       json_string(s->hosts[i].name)))
			goto oom;
	if (!msg || !names || json_object_set_new(msg, "run", json_integer(run_id)) ||
	    json_object_set_new(msg, "jobs", json_integer(n_jobs)) ||
	    json_object_set(msg, "hosts", names))
		goto oom;
	json_decref(names);
	return msg;
oom:
	json_decref(names);
	json_decref(msg);
	return NULL;
}

/* Expand the plan with what the run adds to each spec: its objects' sha256, the plan's
 * hosts.match (not with --hosts, NAMED, which replace it), a link's two sides (the hosts
 * link_hosts chose). */
static int expand(struct submit *s, bool named)
{
	struct plan_expand_opts opts = { .objs = &s->objs, .hosts_match = !named };

	if (s->plan->link_generator) {
		opts.pair_generator = s->hosts[0].name;
		opts.pair_dut = s->hosts[1].name;
	}
	return plan_expand_opts(s->plan, &opts, &s->jobs, &s->n_jobs, &s->err);
}

/* Each job's spec as JSON text, once (the store writes it for each host, dispatch sends
 * it). */
static int encode_specs(struct submit *s)
{
	int i;

	s->texts = calloc((size_t)s->n_jobs + 1, sizeof(*s->texts));
	s->lens = calloc((size_t)s->n_jobs + 1, sizeof(*s->lens));
	if (!s->texts || !s->lens)
		return err_ret(&s->err, -ENOMEM, "out of memory");
	for (i = 0; i < s->n_jobs; i++) {
		s->texts[i] = proto_encode(s->jobs[i].spec, &s->lens[i]);
		if (!s->texts[i])
			return err_ret(&s->err, -ENOMEM, "out of memory");
	}
	return 0;
}

/* Keep the specs of the stored run RUN_ID (N jobs) decoded for its dispatch (specs.c),
 * the texts taken; without them (out of memory) dispatch reads them from the store. */
static void keep_specs(struct coord *c, struct submit *s, int64_t run_id, int n)
{
	json_t **specs = calloc((size_t)s->n_jobs + 1, sizeof(*specs));
	int i;

	for (i = 0; specs && i < s->n_jobs; i++)
		specs[i] = s->jobs[i].spec;
	if (!specs || coord_specs_add_run(c, run_id, specs, s->texts, s->lens, s->n_jobs,
					  s->job_ids, s->spec_of, n))
		pr_warn("run %lld: its specs are read from the store at dispatch: out of memory",
			(long long)run_id);
	free(specs);
}

static void submit_release(struct submit *s)
{
	int i;

	for (i = 0; s->texts && i < s->n_jobs; i++)
		free(s->texts[i]);
	free(s->texts);
	free(s->lens);
	free(s->job_ids);
	free(s->spec_of);
	free(s->jn);
	free(s->rh);
	free(s->hosts);
	json_decref(s->targets);
	if (s->jobs)
		plan_jobs_free(s->jobs, s->n_jobs);
	plan_objects_release(&s->objs);
	plan_destroy(&s->plan);
	for (i = 0; i < s->n_ov; i++)
		plan_override_release(&s->ov[i]);
	free(s->ov);
}

json_t *coord_submit(struct coord *c, const json_t *msg)
{
	const char *file = jget_str(msg, "plan_file", "plan");
	const json_t *text = json_object_get(msg, "plan_text");
	struct submit s = { 0 };
	const json_t *names = json_object_get(msg, "hosts");
	json_t *reply = NULL;
	int64_t run_id = 0;
	int err, n_chosen, i, h, k = 0, n_rh = 0;
	bool named = names && !json_is_null(names);

	if (!json_is_string(text)) {
		err = err_ret(&s.err, -EINVAL, "submit without 'plan_text'");
		goto out;
	}
	err = parse_overrides(&s, json_object_get(msg, "overrides"));
	if (err)
		goto out;
	s.plan = plan_parse(file, json_string_value(text), json_string_length(text), s.ov,
			    s.n_ov, &s.err);
	if (!s.plan) {
		err = -(errno ? errno : EINVAL);
		goto out;
	}
	err = add_objects(&s, json_object_get(msg, "objects"));
	if (err)
		goto out;
	err = plan_objects_check(s.plan, &s.objs, &s.err);
	if (err)
		goto out;
	if (s.plan->link_generator)
		n_chosen = link_hosts(c, &s, names);
	else if (named)
		n_chosen = named_hosts(c, &s, names);
	else
		n_chosen = choose_hosts(c, &s);
	if (n_chosen < 0) {
		err = n_chosen;
		goto out;
	}
	err = check_agent_versions(&s);
	if (!err)
		err = expand(&s, named);
	if (err)
		goto out;
	if ((long long)s.n_jobs * n_chosen > SUBMIT_MAX_JOBS) {
		err = err_ret(&s.err, -E2BIG, "the run would have %lld jobs, more than %d",
			      (long long)s.n_jobs * n_chosen, SUBMIT_MAX_JOBS);
		goto out;
	}
	err = check_rates(&s);
	if (!err)
		err = encode_specs(&s);
	if (err)
		goto out;
	/* count all (or N): every job for every chosen host, in dispatch order */
	s.jn = calloc((size_t)s.n_jobs * n_chosen + 1, sizeof(*s.jn));
	s.job_ids = calloc((size_t)s.n_jobs * n_chosen + 1, sizeof(*s.job_ids));
	s.spec_of = calloc((size_t)s.n_jobs * n_chosen + 1, sizeof(*s.spec_of));
	if (!s.jn || !s.job_ids || !s.spec_of) {
		err = err_ret(&s.err, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < s.n_jobs; i++) {
		if (s.plan->link_generator) {
			/* a pair: the generator side on the first host, the dut on the second */
			s.jn[k] = (struct store_job_new){ .host_id = s.hosts[i % 2].id,
							  .job = &s.jobs[i],
							  .spec_text = s.texts[i] };
			s.spec_of[k++] = i;
			continue;
		}
		for (h = 0; h < s.n_hosts; h++) {
			if (!s.hosts[h].chosen)
				continue;
			s.jn[k] = (struct store_job_new){ .host_id = s.hosts[h].id,
							  .job = &s.jobs[i],
							  .spec_text = s.texts[i] };
			s.spec_of[k++] = i;
		}
	}
	/* the hosts a lost job may move to: every candidate that matches (--hosts: the
	 * named ones only) */
	s.rh = calloc(s.n_hosts + 1, sizeof(*s.rh));
	if (!s.rh) {
		err = err_ret(&s.err, -ENOMEM, "out of memory");
		goto out;
	}
	for (h = 0; h < s.n_hosts; h++) {
		if (!s.hosts[h].chosen &&
		    !sched_host_matches(s.plan, s.hosts[h].inventory, NULL))
			continue;
		s.rh[n_rh].host_id = s.hosts[h].id;
		s.rh[n_rh].chosen = s.hosts[h].chosen;
		n_rh++;
	}
	err = store_run_create_hosts(c->store, s.plan, json_object_get(msg, "overrides"),
				     &s.objs, s.jn, k, s.rh, n_rh, util_wall_ms(), &run_id,
				     s.job_ids);
	if (err) {
		err_ret(&s.err, err, "%s", store_err(c->store)->msg);
		goto out;
	}
	keep_specs(c, &s, run_id, k);
	reply = submitted(&s, run_id, k);
	c->stats.runs_submitted++;
	pr_info("run %lld submitted: plan '%s' (%.12s), %d jobs on %d host%s", (long long)run_id,
		s.plan->name, s.plan->sha256, k, n_chosen, n_chosen == 1 ? "" : "s");
out:
	if (err) {
		pr_info("submit of '%s' refused: %s", file, err_text(&s.err, err));
		reply = proto_error_new("submit", "%s", err_text(&s.err, err));
		if (reply && s.invalid)
			json_object_set_new(reply, "invalid", json_true());
	}
	submit_release(&s);
	if (!err)
		coord_dispatch(c);
	return reply;
}

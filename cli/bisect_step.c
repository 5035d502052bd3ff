// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* bisect_step.c - `bpflab bisect step` (docs/bisect.md): measure what the engine asks
 * for (stored results of the plan on that kernel, else a run of the session's plan file
 * submitted through the coordinator to a host running the kernel, brought up by the
 * kernel provider when none does) and record it as the session's next step.
 */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bisect_int.h"
#include "proto/proto.h"
#include "base/util.h"

/* How engine B ended, for the session, into *END: {"state": "done"|"failed", "result":
 * {...}}, or NULL while it has not ended. Returns 0 or -ENOMEM. */
static int end_of(const struct bisect *b, json_t **end)
{
	struct bisect_result r;
	json_t *res;

	*end = NULL;
	if (bisect_state(b) != BISECT_DONE && bisect_state(b) != BISECT_FAILED)
		return 0;
	if (!bisect_result(b, &r))
		res = json_pack("{s:s, s:s, s:b, s:f, s:f, s:f, s:f, s:b, s:s}", "first_bad",
				bisect_kernel(b, r.bad), "good", bisect_kernel(b, r.good),
				"ambiguous", r.ambiguous, "mean_good", r.mean_good,
				"mean_bad", r.mean_bad, "delta_pct", r.delta_pct, "p", r.p,
				"exact", r.test == COMPARE_TEST_CONSTANT,
				"confirm", bisect_confirm_name(r.confirm));
	else
		res = json_pack("{s:s}", "why", bisect_why(b));
	if (res)
		*end = json_pack("{s:s, s:o}", "state", bisect_state(b) == BISECT_DONE ? "done"
				 : "failed", "result", res);
	return *end ? 0 : -ENOMEM;
}

/* Record what kernel K gave (N values from RUNS) as the next step of session *SES and
 * store it as step (steps replayed + 1): the backend refuses it when another client
 * stored that step first. The step that ends the engine ends the session in the same
 * request. *SES becomes the session after it. */
static int record_step(struct session_be *be, json_t **ses, struct bisect *b, int k,
		       const double *v, size_t n, json_t *runs)
{
	const struct bisect_step *s;
	json_t *vals = json_array(), *step, *end, *after;
	int64_t id = jget_int(*ses, "id", 0);
	int64_t seq = (int64_t)json_array_size(json_object_get(*ses, "steps")) + 1;
	size_t i;
	int err;

	for (i = 0; vals && i < n; i++)
		json_array_append_new(vals, json_real(v[i]));
	err = bisect_record(b, k, v, n);
	if (err) {
		json_decref(vals);
		return cli_error("cannot record '%s': %s", bisect_kernel(b, k), strerror(-err));
	}
	s = bisect_step(b, bisect_n_steps(b) - 1);
	step = json_pack("{s:s, s:O, s:o, s:s, s:f, s:s}", "kernel", bisect_kernel(b, k),
			 "runs", runs, "values", vals, "verdict", bisect_mark_name(s->mark),
			 "p", isnan(s->p_good) ? -1.0 : s->p_good, "note", s->why);
	if (step && isnan(s->p_good))
		json_object_set_new(step, "p", json_null());
	if (!step || end_of(b, &end)) {
		json_decref(step);
		return cli_error("out of memory");
	}
	after = be->ops->add_step(be, id, seq, step, end);
	json_decref(step);
	json_decref(end);
	if (!after)
		return CLI_EXIT_FAIL;
	json_decref(*ses);
	*ses = after;
	fprintf(bisect_text_out(), "%s: %s\n", bisect_kernel(b, k), s->why);
	bisect_print_resolution(s);
	if (end)
		bisect_print_result(b);
	return 0;
}

/* The runs a session already used for kernel K. */
static json_t *used_runs(const json_t *ses, const char *k)
{
	json_t *out = json_array(), *s, *r;
	size_t i, j;

	json_array_foreach(json_object_get(ses, "steps"), i, s)
		if (!strcmp(jget_str(s, "kernel", ""), k))
			json_array_foreach(json_object_get(s, "runs"), j, r)
				json_array_append(out, r);
	return out;
}

/* The timing mode of session SES: its option, else that of the values of its first
 * step's first run, else NULL (nothing measured yet: the first values decide). */
static const char *session_timing(struct session_be *be, const json_t *ses, char *out,
				  size_t len)
{
	const json_t *opts = json_object_get(ses, "opts"), *s;
	struct vsel q = { .metric = jget_str(ses, "metric", ""),
			  .variant = jget_str(ses, "variant", NULL),
			  .subject = jget_str(ses, "subject", NULL) };
	size_t i;

	if (json_is_string(json_object_get(opts, "timing")))
		return jget_str(opts, "timing", NULL);
	json_array_foreach(json_object_get(ses, "steps"), i, s) {
		json_t *run = json_array_get(json_object_get(s, "runs"), 0), *one;
		struct vals x = { 0 };

		if (!json_integer_value(run) || !(one = json_pack("[O]", run)))
			continue;
		q.runs = one;
		*out = '\0';
		if (!bisect_values_get(be, &q, &x) && x.n)
			snprintf(out, len, "%s", x.timing);
		bisect_vals_release(&x);
		json_decref(one);
		if (*out)
			return out;
	}
	return NULL;
}

/* Record for kernel K the values of the first stored run of the session's plan on K
 * that session *SES has not used (of run ONLY_RUN when not 0). No values: with
 * SKIP_MISSING a skip is recorded, else nothing and an error is printed. Values of
 * several hosts or kernel builds: a note, or with STRICT an error. */
static int measure(struct session_be *be, json_t **ses, struct bisect *b, int k,
		   bool skip_missing, long long only_run, bool strict)
{
	const char *name = bisect_kernel(b, k), *timing;
	json_t *used = used_runs(*ses, name), *only = only_run ?
		json_pack("[I]", (json_int_t)only_run) : NULL;
	char stm[16] = "";
	struct vals x = { 0 };
	struct vsel q = { .plan = jget_str(*ses, "plan", NULL),
			  .metric = jget_str(*ses, "metric", ""),
			  .variant = jget_str(*ses, "variant", NULL),
			  .subject = jget_str(*ses, "subject", NULL), .kernel = name,
			  .runs = only, .used = used, .one_run = true };
	int ret;

	timing = session_timing(be, *ses, stm, sizeof(stm));
	q.timing = timing;

	ret = bisect_values_get(be, &q, &x);
	if (!ret && x.n)
		ret = bisect_vals_pooled(&x, "step", name, strict);
	if (ret)
		;	/* said */
	else if (!x.n && !skip_missing)
		ret = cli_error("no new stored results of '%s' on kernel '%s'%s%s%s: run the plan "
				"on a host with that kernel and step again, or 'bisect step --skip' "
				"to skip it", jget_str(*ses, "plan", "?"), name,
				timing ? " (timing '" : "", timing ? timing : "", timing ? "')" : "");
	else
		ret = record_step(be, ses, b, k, x.v, x.n, x.runs);
	bisect_vals_release(&x);
	json_decref(only);
	json_decref(used);
	return ret;
}

/* *STORED: whether the session has stored values of its plan on kernel K in a run it
 * has not used yet. Returns 0, or the exit status after the error (values of several
 * variants or subjects: bad usage). */
static int have_stored(struct session_be *be, const json_t *ses, const char *k, bool *stored)
{
	json_t *used = used_runs(ses, k);
	char stm[16] = "";
	struct vals x = { 0 };
	struct vsel q = { .plan = jget_str(ses, "plan", NULL),
			  .metric = jget_str(ses, "metric", ""),
			  .variant = jget_str(ses, "variant", NULL),
			  .subject = jget_str(ses, "subject", NULL), .kernel = k,
			  .timing = session_timing(be, ses, stm, sizeof(stm)), .used = used };
	int ret = bisect_values_get(be, &q, &x);

	*stored = !ret && x.n > 0;
	bisect_vals_release(&x);
	json_decref(used);
	return ret;
}

/* Append kernel I of B to the space-separated list OUT (LEN bytes) unless it is there
 * or I < 0. */
static void keep_add(const struct bisect *b, int i, char *out, size_t len)
{
	const char *k = i >= 0 ? bisect_kernel(b, i) : NULL;
	size_t kl, used = strlen(out);
	const char *p;

	if (!k)
		return;
	kl = strlen(k);
	for (p = out; (p = strstr(p, k)); p += kl)
		if ((p == out || p[-1] == ' ') && (p[kl] == ' ' || !p[kl]))
			return;
	snprintf(out + used, len - used, "%s%s", used ? " " : "", k);
}

/* The kernels session B still needs, for action A, into OUT (space-separated): the
 * current good and bad ends (the last kernel marked good, the first marked bad: the
 * next rounds compare with them and the confirmation measures them again) and what A
 * measures (a confirmation's two kernels). */
static const char *keep_kernels(const struct bisect *b, const struct bisect_action *a,
				char *out, size_t len)
{
	int i, lo = -1, hi = -1;

	*out = '\0';
	for (i = 0; i < bisect_n_kernels(b); i++) {
		enum bisect_mark m = bisect_mark(b, i, NULL, NULL);

		if (m == BISECT_GOOD)
			lo = i;
		else if (m == BISECT_BAD && hi < 0)
			hi = i;
	}
	keep_add(b, lo, out, len);
	keep_add(b, hi, out, len);
	keep_add(b, a->kernel, out, len);
	keep_add(b, a->kernel2, out, len);
	return out;
}

/* Run the session's plan through the coordinator for what action A asks: on a host
 * with each kernel (the provider brings one up when none is connected, told in
 * $BPFLAB_KEEP_KERNELS which kernels the session still needs), REPS repetitions, one
 * run on all of them (a confirmation's two kernels run side by side). *RUN gets the
 * run id, 0 when no kernel had a host (they are then skipped). */
static int run_plan(const json_t *ses, const struct bisect *b, const struct bisect_action *a,
		    const char *provider, long long *run)
{
	const json_t *opts = json_object_get(ses, "opts");
	int ks[2] = { a->kernel, a->kernel2 }, i, err, ret = 0;
	struct step_hosts handed = { 0 };
	json_t *hosts = json_array();
	char host[128], keep[2048];

	*run = 0;
	if (!hosts)
		return cli_error("out of memory");
	keep_kernels(b, a, keep, sizeof(keep));
	if (setenv("BPFLAB_KEEP_KERNELS", keep, 1)) {
		ret = cli_error("cannot set BPFLAB_KEEP_KERNELS: %s", strerror(errno));
		goto out;
	}
	if (provider && *provider)
		fprintf(stderr, "bisect: the session still needs (BPFLAB_KEEP_KERNELS): %s\n",
			keep);
	for (i = 0; i < 2; i++) {
		if (ks[i] < 0)
			continue;
		err = bisect_host_with_kernel(provider, bisect_kernel(b, ks[i]), &handed, host,
					      sizeof(host));
		if (err == -ENOENT)
			continue;
		if (err) {
			ret = CLI_EXIT_FAIL;
			goto out;
		}
		fprintf(bisect_text_out(), "measuring '%s' on host '%s' (%u repetitions)\n",
			bisect_kernel(b, ks[i]), host, a->reps < 5 ? 5 : a->reps);
		fflush(bisect_text_out());
		json_array_append_new(hosts, json_string(host));
	}
	if (json_array_size(hosts))
		ret = bisect_submit_wait(jget_str(opts, "plan_file", ""),
					 json_object_get(opts, "overrides"),
					 a->reps < 5 ? 5 : a->reps, hosts, run);
out:
	json_decref(hosts);
	return ret;
}

/* Session SES is active but engine B has ended (a step stored by a client that stopped
 * before it ended the session): end it now. */
static int finish_ended(struct session_be *be, json_t **ses, const struct bisect *b)
{
	json_t *end, *after;

	if (end_of(b, &end) || !end)
		return cli_error("out of memory");
	after = be->ops->finish(be, jget_int(*ses, "id", 0),
				(int64_t)json_array_size(json_object_get(*ses, "steps")), end);
	json_decref(end);
	if (!after)
		return CLI_EXIT_FAIL;
	json_decref(*ses);
	*ses = after;
	fprintf(bisect_text_out(), "bisect session %lld %s\n", jget_int(after, "id", 0),
		jget_str(after, "state", "?"));
	bisect_print_result(b);
	return 0;
}

int bisect_do_step(int argc, char **argv)
{
	struct session_be be = { 0 };
	struct bisect *b = NULL;
	struct bisect_action a;
	json_t *ses = NULL;
	bool stored;
	struct bopts o = { 0 };
	const char *provider, *plan_file;
	long long run = 0;
	int ret;

	ret = bisect_parse(argc, argv, "bisect step", BISECT_OPTS_STEP, &o);
	if (!ret)
		ret = bisect_load(&be, 0, &ses, &b, false);
	if (ret)
		goto out;
	if (strcmp(jget_str(ses, "state", ""), "active")) {
		ret = cli_error("bisect session %lld is %s: 'bpflab bisect start' begins a new "
				"one", jget_int(ses, "id", 0), jget_str(ses, "state", "?"));
		goto out;
	}
	if (bisect_next(b, &a) == BISECT_DONE || a.state == BISECT_FAILED) {
		ret = finish_ended(&be, &ses, b);
		if (!ret && cli.json)
			ret = cli_print_json(ses);
		goto out;
	}
	provider = o.provider ? o.provider : getenv("BPFLAB_KERNEL_PROVIDER");
	plan_file = jget_str(json_object_get(ses, "opts"), "plan_file", NULL);
	ret = have_stored(&be, ses, bisect_kernel(b, a.kernel), &stored);
	if (!ret && stored && a.kernel2 >= 0)
		ret = have_stored(&be, ses, bisect_kernel(b, a.kernel2), &stored);
	if (ret)
		goto out;
	if (!stored && !o.skip && plan_file) {
		/* nothing stored: measure it now through the coordinator */
		ret = run_plan(ses, b, &a, provider, &run);
		if (ret)
			goto out;
	}
	ret = measure(&be, &ses, b, a.kernel, o.skip || plan_file, run, o.strict);
	if (!ret && a.kernel2 >= 0)
		ret = measure(&be, &ses, b, a.kernel2, true, run, o.strict);
	if (!ret && cli.json) {	/* the session with the steps just recorded */
		bisect_session_annotate_steps(ses, b);
		ret = cli_print_json(ses);
	}
out:
	return bisect_release(&o, &be, ses, b, ret);
}

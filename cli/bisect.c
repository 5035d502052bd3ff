/* bisect.c - `bpflab bisect start|status|log|step|reset|run`: find the kernel where a
 * metric changed (docs/bisect.md).
 *
 * The driver runs here, in the CLI: lib/bisect.c decides, the session and its steps
 * live in the coordinator's database (lib/store_bisect.c) and the engine is rebuilt by
 * replaying the stored steps on every command, so nothing is lost between commands or
 * across a coordinator restart. The session is read and written through a small
 * backend (struct session_be): the coordinator's bisect_* requests by default, or with
 * `--db FILE` the database file itself (offline, or a copy); the driver is written once
 * over it and prints the same in both modes. A step first takes stored results that
 * match the plan (by name), variant, subject, kernel.release and timing mode (`query`);
 * when there are none and the session was started with a plan file, it finds a
 * connected host running the kernel (asking the kernel provider, --provider or
 * $BPFLAB_KERNEL_PROVIDER, to bring one up if none does), submits the plan to that host
 * through the coordinator with the repetitions the engine asks for, waits for the run
 * and records its values. The provider is told which kernels the session still needs
 * ($BPFLAB_KEEP_KERNELS), so that it does not stop their hosts to make room.
 *
 * `bisect run` is for `git bisect run`: it measures through the coordinator on the host
 * running this kernel (or judges stored results with --db); exit 0 good, 1 bad, 125
 * cannot tell.
 *
 * This file holds the options and the session commands (start, step, reset); the other
 * parts are listed in bisect_int.h.
 */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bisect_int.h"
#include "kernel_list.h"
#include "proto.h"
#include "store.h"
#include "util.h"

/* Where the human-readable lines go: stdout, or stderr with -j, where stdout carries
 * only the JSON the command ends with. */
FILE *bisect_text_out(void)
{
	return cli.json ? stderr : stdout;
}

static int bopt(int opt, const char *arg, void *ctx)
{
	struct bopts *o = ctx;
	char *end;

	switch (opt) {
	case 's':
		if (!strchr(arg, '=') || arg[0] == '=')
			return cli_usage_error(NULL, "invalid override '%s': expected KEY=VALUE",
					       arg);
		if (!o->overrides)
			o->overrides = json_array();
		if (!o->overrides || json_array_append_new(o->overrides, json_string(arg)))
			return cli_error("out of memory");
		return 0;
	case OPT_PROVIDER: o->provider = arg; return 0;
	case OPT_SKIP: o->skip = true; return 0;
	case OPT_HOST: o->host = arg; return 0;
	case OPT_TIMING:
		if (strcmp(arg, "wall") && strcmp(arg, "icount"))
			return cli_usage_error(NULL, "invalid timing '%s' (wall or icount)", arg);
		o->timing = arg;
		return 0;
	case OPT_PLAN: o->plan = arg; return 0;
	case OPT_METRIC: o->metric = arg; return 0;
	case OPT_GOOD: o->good = arg; return 0;
	case OPT_BAD: o->bad = arg; return 0;
	case OPT_VARIANT: o->variant = arg; return 0;
	case OPT_SUBJECT: o->subject = arg; return 0;
	case OPT_KERNELS: o->kernels = arg; return 0;
	case OPT_KERNEL: o->kernel = arg; return 0;
	case OPT_REPS:
	case OPT_MAX_REPS: {
		unsigned long v = strtoul(arg, &end, 10);

		if (*end || !v || v > 100 || *arg == '-')
			return cli_usage_error(NULL, "invalid repetitions '%s' (1..100)", arg);
		*(opt == OPT_REPS ? &o->reps : &o->max_reps) = (unsigned int)v;
		return 0;
	}
	case OPT_REBASELINE: o->rebaseline = 1; return 0;
	case OPT_NO_REBASELINE: o->rebaseline = -1; return 0;
	case OPT_THRESHOLD:
		o->threshold = strtod(arg, &end) / 100;
		if ((*end && strcmp(end, "%")) || !(o->threshold > 0) || o->threshold >= 10)
			return cli_usage_error(NULL, "invalid threshold '%s' (a percentage, e.g. "
					       "5%%)", arg);
		return 0;
	case OPT_BASELINE:
		return cli_parse_run_id(arg, NULL, &o->baseline);
	case OPT_DIRECTION:
		if (!strcmp(arg, "higher"))
			o->dir = COMPARE_DIR_HIGHER;
		else if (!strcmp(arg, "lower"))
			o->dir = COMPARE_DIR_LOWER;
		else
			return cli_usage_error(NULL, "invalid direction '%s' (higher or lower "
					       "is better)", arg);
		return 0;
	}
	return CLI_EXIT_USAGE;
}

/* Each command's own options (an option of another command is unknown, exit 2). */
static const struct option start_longopts[] = {
	{ "plan", required_argument, NULL, OPT_PLAN },
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "good", required_argument, NULL, OPT_GOOD },
	{ "bad", required_argument, NULL, OPT_BAD },
	{ "variant", required_argument, NULL, OPT_VARIANT },
	{ "subject", required_argument, NULL, OPT_SUBJECT },
	{ "kernels", required_argument, NULL, OPT_KERNELS },
	{ "reps", required_argument, NULL, OPT_REPS },
	{ "max-reps", required_argument, NULL, OPT_MAX_REPS },
	{ "threshold", required_argument, NULL, OPT_THRESHOLD },
	{ "timing", required_argument, NULL, OPT_TIMING },
	{ "set", required_argument, NULL, 's' },
	{ NULL, 0, NULL, 0 },
};

static const struct option step_longopts[] = {
	{ "skip", no_argument, NULL, OPT_SKIP },
	{ "provider", required_argument, NULL, OPT_PROVIDER },
	{ NULL, 0, NULL, 0 },
};


/* Parse the options of command PATH, LONGOPTS (NULL: none; -s goes with "set" in it)
 * into O; no positional argument is taken. Returns 0 or the exit status of a usage
 * error. */
int bisect_parse(int argc, char **argv, const char *path, const struct option *longopts,
		 struct bopts *o)
{
	const char *shortopts = "";
	int first, ret, i;

	for (i = 0; longopts && longopts[i].name; i++)
		if (longopts[i].val == 's')
			shortopts = "s:";
	ret = cli_parse_opts(argc, argv, path, shortopts, longopts, bopt, o, &first);

	if (ret)
		return ret;
	if (first < argc)
		return cli_usage_error(path, "unexpected argument '%s'", argv[first]);
	return 0;
}
/* --- sessions --- */

static int by_version(const void *a, const void *b)
{
	return strverscmp(*(const char *const *)a, *(const char *const *)b);
}

/* Add NAME (borrowed; NULL: nothing) to the N NAMES unless it is there (at most 256). */
static void add_name(const char **names, size_t *n, const char *name)
{
	size_t k;

	for (k = 0; name && k < *n && strcmp(names[k], name); k++)
		;
	if (name && k == *n && *n < 256)
		names[(*n)++] = name;
}

/* The candidate kernels: from FILE (one a line, '#' comments), else the releases the
 * hosts run and the ones their kernel providers offer, sorted by version. NULL after
 * the error. */
static json_t *kernel_list(const char *file)
{
	json_t *out = json_array(), *hosts = NULL, *h;
	const char *names[256];
	size_t i, n = 0;

	if (!out) {
		cli_error("out of memory");
		return NULL;
	}
	if (file) {
		char *text = NULL, why[512];
		size_t len = 0;
		int err = util_read_file(file, KERNEL_LIST_MAX_BYTES, &text, &len);

		json_decref(out);
		if (err) {
			cli_error("cannot read kernel list '%s': %s", file, strerror(-err));
			return NULL;
		}
		out = kernel_list_parse(text, len, file, why, sizeof(why));
		free(text);
		if (!out)
			cli_error("%s", why);
		return out;
	}
	if (cli_query("host_list", 0, &hosts))
		goto fail;
	json_array_foreach(hosts, i, h) {
		const json_t *offered = json_object_get(json_object_get(json_object_get(h,
						"inventory"), "provider"), "kernels"), *o;
		size_t j;

		add_name(names, &n, proto_get_str(h, "kernel_release", NULL));
		/* and what its kernel provider can switch it to (docs/agent.md) */
		json_array_foreach(offered, j, o)
			add_name(names, &n, json_string_value(o));
	}
	qsort(names, n, sizeof(*names), by_version);
	for (i = 0; i < n; i++)
		json_array_append_new(out, json_string(names[i]));
	json_decref(hosts);
	return out;
fail:
	json_decref(out);
	json_decref(hosts);
	return NULL;
}

static int index_of(const json_t *kernels, const char *k)
{
	const json_t *v;
	size_t i;

	json_array_foreach(kernels, i, v)
		if (!strcmp(json_string_value(v), k))
			return (int)i;
	return -1;
}

/* The engine of session SES, rebuilt by replaying its steps. */
static struct bisect *engine(const json_t *ses)
{
	const json_t *kernels = json_object_get(ses, "kernels"), *opts = json_object_get(ses, "opts");
	const char *names[1024];
	struct bisect *b;
	json_t *s, *v;
	size_t i, k, n = json_array_size(kernels);
	BISECT_OPTS(o, .kind = (enum stats_kind)proto_get_int(opts, "kind", 0),
		    .reps = (unsigned int)proto_get_int(opts, "reps", 0),
		    .max_reps = (unsigned int)proto_get_int(opts, "max_reps", 0),
		    .min_effect = json_number_value(json_object_get(opts, "min_effect")));

	if (n > 1024)
		return NULL;
	for (i = 0; i < n; i++)
		names[i] = json_string_value(json_array_get(kernels, i));
	b = bisect_new(names, (int)n, index_of(kernels, proto_get_str(ses, "good", "")),
		       index_of(kernels, proto_get_str(ses, "bad", "")), &o);
	if (!b)
		return NULL;
	json_array_foreach(json_object_get(ses, "steps"), i, s) {
		json_t *vals = json_object_get(s, "values");
		double d[1024];
		size_t m = 0;

		json_array_foreach(vals, k, v)
			if (m < 1024)
				d[m++] = json_number_value(v);
		if (bisect_record(b, index_of(kernels, proto_get_str(s, "kernel", "")), d, m)) {
			bisect_destroy(&b);
			errno = EINVAL;
			return NULL;
		}
	}
	return b;
}

/* Open the backend (READONLY for a database file) and load the session into *SES and
 * its replayed engine into *B. Returns 0 or an exit status after the error. */
int bisect_load(struct session_be *be, json_t **ses, struct bisect **b, bool readonly)
{
	int ret = bisect_be_open(be, readonly);

	if (ret)
		return ret;
	*ses = be->ops->get(be);
	if (!*ses)
		return CLI_EXIT_FAIL;
	*b = engine(*ses);
	if (!*b)
		return cli_error("cannot replay bisect session %lld: its steps do not fit "
				 "its kernels", proto_get_int(*ses, "id", 0));
	return 0;
}

static int do_start(int argc, char **argv)
{
	struct bopts o = { 0 };
	struct session_be be = { 0 };
	struct cli_plan cp = { 0 };
	json_t *kernels = NULL, *ses = NULL, *started = NULL;
	char unit[32] = "", path[PATH_MAX] = "";
	const char *plan_name;
	struct vals x = { 0 };
	unsigned int max_reps;
	struct vsel q;
	int ret, g, bd, err;

	ret = bisect_parse(argc, argv, "bisect start", start_longopts, &o);
	if (ret)
		goto out;
	if (!o.plan || !o.metric || !o.good || !o.bad) {
		ret = cli_usage_error("bisect start", "--plan, --metric, --good and --bad are "
				      "needed");
		goto out;
	}
	max_reps = o.max_reps ? o.max_reps : 30;
	if ((o.reps ? o.reps : 5) > max_reps) {
		ret = cli_usage_error("bisect start", "--reps %u is above --max-reps %u",
				      o.reps ? o.reps : 5, max_reps);
		goto out;
	}
	plan_name = o.plan;
	if (bisect_is_plan_file(o.plan)) {
		/* a plan file: steps can run it; check it (with the overrides) now */
		cp.overrides = o.overrides ? json_incref(o.overrides) : json_array();
		ret = cli_plan_prepare(o.plan, &cp);
		if (ret)
			goto out;
		plan_name = cp.plan->name;
		if (!o.variant && cp.plan->n_variants > 1) {
			char list[256] = "";
			size_t used = 0;
			int i;

			for (i = 0; i < cp.plan->n_variants && used < sizeof(list); i++)
				used += snprintf(list + used, sizeof(list) - used, "%s'%s'",
						 i ? ", " : "", cp.plan->variants[i].name);
			ret = cli_usage_error("bisect start", "plan '%s' has %d variants (%s): "
					      "choose one with --variant", o.plan,
					      cp.plan->n_variants, list);
			goto out;
		}
		if (!realpath(o.plan, path)) {
			ret = cli_error("cannot resolve '%s': %s", o.plan, strerror(errno));
			goto out;
		}
	} else if (o.overrides) {
		ret = cli_usage_error("bisect start", "-s needs --plan to name a plan file");
		goto out;
	}
	ret = bisect_be_open(&be, false);
	if (ret)
		goto out;
	kernels = kernel_list(o.kernels);
	if (!kernels) {
		ret = CLI_EXIT_FAIL;
		goto out;
	}
	g = index_of(kernels, o.good);
	bd = index_of(kernels, o.bad);
	if (g < 0 || bd < 0 || g >= bd) {
		ret = cli_usage_error("bisect start", g < 0 ? "good kernel '%s' is not a "
				      "candidate" : bd < 0 ? "bad kernel '%s' is not a candidate"
				      : "good kernel '%s' must come before the bad one (oldest "
				      "first)", g < 0 ? o.good : bd < 0 ? o.bad : o.good);
		goto out;
	}
	/* the kind of the metric from a stored unit, if there is one (and never a sample
	 * of several variants or subjects) */
	q = (struct vsel){ .plan = plan_name, .metric = o.metric, .variant = o.variant,
			   .subject = o.subject, .timing = o.timing };
	err = bisect_values_get(&be, &q, &x);
	if (err) {
		ret = err == -EDOM ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
		goto out;
	}
	snprintf(unit, sizeof(unit), "%s", x.unit);
	ses = json_pack("{s:s, s:s, s:s?, s:s?, s:O, s:s, s:s, s:{s:i, s:i, s:i, s:f, s:s?, "
			"s:s?, s:O?}}", "plan", plan_name, "metric", o.metric, "variant", o.variant,
			"subject", o.subject, "kernels", kernels, "good", o.good, "bad", o.bad,
			"opts", "kind", (int)stats_kind_for_unit(unit), "reps",
			(int)(o.reps ? o.reps : 5), "max_reps", (int)max_reps,
			"min_effect", o.threshold ? o.threshold : 0.02,
			"plan_file", *path ? path : NULL, "timing", o.timing, "overrides",
			o.overrides);
	if (!ses) {
		ret = cli_error("out of memory");
		goto out;
	}
	started = be.ops->start(&be, ses);
	if (!started) {
		ret = CLI_EXIT_FAIL;
		goto out;
	}
	fprintf(bisect_text_out(), "bisect session %lld: %d kernels from good '%s' to bad '%s', %s "
		"of '%s'%s\n", proto_get_int(started, "id", 0), bd - g + 1, o.good, o.bad,
		o.metric, plan_name, *path ? " (steps run it when no results are stored)" : "");
	if (cli.json)
		ret = cli_print_json(started);
out:
	bisect_vals_release(&x);
	json_decref(started);
	json_decref(ses);
	json_decref(kernels);
	json_decref(o.overrides);
	cli_plan_release(&cp);
	bisect_be_close(&be);
	return ret;
}
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
	int64_t id = proto_get_int(*ses, "id", 0);
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
		if (!strcmp(proto_get_str(s, "kernel", ""), k))
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
	struct vsel q = { .metric = proto_get_str(ses, "metric", ""),
			  .variant = proto_get_str(ses, "variant", NULL),
			  .subject = proto_get_str(ses, "subject", NULL) };
	size_t i;

	if (json_is_string(json_object_get(opts, "timing")))
		return proto_get_str(opts, "timing", NULL);
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
 * SKIP_MISSING a skip is recorded, else nothing and an error is printed. */
static int measure(struct session_be *be, json_t **ses, struct bisect *b, int k,
		   bool skip_missing, long long only_run)
{
	const char *name = bisect_kernel(b, k), *timing;
	json_t *used = used_runs(*ses, name), *only = only_run ?
		json_pack("[I]", (json_int_t)only_run) : NULL;
	char stm[16] = "";
	struct vals x = { 0 };
	struct vsel q = { .plan = proto_get_str(*ses, "plan", NULL),
			  .metric = proto_get_str(*ses, "metric", ""),
			  .variant = proto_get_str(*ses, "variant", NULL),
			  .subject = proto_get_str(*ses, "subject", NULL), .kernel = name,
			  .runs = only, .used = used, .one_run = true };
	int ret, err;

	timing = session_timing(be, *ses, stm, sizeof(stm));
	q.timing = timing;

	err = bisect_values_get(be, &q, &x);
	if (err)
		ret = err == -EDOM ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
	else if (!x.n && !skip_missing)
		ret = cli_error("no new stored results of '%s' on kernel '%s'%s%s%s: run the plan "
				"on a host with that kernel and step again, or 'bisect step --skip' "
				"to skip it", proto_get_str(*ses, "plan", "?"), name,
				timing ? " (timing '" : "", timing ? timing : "", timing ? "')" : "");
	else
		ret = record_step(be, ses, b, k, x.v, x.n, x.runs);
	bisect_vals_release(&x);
	json_decref(only);
	json_decref(used);
	return ret;
}

/* Whether the session has stored values of its plan on kernel K in a run it has not
 * used yet: 1 or 0, or an exit status (> 1) after the error (values of several
 * variants or subjects: bad usage). */
static int have_stored(struct session_be *be, const json_t *ses, const char *k)
{
	json_t *used = used_runs(ses, k);
	char stm[16] = "";
	struct vals x = { 0 };
	struct vsel q = { .plan = proto_get_str(ses, "plan", NULL),
			  .metric = proto_get_str(ses, "metric", ""),
			  .variant = proto_get_str(ses, "variant", NULL),
			  .subject = proto_get_str(ses, "subject", NULL), .kernel = k,
			  .timing = session_timing(be, ses, stm, sizeof(stm)), .used = used };
	int err = bisect_values_get(be, &q, &x), ret;

	ret = err == -EDOM ? CLI_EXIT_USAGE : err ? CLI_EXIT_FAIL : x.n > 0;
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
		ret = bisect_submit_wait(proto_get_str(opts, "plan_file", ""),
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
	after = be->ops->finish(be, proto_get_int(*ses, "id", 0),
				(int64_t)json_array_size(json_object_get(*ses, "steps")), end);
	json_decref(end);
	if (!after)
		return CLI_EXIT_FAIL;
	json_decref(*ses);
	*ses = after;
	fprintf(bisect_text_out(), "bisect session %lld %s\n", proto_get_int(after, "id", 0),
		proto_get_str(after, "state", "?"));
	bisect_print_result(b);
	return 0;
}

static int do_step(int argc, char **argv)
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

	ret = bisect_parse(argc, argv, "bisect step", step_longopts, &o);
	if (!ret)
		ret = bisect_load(&be, &ses, &b, false);
	if (ret)
		goto out;
	if (strcmp(proto_get_str(ses, "state", ""), "active")) {
		ret = cli_error("bisect session %lld is %s: 'bpflab bisect start' begins a new "
				"one", proto_get_int(ses, "id", 0), proto_get_str(ses, "state", "?"));
		goto out;
	}
	if (bisect_next(b, &a) == BISECT_DONE || a.state == BISECT_FAILED) {
		ret = finish_ended(&be, &ses, b);
		if (!ret && cli.json)
			ret = cli_print_json(ses);
		goto out;
	}
	provider = o.provider ? o.provider : getenv("BPFLAB_KERNEL_PROVIDER");
	plan_file = proto_get_str(json_object_get(ses, "opts"), "plan_file", NULL);
	ret = have_stored(&be, ses, bisect_kernel(b, a.kernel));
	if (ret == 1 && a.kernel2 >= 0)
		ret = have_stored(&be, ses, bisect_kernel(b, a.kernel2));
	if (ret > 1)
		goto out;
	stored = ret == 1;
	if (!stored && !o.skip && plan_file) {
		/* nothing stored: measure it now through the coordinator */
		ret = run_plan(ses, b, &a, provider, &run);
		if (ret)
			goto out;
	}
	ret = measure(&be, &ses, b, a.kernel, o.skip || plan_file, run);
	if (!ret && a.kernel2 >= 0)
		ret = measure(&be, &ses, b, a.kernel2, true, run);
	if (!ret && cli.json) {	/* the session with the steps just recorded */
		bisect_annotate_steps(ses, b);
		ret = cli_print_json(ses);
	}
out:
	bisect_destroy(&b);
	json_decref(ses);
	json_decref(o.overrides);
	bisect_be_close(&be);
	return ret;
}

static int do_reset(int argc, char **argv)
{
	struct bopts o = { 0 };
	struct session_be be = { 0 };
	json_t *ses = NULL;
	int ret = bisect_parse(argc, argv, "bisect reset", NULL, &o);

	if (!ret)
		ret = bisect_be_open(&be, false);
	if (!ret) {
		ses = be.ops->reset(&be);
		if (ses && cli.json)
			ret = cli_print_json(ses);
		else if (ses)
			printf("bisect session %lld reset\n", proto_get_int(ses, "id", 0));
		else
			ret = CLI_EXIT_FAIL;
	}
	json_decref(ses);
	json_decref(o.overrides);
	bisect_be_close(&be);
	return ret;
}

static const struct cli_cmd bisect_cmds[] = {
	{ "start", do_start, "--plan P --metric M --good KERNEL --bad KERNEL [--variant V] "
	  "[--subject S] [--kernels FILE] [--reps N] [--max-reps N] [--threshold X%] "
	  "[--timing wall|icount] [-s KEY=VALUE]...",
	  "Start a bisection session over the candidate kernels of FILE (one a line,\n"
	  "oldest first) or, without it, the kernel releases the hosts run and the ones\n"
	  "their kernel providers offer, sorted by version. When P is a plan file\n"
	  "(checked now, with the -s overrides), steps run it through the coordinator\n"
	  "when no results are stored; a plan name: stored results only. The session is\n"
	  "kept by the coordinator (with --db FILE: in that database file).\n"
	  "\n"
	  "  --variant V           only the values of variant V (needed when the plan\n"
	  "                        or the stored values have several)\n"
	  "  --subject S           only the values of subject S (a port or program;\n"
	  "                        needed when the values have several)\n"
	  "  --reps N              repetitions a first measurement asks for, 1 to 100\n"
	  "                        (default 5; a run has at least 5)\n"
	  "  --max-reps N          UNKNOWN: more rounds while a kernel has fewer values\n"
	  "                        (default 30)\n"
	  "  --threshold X%        the least change that matters (default 2%)\n"
	  "  --timing wall|icount  only values of that timing mode (default: the mode\n"
	  "                        of the first values measured)\n"
	  "  -s, --set KEY=VALUE   override a value of plan file P, for every step's run\n" },
	{ "status", bisect_do_status, "", "The session, the engine's state, the next measurement, "
	  "the result.\n" },
	{ "log", bisect_do_log, "",
	  "Every step: kernel, round, values, mean, delta, p ('exact' where both sides\n"
	  "repeat one value, as QEMU icount costs do), verdict, why.\n" },
	{ "step", do_step, "[--skip] [--provider CMD]",
	  "Measure what the engine asks for and record it: stored results of the plan on\n"
	  "that kernel not used before; else, for a session started with a plan file, a run\n"
	  "submitted through the coordinator to a connected host with that kernel (none:\n"
	  "a host whose kernel provider offers it is switched, or the kernel provider CMD\n"
	  "KERNEL brings one up), waited for. A kernel no host runs is skipped.\n"
	  "\n"
	  "  --skip                no stored results for the kernel: record it skipped\n"
	  "                        instead of running anything\n"
	  "  --provider CMD        run as 'CMD KERNEL' when no host offers the kernel\n"
	  "                        (default: $BPFLAB_KERNEL_PROVIDER; e.g. 'lab/lab\n"
	  "                        guest-up --name demo --max 3'); it gets the kernels the\n"
	  "                        session still needs in $BPFLAB_KEEP_KERNELS\n" },
	{ "reset", do_reset, "", "End the active session (kept, state 'reset').\n" },
	{ "run", bisect_do_run, "--plan P --metric M --threshold X% --baseline RUN [--kernel K] "
	  "[--host H] [--reps N] [--max-reps N] [--rebaseline | --no-rebaseline] "
	  "[-s KEY=VALUE]... [--variant V] [--subject S] [--direction higher|lower]",
	  "For 'git bisect run': run plan file P through the coordinator on host H\n"
	  "(default: the connected host whose kernel is K, default uname -r) with N\n"
	  "repetitions (default 5) and judge the values against baseline run RUN;\n"
	  "while the answer is UNKNOWN, measure more, up to --max-reps (default 30).\n"
	  "--rebaseline (the default when RUN ran plan P on this host and kernel) runs\n"
	  "RUN's plan again on its host, interleaved with P, and compares with those\n"
	  "values; --no-rebaseline compares with RUN's stored values. With --db, judge\n"
	  "the stored results of plan P on kernel K instead. --variant, --subject: which\n"
	  "sample, needed when the metric has several. --direction: which way is better\n"
	  "(default: higher for rates, lower for times). Exit 0 good, 1 bad, 125 cannot\n"
	  "tell or this commit cannot be tested (no host runs K, its jobs all failed),\n"
	  "so that git skips it; 128 the tool failed (no coordinator, a database or\n"
	  "baseline that cannot be read) and 129 bad usage, so that git stops.\n"
	  "With -j: {kernel, verdict, outcome, exit, n_baseline, n, mean_baseline, mean,\n"
	  "delta_pct, compare, exact, timing, run, runs, baseline_runs, rebaseline,\n"
	  "min_detectable_pct}.\n" },
	{ NULL, NULL, NULL, NULL },
};

const struct cli_object cli_bisect_object = {
	.name = "bisect",
	.cmds = bisect_cmds,
	.default_cmd = "status",
	.help = "       KERNEL := a kernel release (uname -r) as hosts report it\n",
};

// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* plan.c - `bpflab plan check|show`: validate a plan file and show the jobs it expands
 * into, offline (no coordinator). Also the plan preparation that `run submit` shares:
 * load with -s overrides (the plan and each matrix point validated), resolve the BPF
 * objects in the --bpf-dir; only check and show expand it (bpflabd expands what is
 * submitted).
 */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/noise.h"
#include "plan/objects.h"
#include "plan/plan.h"
#include "proto/proto.h"
#include "base/texttable.h"

int cli_plan_opt(int opt, const char *arg, void *ctx)
{
	json_t *overrides = ctx;
	struct plan_override ov = { NULL, NULL };
	struct err err;

	if (opt != 's')
		return CLI_EXIT_USAGE;
	if (plan_override_parse(arg, &ov, &err))
		return cli_usage_error(NULL, "%s", err_text(&err, -EINVAL));
	plan_override_release(&ov);
	if (json_array_append_new(overrides, json_string(arg)))
		return cli_error("out of memory");
	return 0;
}

/* cli_plan_prepare of FILE, or of TEXT (LEN bytes) named FILE when TEXT is not NULL. */
static int prepare(const char *file, const char *text, size_t len, struct cli_plan *cp)
{
	struct err err;
	struct plan_override *ov;
	size_t n_ov = json_array_size(cp->overrides), i;
	int rc, ret = CLI_EXIT_FAIL;

	ov = calloc(n_ov + 1, sizeof(*ov));
	if (!ov)
		return cli_error("out of memory");
	for (i = 0; i < n_ov; i++) {
		if (plan_override_parse(json_string_value(json_array_get(cp->overrides, i)),
					&ov[i], &err)) {
			ret = cli_usage_error(NULL, "%s", err.msg);
			goto out;
		}
	}

	cp->plan = text ? plan_parse(file, text, len, ov, (int)n_ov, &err) :
			  plan_load(file, ov, (int)n_ov, &err);
	if (!cp->plan) {
		ret = cli_fail(-errno, &err);
		goto out;
	}
	rc = plan_objects_resolve(cp->plan, cli.bpf_dir, &cp->objs, &err);
	if (rc) {
		ret = cli_fail(rc, &err);
		goto out;
	}
	cp->have_objs = true;
	ret = 0;
out:
	for (i = 0; i < n_ov; i++)
		plan_override_release(&ov[i]);
	free(ov);
	return ret;
}

/* The jobs of the prepared plan CP into cp->jobs, for plan check and show (bpflabd
 * expands a submitted plan itself). */
static int expand(struct cli_plan *cp)
{
	struct err err;
	int rc = plan_expand(cp->plan, &cp->jobs, &cp->n_jobs, &err);

	return rc ? cli_fail(rc, &err) : 0;
}

int cli_plan_prepare(const char *file, struct cli_plan *cp)
{
	return prepare(file, NULL, 0, cp);
}

int cli_plan_prepare_text(const char *name, const char *text, size_t len,
			  struct cli_plan *cp)
{
	return prepare(name, text, len, cp);
}

void cli_plan_release(struct cli_plan *cp)
{
	if (cp->jobs)
		plan_jobs_free(cp->jobs, cp->n_jobs);
	if (cp->have_objs)
		plan_objects_release(&cp->objs);
	plan_destroy(&cp->plan);
	json_decref(cp->overrides);
	memset(cp, 0, sizeof(*cp));
}

/* --- what the hosts' noise floors say about a plan (lib/analysis/noise.h) --- */

/* Is there a source of noise floors at hand without asking anyone to wait: a database
 * file, or a coordinator with a key (or --plaintext) whose ipc socket exists. */
static bool noise_source(void)
{
	if (cli.db)
		return true;
	if (!cli.plaintext && (!cli.key_file || !cli.server_key))
		return false;
	if (!strncmp(cli.coordinator, "ipc://", 6))
		return !access(cli.coordinator + 6, F_OK);
	return true;
}

/* Does the inventory of host H have a port for each of PLAN's roles. */
static bool host_has_ports(const struct plan *plan, const json_t *h)
{
	const json_t *p;
	size_t k;
	int i;
	bool found;

	for (i = 0; i < plan->n_ports; i++) {
		found = false;
		json_array_foreach(json_object_get(json_object_get(h, "inventory"), "ports"), k, p)
			found |= !strcmp(jget_str(p, "role", ""), plan->ports[i]);
		if (!found)
			return false;
	}
	return true;
}

/* Is host H named in NAMES. */
static bool host_named(const json_t *names, const json_t *h)
{
	const json_t *n;
	size_t i;

	json_array_foreach(names, i, n)
		if (json_is_string(n) && !strcmp(json_string_value(n), jget_str(h, "name", "")))
			return true;
	return false;
}

json_t *cli_plan_noise(const struct plan *plan, const json_t *names, bool best_effort)
{
	struct noise_advice a;
	json_t *hosts = NULL, *picked = NULL, *h, *out = NULL;
	bool json = cli.json;
	char text[512];
	size_t i;
	int ret;

	if (best_effort && !noise_source())
		return NULL;
	/* a failure here is not the command's: its message goes to stderr as text */
	cli.json = false;
	ret = cli_hosts_noise(&hosts);
	cli.json = json;
	if (ret) {
		fprintf(stderr, "bpflab: the hosts' noise floors could not be read; no "
			"repetition advice\n");
		return NULL;
	}
	picked = json_array();
	json_array_foreach(hosts, i, h)
		if (picked && (names ? host_named(names, h) : host_has_ports(plan, h)))
			json_array_append(picked, h);
	if (!picked ||
	    noise_advise(picked, plan->metrics, plan->n_metrics, plan->min_effect > 0 ?
			 plan->min_effect : 0.02, plan->repeat_max > plan->repeat ?
			 plan->repeat_max : plan->repeat, &a))
		goto out;
	if (cli.json) {
		out = noise_advice_json(&a);
		goto out;
	}
	noise_advice_text(&a, text, sizeof(text));
	printf("%s\n", text);
	/* after the line it refers to, also when both go down one pipe */
	fflush(stdout);
	if (noise_advice_warning(&a, text, sizeof(text)))
		fprintf(stderr, "bpflab: warning: %s\n", text);
out:
	json_decref(picked);
	json_decref(hosts);
	return out;
}

enum { OPT_PLAN_HOSTS = CLI_OPT_FIRST_LOCAL };

static const struct option plan_longopts[] = {
	{ "set", required_argument, NULL, 's' },
	{ NULL, 0, NULL, 0 },
};

static const struct option check_longopts[] = {
	{ "set", required_argument, NULL, 's' },
	{ "hosts", required_argument, NULL, OPT_PLAN_HOSTS },
	{ NULL, 0, NULL, 0 },
};

/* The options of plan check and show: -s into OVERRIDES, --hosts (check) into HOSTS. */
struct plan_opts {
	json_t *overrides;
	json_t *hosts;
};

static int plan_opt(int opt, const char *arg, void *ctx)
{
	struct plan_opts *o = ctx;
	const char *p = arg, *comma;

	if (opt != OPT_PLAN_HOSTS)
		return cli_plan_opt(opt, arg, o->overrides);
	json_decref(o->hosts);
	o->hosts = json_array();
	while (o->hosts) {
		comma = strchr(p, ',');
		if ((comma ? comma == p : !*p) ||
		    json_array_append_new(o->hosts, json_stringn(p, comma ? (size_t)(comma - p) :
								   strlen(p)))) {
			json_decref(o->hosts);
			o->hosts = NULL;
			return cli_usage_error("plan check", "invalid --hosts '%s': expected "
					       "NAME[,NAME]...", arg);
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	return o->hosts ? 0 : cli_error("out of memory");
}

/* Parse "FILE [-s KEY=VALUE]..." (and --hosts for check: *HOSTS, new reference, NULL
 * when not given) of command PATH into CP and prepare the plan. */
static int plan_args(int argc, char **argv, const char *path, struct cli_plan *cp,
		     const char **file, json_t **hosts)
{
	struct plan_opts o = { 0 };
	int first, ret;

	memset(cp, 0, sizeof(*cp));
	cp->overrides = json_array();
	if (!cp->overrides)
		return cli_error("out of memory");
	o.overrides = cp->overrides;
	ret = cli_parse_opts(argc, argv, path, "s:", hosts ? check_longopts : plan_longopts,
			     plan_opt, &o, &first);
	if (hosts)
		*hosts = o.hosts;
	else
		json_decref(o.hosts);
	if (ret)
		return ret;
	if (first >= argc)
		return cli_usage_error(path, "missing plan FILE");
	if (first + 1 < argc)
		return cli_usage_error(path, "unexpected argument '%s'", argv[first + 1]);
	*file = argv[first];
	ret = cli_plan_prepare(*file, cp);
	return ret ? ret : expand(cp);
}

static int n_points(const struct plan *plan)
{
	int i, n = 1;

	for (i = 0; i < plan->n_axes; i++)
		n *= plan->matrix[i].n_values;
	return n;
}

static int do_check(int argc, char **argv)
{
	struct cli_plan cp;
	const char *file = NULL;
	json_t *out = NULL, *objs, *hosts = NULL, *noise;
	int ret, points, i;

	ret = plan_args(argc, argv, "plan check", &cp, &file, &hosts);
	if (ret)
		goto out;
	points = n_points(cp.plan);
	if (!cli.json) {
		printf("%s: ok, %d job%s (%d variant%s x %d point%s x %d repetition%s)\n", file,
		       cp.n_jobs, cp.n_jobs == 1 ? "" : "s", cp.plan->n_variants,
		       cp.plan->n_variants == 1 ? "" : "s", points, points == 1 ? "" : "s",
		       cp.plan->repeat, cp.plan->repeat == 1 ? "" : "s");
		fflush(stdout);
		cli_plan_noise(cp.plan, hosts, !hosts);
		goto out;
	}
	out = json_pack("{s:s, s:b, s:s, s:s, s:i, s:i, s:i, s:i, s:O, s:[]}", "file", file,
			"ok", 1, "plan", cp.plan->name, "sha256", cp.plan->sha256,
			"jobs", cp.n_jobs, "variants", cp.plan->n_variants, "points", points,
			"repeat", cp.plan->repeat, "overrides", cp.overrides, "objects");
	objs = json_object_get(out, "objects");
	for (i = 0; out && i < cp.objs.n; i++) {
		const struct plan_object *o = &cp.objs.objs[i];

		if (json_array_append_new(objs, json_pack("{s:s, s:s, s:s}", "name", o->name,
							  "path", o->path, "sha256",
							  o->sha256))) {
			json_decref(out);
			out = NULL;
		}
	}
	noise = out ? cli_plan_noise(cp.plan, hosts, !hosts) : NULL;
	if (noise && json_object_set_new(out, "noise", noise)) {
		json_decref(out);
		out = NULL;
	}
	ret = out ? cli_print_json(out) : cli_error("out of memory");
out:
	json_decref(out);
	json_decref(hosts);
	cli_plan_release(&cp);
	return ret;
}

/* "xdp_drop on b (xdp native), cnt on a (tc-ingress), c2 on b (tc-egress clsact)" for a
 * job spec's attach list (a tc hook's tc_mode is shown unless it is auto; an XDP mode always, auto too). */
static char *attach_text(const json_t *spec)
{
	const json_t *a;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	json_array_foreach(json_object_get(spec, "attach"), i, a) {
		const char *hook = json_string_value(json_object_get(a, "hook"));
		const char *mode = json_string_value(json_object_get(a, "mode"));

		if (!hook || strcmp(hook, "xdp")) {
			mode = json_string_value(json_object_get(a, "tc_mode"));
			if (mode && !strcmp(mode, "auto"))
				mode = NULL;
		}
		fprintf(f, "%s%s on %s (%s%s%s)", i ? ", " : "",
			json_string_value(json_object_get(a, "program")) ?: "?",
			json_string_value(json_object_get(a, "port")) ?: "?", hook ?: "?",
			mode ? " " : "", mode ?: "");
	}
	if (!json_array_size(json_object_get(spec, "attach")))
		fputs("-", f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int do_show(int argc, char **argv)
{
	static const char *const head[] = { ">seq", ">rep", "variant", "point", "attach" };
	struct tt_table t = { 0 };
	struct cli_plan cp;
	const char *file = NULL;
	json_t *out = NULL;
	int ret, i;

	ret = plan_args(argc, argv, "plan show", &cp, &file, NULL);
	if (ret)
		goto out;
	if (cli.json) {
		out = json_array();
		for (i = 0; out && i < cp.n_jobs; i++)
			if (json_array_append(out, cp.jobs[i].spec)) {
				json_decref(out);
				out = NULL;
			}
		ret = out ? cli_print_json(out) : cli_error("out of memory");
		goto out;
	}
	if (tt_table_init(&t, 5, head)) {
		ret = cli_error("out of memory");
		goto out;
	}
	for (i = 0; i < cp.n_jobs; i++) {
		const struct plan_job *j = &cp.jobs[i];
		char seq[16], rep[16], point[512], *attach = attach_text(j->spec);
		const char *cells[5] = { seq, rep, cp.plan->variants[j->variant].name,
					 cli_point_text(j->point_values, point, sizeof(point)),
					 attach };

		snprintf(seq, sizeof(seq), "%d", j->seq);
		snprintf(rep, sizeof(rep), "%d", j->rep);
		if (!attach || tt_table_add(&t, cells)) {
			free(attach);
			ret = cli_error("out of memory");
			goto out;
		}
		free(attach);
	}
	tt_table_print(&t, stdout);
out:
	tt_table_release(&t);
	json_decref(out);
	cli_plan_release(&cp);
	return ret;
}

static const struct cli_cmd plan_cmds[] = {
	{ "check", do_check, "FILE [-s KEY=VALUE]... [--hosts NAME[,NAME]...]",
	  "Validate FILE, resolve the BPF objects it names (in --bpf-dir) and expand it;\n"
	  "print \"FILE: ok, N jobs (V variants x P points x R repetitions)\", or the\n"
	  "first problem as \"FILE:LINE:COLUMN: message\" on stderr and exit with 2.\n"
	  "When hosts with the plan's ports have a noise floor (host calibrate; from\n"
	  "--db, or a coordinator at hand), also how many repetitions per variant the\n"
	  "plan needs to see its min_effect, and a warning when repeat max is below.\n"
	  "With -j: {file, ok, plan, sha256, jobs, variants, points, repeat, overrides,\n"
	  "objects, noise}, or {file, ok: false, error, line, column}.\n"
	  "\n"
	  "  -s, --set KEY=VALUE   override a plan value, e.g. -s traffic.packet.size=1500\n"
	  "  --hosts NAME,...      the noise floors of these hosts (asked for even when\n"
	  "                        no coordinator seems at hand)\n" },
	{ "show", do_show, "FILE [-s KEY=VALUE]...",
	  "Validate FILE like 'plan check' and list the jobs it expands into: sequence,\n"
	  "repetition, variant, matrix point and what each attaches where. With --json,\n"
	  "the array of job specs the agents execute.\n"
	  "\n"
	  "  -s, --set KEY=VALUE   override a plan value\n" },
	{ NULL, NULL, NULL, NULL },
};

const struct cli_object cli_plan_object = {
	.name = "plan",
	.cmds = plan_cmds,
	.default_cmd = NULL,
	.help = "       FILE := a YAML plan (docs/plans.md)\n"
		"       KEY := a dotted plan path, e.g. traffic.packet.size\n",
};

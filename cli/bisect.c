// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* bisect.c - `bpflab bisect start|status|log|list|step|reset|run`: find the kernel where a
 * metric changed (docs/bisect.md).
 *
 * The driver runs here, in the CLI: lib/analysis/bisect.c decides, the session and its steps
 * live in the coordinator's database (lib/store/store_bisect.c) and the engine is rebuilt by
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
 * This file holds the command table and the session commands start and reset; the
 * other parts are listed in bisect_int.h.
 */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bisect_int.h"
#include "base/kernel_list.h"
#include "proto/proto.h"
#include "store/store.h"
#include "base/util.h"

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
		char *text = NULL;
		struct err why;
		size_t len = 0;
		int err = util_read_file(file, KERNEL_LIST_MAX_BYTES, &text, &len);

		json_decref(out);
		if (err) {
			cli_error("cannot read kernel list '%s': %s", file, util_strerror(err));
			return NULL;
		}
		out = kernel_list_parse(text, len, file, &why);
		free(text);
		if (!out)
			cli_error("%s", why.msg);
		return out;
	}
	if (cli_query("host_list", 0, &hosts))
		goto fail;
	json_array_foreach(hosts, i, h) {
		const json_t *offered = json_object_get(json_object_get(json_object_get(h,
						"inventory"), "provider"), "kernels"), *o;
		size_t j;

		add_name(names, &n, jget_str(h, "kernel_release", NULL));
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

/* The candidate KERNELS (a JSON array of names) as "'6.1.0', '6.6.0', ..." into OUT (LEN
 * bytes); a long list keeps its ends: "'a', 'b', ... (40 more), 'y', 'z'". */
static const char *kernels_text(const json_t *kernels, char *out, size_t len)
{
	size_t n = json_array_size(kernels), i, used = 0;
	int w;

	out[0] = '\0';
	for (i = 0; i < n; i++) {
		if (n > 8 && i == 3) {
			w = snprintf(out + used, len - used, ", ... (%zu more)", n - 6);
			i = n - 4;
		} else {
			w = snprintf(out + used, len - used, "%s'%s'", i ? ", " : "",
				     json_string_value(json_array_get(kernels, i)));
		}
		if (w < 0 || used + (size_t)w >= len)
			break;
		used += (size_t)w;
	}
	return out;
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
	int ret, g, bd;

	ret = bisect_parse(argc, argv, "bisect start", BISECT_OPTS_START, &o);
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
	g = bisect_session_kernel(kernels, o.good);
	bd = bisect_session_kernel(kernels, o.bad);
	if (g < 0 || bd < 0) {
		char list[512];

		ret = cli_usage_error("bisect start", "%s kernel '%s' is not a candidate (the "
				      "candidates, oldest first: %s)", g < 0 ? "good" : "bad",
				      g < 0 ? o.good : o.bad,
				      kernels_text(kernels, list, sizeof(list)));
		goto out;
	}
	if (g >= bd) {
		ret = cli_usage_error("bisect start", "good kernel '%s' must come before the bad "
				      "one (oldest first)", o.good);
		goto out;
	}
	/* the kind of the metric from a stored unit, if there is one (and never a sample
	 * of several variants or subjects) */
	q = (struct vsel){ .plan = plan_name, .metric = o.metric, .variant = o.variant,
			   .subject = o.subject, .timing = o.timing };
	ret = bisect_values_get(&be, &q, &x);
	if (ret)
		goto out;
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
		"of '%s'%s\n", jget_int(started, "id", 0), bd - g + 1, o.good, o.bad,
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

static int do_reset(int argc, char **argv)
{
	struct bopts o = { 0 };
	struct session_be be = { 0 };
	json_t *ses = NULL;
	int ret = bisect_parse(argc, argv, "bisect reset", 0, &o);

	if (!ret)
		ret = bisect_be_open(&be, false);
	if (!ret) {
		ses = be.ops->reset(&be);
		if (ses && cli.json)
			ret = cli_print_json(ses);
		else if (ses)
			printf("bisect session %lld reset\n", jget_int(ses, "id", 0));
		else
			ret = CLI_EXIT_FAIL;
	}
	return bisect_release(&o, &be, ses, NULL, ret);
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
	{ "status", bisect_do_status, "[--session ID]", "The session (default: the active "
	  "one, else the latest), the engine's\nstate, the next measurement, the result.\n" },
	{ "log", bisect_do_log, "[--session ID]",
	  "Every step of the session: kernel, round, values, mean, delta, p ('exact' where\n"
	  "both sides repeat one value, as QEMU icount costs do), verdict, why.\n" },
	{ "list", bisect_do_list, "",
	  "Every session, oldest first: state, plan, metric, good, bad, kernels, steps,\n"
	  "result (the first bad kernel and its change, or why it failed).\n" },
	{ "step", bisect_do_step, "[--skip] [--provider CMD] [--strict]",
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
	  "                        session still needs in $BPFLAB_KEEP_KERNELS\n"
	  "  --strict              refuse values of one kernel that come from several\n"
	  "                        hosts or kernel builds (else a note on stderr)\n" },
	{ "reset", do_reset, "", "End the active session (kept, state 'reset').\n" },
	{ "run", bisect_do_run, "--plan P --metric M --threshold X% --baseline RUN [--kernel K] "
	  "[--host H] [--reps N] [--max-reps N] [--rebaseline | --no-rebaseline] "
	  "[-s KEY=VALUE]... [--variant V] [--subject S] [--direction higher|lower] "
	  "[--strict]",
	  "For 'git bisect run': run plan file P through the coordinator on host H\n"
	  "(default: the connected host whose kernel is K, default uname -r) with N\n"
	  "repetitions (default 5) and judge the values against baseline run RUN;\n"
	  "while the answer is UNKNOWN, measure more, up to --max-reps (default 30).\n"
	  "--rebaseline (the default when RUN ran plan P on this host and kernel) runs\n"
	  "RUN's plan again on its host, interleaved with P, and compares with those\n"
	  "values; --no-rebaseline compares with RUN's stored values. With --db, judge\n"
	  "the stored results of plan P on kernel K instead. --variant, --subject: which\n"
	  "sample, needed when the metric has several. --direction: which way is better\n"
	  "(default: higher for rates, lower for times). --strict: refuse a side whose\n"
	  "values come from several hosts or kernel builds (exit 128; else a note).\n"
	  "Exit 0 good, 1 bad, 125 cannot\n"
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

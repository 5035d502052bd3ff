// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* bisect_run.c - `bpflab bisect run`, the judge of `git bisect run` (docs/bisect.md):
 * measure this kernel through the coordinator on the host running it (with the
 * baseline's plan again, interleaved, when it ran there) or judge stored results with
 * --db, measure more while the answer is UNKNOWN, and exit 0 good, 1 bad, 125 cannot
 * tell, 128 the tool failed, 129 bad usage.
 */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bisect_int.h"
#include "proto/proto.h"
#include "base/util.h"

/* --- bisect run --- */

/* Whether FILE names a readable plan file (rather than a plan name). */
bool bisect_is_plan_file(const char *file)
{
	return file && access(file, R_OK) == 0;
}

/* The kernel.release of connected host NAME into OUT (bisect_host_find). */
static int host_kernel(const char *name, char *out, size_t len)
{
	return bisect_host_find(name, NULL, NULL, 0, out, len);
}

/* What one `bisect run` measures and has measured. */
struct judge {
	const struct bopts *o;
	struct session_be *be;
	unsigned int max_reps;
	const char *host;		/* where the candidate runs */
	const char *base_host;		/* where the baseline's plan runs again */
	json_t *base_overrides;		/* the baseline run's overrides (rebaseline) */
	json_t *runs, *base_runs;	/* the runs submitted for each side */
	struct vals cur, base;
	char base_host_name[128];	/* base_host points here */
};

/* Submit plan o->plan with OVERRIDES and REPS repetitions to HOST and append the run to
 * RUNS. Returns 0 or the outcome of the failure. */
static int judge_submit(struct judge *j, const json_t *overrides, unsigned int reps,
			const char *host, json_t *runs)
{
	json_t *hosts = json_pack("[s]", host);
	long long run = 0;
	int err;

	if (!hosts) {
		cli_error("out of memory");
		return BISECT_OUT_FAILED;
	}
	err = bisect_submit_wait(j->o->plan, overrides, reps, hosts, &run);
	json_decref(hosts);
	if (err)
		return err == CLI_EXIT_USAGE ? BISECT_OUT_USAGE : BISECT_OUT_FAILED;
	if (json_array_append_new(runs, json_integer(run))) {
		cli_error("out of memory");
		return BISECT_OUT_FAILED;
	}
	return 0;
}

/* Whether the candidate's first run gave no values (its jobs failed: this commit
 * cannot be tested, and the rounds after it would fail alike). */
static bool judge_first_failed(struct judge *j)
{
	struct vsel q = { .metric = j->o->metric, .variant = j->o->variant,
			  .subject = j->o->subject, .runs = j->runs };
	struct vals x = { 0 };
	bool failed;

	failed = json_array_size(j->runs) == 1 && !bisect_values_get(j->be, &q, &x) && !x.n;
	bisect_vals_release(&x);
	return failed;
}

/* REPS more values of the candidate; with a rebaseline as many of the baseline's plan,
 * interleaved: up to five rounds of a baseline run and a candidate run, in the order
 * ABBA, so that a machine that drifts over the minutes weighs on both sides alike.
 * Returns 0 or the outcome of the failure (UNTESTABLE when the candidate's first run
 * has no values: judge_values says so). */
static int judge_measure(struct judge *j, unsigned int reps)
{
	unsigned int rounds = reps < 5 ? reps : 5, i, k;
	int err = 0;

	if (!j->base_host)
		return judge_submit(j, j->o->overrides, reps, j->host, j->runs);
	for (i = 0; !err && i < rounds; i++) {
		k = reps / rounds + (i < reps % rounds);
		if (i % 2 == 0)
			err = judge_submit(j, j->base_overrides, k, j->base_host, j->base_runs);
		if (!err)
			err = judge_submit(j, j->o->overrides, k, j->host, j->runs);
		if (!err && judge_first_failed(j))
			break;
		if (!err && i % 2)
			err = judge_submit(j, j->base_overrides, k, j->base_host, j->base_runs);
	}
	return err;
}

/* The baseline run's overrides without its repeat (each rebaseline run sets its own)
 * into j->base_overrides, when the baseline ran plan file o->plan (same sha256).
 * Returns 0, -ESRCH when it ran another plan, or -EIO after the error. */
static int judge_base_plan(struct judge *j)
{
	struct cli_plan cp = { 0 };
	json_t *run = bisect_coord_ask("run_show", j->o->baseline, NULL, "run", "run"), *ov;
	size_t i;
	int ret = -EIO;

	if (!run)
		return -EIO;
	cp.overrides = json_array();
	if (!cp.overrides || cli_plan_prepare(j->o->plan, &cp))
		goto out;
	ret = -ESRCH;
	if (strcmp(jget_str(run, "plan_sha256", ""), cp.plan->sha256))
		goto out;
	ret = -EIO;
	j->base_overrides = json_array();
	if (!j->base_overrides)
		goto out;
	json_array_foreach(json_object_get(run, "overrides"), i, ov)
		if (json_is_string(ov) && strncmp(json_string_value(ov), "repeat=", 7))
			json_array_append(j->base_overrides, ov);
	ret = 0;
out:
	cli_plan_release(&cp);
	json_decref(run);
	return ret;
}

/* The values of both sides into j->cur and j->base: the candidate's runs; the
 * baseline's runs when rebaselining, else the stored baseline run (read once). With
 * --db: the stored results of o->plan on o->kernel, no run. Returns 0 or an outcome. */
static int judge_values(struct judge *j)
{
	const struct bopts *o = j->o;
	json_t *one = json_pack("[I]", (json_int_t)o->baseline);
	struct vsel q = { .metric = o->metric, .variant = o->variant, .subject = o->subject };
	int err = 0;

	if (!one) {
		cli_error("out of memory");
		return BISECT_OUT_FAILED;
	}
	if (j->base_host || !j->base.n) {
		q.runs = j->base_host ? j->base_runs : one;
		err = bisect_values_get(j->be, &q, &j->base);
	}
	if (!err && (cli.db || json_array_size(j->runs))) {
		q.runs = cli.db ? NULL : j->runs;
		q.plan = o->plan;
		q.kernel = cli.db ? o->kernel : NULL;
		q.skip_run = o->baseline;
		q.timing = cli.db && *j->base.timing ? j->base.timing : NULL;
		err = bisect_values_get(j->be, &q, &j->cur);
	}
	json_decref(one);
	if (err)
		return err == CLI_EXIT_USAGE ? BISECT_OUT_USAGE : BISECT_OUT_FAILED;
	if (!j->base.n) {
		cli_error("no values of '%s' in the baseline %s", o->metric, j->base_host ?
			  "plan's new runs" : "run");
		return BISECT_OUT_FAILED;
	}
	if (!j->cur.n && (cli.db || json_array_size(j->runs))) {
		fprintf(stderr, "bpflab: no values of '%s' %s: cannot test (125)\n", o->metric,
			cli.db ? "for this kernel" : "in the new run (its jobs failed)");
		return BISECT_OUT_UNTESTABLE;
	}
	if (bisect_vals_pooled(&j->base, "baseline", j->base.kernel, o->strict) ||
	    (j->cur.n && bisect_vals_pooled(&j->cur, "candidate", j->cur.kernel, o->strict)))
		return BISECT_OUT_FAILED;
	if (j->cur.n && strcmp(j->base.timing, j->cur.timing)) {
		cli_error("cannot compare '%s' timings of the baseline with '%s' ones of this "
			  "kernel", j->base.timing, j->cur.timing);
		return BISECT_OUT_FAILED;
	}
	return 0;
}

/* Decide whether to measure the baseline's plan again (into j->base_host): --rebaseline
 * yes, --no-rebaseline no, else yes when the baseline ran this plan file on the host and
 * kernel being measured. Returns 0 or an outcome. */
static int judge_rebaseline(struct judge *j, const char *kernel)
{
	char base_kernel[128];
	int err;

	if (j->o->rebaseline < 0)
		return 0;
	err = judge_base_plan(j);
	if (err == -EIO)
		return BISECT_OUT_FAILED;
	if (err == -ESRCH) {
		if (!j->o->rebaseline)
			return 0;
		cli_error("cannot --rebaseline: baseline run %lld ran another plan than '%s'",
			  j->o->baseline, j->o->plan);
		return BISECT_OUT_USAGE;
	}
	if (!j->o->rebaseline && (strcmp(j->base.host, j->host) ||
				  strcmp(j->base.kernel, kernel)))
		return 0;
	err = host_kernel(j->base.host, base_kernel, sizeof(base_kernel));
	if (err == -EIO)
		return BISECT_OUT_FAILED;
	if (err || strcmp(base_kernel, j->base.kernel)) {
		cli_error("cannot --rebaseline: baseline host '%s' %s%s, the baseline ran "
			  "'%s'", j->base.host, err ? "is not connected" : "runs ",
			  err ? "" : base_kernel, j->base.kernel);
		return BISECT_OUT_FAILED;
	}
	snprintf(j->base_host_name, sizeof(j->base_host_name), "%s", j->base.host);
	j->base_host = j->base_host_name;
	fprintf(stderr, "bisect run: the baseline's plan runs again on '%s', interleaved with "
		"this kernel's%s\n", j->base_host, j->o->rebaseline ? "" : " (same host and "
		"kernel as the baseline run; --no-rebaseline compares with its stored values)");
	return 0;
}

/* Print what J decided (outcome OUT from comparison R, verdict M). */
static void judge_print(const struct judge *j, enum bisect_outcome out, enum bisect_mark m,
			const struct compare_result *r, const char *kernel)
{
	const struct bopts *o = j->o;
	struct bisect_resolution res;
	char rtext[64] = "", mde[160], p[32];

	bisect_resolution_of(r, 0.05, &res);
	bisect_resolution_text(&res, mde, sizeof(mde));
	if (cli.json) {
		json_t *x = json_pack("{s:s, s:s, s:s, s:i, s:I, s:I, s:f, s:f, s:f, s:s, s:b, "
				      "s:s, s:I, s:O, s:O?, s:b, s:o}", "kernel", kernel,
				      "verdict", bisect_mark_name(m), "outcome",
				      bisect_outcome_name(out), "exit", bisect_run_exit(out),
				      "n_baseline", (json_int_t)j->base.n,
				      "n", (json_int_t)j->cur.n, "mean_baseline", r->mean_a,
				      "mean", r->mean_b, "delta_pct", r->delta_pct,
				      "compare", compare_verdict_name(r->verdict),
				      "exact", r->test == COMPARE_TEST_CONSTANT,
				      "timing", j->cur.timing, "run",
				      json_integer_value(json_array_get(j->runs, 0)),
				      "runs", j->runs, "baseline_runs",
				      j->base_host ? j->base_runs : NULL,
				      "rebaseline", j->base_host != NULL, "min_detectable_pct",
				      isnan(res.mde) ? json_null() : json_real(100 * res.mde));

		if (x)
			cli_print_json(x);
		json_decref(x);
		return;
	}
	if (json_array_size(j->runs) == 1)
		snprintf(rtext, sizeof(rtext), ", run %lld",
			 (long long)json_integer_value(json_array_get(j->runs, 0)));
	else if (json_array_size(j->runs))
		snprintf(rtext, sizeof(rtext), ", runs %lld..%lld",
			 (long long)json_integer_value(json_array_get(j->runs, 0)),
			 (long long)json_integer_value(json_array_get(j->runs,
				 json_array_size(j->runs) - 1)));
	printf("%s: %s %s: %.6g -> %.6g %s (%+.2f %%, %s, %s, %zu vs %zu, %s%s%s): %s%s%s\n",
	       kernel, o->metric, o->variant ? o->variant : "", r->mean_a, r->mean_b,
	       j->cur.unit, r->delta_pct, compare_verdict_name(r->verdict),
	       compare_p_text(r->test, r->p, p, sizeof(p)), j->base.n, j->cur.n,
	       j->cur.timing, j->base_host ? ", rebaselined" : "", rtext,
	       bisect_outcome_name(out), out == BISECT_OUT_UNKNOWN && *mde ? ": " : "",
	       out == BISECT_OUT_UNKNOWN ? mde : "");
}

/* Measure (or with --db read) and judge; returns the outcome. */
static enum bisect_outcome judge_run(struct judge *j, const char *kernel)
{
	const struct bopts *o = j->o;
	struct compare_result r;
	enum bisect_mark m = BISECT_SKIP;
	unsigned int want = o->reps ? o->reps : 5;
	char hk[128] = "", mde[160];
	int err;

	if (!cli.db) {
		/* measure now, through the coordinator, on the host running this kernel */
		if (!bisect_is_plan_file(o->plan)) {
			cli_error("cannot read plan file '%s' (bisect run measures it through the "
				  "coordinator; give --db FILE to judge stored results)", o->plan);
			return BISECT_OUT_USAGE;
		}
		err = host_kernel(j->host, hk, sizeof(hk));
		if (err == -EIO)
			return BISECT_OUT_FAILED;
		if (err) {
			cli_error("host '%s' is not connected", j->host);
			return BISECT_OUT_FAILED;
		}
		/* the stored baseline: which host and kernel it ran on */
		err = judge_values(j);
		if (err)
			return err;
		err = judge_rebaseline(j, hk);
		if (err)
			return err;
		bisect_vals_release(&j->base);
	}
	for (;;) {
		struct bisect_resolution res;
		unsigned int more;
		size_t n_have;
		char p[32];

		if (!cli.db && (err = judge_measure(j, want)))
			return err;
		err = judge_values(j);
		if (err)
			return err;
		m = bisect_judge(j->base.v, j->base.n, j->cur.v, j->cur.n,
				 stats_kind_for_unit(j->cur.unit), o->threshold, o->dir, &r);
		n_have = j->base_host && j->base.n < j->cur.n ? j->base.n : j->cur.n;
		more = cli.db ? 0 : bisect_run_more(&r, n_have, j->max_reps);
		if (!more)
			break;
		bisect_resolution_of(&r, 0.05, &res);
		fprintf(stderr, "bisect run: %s (%+.2f %%, %s); %s: %u more%s (at most %u)\n",
			compare_verdict_name(r.verdict), r.delta_pct,
			compare_p_text(r.test, r.p, p, sizeof(p)),
			bisect_resolution_text(&res, mde, sizeof(mde)), more,
			j->base_host ? " each" : "", j->max_reps);
		want = more;
	}
	if (m == BISECT_GOOD)
		err = BISECT_OUT_GOOD;
	else if (m == BISECT_BAD)
		err = BISECT_OUT_BAD;
	else if (r.verdict == COMPARE_DIFFERENT) {
		cli_error("'%s' changed by %+.2f %% but its unit '%s' has no direction: say which "
			  "way is better with --direction", o->metric, r.delta_pct, j->cur.unit);
		return BISECT_OUT_USAGE;
	} else
		err = BISECT_OUT_UNKNOWN;
	judge_print(j, err, m, &r, kernel);
	return err;
}

int bisect_do_run(int argc, char **argv)
{
	struct bopts o = { 0 };
	struct session_be be = { 0 };
	struct judge j = { .o = &o, .be = &be };
	struct utsname uts;
	char host[128] = "";
	enum bisect_outcome out = BISECT_OUT_USAGE;
	int err;

	if (bisect_parse(argc, argv, "bisect run", BISECT_OPTS_RUN, &o))
		goto out;
	if (!o.plan || !o.metric || !o.threshold || !o.baseline) {
		cli_usage_error("bisect run", "--plan, --metric, --threshold and --baseline "
				"are needed");
		goto out;
	}
	j.max_reps = o.max_reps ? o.max_reps : 30;
	if (o.reps > j.max_reps) {
		cli_usage_error("bisect run", "--reps %u is above --max-reps %u", o.reps,
				j.max_reps);
		goto out;
	}
	if (!o.kernel && !uname(&uts))
		o.kernel = uts.release;
	out = BISECT_OUT_FAILED;
	j.runs = json_array();
	j.base_runs = json_array();
	if (!j.runs || !j.base_runs || bisect_be_open(&be, true))
		goto out;
	if (!cli.db && o.host) {
		snprintf(host, sizeof(host), "%s", o.host);
	} else if (!cli.db) {
		err = bisect_host_running(o.kernel, host, sizeof(host));
		if (err == -ENOENT) {
			fprintf(stderr, "bpflab: no connected host runs kernel '%s' (--host H names "
				"one): cannot test (125)\n", o.kernel);
			out = BISECT_OUT_UNTESTABLE;
		}
		if (err)
			goto out;
	}
	j.host = host;
	out = judge_run(&j, o.kernel);
out:
	bisect_vals_release(&j.cur);
	bisect_vals_release(&j.base);
	json_decref(j.runs);
	json_decref(j.base_runs);
	json_decref(j.base_overrides);
	json_decref(o.overrides);
	bisect_be_close(&be);
	return bisect_run_exit(out);
}

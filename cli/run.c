// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* run.c - `bpflab run submit|list|show|cancel|watch`: hand a plan to the coordinator,
 * follow it, stop it, and look at runs and their jobs.
 *
 * submit validates the plan locally exactly as `plan check` does, so that a bad plan is
 * refused with its FILE:LINE:COLUMN before anything is sent, then ships the plan text,
 * the overrides and the bytes of every object the plan names (docs/protocol.md, submit).
 */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/proto.h"
#include "store/store.h"
#include "base/texttable.h"
#include "base/util.h"

/* The `submit` request of cli_submit. New reference, or NULL on ENOMEM. */
static json_t *submit_msg(const char *file, const struct cli_plan *cp, const json_t *hosts)
{
	json_t *msg = proto_msg_new("submit"), *objs = json_object();
	int i;

	if (!msg || !objs ||
	    json_object_set_new(msg, "plan_file", json_string(file)) ||
	    json_object_set_new(msg, "plan_text", json_stringn(cp->plan->text,
							       cp->plan->text_len)) ||
	    json_object_set(msg, "overrides", cp->overrides) ||
	    (hosts && json_object_set(msg, "hosts", (json_t *)hosts)))
		goto fail;
	for (i = 0; i < cp->objs.n; i++) {
		const struct plan_object *o = &cp->objs.objs[i];
		char *data = util_base64_encode(o->data, o->len);

		if (!data || json_object_set_new(objs, o->name,
						 json_pack("{s:s, s:s}", "sha256", o->sha256,
							   "data", data))) {
			free(data);
			goto fail;
		}
		free(data);
	}
	if (json_object_set_new(msg, "objects", objs))
		goto fail_msg;
	return msg;
fail:
	json_decref(objs);
fail_msg:
	json_decref(msg);
	return NULL;
}

int cli_submit(const char *file, const struct cli_plan *cp, const json_t *hosts,
	       json_t **reply)
{
	json_t *msg = submit_msg(file, cp, hosts);
	int ret;

	*reply = NULL;
	if (!msg)
		return cli_error("out of memory");
	ret = cli_request(msg, "submitted", reply);
	json_decref(msg);
	return ret;
}

static const char *plural(long long n)
{
	return n == 1 ? "" : "s";
}

/* ", 3 repetitions added (latest: why)" for the jobs of RUN the repetition controller
 * added (docs/plans.md "repeat"), "" when none, in BUF. */
static const char *added_text(const json_t *run, char *buf, size_t len)
{
	const char *why = NULL;
	long long n = 0;
	json_t *j;
	size_t i;

	json_array_foreach(json_object_get(run, "jobs"), i, j) {
		if (json_object_get(j, "added")) {
			n++;
			why = jget_str(j, "added", "?");
		}
	}
	if (!n)
		snprintf(buf, len, "%s", "");
	else
		snprintf(buf, len, ", %lld repetition%s added (latest: %s)", n, plural(n), why);
	return buf;
}

int cli_run_wait(long long id, json_t **final)
{
	char last[512] = "", line[512], added[320];
	json_t *run = NULL;
	int ret;

	for (;;) {
		const char *state;

		json_decref(run);
		ret = cli_query("run_show", id, &run);
		if (ret)
			return ret;
		state = json_string_value(json_object_get(run, "state"));
		snprintf(line, sizeof(line), "run %lld: %lld/%lld jobs done, %lld failed%s", id,
			 jget_int(run, "jobs_done", 0), jget_int(run, "jobs_total", 0),
			 jget_int(run, "jobs_failed", 0), added_text(run, added,
									  sizeof(added)));
		if (strcmp(line, last)) {
			fprintf(stderr, "%s\n", line);
			snprintf(last, sizeof(last), "%s", line);
		}
		if (state && (!strcmp(state, "done") || !strcmp(state, "failed") ||
			      !strcmp(state, "cancelled")))
			break;
		sleep(1);
	}
	*final = run;
	return 0;
}

struct submit_opts {
	json_t *overrides;
	json_t *hosts;			/* --hosts, or NULL */
	bool wait;
};

enum { OPT_WAIT = CLI_OPT_FIRST_LOCAL, OPT_HOSTS };

/* "h1,h2" into a new JSON array of names; NULL for an empty name. */
static json_t *host_names(const char *arg)
{
	json_t *names = json_array();
	const char *p = arg, *comma;

	while (names) {
		comma = strchr(p, ',');
		if ((comma ? comma == p : !*p) ||
		    json_array_append_new(names, json_stringn(p, comma ? (size_t)(comma - p) :
								     strlen(p)))) {
			json_decref(names);
			return NULL;
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	return names;
}

static int submit_opt(int opt, const char *arg, void *ctx)
{
	struct submit_opts *o = ctx;

	if (opt == OPT_WAIT) {
		o->wait = true;
		return 0;
	}
	if (opt == OPT_HOSTS) {
		json_decref(o->hosts);
		o->hosts = host_names(arg);
		if (!o->hosts)
			return cli_usage_error("run submit", "invalid --hosts '%s': expected "
					       "NAME[,NAME]...", arg);
		return 0;
	}
	return cli_plan_opt(opt, arg, o->overrides);
}

static int do_submit(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "set", required_argument, NULL, 's' },
		{ "wait", no_argument, NULL, OPT_WAIT },
		{ "hosts", required_argument, NULL, OPT_HOSTS },
		{ NULL, 0, NULL, 0 },
	};
	struct submit_opts o = { .overrides = json_array() };
	struct cli_plan cp = { 0 };
	json_t *reply = NULL, *final = NULL, *out = NULL, *noise = NULL, *h;
	long long run = 0, jobs;
	const char *file;
	char hosts[512] = "";
	int first, ret;
	size_t i, used = 0, n_hosts;

	if (!o.overrides)
		return cli_error("out of memory");
	ret = cli_parse_opts(argc, argv, "run submit", "s:", longopts, submit_opt, &o, &first);
	if (ret)
		goto out;
	if (first >= argc) {
		ret = cli_usage_error("run submit", "missing plan FILE");
		goto out;
	}
	if (first + 1 < argc) {
		ret = cli_usage_error("run submit", "unexpected argument '%s'", argv[first + 1]);
		goto out;
	}
	if (cli.db) {
		ret = cli_usage_error("run submit", "cannot submit with --db: a database file "
				      "answers queries only");
		goto out;
	}
	file = argv[first];
	cp.overrides = json_incref(o.overrides);
	ret = cli_plan_prepare(file, &cp);
	if (ret)
		goto out;
	ret = cli_submit(file, &cp, o.hosts, &reply);
	if (ret)
		goto out;

	run = jget_int(reply, "run", 0);
	jobs = jget_int(reply, "jobs", 0);
	json_array_foreach(json_object_get(reply, "hosts"), i, h) {
		int n = snprintf(hosts + used, sizeof(hosts) - used, "%s%s", i ? ", " : "",
				 json_string_value(h) ? json_string_value(h) : "?");

		if (n < 0 || (size_t)n >= sizeof(hosts) - used)
			break;
		used += n;
	}
	n_hosts = json_array_size(json_object_get(reply, "hosts"));
	if (!cli.json || o.wait)
		fprintf(cli.json ? stderr : stdout,
			"run %lld submitted: %lld job%s on %zu host%s (%s)\n", run, jobs,
			plural(jobs), n_hosts, plural((long long)n_hosts), hosts);
	/* how many repetitions the hosts' noise floors ask for (cli/plan.c) */
	noise = cli_plan_noise(cp.plan, json_object_get(reply, "hosts"), false);
	if (!cli.json)
		fflush(stdout);
	if (o.wait) {
		ret = cli_run_wait(run, &final);
		if (ret)
			goto out;
		if (strcmp(jget_str(final, "state", ""), "done") ||
		    jget_int(final, "jobs_failed", 0))
			ret = CLI_EXIT_FAIL;
	}
	if (cli.json) {
		int err;

		out = json_pack("{s:I, s:I, s:O?}", "run", (json_int_t)run, "jobs",
				(json_int_t)jobs, "hosts", json_object_get(reply, "hosts"));
		if (out && noise && json_object_set(out, "noise", noise)) {
			json_decref(out);
			out = NULL;
		}
		if (out && final && json_object_set(out, "final", final)) {
			json_decref(out);
			out = NULL;
		}
		err = out ? cli_print_json(out) : cli_error("out of memory");
		if (err)
			ret = err;
	}
out:
	json_decref(out);
	json_decref(noise);
	json_decref(final);
	json_decref(reply);
	json_decref(o.overrides);
	json_decref(o.hosts);
	cli_plan_release(&cp);
	return ret;
}

/* Send request TYPE about run ID; *REPLY gets the WANT reply. Refused with --db. */
static int run_request(const char *type, const char *want, const char *hint, long long id,
		       json_t **reply)
{
	json_t *msg;
	int ret;

	if (cli.db)
		return cli_usage_error(hint, "needs the coordinator, not --db");
	msg = proto_msg_new(type);
	if (!msg || json_object_set_new(msg, "run", json_integer(id))) {
		json_decref(msg);
		return cli_error("out of memory");
	}
	ret = cli_request(msg, want, reply);
	json_decref(msg);
	return ret;
}

static int do_cancel(int argc, char **argv)
{
	json_t *reply = NULL, *out;
	long long id;
	size_t n;
	int first, ret;

	ret = cli_parse_opts(argc, argv, "run cancel", "", NULL, NULL, NULL, &first);
	if (ret)
		return ret;
	if (first >= argc)
		return cli_usage_error("run cancel", "missing run ID");
	if (first + 1 < argc)
		return cli_usage_error("run cancel", "unexpected argument '%s'", argv[first + 1]);
	ret = cli_parse_run_id(argv[first], "run cancel", &id);
	if (ret)
		return ret;
	ret = run_request("run_cancel", "cancelled", "run cancel", id, &reply);
	if (ret)
		return ret;
	n = json_array_size(json_object_get(reply, "running"));
	if (cli.json) {
		out = json_pack("{s:I, s:O}", "run", (json_int_t)id, "running",
				json_object_get(reply, "running"));
		ret = out ? cli_print_json(out) : cli_error("out of memory");
		json_decref(out);
	} else {
		printf("run %lld cancelled: queued jobs dropped, %zu running job%s told to stop\n",
		       id, n, plural((long long)n));
	}
	json_decref(reply);
	return ret;
}

/* One watch update as text: a run line, then one line per host. */
static void print_watch(const json_t *w)
{
	const json_t *run = json_object_get(w, "run"), *h, *rates;
	const char *port;
	json_t *v;
	size_t i;

	printf("run %lld %s: %lld/%lld jobs done, %lld failed\n", jget_int(run, "id", 0),
	       jget_str(run, "state", "?"), jget_int(run, "jobs_done", 0),
	       jget_int(run, "jobs_total", 0), jget_int(run, "jobs_failed", 0));
	json_array_foreach(json_object_get(w, "hosts"), i, h) {
		printf("  %-12s %lld/%lld finished", jget_str(h, "host", "?"),
		       jget_int(h, "finished", 0), jget_int(h, "jobs", 0));
		if (jget_int(h, "job", 0))
			printf(", job %lld of %lld (id %lld)", jget_int(h, "n", 0),
			       jget_int(h, "jobs", 0), jget_int(h, "job", 0));
		if (json_object_get(h, "phase"))
			printf(", %s %lld/%lld s", jget_str(h, "phase", "?"),
			       jget_int(h, "second", 0), jget_int(h, "of", 0));
		if (jget_int(h, "added", 0))
			printf(", %lld repetition%s added (latest: %s)",
			       jget_int(h, "added", 0), plural(jget_int(h, "added", 0)),
			       jget_str(h, "added_why", "?"));
		rates = json_object_get(h, "rates");
		json_object_foreach((json_t *)rates, port, v)
			printf(", %s %.0f pps", port, json_number_value(v));
		if (!json_is_true(json_object_get(h, "connected")))
			printf(" (not connected)");
		printf("\n");
	}
}

static int do_watch(int argc, char **argv)
{
	json_t *w = NULL, *out;
	const char *state;
	char *text = NULL, *last = NULL;
	long long id;
	int first, ret;

	ret = cli_parse_opts(argc, argv, "run watch", "", NULL, NULL, NULL, &first);
	if (ret)
		return ret;
	if (first >= argc)
		return cli_usage_error("run watch", "missing run ID");
	if (first + 1 < argc)
		return cli_usage_error("run watch", "unexpected argument '%s'", argv[first + 1]);
	ret = cli_parse_run_id(argv[first], "run watch", &id);
	if (ret)
		return ret;
	for (;;) {
		ret = run_request("run_watch", "watch", "run watch", id, &w);
		if (ret)
			break;
		out = json_pack("{s:O, s:O}", "run", json_object_get(w, "run"), "hosts",
				json_object_get(w, "hosts"));
		text = out ? json_dumps(out, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
		json_decref(out);
		if (!text) {
			ret = cli_error("out of memory");
			break;
		}
		if (!last || strcmp(text, last)) {	/* print what changed */
			if (cli.json)
				printf("%s\n", text);
			else
				print_watch(w);
			fflush(stdout);
		}
		free(last);
		last = text;
		text = NULL;
		state = jget_str(json_object_get(w, "run"), "state", "");
		if (!strcmp(state, "done") || !strcmp(state, "failed") ||
		    !strcmp(state, "cancelled"))
			break;
		json_decref(w);
		w = NULL;
		sleep(1);
	}
	json_decref(w);
	free(last);
	return ret;
}

static int do_list(int argc, char **argv)
{
	static const char *const head[] = { ">id", "plan", "state", ">jobs", ">failed",
					    "submitted" };
	struct tt_table t = { 0 };
	json_t *runs = NULL, *r;
	int first, ret;
	size_t i;

	ret = cli_parse_opts(argc, argv, "run list", "", NULL, NULL, NULL, &first);
	if (ret)
		return ret;
	if (first < argc)
		return cli_usage_error("run list", "unexpected argument '%s'", argv[first]);
	ret = cli_query("run_list", 0, &runs);
	if (ret)
		return ret;
	if (cli.json) {
		ret = cli_print_json(runs);
		goto out;
	}
	if (!json_array_size(runs)) {
		printf("no runs\n");
		goto out;
	}
	if (tt_table_init(&t, 6, head)) {
		ret = cli_error("out of memory");
		goto out;
	}
	json_array_foreach(runs, i, r) {
		char id[32], jobs[64], failed[32], when[32];
		const char *cells[6] = { id, jget_str(r, "plan", NULL),
					 jget_str(r, "state", NULL), jobs, failed,
					 cli_time(jget_int(r, "submitted_ms", 0), when,
						  sizeof(when)) };

		snprintf(id, sizeof(id), "%lld", jget_int(r, "id", 0));
		snprintf(jobs, sizeof(jobs), "%lld/%lld", jget_int(r, "jobs_done", 0),
			 jget_int(r, "jobs_total", 0));
		snprintf(failed, sizeof(failed), "%lld", jget_int(r, "jobs_failed", 0));
		if (tt_table_add(&t, cells)) {
			ret = cli_error("out of memory");
			goto out;
		}
	}
	tt_table_print(&t, stdout);
out:
	tt_table_release(&t);
	json_decref(runs);
	return ret;
}

/* The first line of an error message, for a table cell. */
static void first_line(const char *s, char *out, size_t len)
{
	snprintf(out, len, "%.*s", (int)strcspn(s ? s : "", "\n"), s ? s : "");
}

static void print_run_header(const json_t *run)
{
	const char *sha = jget_str(run, "plan_sha256", NULL);
	const json_t *ov = json_object_get(run, "overrides"), *v;
	char a[32], b[32];
	size_t i;

	printf("run %lld  %s", jget_int(run, "id", 0), jget_str(run, "plan", "-"));
	if (sha)
		printf("  plan %.12s", sha);
	printf("  %s\n", jget_str(run, "state", "-"));
	printf("submitted %s  finished %s\n",
	       cli_time(jget_int(run, "submitted_ms", 0), a, sizeof(a)),
	       cli_time(jget_int(run, "finished_ms", 0), b, sizeof(b)));
	if (json_array_size(ov)) {
		printf("overrides");
		json_array_foreach(ov, i, v)
			printf(" %s", json_string_value(v) ? json_string_value(v) : "?");
		printf("\n");
	}
	printf("jobs %lld: %lld done, %lld failed\n", jget_int(run, "jobs_total", 0),
	       jget_int(run, "jobs_done", 0), jget_int(run, "jobs_failed", 0));
}

/* The repetitions the controller added (docs/plans.md "repeat"), each with why. */
static void print_added(const json_t *run)
{
	bool first = true;
	json_t *j;
	size_t i;

	json_array_foreach(json_object_get(run, "jobs"), i, j) {
		if (!json_object_get(j, "added"))
			continue;
		if (first)
			printf("\nrepetitions added (not settled after the round before):\n");
		first = false;
		printf("  job %lld  %s %s rep %lld: %s\n", jget_int(j, "id", 0),
		       jget_str(j, "host", "?"), jget_str(j, "variant", "?"),
		       jget_int(j, "rep", 0), jget_str(j, "added", "?"));
	}
}

/* The attempts of run ID (store_query_attempts rows) into *OUT: from the coordinator's
 * `run_attempts`, or from the database with --db. 0 or the CLI's exit code. */
static int show_attempts(long long id, json_t **out)
{
	struct store *store;
	json_t *reply = NULL;
	struct err err;
	int ret;

	*out = NULL;
	if (!cli.db) {
		ret = run_request("run_attempts", "attempts", "run show", id, &reply);
		if (ret)
			return ret;
		*out = json_incref(json_object_get(reply, "attempts"));
		json_decref(reply);
		return 0;
	}
	store = store_open(cli.db, true, &err);
	if (!store)
		return cli_error("cannot open database '%s': %s", cli.db,
				 *err.msg ? err.msg : strerror(errno));
	*out = store_query_attempts(store, id);
	ret = *out ? 0 : cli_error("cannot query database '%s': %s", cli.db,
				   store_err(store)->msg);
	store_close(&store);
	return ret;
}

/* The attempts table of `run show`: one row per attempt of each job. */
static int print_attempts(const json_t *attempts)
{
	static const char *const head[] = { ">job", ">attempt", "host", "outcome", "started",
					    "ended", "error" };
	struct tt_table t = { 0 };
	const json_t *a;
	size_t i;
	int ret = 0;

	if (!json_array_size(attempts))
		return 0;
	if (tt_table_init(&t, 7, head))
		return cli_error("out of memory");
	json_array_foreach(attempts, i, a) {
		char job[32], att[32], started[32], ended[32], err[256];
		const char *outcome = jget_str(a, "outcome", NULL);
		const char *cells[7] = {
			job, att, jget_str(a, "host", NULL), outcome ? outcome : "running",
			cli_time(jget_int(a, "started_ms", 0), started, sizeof(started)),
			cli_time(jget_int(a, "ended_ms", 0), ended, sizeof(ended)), err,
		};

		snprintf(job, sizeof(job), "%lld", jget_int(a, "job", 0));
		snprintf(att, sizeof(att), "%lld", jget_int(a, "attempt", 0));
		first_line(jget_str(a, "error", NULL), err, sizeof(err));
		if (!*err)
			cells[6] = NULL;
		if (tt_table_add(&t, cells)) {
			ret = cli_error("out of memory");
			goto out;
		}
	}
	printf("\nattempts\n");
	tt_table_print(&t, stdout);
out:
	tt_table_release(&t);
	return ret;
}

static int do_show(int argc, char **argv)
{
	static const char *const head[] = { ">job", "host", ">seq", "variant", ">rep", "point",
					    "state", ">attempts", "error" };
	struct tt_table t = { 0 };
	json_t *run = NULL, *attempts = NULL, *j;
	long long id;
	int first, ret;
	size_t i;

	ret = cli_parse_opts(argc, argv, "run show", "", NULL, NULL, NULL, &first);
	if (ret)
		return ret;
	if (first >= argc)
		return cli_usage_error("run show", "missing run ID");
	if (first + 1 < argc)
		return cli_usage_error("run show", "unexpected argument '%s'", argv[first + 1]);
	ret = cli_parse_run_id(argv[first], "run show", &id);
	if (ret)
		return ret;
	ret = cli_query("run_show", id, &run);
	if (ret)
		return ret;
	ret = show_attempts(id, &attempts);
	if (ret)
		goto out;
	if (cli.json) {
		if (json_object_set_new(run, "attempts",
					attempts ? json_incref(attempts) : json_array()))
			ret = cli_error("out of memory");
		else
			ret = cli_print_json(run);
		goto out;
	}
	print_run_header(run);
	if (!json_array_size(json_object_get(run, "jobs")))
		goto out;
	if (tt_table_init(&t, 9, head)) {
		ret = cli_error("out of memory");
		goto out;
	}
	json_array_foreach(json_object_get(run, "jobs"), i, j) {
		char job[32], seq[32], rep[32], att[32], point[512], err[256];
		const char *cells[9] = {
			job, jget_str(j, "host", NULL), seq, jget_str(j, "variant", NULL),
			rep, cli_point_text(json_object_get(j, "point"), point, sizeof(point)),
			jget_str(j, "state", NULL), att, err,
		};

		snprintf(job, sizeof(job), "%lld", jget_int(j, "id", 0));
		snprintf(seq, sizeof(seq), "%lld", jget_int(j, "seq", 0));
		snprintf(rep, sizeof(rep), "%lld", jget_int(j, "rep", 0));
		snprintf(att, sizeof(att), "%lld", jget_int(j, "attempts", 0));
		first_line(jget_str(j, "error", NULL), err, sizeof(err));
		if (!*err)
			cells[8] = NULL;
		if (tt_table_add(&t, cells)) {
			ret = cli_error("out of memory");
			goto out;
		}
	}
	printf("\n");
	tt_table_print(&t, stdout);
	print_added(run);
	ret = print_attempts(attempts);
out:
	tt_table_release(&t);
	json_decref(attempts);
	json_decref(run);
	return ret;
}

static const struct cli_cmd run_cmds[] = {
	{ "submit", do_submit, "FILE [-s KEY=VALUE]... [--hosts NAME[,NAME]...] [--wait]",
	  "Validate FILE as 'plan check' does (a bad plan: its message and exit 2,\n"
	  "nothing sent), then submit it with its overrides and the BPF objects it names.\n"
	  "Prints \"run N submitted: J jobs on H hosts (h1, h2)\" ({run, jobs, hosts}\n"
	  "with -j). A host switching its kernel (host boot) counts as the kernel it\n"
	  "switches to: a plan for that kernel waits for it. When its hosts have a\n"
	  "noise floor (host calibrate), also the repetitions per variant the plan\n"
	  "needs to see its min_effect (-j: \"noise\"). Not with --db.\n"
	  "\n"
	  "  -s, --set KEY=VALUE   override a plan value, e.g. -s traffic.packet.size=1500\n"
	  "  --hosts NAME,...      run on exactly these connected hosts (every job on\n"
	  "                        each), instead of the plan's hosts.match and count;\n"
	  "                        a host switching its kernel is refused (a plan with\n"
	  "                        a link: --hosts GENERATOR,DUT)\n"
	  "  --wait                follow the run until it ends, with progress on stderr;\n"
	  "                        exit 0 when every job is done, 1 when one failed or\n"
	  "                        the run was cancelled (-j: the last run as \"final\")\n" },
	{ "list", do_list, "",
	  "List the runs: id, plan, state, jobs done/total, failed jobs, submit time.\n"
	  "'bpflab run' means the same. With -j, the array of run objects.\n" },
	{ "show", do_show, "ID",
	  "Show run ID: plan, state, times, overrides, and each job's host, variant,\n"
	  "repetition, matrix point, state, attempts and error; then each attempt of\n"
	  "each job: host, outcome (running, done, failed, lost, unsent, cancelled),\n"
	  "start and end, error. -j adds them as \"attempts\" to the run object.\n" },
	{ "cancel", do_cancel, "ID",
	  "Cancel run ID: its queued jobs fail as 'cancelled', its running jobs are told\n"
	  "to stop and send what they measured (kept, marked partial); the run ends\n"
	  "'cancelled'. A run that has ended is refused. With -j: {run, running}.\n" },
	{ "watch", do_watch, "ID",
	  "Follow run ID live, once a second, until it ends: per host the jobs finished,\n"
	  "the running job (n of m), its phase and second, and the rates its agent\n"
	  "reports. With -j, one JSON object {run, hosts} per update, one per line.\n" },
	{ NULL, NULL, NULL, NULL },
};

const struct cli_object cli_run_object = {
	.name = "run",
	.cmds = run_cmds,
	.default_cmd = "list",
	.help = "       FILE := a YAML plan (docs/plans.md)\n"
		"       ID := a run id, as 'run submit' and 'run list' print it\n",
};

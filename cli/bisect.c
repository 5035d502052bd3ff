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
 */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bisect.h"
#include "kernel_list.h"
#include "proto.h"
#include "store.h"
#include "store_bisect.h"
#include "texttable.h"
#include "util.h"

enum { EXIT_SKIP = 125 };

/* Where the human-readable lines go: stdout, or stderr with -j, where stdout carries
 * only the JSON the command ends with. */
static FILE *text_out(void)
{
	return cli.json ? stderr : stdout;
}

enum {
	OPT_PLAN = CLI_OPT_FIRST_LOCAL, OPT_METRIC, OPT_GOOD, OPT_BAD, OPT_VARIANT,
	OPT_SUBJECT, OPT_KERNELS, OPT_REPS, OPT_THRESHOLD, OPT_BASELINE, OPT_KERNEL,
	OPT_DIRECTION, OPT_PROVIDER, OPT_HOST, OPT_TIMING, OPT_SKIP, OPT_MAX_REPS,
	OPT_REBASELINE, OPT_NO_REBASELINE,
};

/* How long a step waits for its run, at most. */
#define BISECT_RUN_WAIT_S 3600
/* How long a step waits for a host with the kernel after the provider returned. */
#define BISECT_HOST_WAIT_S 60

struct bopts {
	const char *plan, *metric, *good, *bad, *variant, *subject, *kernels, *kernel;
	const char *provider, *host, *timing;
	json_t *overrides;		/* -s KEY=VALUE, as given */
	double threshold;		/* fraction; 0: default */
	long long baseline;
	unsigned int reps, max_reps;	/* 0: default */
	int rebaseline;			/* run: 1 --rebaseline, -1 --no-rebaseline, 0 auto */
	enum compare_direction dir;
	bool skip;			/* step --skip */
};

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

static const struct option run_longopts[] = {
	{ "plan", required_argument, NULL, OPT_PLAN },
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "threshold", required_argument, NULL, OPT_THRESHOLD },
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "host", required_argument, NULL, OPT_HOST },
	{ "reps", required_argument, NULL, OPT_REPS },
	{ "max-reps", required_argument, NULL, OPT_MAX_REPS },
	{ "rebaseline", no_argument, NULL, OPT_REBASELINE },
	{ "no-rebaseline", no_argument, NULL, OPT_NO_REBASELINE },
	{ "variant", required_argument, NULL, OPT_VARIANT },
	{ "subject", required_argument, NULL, OPT_SUBJECT },
	{ "direction", required_argument, NULL, OPT_DIRECTION },
	{ "set", required_argument, NULL, 's' },
	{ NULL, 0, NULL, 0 },
};

/* Parse the options of command PATH, LONGOPTS (NULL: none; -s goes with "set" in it)
 * into O; no positional argument is taken. Returns 0 or the exit status of a usage
 * error. */
static int parse(int argc, char **argv, const char *path, const struct option *longopts,
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

/* The coordinator's answer to request TYPE ("host_list", "run_show" with RUN, "query"
 * with FILTER): the reply's MEMBER (new reference), or NULL after printing the error.
 * Always the coordinator, also with --db. */
static json_t *coord_ask(const char *type, long long run, const json_t *filter,
			 const char *want, const char *member)
{
	json_t *req = proto_msg_new(type), *reply = NULL, *out = NULL;

	if (!req || (run && json_object_set_new(req, "run", json_integer(run))) ||
	    (filter && json_object_set(req, "filter", (json_t *)filter))) {
		cli_error("out of memory");
		goto out;
	}
	if (cli_request(req, want, &reply))
		goto out;
	out = json_incref(json_object_get(reply, member));
	if (!out)
		cli_error("malformed '%s' reply from coordinator at '%s': no '%s'", want,
			  cli.coordinator, member);
out:
	json_decref(req);
	json_decref(reply);
	return out;
}

/* --- where the session lives: the coordinator, or the database file (--db) --- */

/* A session backend. Each function prints its error and returns NULL, else a new
 * reference: the session (store_bisect_get's object, steps included) as it is after the
 * call, or the value rows of store_query_values. The coordinator answers with the same
 * lib/store_bisect.c and lib/store.c functions on its own database (coordinator/
 * bisect_req.c), so both print the same. */
struct session_be;

struct session_ops {
	/* the active session, else the latest */
	json_t *(*get)(struct session_be *be);
	/* start SES: {"plan", "metric", "variant"?, "subject"?, "kernels", "good", "bad",
	 * "opts"} (store_bisect_start) */
	json_t *(*start)(struct session_be *be, const json_t *ses);
	/* append STEP to session ID as step SEQ; with END {"state", "result"} end it too */
	json_t *(*add_step)(struct session_be *be, int64_t id, int64_t seq, const json_t *step,
			    const json_t *end);
	/* end session ID, whose result END was computed from STEPS steps */
	json_t *(*finish)(struct session_be *be, int64_t id, int64_t steps, const json_t *end);
	/* reset the active session */
	json_t *(*reset)(struct session_be *be);
	/* value rows for FILTER (store_query_values) */
	json_t *(*values)(struct session_be *be, const json_t *filter);
};

struct session_be {
	const struct session_ops *ops;
	struct store *st;		/* --db FILE: the database; NULL: the coordinator */
};

/* The session ID of the database, or NULL after printing the error. */
static json_t *db_session(struct session_be *be, int64_t id)
{
	json_t *ses = store_bisect_get(be->st, id);

	if (!ses)
		cli_error("%s", store_bisect_errmsg());
	return ses;
}

static json_t *db_get(struct session_be *be)
{
	return db_session(be, 0);
}

static json_t *db_start(struct session_be *be, const json_t *ses)
{
	int64_t id;

	if (store_bisect_start(be->st, ses, util_wall_ms(), &id)) {
		cli_error("%s", store_bisect_errmsg());
		return NULL;
	}
	return db_session(be, id);
}

static json_t *db_add_step(struct session_be *be, int64_t id, int64_t seq,
			   const json_t *step, const json_t *end)
{
	if (store_bisect_add_step(be->st, id, seq, step,
				  end ? proto_get_str(end, "state", "") : NULL,
				  json_object_get(end, "result"), util_wall_ms())) {
		cli_error("%s", store_bisect_errmsg());
		return NULL;
	}
	return db_session(be, id);
}

static json_t *db_finish(struct session_be *be, int64_t id, int64_t steps,
			 const json_t *end)
{
	if (store_bisect_end(be->st, id, steps, proto_get_str(end, "state", ""),
			     json_object_get(end, "result"), util_wall_ms())) {
		cli_error("%s", store_bisect_errmsg());
		return NULL;
	}
	return db_session(be, id);
}

static json_t *db_reset(struct session_be *be)
{
	int64_t id;

	if (store_bisect_reset(be->st, 0, util_wall_ms(), &id)) {
		cli_error("%s", store_bisect_errmsg());
		return NULL;
	}
	return db_session(be, id);
}

static json_t *db_values(struct session_be *be, const json_t *filter)
{
	json_t *rows = store_query_values(be->st, filter);

	if (!rows)
		cli_error("%s", store_errmsg(be->st));
	return rows;
}

static const struct session_ops db_ops = {
	.get = db_get, .start = db_start, .add_step = db_add_step, .finish = db_finish,
	.reset = db_reset, .values = db_values,
};

/* Free REQ (a request that could not be filled): NULL. */
static json_t *drop(json_t *req)
{
	json_decref(req);
	return NULL;
}

/* Send REQ (stolen; NULL: out of memory) and return the session of the `bisect` reply. */
static json_t *coord_session(json_t *req)
{
	json_t *reply = NULL, *ses = NULL;

	if (!req) {
		cli_error("out of memory");
		return NULL;
	}
	if (!cli_request(req, "bisect", &reply)) {
		ses = json_incref(json_object_get(reply, "session"));
		if (!ses)
			cli_error("malformed 'bisect' reply from coordinator at '%s': no "
				  "'session'", cli.coordinator);
	}
	json_decref(req);
	json_decref(reply);
	return ses;
}

static json_t *coord_get(struct session_be *be)
{
	return coord_session(proto_msg_new("bisect_get"));
}

static json_t *coord_start(struct session_be *be, const json_t *ses)
{
	json_t *req = proto_msg_new("bisect_start");

	if (req && json_object_set(req, "session", (json_t *)ses))
		req = drop(req);
	return coord_session(req);
}

static json_t *coord_add_step(struct session_be *be, int64_t id, int64_t seq,
			      const json_t *step, const json_t *end)
{
	json_t *req = proto_msg_new("bisect_add_step");

	if (req && (json_object_set_new(req, "id", json_integer(id)) ||
		    json_object_set_new(req, "seq", json_integer(seq)) ||
		    json_object_set(req, "step", (json_t *)step) ||
		    (end && json_object_set(req, "end", (json_t *)end))))
		req = drop(req);
	return coord_session(req);
}

static json_t *coord_finish(struct session_be *be, int64_t id, int64_t steps,
			    const json_t *end)
{
	json_t *req = proto_msg_new("bisect_finish");

	if (req && (json_object_set_new(req, "id", json_integer(id)) ||
		    json_object_set_new(req, "steps", json_integer(steps)) ||
		    json_object_set(req, "end", (json_t *)end)))
		req = drop(req);
	return coord_session(req);
}

static json_t *coord_reset(struct session_be *be)
{
	return coord_session(proto_msg_new("bisect_reset"));
}

static json_t *coord_values(struct session_be *be, const json_t *filter)
{
	return coord_ask("query", 0, filter, "values", "values");
}

static const struct session_ops coord_ops = {
	.get = coord_get, .start = coord_start, .add_step = coord_add_step,
	.finish = coord_finish, .reset = coord_reset, .values = coord_values,
};

/* The backend: the database file with --db FILE (opened READONLY or not), else the
 * coordinator. Returns 0 or an exit status after the error. */
static int be_open(struct session_be *be, bool readonly)
{
	char err[512] = "";

	*be = (struct session_be){ .ops = &coord_ops };
	if (!cli.db)
		return 0;
	be->st = store_open(cli.db, readonly, err, sizeof(err));
	if (!be->st)
		return cli_error("%s", *err ? err : strerror(errno));
	be->ops = &db_ops;
	return 0;
}

static void be_close(struct session_be *be)
{
	store_close(&be->st);
}

/* The timing mode of a value row: "wall" when the host did not say. */
static const char *row_timing(const json_t *r)
{
	return proto_get_str(r, "timing", "wall");
}

/* Which whole-window values values_get takes. */
struct vsel {
	const char *plan;		/* by name; ignored with RUNS */
	const char *metric, *variant, *subject;	/* VARIANT, SUBJECT: NULL any */
	const char *kernel;		/* kernel.release; NULL: any */
	const char *timing;		/* timing mode; NULL: any (one per call: the first
					 * row's decides) */
	const json_t *runs;		/* only these run ids; NULL: any run */
	long long skip_run;		/* never this run (0: none) */
	const json_t *used;		/* nor these run ids (may be NULL) */
	bool one_run;			/* only the first matching run */
};

/* Values values_get took, and what their first row says. */
struct vals {
	double *v;
	size_t n;
	json_t *runs;			/* run ids taken, in order */
	char unit[32], timing[16], host[128], kernel[128];
};

static void vals_release(struct vals *x)
{
	free(x->v);
	json_decref(x->runs);
	*x = (struct vals){ 0 };
}

/* The values Q selects into *OUT (released first), from BE. A sample is one variant and
 * one subject: when Q leaves either open and the values have several, nothing is taken
 * and -EDOM is returned after the error (bisect_sample_check). Returns 0, or -errno
 * after the error was printed. */
static int values_get(struct session_be *be, const struct vsel *q, struct vals *out)
{
	json_t *filter = json_pack("{s:s}", "metric", q->metric), *rows = NULL, *r, *u;
	const char **names = NULL;
	char why[512];
	size_t i, k, n_rows;
	int ret = -ENOMEM;

	vals_release(out);
	out->runs = json_array();
	if (!filter || !out->runs)
		goto oom;
	if (q->plan && !q->runs)
		json_object_set_new(filter, "plan", json_string(q->plan));
	if (q->variant)
		json_object_set_new(filter, "variant", json_string(q->variant));
	if (q->subject)
		json_object_set_new(filter, "subject", json_string(q->subject));
	if (q->runs)
		json_object_set(filter, "runs", (json_t *)q->runs);
	rows = be->ops->values(be, filter);
	if (!rows) {
		ret = -EIO;
		goto out;
	}
	n_rows = json_array_size(rows);
	out->v = calloc(n_rows + 1, sizeof(*out->v));
	names = calloc(2 * n_rows + 1, sizeof(*names));	/* variants, then subjects */
	if (!out->v || !names)
		goto oom;
	json_array_foreach(rows, i, r) {
		const char *kr = proto_get_str(r, "kernel_release", NULL);
		long long rid = proto_get_int(r, "run", 0);
		bool seen = false;

		if (q->kernel && (!kr || strcmp(kr, q->kernel)))
			continue;
		if (q->timing && strcmp(row_timing(r), q->timing))
			continue;
		if (rid == q->skip_run)
			continue;
		json_array_foreach(q->used, k, u)
			seen |= json_integer_value(u) == rid;
		if (seen)
			continue;
		/* a session step takes one run at a time: the next one is for the next round */
		if (q->one_run && json_array_size(out->runs) &&
		    json_integer_value(json_array_get(out->runs, 0)) != rid)
			continue;
		/* one timing mode per call: the first row's decides */
		if (*out->timing && strcmp(out->timing, row_timing(r)))
			continue;
		if (!out->n) {
			snprintf(out->timing, sizeof(out->timing), "%s", row_timing(r));
			snprintf(out->unit, sizeof(out->unit), "%s", proto_get_str(r, "unit", ""));
			snprintf(out->host, sizeof(out->host), "%s", proto_get_str(r, "host", ""));
			snprintf(out->kernel, sizeof(out->kernel), "%s", kr ? kr : "");
		}
		names[out->n] = proto_get_str(r, "variant", NULL);
		names[n_rows + out->n] = proto_get_str(r, "subject", NULL);
		out->v[out->n++] = json_number_value(json_object_get(r, "value"));
		seen = false;
		json_array_foreach(out->runs, k, u)
			seen |= json_integer_value(u) == rid;
		if (!seen && json_array_append_new(out->runs, json_integer(rid)))
			goto oom;
	}
	/* never pool several variants or subjects into one sample */
	memmove(names + out->n, names + n_rows, out->n * sizeof(*names));
	if (bisect_sample_check(q->variant ? NULL : names, q->subject ? NULL : names + out->n,
				out->n, why, sizeof(why))) {
		char what[160];

		if (q->runs)
			snprintf(what, sizeof(what), "run %lld%s", (long long)json_integer_value(
				 json_array_get(q->runs, 0)), json_array_size(q->runs) > 1 ?
				 " and others" : "");
		else
			snprintf(what, sizeof(what), "plan '%s'", q->plan ? q->plan : "?");
		cli_error("metric '%s' of %s: %s", q->metric, what, why);
		out->n = 0;
		ret = -EDOM;
		goto out;
	}
	ret = 0;
	goto out;
oom:
	cli_error("out of memory");
	ret = -ENOMEM;
out:
	free(names);
	json_decref(rows);
	json_decref(filter);
	return ret;
}

/* --- measuring through the coordinator --- */

/* A connected (idle or busy) host named NAME (NULL: any) whose kernel.release is KERNEL
 * (NULL: any): its name into NAME_OUT and its kernel into KERNEL_OUT (each may be NULL).
 * Returns 0, -ENOENT if there is none, -EIO after printing the error. */
static int host_find(const char *name, const char *kernel, char *name_out, size_t name_len,
		     char *kernel_out, size_t kernel_len)
{
	json_t *hosts = coord_ask("host_list", 0, NULL, "hosts", "hosts"), *h;
	size_t i;
	int ret = -ENOENT;

	if (!hosts)
		return -EIO;
	json_array_foreach(hosts, i, h) {
		const char *state = proto_get_str(h, "state", "");

		if (strcmp(state, "idle") && strcmp(state, "busy"))
			continue;
		if ((name && strcmp(proto_get_str(h, "name", ""), name)) ||
		    (kernel && strcmp(proto_get_str(h, "kernel_release", ""), kernel)))
			continue;
		if (name_out)
			snprintf(name_out, name_len, "%s", proto_get_str(h, "name", ""));
		if (kernel_out)
			snprintf(kernel_out, kernel_len, "%s",
				 proto_get_str(h, "kernel_release", ""));
		ret = 0;
		break;
	}
	json_decref(hosts);
	return ret;
}

/* The name of a connected host whose kernel.release is KERNEL, into OUT (host_find). */
static int host_running(const char *kernel, char *out, size_t len)
{
	return host_find(NULL, kernel, out, len, NULL, 0);
}

/* Run the kernel provider PROVIDER (a shell command line from the user: an option or
 * the environment, never from a plan) with KERNEL as its last argument, its output on
 * our stderr. Returns 0 when it exited 0. */
static int provide(const char *provider, const char *kernel)
{
	char *script = NULL;
	int status, ret = -1;
	pid_t pid;

	if (asprintf(&script, "%s \"$1\"", provider) < 0)
		return -ENOMEM;
	fprintf(stderr, "bisect: asking the kernel provider for '%s': %s '%s'\n", kernel,
		provider, kernel);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(STDERR_FILENO, STDOUT_FILENO);
		execl("/bin/sh", "sh", "-c", script, "sh", kernel, (char *)NULL);
		_exit(127);
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid)
		ret = WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -ECHILD;
	free(script);
	return ret;
}

/* The hosts handed out in one step (a confirmation measures two kernels): each must
 * keep its kernel for the step, so none is switched to another. Owned by the step,
 * zeroed before its first host_with_kernel. */
struct step_hosts {
	char name[2][128];
	const char *skip[2];		/* name[i], for cli_host_offering */
	int n;
};

/* A connected host running KERNEL, into OUT: one that is there, or else a connected
 * idle host whose agent's kernel provider offers KERNEL, switched to it (host boot,
 * waiting up to 300 s; never one of the step's HANDED hosts), or else one the provider
 * PROVIDER (NULL: none) brings up. The host found is added to HANDED. -ENOENT when
 * there is none (the kernel is to be skipped).
 * The provider is told about a kernel that a host already runs too (it must then do
 * nothing but exit 0), so that it knows which hosts are in use: the lab's guest-up
 * stops the least recently used guests first. */
static int host_with_kernel(const char *provider, const char *kernel,
			    struct step_hosts *handed, char *out, size_t len)
{
	const int boot_wait_s = 300;	/* for a host that switches itself (host boot) */
	int err = host_running(kernel, out, len), i;

	if (!err && provider && *provider && provide(provider, kernel))
		fprintf(stderr, "bisect: the kernel provider failed for '%s', which host '%s' "
			"runs already; using that host\n", kernel, out);
	if (!err)
		goto found;
	if (err != -ENOENT)
		return err;
	/* a host of the lab that can switch itself (docs/agent.md, "Kernel provider") */
	err = cli_host_offering(kernel, handed->skip, handed->n, out, len);
	if (err == -EIO)
		return err;
	if (!err) {
		fprintf(stderr, "bisect: switching host '%s' to '%s' (its agent's kernel "
			"provider)\n", out, kernel);
		if (!cli_host_boot(out, kernel, boot_wait_s, NULL, 0))
			goto found;
		fprintf(stderr, "bisect: host '%s' did not switch to '%s'%s\n", out, kernel,
			provider && *provider ? "; trying the kernel provider" : "");
	}
	if (!provider || !*provider) {
		fprintf(stderr, "bisect: no connected host runs '%s', no idle host's provider "
			"offers it and no kernel provider is set (--provider or "
			"BPFLAB_KERNEL_PROVIDER)\n", kernel);
		return -ENOENT;
	}
	if (provide(provider, kernel)) {
		fprintf(stderr, "bisect: the kernel provider could not bring up '%s'\n", kernel);
		return -ENOENT;
	}
	for (i = 0; i < BISECT_HOST_WAIT_S * 5; i++) {
		err = host_running(kernel, out, len);
		if (!err)
			goto found;
		if (err != -ENOENT)
			return err;
		usleep(200 * 1000);
	}
	fprintf(stderr, "bisect: the provider returned but no host with '%s' connected within "
		"%d s\n", kernel, BISECT_HOST_WAIT_S);
	return -ENOENT;
found:
	if (handed->n < (int)ARRAY_SIZE(handed->name)) {
		snprintf(handed->name[handed->n], sizeof(handed->name[0]), "%s", out);
		handed->skip[handed->n] = handed->name[handed->n];
		handed->n++;
	}
	return 0;
}

/* Submit plan FILE with OVERRIDES (may be NULL) and repeat=REPS on exactly HOSTS, wait
 * for the run (at most BISECT_RUN_WAIT_S) and put its id in *RUN. A run that ends with
 * failed jobs still returns 0 (its done jobs count). Returns 0 or an exit status after
 * the error. */
static int submit_wait(const char *file, const json_t *overrides, unsigned int reps,
		       const json_t *hosts, long long *run)
{
	struct cli_plan cp = { 0 };
	json_t *msg = NULL, *reply = NULL, *r = NULL;
	char rep[32];
	long long t0 = util_wall_ms();
	int ret;

	*run = 0;
	cp.overrides = overrides ? json_deep_copy(overrides) : json_array();
	snprintf(rep, sizeof(rep), "repeat=%u", reps);
	if (!cp.overrides || json_array_append_new(cp.overrides, json_string(rep))) {
		ret = cli_error("out of memory");
		goto out;
	}
	ret = cli_plan_prepare(file, &cp);
	if (ret)
		goto out;
	msg = cli_submit_msg(file, &cp, hosts);
	if (!msg) {
		ret = cli_error("out of memory");
		goto out;
	}
	ret = cli_request(msg, "submitted", &reply);
	if (ret)
		goto out;
	*run = proto_get_int(reply, "run", 0);
	fprintf(stderr, "bisect: run %lld submitted: %lld jobs on %s\n", *run,
		proto_get_int(reply, "jobs", 0), json_string_value(json_array_get(hosts, 0)));
	for (;;) {
		const char *state;

		json_decref(r);
		r = coord_ask("run_show", *run, NULL, "run", "run");
		if (!r) {
			ret = CLI_EXIT_FAIL;
			goto out;
		}
		state = proto_get_str(r, "state", "");
		if (!strcmp(state, "done") || !strcmp(state, "failed") ||
		    !strcmp(state, "cancelled"))
			break;
		if (util_wall_ms() - t0 > BISECT_RUN_WAIT_S * 1000LL) {
			ret = cli_error("run %lld did not end within %d s", *run,
					BISECT_RUN_WAIT_S);
			goto out;
		}
		usleep(200 * 1000);	/* runs of a few jobs end in seconds */
	}
	fprintf(stderr, "bisect: run %lld %s in %.1f s: %lld/%lld jobs done, %lld failed\n",
		*run, proto_get_str(r, "state", "?"), (util_wall_ms() - t0) / 1000.0,
		proto_get_int(r, "jobs_done", 0), proto_get_int(r, "jobs_total", 0),
		proto_get_int(r, "jobs_failed", 0));
out:
	json_decref(r);
	json_decref(reply);
	json_decref(msg);
	cli_plan_release(&cp);
	return ret;
}

/* --- bisect run --- */

/* Whether FILE names a readable plan file (rather than a plan name). */
static bool is_plan_file(const char *file)
{
	return file && access(file, R_OK) == 0;
}

/* The kernel.release of connected host NAME into OUT (host_find). */
static int host_kernel(const char *name, char *out, size_t len)
{
	return host_find(name, NULL, NULL, 0, out, len);
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
	err = submit_wait(j->o->plan, overrides, reps, hosts, &run);
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

	failed = json_array_size(j->runs) == 1 && !values_get(j->be, &q, &x) && !x.n;
	vals_release(&x);
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
	json_t *run = coord_ask("run_show", j->o->baseline, NULL, "run", "run"), *ov;
	size_t i;
	int ret = -EIO;

	if (!run)
		return -EIO;
	cp.overrides = json_array();
	if (!cp.overrides || cli_plan_prepare(j->o->plan, &cp))
		goto out;
	ret = -ESRCH;
	if (strcmp(proto_get_str(run, "plan_sha256", ""), cp.plan->sha256))
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
		err = values_get(j->be, &q, &j->base);
	}
	if (!err && (cli.db || json_array_size(j->runs))) {
		q.runs = cli.db ? NULL : j->runs;
		q.plan = o->plan;
		q.kernel = cli.db ? o->kernel : NULL;
		q.skip_run = o->baseline;
		q.timing = cli.db && *j->base.timing ? j->base.timing : NULL;
		err = values_get(j->be, &q, &j->cur);
	}
	json_decref(one);
	if (err)
		return err == -EDOM ? BISECT_OUT_USAGE : BISECT_OUT_FAILED;
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
		if (!is_plan_file(o->plan)) {
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
		vals_release(&j->base);
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

static int do_run(int argc, char **argv)
{
	struct bopts o = { 0 };
	struct session_be be = { 0 };
	struct judge j = { .o = &o, .be = &be };
	struct utsname uts;
	char host[128] = "";
	enum bisect_outcome out = BISECT_OUT_USAGE;
	int err;

	if (parse(argc, argv, "bisect run", run_longopts, &o))
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
	if (!j.runs || !j.base_runs || be_open(&be, true))
		goto out;
	if (!cli.db && o.host) {
		snprintf(host, sizeof(host), "%s", o.host);
	} else if (!cli.db) {
		err = host_running(o.kernel, host, sizeof(host));
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
	vals_release(&j.cur);
	vals_release(&j.base);
	json_decref(j.runs);
	json_decref(j.base_runs);
	json_decref(j.base_overrides);
	json_decref(o.overrides);
	be_close(&be);
	return bisect_run_exit(out);
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
static int load(struct session_be *be, json_t **ses, struct bisect **b, bool readonly)
{
	int ret = be_open(be, readonly);

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

	ret = parse(argc, argv, "bisect start", start_longopts, &o);
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
	if (is_plan_file(o.plan)) {
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
	ret = be_open(&be, false);
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
	err = values_get(&be, &q, &x);
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
	fprintf(text_out(), "bisect session %lld: %d kernels from good '%s' to bad '%s', %s "
		"of '%s'%s\n", proto_get_int(started, "id", 0), bd - g + 1, o.good, o.bad,
		o.metric, plan_name, *path ? " (steps run it when no results are stored)" : "");
	if (cli.json)
		ret = cli_print_json(started);
out:
	vals_release(&x);
	json_decref(started);
	json_decref(ses);
	json_decref(kernels);
	json_decref(o.overrides);
	cli_plan_release(&cp);
	be_close(&be);
	return ret;
}

/* Whether step S left its kernel unsettled (UNKNOWN: more values asked, skipped after
 * the last round, ends or a confirmation that cannot be told apart), so that what its
 * n could resolve is worth printing. */
static bool step_unsettled(const struct bisect_step *s)
{
	if (!s || !s->res.n_a)
		return false;
	if (s->mark == BISECT_MORE || s->mark == BISECT_SKIP)
		return true;
	return (s->mark == BISECT_END || s->mark == BISECT_CONFIRM) &&
	       s->v_good == COMPARE_UNKNOWN;
}

/* The steps of session SES (as stored, in the order of B's) with
 * "min_detectable_pct": what each step's comparison could resolve, in %, or null. */
static void annotate_steps(json_t *ses, const struct bisect *b)
{
	json_t *s;
	size_t i;

	json_array_foreach(json_object_get(ses, "steps"), i, s) {
		const struct bisect_step *st = bisect_step(b, (int)i);

		if (json_is_object(s))
			json_object_set_new(s, "min_detectable_pct", st && !isnan(st->res.mde) ?
					    json_real(100 * st->res.mde) : json_null());
	}
}

/* "  with 5 + 5 values at 12 % CV ..." for step S when it is unsettled. */
static void print_resolution(const struct bisect_step *s)
{
	char text[160];

	if (step_unsettled(s) && *bisect_resolution_text(&s->res, text, sizeof(text)))
		fprintf(text_out(), "  %s\n", text);
}

static void print_result(const struct bisect *b)
{
	FILE *out = text_out();
	struct bisect_result r;
	char p[32];

	if (bisect_result(b, &r))
		return;
	if (r.ambiguous)
		fprintf(out, "first bad kernel is one of '%s' .. '%s' (%d skipped between)\n",
			bisect_kernel(b, r.good + 1), bisect_kernel(b, r.bad),
			r.n_skipped_between);
	else
		fprintf(out, "first bad kernel: '%s' (good neighbour '%s')\n",
			bisect_kernel(b, r.bad), bisect_kernel(b, r.good));
	fprintf(out, "  %.6g (n %zu) -> %.6g (n %zu): %+.2f %%, %s\n", r.mean_good,
		r.n_good, r.mean_bad, r.n_bad, r.delta_pct,
		compare_p_text(r.test, r.p, p, sizeof(p)));
	if (r.confirm)
		fprintf(out, "  confirmation %s (%+.2f %%, %s)\n",
			bisect_confirm_name(r.confirm), r.confirm_delta_pct,
			compare_p_text(r.confirm_test, r.confirm_p, p, sizeof(p)));
}

static int do_status(int argc, char **argv)
{
	struct bopts o = { 0 };
	struct session_be be = { 0 };
	struct bisect *b = NULL;
	struct bisect_action a;
	json_t *ses = NULL;
	int ret = parse(argc, argv, "bisect status", NULL, &o);

	if (!ret)
		ret = load(&be, &ses, &b, true);
	if (ret)
		goto out;
	bisect_next(b, &a);
	if (cli.json) {
		json_object_set_new(ses, "engine_state", json_string(bisect_state_name(a.state)));
		json_object_set_new(ses, "next", a.kernel >= 0 ?
				    json_string(bisect_kernel(b, a.kernel)) : json_null());
		json_object_set_new(ses, "measured", json_integer(bisect_n_measured(b)));
		annotate_steps(ses, b);
		ret = cli_print_json(ses);
		goto out;
	}
	printf("bisect session %lld (%s): %s of '%s'%s%s, %d kernels, %d measured\n",
	       proto_get_int(ses, "id", 0), proto_get_str(ses, "state", "?"),
	       proto_get_str(ses, "metric", "?"), proto_get_str(ses, "plan", "?"),
	       json_is_string(json_object_get(ses, "variant")) ? " variant " : "",
	       proto_get_str(ses, "variant", ""), bisect_n_kernels(b), bisect_n_measured(b));
	printf("engine: %s: %s\n", bisect_state_name(a.state), bisect_why(b));
	print_resolution(bisect_step(b, bisect_n_steps(b) - 1));
	if (a.kernel >= 0)
		printf("next: measure '%s' (%u repetitions%s%s)\n", bisect_kernel(b, a.kernel),
		       a.reps, a.kernel2 >= 0 ? ", interleaved with " : "",
		       a.kernel2 >= 0 ? bisect_kernel(b, a.kernel2) : "");
	print_result(b);
out:
	bisect_destroy(&b);
	json_decref(ses);
	json_decref(o.overrides);
	be_close(&be);
	return ret;
}

static int do_log(int argc, char **argv)
{
	static const char *const head[] = { ">step", "kernel", ">round", ">n", ">mean",
					    ">delta%", ">p(good)", "verdict", "why" };
	struct bopts o = { 0 };
	struct tt_table t = { 0 };
	struct session_be be = { 0 };
	struct bisect *b = NULL;
	json_t *ses = NULL;
	int ret = parse(argc, argv, "bisect log", NULL, &o), i;

	if (!ret)
		ret = load(&be, &ses, &b, true);
	if (ret)
		goto out;
	if (cli.json) {
		annotate_steps(ses, b);
		ret = cli_print_json(json_object_get(ses, "steps"));
		goto out;
	}
	if (tt_table_init(&t, 9, head)) {
		ret = cli_error("out of memory");
		goto out;
	}
	for (i = 0; i < bisect_n_steps(b); i++) {
		const struct bisect_step *s = bisect_step(b, i);
		char c[5][32];
		const char *cells[9] = { c[0], bisect_kernel(b, s->kernel), c[1], c[2], c[3],
					 c[4], NULL, bisect_mark_name(s->mark), s->why };
		char p[32], why[320], res[160];

		if (step_unsettled(s) && *bisect_resolution_text(&s->res, res, sizeof(res))) {
			snprintf(why, sizeof(why), "%s; %s", s->why, res);
			cells[8] = why;
		}
		snprintf(c[0], 32, "%d", i + 1);
		snprintf(c[1], 32, "%u", s->round);
		snprintf(c[2], 32, "%u", s->n_total);
		snprintf(c[3], 32, "%.6g", s->mean);
		snprintf(c[4], 32, isnan(s->delta_good_pct) ? "-" : "%+.2f", s->delta_good_pct);
		if (s->test_good == COMPARE_TEST_CONSTANT) {
			cells[6] = "exact";
		} else if (!isnan(s->p_good)) {
			snprintf(p, sizeof(p), "%.3g", s->p_good);
			cells[6] = p;
		}
		tt_table_add(&t, cells);
	}
	tt_table_print(&t, stdout);
out:
	tt_table_release(&t);
	bisect_destroy(&b);
	json_decref(ses);
	json_decref(o.overrides);
	be_close(&be);
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
	fprintf(text_out(), "%s: %s\n", bisect_kernel(b, k), s->why);
	print_resolution(s);
	if (end)
		print_result(b);
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
		if (!values_get(be, &q, &x) && x.n)
			snprintf(out, len, "%s", x.timing);
		vals_release(&x);
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

	err = values_get(be, &q, &x);
	if (err)
		ret = err == -EDOM ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
	else if (!x.n && !skip_missing)
		ret = cli_error("no new stored results of '%s' on kernel '%s'%s%s%s: run the plan "
				"on a host with that kernel and step again, or 'bisect step --skip' "
				"to skip it", proto_get_str(*ses, "plan", "?"), name,
				timing ? " (timing '" : "", timing ? timing : "", timing ? "')" : "");
	else
		ret = record_step(be, ses, b, k, x.v, x.n, x.runs);
	vals_release(&x);
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
	int err = values_get(be, &q, &x), ret;

	ret = err == -EDOM ? CLI_EXIT_USAGE : err ? CLI_EXIT_FAIL : x.n > 0;
	vals_release(&x);
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
		err = host_with_kernel(provider, bisect_kernel(b, ks[i]), &handed, host,
				       sizeof(host));
		if (err == -ENOENT)
			continue;
		if (err) {
			ret = CLI_EXIT_FAIL;
			goto out;
		}
		fprintf(text_out(), "measuring '%s' on host '%s' (%u repetitions)\n",
			bisect_kernel(b, ks[i]), host, a->reps < 5 ? 5 : a->reps);
		fflush(text_out());
		json_array_append_new(hosts, json_string(host));
	}
	if (json_array_size(hosts))
		ret = submit_wait(proto_get_str(opts, "plan_file", ""),
				  json_object_get(opts, "overrides"), a->reps < 5 ? 5 : a->reps,
				  hosts, run);
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
	fprintf(text_out(), "bisect session %lld %s\n", proto_get_int(after, "id", 0),
		proto_get_str(after, "state", "?"));
	print_result(b);
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

	ret = parse(argc, argv, "bisect step", step_longopts, &o);
	if (!ret)
		ret = load(&be, &ses, &b, false);
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
		annotate_steps(ses, b);
		ret = cli_print_json(ses);
	}
out:
	bisect_destroy(&b);
	json_decref(ses);
	json_decref(o.overrides);
	be_close(&be);
	return ret;
}

static int do_reset(int argc, char **argv)
{
	struct bopts o = { 0 };
	struct session_be be = { 0 };
	json_t *ses = NULL;
	int ret = parse(argc, argv, "bisect reset", NULL, &o);

	if (!ret)
		ret = be_open(&be, false);
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
	be_close(&be);
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
	{ "status", do_status, "", "The session, the engine's state, the next measurement, "
	  "the result.\n" },
	{ "log", do_log, "",
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
	{ "run", do_run, "--plan P --metric M --threshold X% --baseline RUN [--kernel K] "
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

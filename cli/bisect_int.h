/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* bisect_int.h - what the parts of `bpflab bisect` (cli/bisect*.c) share; not for the
 * rest of the CLI, which sees only cli_bisect_object.
 *
 *   bisect.c          the session commands start and reset, the command table
 *   bisect_opts.c     the options (which command takes each) and where text goes
 *   bisect_step.c     `bisect step`: measure what the engine asks for and record it
 *   bisect_session.c  where a session lives: the coordinator or a database file (--db),
 *                     its engine replayed from the stored steps, and the stored values
 *                     a step or a judgement takes
 *   bisect_measure.c  a host running a kernel (kernel providers) and a run on it
 *   bisect_show.c     status and log
 *   bisect_run.c      `bisect run`, the judge of `git bisect run`
 *
 * Calls go one way: bisect.c -> bisect_run/step/show -> bisect_measure ->
 * bisect_session -> bisect_opts (tests/check-layout.sh finds circles).
 */
#ifndef BPFLAB_CLI_BISECT_INT_H
#define BPFLAB_CLI_BISECT_INT_H

#include <getopt.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/bisect.h"
#include "analysis/bisect_session.h"
#include "analysis/compare.h"

enum {
	OPT_PLAN = CLI_OPT_FIRST_LOCAL, OPT_METRIC, OPT_GOOD, OPT_BAD, OPT_VARIANT,
	OPT_SUBJECT, OPT_KERNELS, OPT_REPS, OPT_THRESHOLD, OPT_BASELINE, OPT_KERNEL,
	OPT_DIRECTION, OPT_PROVIDER, OPT_HOST, OPT_TIMING, OPT_SKIP, OPT_MAX_REPS,
	OPT_REBASELINE, OPT_NO_REBASELINE, OPT_STRICT, OPT_SESSION,
};

/* Which command's options bisect_parse takes (a mask). */
enum { BISECT_OPTS_START = 1, BISECT_OPTS_STEP = 2, BISECT_OPTS_RUN = 4,
       BISECT_OPTS_SHOW = 8 };

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
	long long session;		/* status, log --session ID; 0: the active, else the
					 * latest */
	unsigned int reps, max_reps;	/* 0: default */
	int rebaseline;			/* run: 1 --rebaseline, -1 --no-rebaseline, 0 auto */
	enum compare_direction dir;
	bool skip;			/* step --skip */
	bool strict;			/* step, run: refuse values of several hosts or
					 * kernel builds for one kernel */
};

/* A session backend. Each function prints its error and returns NULL, else a new
 * reference: the session (store_bisect_get's object, steps included) as it is after the
 * call, or the value rows of store_query_values. The coordinator answers with the same
 * lib/store/store_bisect.c and lib/store/store.c functions on its own database (coordinator/
 * bisect_req.c), so both print the same. */
struct session_be;

struct session_ops {
	/* session ID (0: the active session, else the latest) */
	json_t *(*get)(struct session_be *be, int64_t id);
	/* every session, without kernels and steps (store_bisect_list) */
	json_t *(*list)(struct session_be *be);
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

/* Which whole-window values bisect_values_get takes. */
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

/* Values bisect_values_get took, and what their first row says. */
struct vals {
	double *v;
	size_t n;
	json_t *runs;			/* run ids taken, in order */
	char unit[32], timing[16], host[128], kernel[128];
	json_t *hosts, *builds;		/* the values' distinct hosts and kernel builds */
};

/* The hosts handed out in one step (a confirmation measures two kernels): each must
 * keep its kernel for the step, so none is switched to another. Owned by the step,
 * zeroed before its first host_with_kernel. */
struct step_hosts {
	char name[2][128];
	const char *skip[2];		/* name[i], for cli_host_offering */
	int n;
};

/* Where the human-readable lines go: stdout, or stderr with -j, where stdout carries
 * only the JSON the command ends with. */
FILE *bisect_text_out(void);

/* Parse the options of command PATH, those CMD (BISECT_OPTS_*; 0: none) takes, into O;
 * no positional argument is taken. Returns 0 or the exit status of a usage error. */
int bisect_parse(int argc, char **argv, const char *path, unsigned int cmd, struct bopts *o);

/* Release what a session command held (B, SES, O's overrides, the backend BE) and
 * return RET. */
int bisect_release(struct bopts *o, struct session_be *be, json_t *ses, struct bisect *b,
		   int ret);

/* The coordinator's answer to request TYPE ("host_list", "run_show" with RUN, "query"
 * with FILTER): the reply's MEMBER (new reference), or NULL after printing the error.
 * Always the coordinator, also with --db. */
json_t *bisect_coord_ask(const char *type, long long run, const json_t *filter,
			 const char *want, const char *member);

/* The backend: the database file with --db FILE (opened READONLY or not), else the
 * coordinator. Returns 0 or an exit status after the error. */
int bisect_be_open(struct session_be *be, bool readonly);
void bisect_be_close(struct session_be *be);
/* Open the backend (READONLY for a database file) and load session ID (0: the active
 * one, else the latest) into *SES and its replayed engine into *B. Returns 0 or an exit
 * status after the error. */
int bisect_load(struct session_be *be, int64_t id, json_t **ses, struct bisect **b,
		bool readonly);

void bisect_vals_release(struct vals *x);
/* The values Q selects into *OUT (released first), from BE. A sample is one variant and
 * one subject: when Q leaves either open and the values have several, nothing is taken
 * (bisect_sample_check: bad input, CLI_EXIT_USAGE). Returns 0, or the exit status after
 * the error (cli_fail). */
int bisect_values_get(struct session_be *be, const struct vsel *q, struct vals *out);
/* When the values X of SIDE ("step", "baseline", "candidate") on KERNEL come from
 * several hosts or kernel builds: a note on stderr, or with STRICT the error. Returns 0,
 * or CLI_EXIT_FAIL after the error. */
int bisect_vals_pooled(const struct vals *x, const char *side, const char *kernel,
		       bool strict);

/* A connected (idle or busy) host named NAME (NULL: any) whose kernel.release is KERNEL
 * (NULL: any): its name into NAME_OUT and its kernel into KERNEL_OUT (each may be NULL).
 * Returns 0, -ENOENT if there is none, -EIO after printing the error. */
int bisect_host_find(const char *name, const char *kernel, char *name_out, size_t name_len,
		     char *kernel_out, size_t kernel_len);
/* The name of a connected host whose kernel.release is KERNEL, into OUT (host_find). */
int bisect_host_running(const char *kernel, char *out, size_t len);
/* A connected host running KERNEL into OUT, switched or brought up when none runs it
 * (bisect_measure.c); added to HANDED. -ENOENT when there is none. */
int bisect_host_with_kernel(const char *provider, const char *kernel,
			    struct step_hosts *handed, char *out, size_t len);
/* Submit plan FILE with OVERRIDES (may be NULL) and repeat=REPS on exactly HOSTS, wait
 * for the run (at most BISECT_RUN_WAIT_S) and put its id in *RUN. Returns 0 or an exit
 * status after the error. */
int bisect_submit_wait(const char *file, const json_t *overrides, unsigned int reps,
		       const json_t *hosts, long long *run);
/* Whether FILE names a readable plan file (rather than a plan name). */
bool bisect_is_plan_file(const char *file);

/* "  with 5 + 5 values at 12 % CV ..." for step S when it is unsettled. */
void bisect_print_resolution(const struct bisect_step *s);
/* The result of engine B, when it has one, as text. */
void bisect_print_result(const struct bisect *b);

/* The commands (bisect_cmds in bisect.c). */
int bisect_do_status(int argc, char **argv);
int bisect_do_log(int argc, char **argv);
int bisect_do_list(int argc, char **argv);
int bisect_do_run(int argc, char **argv);
int bisect_do_step(int argc, char **argv);

#endif

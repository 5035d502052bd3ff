/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* cli.h - what the parts of the bpflab command line share: the global options, the
 * command tables, option parsing, output in text or JSON, and the client that asks the
 * coordinator (or a database file) for query objects.
 *
 * `bpflab [OPTIONS] OBJECT COMMAND [ARGS]`: cli/main.c parses the global options and
 * dispatches OBJECT through a table; each object (cli/plan.c, host.c, run.c, result.c)
 * dispatches COMMAND through its own table with exact matching, as bpftool does. A
 * command function gets its arguments with argv[0] = the command name (getopt style) and
 * returns the process exit status: CLI_EXIT_OK, CLI_EXIT_FAIL or CLI_EXIT_USAGE.
 *
 * Errors are printed once, where they are found: in text mode "bpflab: MESSAGE" on
 * stderr, in JSON mode {"error": "MESSAGE"} on stdout. Single-threaded.
 */
#ifndef BPFLAB_CLI_H
#define BPFLAB_CLI_H

#include <getopt.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "base/err.h"
#include "plan/plan.h"
#include "plan/objects.h"

#define CLI_DEFAULT_COORDINATOR "ipc:///run/bpflab/clients.sock"
#define CLI_DEFAULT_TIMEOUT_S 5
/* `result import` through bpflabd waits a second more per this many jobs */
#define CLI_IMPORT_JOBS_PER_S 5000

enum cli_exit {
	CLI_EXIT_OK = 0,		/* done */
	CLI_EXIT_FAIL = 1,		/* something failed (or, with --wait, a job did) */
	CLI_EXIT_USAGE = 2,		/* bad usage, or a plan that does not validate */
};

/* The global options, filled by cli/main.c (and by command option parsing, which takes
 * them too). */
struct cli_opts {
	const char *coordinator;	/* ZeroMQ endpoint of bpflabd's client socket */
	const char *db;			/* --db FILE: query this database, no coordinator */
	const char *bpf_dir;		/* where bare object names are looked up */
	bool json;			/* -j: JSON output */
	bool pretty;			/* -p: indented JSON (implies -j) */
	int verbose;			/* each -v one log level more */
	int timeout_s;			/* how long to wait for the coordinator's reply */
	const char *key_file;		/* --key / $BPFLAB_KEY: own secret certificate */
	const char *server_key;		/* --server-key / $BPFLAB_SERVER_KEY: file or Z85 */
	bool plaintext;			/* --plaintext: no CURVE */
};

extern struct cli_opts cli;

/* A command of an object: "bpflab OBJECT NAME ARGS". */
struct cli_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *args;		/* grammar after the name: "FILE [-s KEY=VALUE]..." */
	const char *help;		/* lines printed by "bpflab OBJECT NAME --help" */
};

/* An object: its commands and the one that runs without a COMMAND (NULL: none). */
struct cli_object {
	const char *name;
	const struct cli_cmd *cmds;
	const char *default_cmd;
	const char *help;		/* extra lines after the object's usage */
};

/* Objects (cli/plan.c, host.c, run.c, result.c). */
extern const struct cli_object cli_plan_object;
extern const struct cli_object cli_host_object;
extern const struct cli_object cli_run_object;
extern const struct cli_object cli_result_object;
extern const struct cli_object cli_bisect_object;
extern const struct cli_object cli_link_object;	/* cli/link.c */

/* Run "bpflab OBJ ARGV..." (ARGV[0] is the command, ARGC may be 0): "help", "-h" and
 * "--help" print the object's usage; an unknown command is bad usage. Returns the exit
 * status. */
int cli_object_dispatch(const struct cli_object *obj, int argc, char **argv);
/* Print the usage of OBJ (all its commands) to OUT. */
void cli_object_usage(const struct cli_object *obj, FILE *out);
/* Print LEAD ("Usage: bpflab run submit"), a space and the grammar ARGS to OUT, wrapped to
 * CLI_USAGE_WIDTH columns at the outermost spaces possible (outside [ ] and { } first),
 * continuation lines indented to CLI_USAGE_INDENT; ends with a newline. */
void cli_print_grammar(FILE *out, const char *lead, const char *args);
#define CLI_USAGE_WIDTH 80
#define CLI_USAGE_INDENT 15

/* The OPTIONS line of the usage texts. */
extern const char cli_options_grammar[];

/* Handler of a command's own options: OPT (the getopt value) with ARG. Returns 0, or an
 * exit status after printing a usage error. */
typedef int (*cli_opt_fn)(int opt, const char *arg, void *ctx);

/* Parse the options of command PATH ("run submit"): its own (SHORTOPTS, LONGOPTS, may be
 * "" and NULL) handled by FN, and the global ones (-j, -p, -v, -c, --db, --bpf-dir,
 * --timeout), taken anywhere on the line. Options and arguments may mix; "--" ends the
 * options. On success returns 0 and sets *FIRST to the index of the first positional
 * argument in ARGV (which is permuted); otherwise the exit status after a usage error. */
int cli_parse_opts(int argc, char **argv, const char *path, const char *shortopts,
		   const struct option *longopts, cli_opt_fn fn, void *ctx, int *first);
/* Handle a global option OPT with ARG (from main's or a command's parsing). Returns 0, or
 * CLI_EXIT_USAGE after a message; 1 means OPT is not a global option. */
int cli_global_opt(int opt, const char *arg);
/* Read the client's configuration file (cli/config.c) into the global options, before
 * the environment and the flags. Returns 0, or CLI_EXIT_USAGE after a message naming
 * FILE:LINE. */
int cli_config_load(void);
/* The long and short global options, for cli/main.c. */
extern const struct option cli_global_longopts[];
extern const char cli_global_shortopts[];
/* Option values for the global long-only options. */
enum { CLI_OPT_DB = 256, CLI_OPT_BPF_DIR, CLI_OPT_TIMEOUT, CLI_OPT_KEY, CLI_OPT_SERVER_KEY,
       CLI_OPT_PLAINTEXT, CLI_OPT_ASCII, CLI_OPT_FIRST_LOCAL = 300 };

/* --ascii (cli/ascii.c): from here on stdout's text in ASCII ("±" as "+-", "µ" as "u";
 * untouched while *JSON). Returns 0 or -errno. */
int cli_ascii_stdout(const bool *json);
/* Flush what --ascii holds back and put stdout back; nothing without --ascii. */
void cli_ascii_close(void);

/* A command without an object (keygen, serve), which prints its own usage: --help or
 * -h among ARGV[1..] (before a "--"), or "help" as the first argument. */
bool cli_wants_help(int argc, char **argv);
/* Bad usage: print "MESSAGE" and the hint "see 'bpflab HINT --help'" (or the JSON error)
 * and return CLI_EXIT_USAGE. A NULL HINT names the command running, else the top level. */
int cli_usage_error(const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A failure: print MESSAGE (text or JSON) and return CLI_EXIT_FAIL. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print the failure RC (-errno) of a call that filled ERR, once, and return the exit
 * status: bad input (ERR->input: "FILE:LINE:COLUMN: message" as it is on stderr, or
 * {"file", "ok": false, "error", "line", "column"} in JSON mode; input without a file,
 * such as a flag's value, as cli_error) CLI_EXIT_USAGE; anything else "bpflab: MESSAGE"
 * (cli_error; strerror(-RC) when ERR says nothing) CLI_EXIT_FAIL.
 * The one place where an error becomes an exit status (docs/architecture.md, "Errors"). */
int cli_fail(int rc, const struct err *err);

/* Print OBJ as JSON on stdout (compact, or indented with -p) and a newline. Returns 0 or
 * CLI_EXIT_FAIL. */
int cli_print_json(const json_t *obj);

/* "2026-11-29T22:39:00Z" for a wall time in ms, or "-" for 0/absent. OUT >= 32 bytes. */
const char *cli_time(long long wall_ms, char *out, size_t len);

/* Send REQ (a protocol message) to the coordinator and wait for its one reply, at most
 * cli.timeout_s seconds. Returns 0 with *REPLY (new reference) of type WANT_TYPE, or an
 * exit status after printing the error: no reply in time, a transport error, an "error"
 * reply (its message) or a reply of another type. */
int cli_request(const json_t *req, const char *want_type, json_t **reply);
/* cli_request, then the reply's MEMBER, which must be an array. Returns 0 with *OUT (new
 * reference) and, when REPLY is not NULL, the whole reply in *REPLY (new reference) for
 * its other members; or an exit status after printing the error (a reply without the
 * array names its type and MEMBER), *OUT and *REPLY NULL. */
int cli_request_array(const json_t *req, const char *want_type, const char *member,
		      json_t **out, json_t **reply);
/* The query object for TYPE ("host_list", "run_list", "run_show", "result_show",
 * "result_seconds"; RUN for the last three): from the database file with --db, else from the coordinator. Returns 0
 * with *OUT (new reference: the hosts or runs array, the run or result object), or an
 * exit status after printing the error. */
int cli_query(const char *type, long long run, json_t **out);
/* `bpflab keygen --role ROLE [--out DIR] [--name NAME] [--force]` (cli/keygen.c): a
 * CURVE key pair with its role as DIR/NAME.key and DIR/NAME.key_secret; prints the
 * public key. `--set-role ROLE FILE...` gives existing certificates a role. Returns the
 * exit status. */
int cli_keygen(int argc, char **argv);
/* `bpflab serve --db FILE ...` (cli/serve.c): the dashboard over a database file until
 * SIGINT or SIGTERM. Returns the exit status. */
#define CLI_SERVE_ARGS "--db FILE [--http ADDR:PORT] [--http-token FILE | --http-public]" \
	" [--http-host NAME]..."
int cli_serve(int argc, char **argv);
/* Switch HOST to KERNEL through its agent's kernel provider (`host_boot`, cli/host.c);
 * FROM (may be NULL) gets the kernel it ran. With WAIT_S > 0, wait that long until HOST
 * is connected again with kernel.release KERNEL, progress on stderr. Returns 0, or an
 * exit status after printing the error (refused, the switch failed, another kernel came
 * back, no time left). */
int cli_host_boot(const char *host, const char *kernel, int wait_s, char *from,
		  size_t from_len);
/* A connected idle host whose kernel provider offers KERNEL (inventory.provider.kernels)
 * and that is none of the N_SKIP names of SKIP, into OUT. Returns 0, -ENOENT when there
 * is none, -EIO after printing the error. */
int cli_host_offering(const char *kernel, const char *const *skip, int n_skip, char *out,
		      size_t len);
/* The latest noise floor of each host (store_noise_list's rows): from the database with
 * --db, else the coordinator's noise_list. Returns 0 with *ROWS (new reference), or an
 * exit status. */
int cli_noise_rows(json_t **rows);
/* The hosts (the host_list query objects) with their latest noise floor ("noise",
 * lib/analysis/noise.h) on those that have one: from the database with --db, else from the
 * coordinator (host_list and noise_list). Returns 0 with *HOSTS (new reference), or an
 * exit status after printing the error. */
int cli_hosts_noise(json_t **hosts);
/* What the noise floors of the hosts say about PLAN (cli/plan.c): the repetitions per
 * variant it needs to see its min_effect, on the hosts named in NAMES (a JSON array;
 * NULL: every host with a noise floor and the plan's port roles). Text: the advice on
 * stdout and, when the plan's repeat max is below it, a warning on stderr; returns the
 * advice as JSON (noise_advice_json; new reference) for -j, or NULL when no host has a
 * noise floor of the plan's metrics or they could not be read. With BEST_EFFORT the
 * floors are asked for only when a source is at hand (--db, or a coordinator whose ipc
 * socket exists, with a key or --plaintext), and a failure is a line on stderr, never
 * a JSON error. */
json_t *cli_plan_noise(const struct plan *plan, const json_t *names, bool best_effort);
/* Poll run ID every second until it is done, failed or cancelled, with progress on
 * stderr (cli/run.c). Returns 0 with *FINAL (the last run object, new reference), or an
 * exit status after an error. */
int cli_run_wait(long long id, json_t **final);
/* Free the ZeroMQ context, at exit. */
void cli_client_close(void);

/* A matrix point {"traffic.packet.size": "64"} as "traffic.packet.size=64" (pairs joined
 * by a space), "-" for none. Returns OUT. */
const char *cli_point_text(const json_t *point, char *out, size_t len);

/* Parse a run id argument; returns 0, or a usage error naming HINT. */
int cli_parse_run_id(const char *arg, const char *hint, long long *id);

/* A plan read, validated, resolved and expanded, as plan check, plan show and run submit
 * need it. */
struct cli_plan {
	struct plan *plan;
	struct plan_objects objs;
	struct plan_job *jobs;
	int n_jobs;
	json_t *overrides;		/* the -s arguments as given: ["KEY=VALUE", ...] */
	bool have_objs;			/* objs was filled and must be released */
};

/* Load FILE with the overrides in cp->overrides (the plan and each matrix point
 * validated) and resolve its objects in cli.bpf_dir, into CP (cp->jobs stays empty:
 * bpflabd expands a submitted plan). Prints the error and returns CLI_EXIT_USAGE for a
 * plan that does not validate, CLI_EXIT_FAIL when it cannot be read; 0 on success. */
int cli_plan_prepare(const char *file, struct cli_plan *cp);
/* The same for the plan TEXT (LEN bytes), named NAME in messages (a built-in plan). */
int cli_plan_prepare_text(const char *name, const char *text, size_t len,
			  struct cli_plan *cp);
void cli_plan_release(struct cli_plan *cp);
/* Submit the prepared plan CP read from FILE, restricted to HOSTS (an array of host
 * names, or NULL for the plan's own selection): a `submit` request with the plan text,
 * overrides and every object's bytes. Returns 0 with the coordinator's `submitted`
 * reply in *REPLY (new reference; "run", "jobs", "hosts"), or an exit status after
 * printing the error. */
int cli_submit(const char *file, const struct cli_plan *cp, const json_t *hosts,
	       json_t **reply);
/* Options shared by the commands that take a plan: -s KEY=VALUE appends to OVERRIDES (a
 * JSON array passed as CTX). */
int cli_plan_opt(int opt, const char *arg, void *ctx);

#endif

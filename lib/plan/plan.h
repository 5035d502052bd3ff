/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* plan.h - the test plan: model, YAML parser with validation, overrides and matrix
 * expansion.
 *
 * A plan file (docs/plans.md) is parsed with libyaml into a position-carrying tree,
 * submit-time overrides (-s key=value) are applied to that tree, and the tree is then
 * validated into a struct plan. Any error refuses the plan whole and is reported as
 * "FILE:LINE:COLUMN: message" through struct err; nothing is partially accepted.
 *
 * Expansion turns a plan into its jobs: the cross product of the matrix, times the
 * variants, times the repetitions, ordered so that variants interleave within each
 * repetition (rep 1: A B C, rep 2: A B C, ...). Each job carries a JSON spec that is what
 * an agent executes (docs/protocol.md, "job spec"), encoded through jobspec.h.
 *
 * Used by the CLI (plan check/show, run submit) and by the coordinator (which validates
 * and expands again on submit). Not thread-safe per object; separate plans are
 * independent.
 *
 * Folder contract (docs/architecture.md, "Layout"):
 * lib/plan/ is what a plan means: the parser, the job spec both sides share (jobspec.h)
 * and the BPF objects a plan names; it includes only lib/base/.
 */
#ifndef BPFLAB_PLAN_H
#define BPFLAB_PLAN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "plan/jobspec.h"

#define PLAN_MAX_BYTES (1u << 20)	/* plan files above this are refused */
#define PLAN_MAX_JOBS 100000		/* expansions above this are refused */
/* metrics nic.NAME (driver counters): at most this many, NAME at most this long (the
 * agent's names: ETH_GSTRING_LEN and "#K", agent/ethstats.h) */
#define PLAN_MAX_NIC_METRICS 32
#define PLAN_MAX_NIC_NAME 47
#define PLAN_MAX_NAME 128		/* plan and variant names, roles, programs */
/* a plan name: 1 to PLAN_MAX_NAME letters, digits and these (plan_name_valid) */
#define PLAN_NAME_EXTRA "._-"

/* A plan's enums are the job spec's (jobspec.h: one definition, one spelling, for the
 * plan, the coordinator and the agent); so are their names as plans write them
 * (jobspec_hook_name and the rest). */

/* One entry of an attach entry's `maps`: a map slot filled after load, before attach.
 * Exactly one of PORT (devmap, devmap_hash: the ifindex of that role), QSIZE (cpumap) or
 * HAS_VALUE (array, hash, lru_hash: an integer value) is set; PROGRAM (a devmap or cpumap
 * program of the same object) may go with PORT or QSIZE. Which kind fits which map type
 * is checked by the agent, which sees the map (lib/plan/objects.c checks what it can). */
struct plan_map_fill {
	char *map;			/* map name in the object */
	long long key;			/* 0..2^63-1; stored in the map's key size */
	char *port;			/* a role from plan->ports, or NULL */
	char *program;			/* devmap/cpumap program, or NULL */
	int qsize;			/* cpumap queue size 1..16384, 0 when not a cpumap slot */
	bool has_value;
	long long value;		/* array/hash value (little-endian, map's value size) */
	int line, col;			/* of the fill entry */
	int map_line, map_col;		/* of the map name */
	int program_line, program_col;	/* of the program value */
};

/* One key of a counters entry: per-CPU u64 slot KEY of MAP, reported as NAME. */
struct plan_counter {
	char *map;			/* a BPF_MAP_TYPE_PERCPU_ARRAY of u64 */
	unsigned int key;
	char *name;			/* sample subject of counter.pps */
	int line, col;			/* of the key */
	int map_line, map_col;		/* of the map value */
};

/* One program to attach: {port: b, hook: xdp, mode: native, object: x.bpf.o, program: p} */
struct plan_attach {
	char *port;			/* a role from plan->ports */
	enum job_hook hook;
	enum job_xdp_mode mode;	/* XDP only */
	enum job_tc_mode tc_mode;	/* tc hooks only */
	char *object;			/* name under bpf/ or a path */
	char *program;
	int line, col;			/* of the attach entry, for later errors */
	int object_line, object_col;	/* of the object value */
	int program_line, program_col;	/* of the program value */
	struct plan_map_fill *fills;	/* `maps`, in file order (map by map) */
	int n_fills;
	struct plan_counter *counters;	/* `counters`, flattened: one per key */
	int n_counters;
};

struct plan_variant {
	char *name;
	struct plan_attach *attach;
	int n_attach;
	int line, col;
};

struct plan_match {			/* hosts.match selector: key: value */
	char *key;			/* e.g. port.driver, kernel.release */
	char *value;			/* e.g. veth, ">=6.1" */
	int line, col;
};

struct plan_traffic {
	enum job_generator generator;
	char *from;			/* a port role; NULL for generator none */
	int size;			/* frame bytes without FCS */
	enum job_proto proto;
	int flows;
	int threads;
	int64_t duration_ms;
	int64_t warmup_ms;
	int *cpus;			/* generator threads pinned round-robin; NULL: no pinning */
	int n_cpus;
	char *to;			/* destination port role, or NULL (the agent's default) */
	int64_t rate_pps;		/* `rate: 200000`: frames/s, 0: full speed */
	double rate_share;		/* `rate: 10%`: share of the port's line rate, 0..1 */
	int rate_line, rate_col;	/* of the rate value, for plan_rate_check */
	int burst;			/* `burst: 16`: frames back to back at most; 0:
					 * auto, 250 us of frames at the rate */
};

struct plan_axis {			/* one matrix key and its values */
	char *key;			/* dotted path, e.g. traffic.packet.size */
	char **values;			/* scalar texts */
	int n_values;
	int line, col;
};

/* A validated plan. Its strings point into the plan's own tree (or are constants) and
 * live until plan_destroy(); the arrays belong to the plan. Treat it as read-only. */
struct plan {
	char *file;			/* as given; used in error messages */
	char *text;			/* the exact plan text (NUL-terminated) */
	size_t text_len;
	char sha256[65];		/* of text */
	char *name;
	char *description;		/* may be NULL */
	struct plan_match *match;
	int n_match;
	int host_count;			/* 0 means all matching hosts */
	char **ports;
	int n_ports;
	struct plan_traffic traffic;
	struct plan_variant *variants;	/* in file order */
	int n_variants;
	struct plan_axis *matrix;	/* in file order */
	int n_axes;
	int repeat;			/* repetitions expanded at submit (repeat.min) */
	/* `repeat: {min, max, until, on}` (docs/plans.md): the coordinator adds repetitions
	 * of a (host, variant, point) until the 95 % CI of the mean of every metric in
	 * repeat_on is within repeat_until of the mean, or repeat_max is reached. A plain
	 * `repeat: N` is min = max = N, until 0 (no adaptive repetitions). */
	int repeat_max;
	double repeat_until;		/* fraction (0.02 for 2 %); 0: fixed count */
	char **repeat_on;		/* metric names (default: metrics); NULL when fixed */
	int n_repeat_on;
	int repeat_line, repeat_col;	/* of the repeat value */
	double min_effect;		/* `min_effect`: fraction, default 0.02 */
	bool share_machine;		/* `share_machine`: hosts on one machine run at once */
	int verifier;			/* `verifier`: enum job_verifier (none, stats) */
	char **metrics;
	int n_metrics;
	/* two-host plan (`link: {generator: X, dut: Y}`): port role X is the generator
	 * host's end of a wired link, Y the device under test's end; NULL otherwise */
	char *link_generator;
	char *link_dut;
	int link_line, link_col;
	/* `search: {goals, width, exceed, trial, total, min_rate, max_rate}` (docs/plans.md,
	 * "search"): each job runs an MLRsearch; goal names point into the tree */
	bool has_search;
	struct job_search search;
	int search_max_line, search_max_col;	/* of search.max_rate, for plan_rate_check */
	/* `latency: {loads, port}` (docs/plans.md, "latency"): windows at these loads after
	 * the search (or the rate window), one-way latency; the port points into the tree */
	bool has_latency;
	struct job_latency latency;
	struct plan_tree *tree;		/* private: the parsed, overridden tree */
};

/* A submit-time override: "traffic.packet.size=1500". */
struct plan_override {
	char *key;
	char *value;
};

/* Parse "KEY=VALUE" into OV (heap strings). Returns 0 or -EINVAL with ERR filled
 * ("invalid override 'x': expected KEY=VALUE"). */
int plan_override_parse(const char *arg, struct plan_override *ov, struct err *err);
void plan_override_release(struct plan_override *ov);

/* Parse and validate TEXT (LEN bytes, need not be NUL-terminated) read from FILE, applying
 * the N_OV overrides first. Returns a new plan, or NULL with errno set (EINVAL for a bad
 * plan, ENOMEM) and ERR describing the first problem. */
struct plan *plan_parse(const char *file, const char *text, size_t len,
			const struct plan_override *ov, int n_ov, struct err *err);
/* Read FILE and plan_parse it. */
struct plan *plan_load(const char *file, const struct plan_override *ov, int n_ov,
		       struct err *err);
void plan_destroy(struct plan **plan);

/* One job of an expanded plan. */
struct plan_job {
	int seq;			/* 0-based dispatch order within one host */
	int variant;			/* index into plan->variants */
	int point;			/* index of the matrix point (0 without a matrix) */
	int rep;			/* 1-based repetition */
	json_t *point_values;		/* {"traffic.packet.size": "64"} (owned) */
	json_t *spec;			/* the job spec for the agent (owned) */
};

/* Expand PLAN into *N jobs (heap array *JOBS). Every matrix point is validated as a whole
 * plan; an invalid point fails the expansion with ERR naming the matrix entry.
 * Returns 0 or -errno. */
int plan_expand(const struct plan *plan, struct plan_job **jobs, int *n,
		struct err *err);

struct plan_objects;

/* What bpflabd's submit adds to every spec, written by the expansion itself so that a
 * spec is encoded once and never edited after (coordinator/submit.c). */
struct plan_expand_opts {
	const struct plan_objects *objs;	/* each attach entry's sha256 from these */
	bool hosts_match;		/* the plan's hosts.match as "hosts_match" */
	/* a plan with a link: the two hosts; every job becomes two, the generator's side
	 * (peer PAIR_DUT) then the dut's (peer PAIR_GENERATOR), with the same seq, as
	 * plan_pair_spec makes them */
	const char *pair_generator;
	const char *pair_dut;
};

/* plan_expand with OPTS (NULL: none). An object the plan names that OPTS->objs lacks,
 * or pair names for a plan without a link, is -EINVAL with ERR set. */
int plan_expand_opts(const struct plan *plan, const struct plan_expand_opts *opts,
		     struct plan_job **jobs, int *n, struct err *err);
void plan_jobs_free(struct plan_job *jobs, int n);

/* One side of a two-host job: a new spec from SPEC (a job spec of a plan with `link`,
 * borrowed) for ROLE "generator" or "dut", with only that side's port, attach entries
 * and traffic (the dut side measures only: generator none), and "pair": {"role", "peer"
 * (PEER, the other host's name), "link" {generator, dut}, "barrier_ms"}. NULL with errno
 * (EINVAL: SPEC has no link, ENOMEM). */
json_t *plan_pair_spec(const json_t *spec, const char *role, const char *peer);

/* A port's line rate in frames/s: MBPS Mb/s over frames of SIZE bytes (without FCS) and
 * 24 more on the wire (FCS, preamble, inter-frame gap). */
double plan_line_rate_pps(double mbps, int size);
/* The entry of port ROLE in a host's INVENTORY ("ports": [{"role", ...}], docs/agent.md
 * "Inventory"), borrowed; NULL when it has none. */
const json_t *plan_inventory_port(const json_t *inventory, const char *role);
/* Job spec SPEC's traffic.rate against host HOST's INVENTORY (its ports' "speed", Mb/s):
 * a share needs the `from` port to report a speed, a rate in frames/s must not be above
 * its line rate, nor may search.max_rate (at its place in PLAN). Returns 0, or -EINVAL with ERR "FILE:LINE:COL: traffic.rate: ..." at
 * the rate in PLAN (a matrix axis traffic.rate when there is one). */
int plan_rate_check(const struct plan *plan, const json_t *spec, const json_t *inventory,
		    const char *host, struct err *err);

/* Whether NAME is a metric bpflab knows (port.rx_pps, prog.ns_per_run, ..., and
 * nic.NAME, a driver counter: [A-Za-z0-9_.-] and "#K", at most PLAN_MAX_NIC_NAME). */
bool plan_metric_known(const char *name);

/* Whether NAME is a plan name (PLAN_NAME_EXTRA); imported plan and host names follow the
 * same rule (lib/store/store_ingest.c, `bpflab result import`). */
bool plan_name_valid(const char *name);

#endif

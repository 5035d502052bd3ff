/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* jobspec.h - the job spec: what the coordinator sends an agent to run (docs/protocol.md,
 * "Job spec"), as one C type with one encoder and one decoder, used by both sides.
 *
 * The coordinator fills a struct job_spec from a plan (lib/plan/plan_expand.c) and encodes it;
 * proto_validate() (proto_schema.h) checks a job message's spec by decoding it; the
 * agent decodes the spec once when a job arrives (agent/job.c) and reads only the
 * struct. The enums, the defaults of members a spec may leave out and the limits are
 * defined here, once.
 *
 * Decoding is strict: a member the spec format does not have, a value of the wrong JSON
 * type, an unknown enum name or a value out of its limits is refused with the member's
 * path, e.g. "spec.traffic.generator: unknown generator 'foo' (xdp-live, udp, pktgen,
 * none)". Nothing at the top level is required (an older coordinator's spec, and a
 * hand-written one, may leave members out: they take the defaults below); what the
 * agent cannot run without (ports, traffic.duration_ms) it checks itself.
 *
 * Encoding writes the members in one fixed order, the order the coordinator has always
 * written them, and writes a member with a default even when the decoded spec left it
 * out, so encode -> decode -> encode gives the same bytes (tests/unit/test_jobspec.c).
 *
 * Ownership: the strings of a struct job_spec are borrowed (from the JSON it was decoded
 * from, which the struct holds a reference to, or from whoever filled it); its arrays
 * are its own and freed by jobspec_release(). Thread-safe per object.
 */
#ifndef BPFLAB_JOBSPEC_H
#define BPFLAB_JOBSPEC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* limits shared by plans and agents */
#define JOBSPEC_MAX_DURATION_MS (3600 * 1000)	/* traffic.duration_ms, 1.. */
#define JOBSPEC_MAX_WARMUP_MS (3600 * 1000)	/* traffic.warmup_ms, 0.. */
#define JOBSPEC_MAX_CPUS 64			/* traffic.cpus entries */
#define JOBSPEC_MAX_CPU 4095			/* a CPU number in traffic.cpus */
#define JOBSPEC_MAX_THREADS 64			/* traffic.threads */
#define JOBSPEC_MAX_FLOWS 64511			/* UDP source ports 1024..65534 */
#define JOBSPEC_MAX_QSIZE 16384			/* a cpumap slot's qsize: the kernel's limit */
#define JOBSPEC_MAX_RATE_PPS 1000000000LL	/* traffic.rate_pps, 1.. */
/* The oldest bpflab-agent that decodes the specs this build encodes: raise it with a spec
 * field an older agent refuses; bpflabd refuses a plan for hosts whose agent is older
 * (coordinator/submit.c). */
#define JOBSPEC_AGENT_MIN "0.1.0"
#define JOBSPEC_MAX_GOALS 8			/* search.goals, as MLRSEARCH_MAX_GOALS */
#define JOBSPEC_MAX_LOADS 8			/* latency.loads */
#define JOBSPEC_MAX_BURST 4096			/* traffic.burst: xdp-live, pktgen */
#define JOBSPEC_MAX_BURST_UDP 64		/* traffic.burst with udp: one sendmmsg() */

/* defaults of members a spec leaves out */
#define JOBSPEC_DEFAULT_SIZE 64			/* traffic.packet.size */
#define JOBSPEC_DEFAULT_FLOWS 1			/* traffic.packet.flows */
#define JOBSPEC_DEFAULT_THREADS 1		/* traffic.threads */
#define JOBSPEC_DEFAULT_BARRIER_MS 30000	/* pair.barrier_ms */

enum job_hook { JOB_HOOK_XDP, JOB_HOOK_TC_INGRESS, JOB_HOOK_TC_EGRESS };
/* An XDP entry's mode: driver, skb or hardware; auto: driver where the port's driver has
 * it, else skb (the agent records which it used). */
enum job_xdp_mode { JOB_XDP_NATIVE, JOB_XDP_GENERIC, JOB_XDP_OFFLOAD, JOB_XDP_AUTO };
/* How a tc hook is attached: tcx where the kernel has it, else clsact (auto); only tcx
 * (a kernel without it fails the job); always a clsact qdisc + cls_bpf filter. */
enum job_tc_mode { JOB_TC_AUTO, JOB_TC_TCX, JOB_TC_CLSACT };
enum job_generator { JOB_GEN_XDP_LIVE, JOB_GEN_UDP, JOB_GEN_PKTGEN, JOB_GEN_NONE };
enum job_proto { JOB_PROTO_UDP4, JOB_PROTO_UDP6 };
enum job_pair_role { JOB_PAIR_GENERATOR, JOB_PAIR_DUT };
/* What the agent asks of the verifier: nothing beyond bpf_prog_info (none), or its
 * summary at log level BPF_LOG_STATS (stats: verifier.processed_insns ...). */
enum job_verifier { JOB_VERIFIER_NONE, JOB_VERIFIER_STATS };

/* A string member of an object used as a map: point, hosts_match. */
struct job_kv {
	const char *key;
	const char *value;
};

/* One slot of a filled map: {key, port | qsize | value, program}. */
struct job_slot {
	long long key;
	const char *port;		/* devmap: a port role, or NULL */
	int qsize;			/* cpumap: 1..JOBSPEC_MAX_QSIZE, 0: none */
	bool has_value;
	long long value;		/* array, hash */
	const char *program;		/* devmap or cpumap program, or NULL */
};

/* attach[].maps: {NAME: [slot, ...]}, one entry per map in spec order. */
struct job_map {
	const char *name;
	struct job_slot *slots;
	int n_slots;
};

struct job_counter_key {
	unsigned int index;		/* written as the decimal member name */
	const char *name;		/* the sample's subject */
};

/* attach[].counters: [{map, keys: {"INDEX": NAME}}]. */
struct job_counters {
	const char *map;
	struct job_counter_key *keys;
	int n_keys;
};

struct job_attach {
	const char *port;
	enum job_hook hook;
	enum job_xdp_mode mode;		/* XDP only */
	enum job_tc_mode tc_mode;	/* tc hooks only */
	const char *object;
	const char *program;
	struct job_map *maps;
	int n_maps;
	struct job_counters *counters;
	int n_counters;
	const char *sha256;		/* added by the coordinator, or NULL */
};

struct job_traffic {
	enum job_generator generator;	/* default none */
	const char *from;		/* generator port role, or NULL */
	int size;			/* packet.size, frame bytes without FCS */
	enum job_proto proto;		/* packet.proto */
	int flows;			/* packet.flows */
	const char *dst_mac;		/* packet.dst_mac, or NULL (the agent picks one) */
	int threads;
	const char *to;			/* destination port role, or NULL */
	int *cpus;			/* generator threads pinned round-robin */
	int n_cpus;			/* 0: not pinned */
	int64_t duration_ms;		/* 0: the spec has none */
	int64_t warmup_ms;		/* default 0 */
	/* traffic.rate: frames per second over all threads (rate_pps), or a share of the
	 * sending port's line rate (rate_share, 0 < share <= 1; the agent turns it into pps
	 * with the port's speed); both 0: full speed. At most one is set. */
	int64_t rate_pps;
	double rate_share;
	/* traffic.burst: frames a paced generator sends back to back at most, 1..
	 * JOBSPEC_MAX_BURST; 0: auto, 250 us of frames at the rate (agent/gen.h) */
	int burst;
};

/* repeat: the coordinator's adaptive repetitions (docs/plans.md); agents ignore it */
struct job_repeat {
	int min, max;
	double until;
	const char **on;
	int n_on;
};

/* pair: one side of a two-host plan */
struct job_pair {
	enum job_pair_role role;
	const char *peer;		/* the other side's host, or NULL */
	const char *link_generator;	/* pair.link, or NULL */
	const char *link_dut;
	int64_t barrier_ms;
};

/* search: an MLRsearch (RFC 9971) per job instead of one window (docs/plans.md, "search").
 * Goal loss and the exceed ratio are fractions in [0, 1), width in (0, 1); trial_ms is
 * the final trial duration, total_ms the goal duration sum (>= trial_ms); loads in pps,
 * 0 < min_rate_pps < max_rate_pps <= JOBSPEC_MAX_RATE_PPS. */
struct job_search_goal {
	const char *name;		/* "NDR"; metrics are its lower case: ndr.lower */
	double loss;
};

/* search.method: MLRsearch, or the plain RFC 2544 binary search (lib/analysis/binsearch.h) */
enum job_search_method { JOB_SEARCH_MLRSEARCH, JOB_SEARCH_BINARY };

struct job_search {
	enum job_search_method method;	/* encoded only when not the default */
	struct job_search_goal goals[JOBSPEC_MAX_GOALS];
	int n_goals;			/* 1..JOBSPEC_MAX_GOALS */
	double width;
	double exceed;
	int64_t trial_ms, total_ms;
	int64_t min_rate_pps, max_rate_pps;
};

/* latency: one window per load after the search (or the rate window), the generator's
 * frames stamped and timed by a receiving program on PORT (docs/plans.md, "latency").
 * A load is a share of a search goal's lower bound (GOAL, else the last goal's) (0 < share <= 1) or pps. */
struct job_latency_load {
	double share;			/* 0: absolute, pps */
	int64_t pps;			/* 1..JOBSPEC_MAX_RATE_PPS when share is 0 */
};

struct job_latency {
	struct job_latency_load loads[JOBSPEC_MAX_LOADS];
	int n_loads;			/* 1..JOBSPEC_MAX_LOADS */
	const char *port;		/* a port role, or NULL: the first attach entry's port */
	const char *goal;		/* the search goal shares are of, or NULL: the last */
};

struct job_spec {
	const char *plan;		/* NULL: absent */
	const char *variant;
	int rep;
	struct job_kv *point;		/* {"traffic.packet.size": "64"} */
	int n_point;
	const char **ports;
	int n_ports;
	struct job_traffic traffic;
	struct job_attach *attach;
	int n_attach;
	bool has_metrics;		/* false: every metric */
	const char **metrics;
	int n_metrics;
	bool has_repeat;
	struct job_repeat repeat;
	bool share_machine;
	enum job_verifier verifier;	/* "verifier", default none */
	const char *link_generator;	/* link: a plan's two ends, or NULL */
	const char *link_dut;
	bool has_pair;
	struct job_pair pair;
	bool has_search;
	struct job_search search;
	bool has_latency;
	struct job_latency latency;
	struct job_kv *hosts_match;	/* added by the coordinator; agents ignore it */
	int n_hosts_match;
	json_t *json;			/* private: what the strings point into, or NULL */
};

/* An empty spec with the defaults (no ports, no duration). */
void jobspec_init(struct job_spec *spec);
/* Free the arrays and drop the reference to the decoded JSON; SPEC is empty again.
 * Safe twice. */
void jobspec_release(struct job_spec *spec);

/* Decode JSON (a spec object, borrowed: the struct takes its own reference) into SPEC,
 * which is initialised first. PATH names JSON in messages ("spec", "job.spec").
 * Returns 0, or -EINVAL with the first problem in ERR ("PATH.traffic.threads: must be
 * an integer") and SPEC empty, or -ENOMEM. */
int jobspec_decode(const json_t *json, const char *path, struct job_spec *spec,
		   struct err *err);
/* The spec's JSON (a new reference), members in the fixed order; NULL with errno
 * ENOMEM. */
json_t *jobspec_encode(const struct job_spec *spec);

/* Decode just an attach array (the members of spec.attach, path "spec.attach") into
 * *ATTACH (heap, *N entries; free with jobspec_attach_free), borrowing JSON's strings:
 * JSON must outlive it. Returns 0 or -EINVAL with ERR, or -ENOMEM. */
int jobspec_decode_attach(const json_t *json, struct job_attach **attach, int *n,
			  struct err *err);
void jobspec_attach_free(struct job_attach *attach, int n);

/* Names as plans and specs write them, indexed by the enum, NULL-terminated. */
extern const char *const jobspec_hook_names[];		/* xdp, tc-ingress, tc-egress */
extern const char *const jobspec_xdp_mode_names[];	/* native, generic, offload, auto */
extern const char *const jobspec_tc_mode_names[];	/* auto, tcx, clsact */
extern const char *const jobspec_generator_names[];	/* xdp-live, udp, pktgen, none */
extern const char *const jobspec_proto_names[];		/* udp4, udp6 */
extern const char *const jobspec_pair_role_names[];	/* generator, dut */
extern const char *const jobspec_verifier_names[];	/* none, stats */
extern const char *const jobspec_search_method_names[];	/* mlrsearch, binary */

/* The name of value V of an enum with NAMES, "?" when out of range. */
const char *jobspec_name(const char *const *names, int v);
/* The name of one value of each enum, "?" when out of range: the one enum -> name
 * mapping (plan.h aliases it under the plan model's names). */
#define jobspec_hook_name(v) jobspec_name(jobspec_hook_names, (v))
#define jobspec_xdp_mode_name(v) jobspec_name(jobspec_xdp_mode_names, (v))
#define jobspec_tc_mode_name(v) jobspec_name(jobspec_tc_mode_names, (v))
#define jobspec_generator_name(v) jobspec_name(jobspec_generator_names, (v))
#define jobspec_proto_name(v) jobspec_name(jobspec_proto_names, (v))
#define jobspec_pair_role_name(v) jobspec_name(jobspec_pair_role_names, (v))
#define jobspec_verifier_name(v) jobspec_name(jobspec_verifier_names, (v))

#endif

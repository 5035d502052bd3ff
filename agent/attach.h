/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* attach.h - load a variant's BPF programs and attach them through bpf_link.
 *
 * A job's "attach" entries name, per port role, a hook (xdp, tc-ingress, tc-egress), an
 * XDP mode, an object and a program. attach_load() takes each object's bytes from the
 * job message ("objects": {NAME: {sha256, data (base64)}}) or, when the message carries
 * none, from a local BPF directory; it refuses bytes whose SHA-256 is not the one the
 * attach entry names, opens them with bpf_object__open_mem(), turns autoload on only for
 * the programs used and loads. A load failure returns the kernel verifier's log, and its
 * last lines in the error. Each loaded program's bpf_prog_info figures (verified insns,
 * JIT'd bytes, translated insns) and, with verifier_stats, the verifier log's summary
 * are kept in its attach_prog.
 *
 * Map slots (an entry's "maps", docs/plans.md) are filled after the load and before any
 * link exists: devmap slots get struct bpf_devmap_val {ifindex of the role, optional
 * program fd}, cpumap slots struct bpf_cpumap_val {qsize, optional program fd}, array and
 * hash slots an integer in the map's value size. Programs named only by slots (devmap and
 * cpumap programs) are loaded but never attached. An entry's "counters" are recorded so
 * that the job can read them (attach_counter_read: per-CPU values summed).
 *
 * Object instances: the entries that use the same object share one bpf_object (and so
 * its maps), except that a program used a second time (the same program on two ports)
 * gets a second instance of the object, so each attachment has its own program fd and
 * its own bpf_stats. Nothing is shared across jobs: every attach_set loads afresh.
 *
 * attach_links() creates one bpf_link per entry: XDP with bpf_link_create(BPF_XDP) and
 * XDP_FLAGS_DRV_MODE (native) or XDP_FLAGS_SKB_MODE (generic); mode auto is native where
 * the port's driver has it (xdpcaps.h; not known: native tried, generic when the driver
 * refuses with EOPNOTSUPP or EINVAL), else generic, and attach_prog.mode_used says
 * which. A native attach the driver refuses fails with the driver and the modes it has
 * in the error. tc hooks as tcx links
 * (BPF_TCX_INGRESS / BPF_TCX_EGRESS, kernel 6.6+). Links are owned by file descriptors of
 * this process only (never pinned), so an agent that dies leaves nothing attached.
 *
 * tc hooks on kernels without tcx (BPF_LINK_CREATE with attach type 46/47 gives EINVAL
 * there: measured on Debian's 6.1.0-47) fall back to a clsact qdisc and a direct-action
 * cls_bpf filter (libbpf's bpf_tc_hook_create / bpf_tc_attach, netlink) at the agent's
 * own priority ATTACH_TC_PRIO and handle, never replacing a filter that is there. The
 * entry's "tc_mode" (auto, the default; tcx; clsact) forces one way. Such a filter is
 * not owned by a file descriptor, so the detach removes it explicitly, and removes the
 * clsact qdisc only when this set created it and no filter is left on it. The handle
 * records who created the qdisc: ATTACH_TC_HANDLE_OWNER when this agent did,
 * ATTACH_TC_HANDLE when it was there before; attach_tc_cleanup() uses that to clear
 * what a killed agent left. attach_prog.tc_attached says which way each tc entry went.
 *
 * Subjects: each attachment is reported under its program name, or "prog@role" when the
 * same program name appears more than once in the variant.
 */
#ifndef BPFLAB_AGENT_ATTACH_H
#define BPFLAB_AGENT_ATTACH_H

#include <jansson.h>
#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "plan/jobspec.h"
#include "verifier_log.h"

/* The hooks and modes are the job spec's enums (plan/jobspec.h), one spelling for the
 * plan, the coordinator and the agent: enum job_hook, job_xdp_mode and job_tc_mode (how a
 * tc hook is attached, asked for (auto: tcx, else clsact) and done (auto: not yet)). */

/* The agent's cls_bpf filters on a clsact qdisc: one priority (low, so they run before
 * filters added with tc's default priorities 49152 and below) and two handles. */
#define ATTACH_TC_PRIO 0xbf1u			/* 3057 */
#define ATTACH_TC_HANDLE 0xbf1ab000u		/* the qdisc was there before */
#define ATTACH_TC_HANDLE_OWNER 0xbf1ab001u	/* the agent created the qdisc */

/* A port role the job may attach to, resolved by the caller. */
struct attach_port {
	const char *role;
	const char *ifname;
	int ifindex;
};

/* One attachment, readable by the caller after attach_load(). */
struct attach_prog {
	char *subject;			/* program name, or "program@role" */
	char *program;
	char *object;
	char *role;
	char ifname[IF_NAMESIZE];
	int ifindex;
	enum job_hook hook;
	enum job_xdp_mode mode;		/* as the entry asks: native, generic, auto */
	enum job_xdp_mode mode_used;	/* XDP: native or generic once attached (kept after
					 * the detach, for the result) */
	int prog_fd;			/* owned by the object instance */
	int link_fd;			/* -1 until attach_links() */
	enum job_tc_mode tc_mode;		/* tc hooks: the entry's "tc_mode" */
	enum job_tc_mode tc_attached;	/* tc hooks: tcx or clsact once attached (kept
					 * after the detach, for the result) */
	uint32_t tc_handle;		/* the clsact filter's handle while attached, else 0 */
	bool tc_own_qdisc;		/* this entry created the port's clsact qdisc */
	/* what the load cost (bpf_prog_info, once loaded): verified_insns (0 before kernel
	 * 5.16), jited_prog_len, xlated_prog_len / 8 */
	bool has_info;
	uint32_t verified_insns;
	uint32_t jited_bytes;
	uint32_t xlated_insns;
	/* with attach_opts.verifier_stats: the verifier log's summary (verifier_log.h) */
	struct verifier_log_stats stats;
	char *stats_log;		/* its log buffer while loading */
};

struct attach_opts {
	const json_t *objects;		/* {NAME: {sha256, data}} from the job message, or NULL */
	const char *bpf_dir;		/* where to read objects the message does not carry */
	bool require_sha256;		/* refuse an entry without sha256 */
	const struct attach_port *ports;
	int n_ports;
	/* load with log level BPF_LOG_STATS into a buffer per program and parse its summary
	 * into attach_prog.stats (the plan's `verifier: stats`) */
	bool verifier_stats;
};

/* A per-CPU u64 counter the plan exports (attach entry "counters"). */
struct attach_counter {
	char *name;			/* sample subject */
	char *map;
	int map_fd;			/* owned by the object instance */
	uint32_t key;
};

struct attach_set;

/* An empty set. NULL with errno set (ENOMEM). */
struct attach_set *attach_new(void);
/* Detach, unload and free; nulls the caller's pointer. NULL is fine. */
void attach_destroy(struct attach_set **set);

/* Check, open and load the programs of the job spec's N attach entries ATTACH (decoded,
 * jobspec.h; borrowed for the call only). Returns 0 or -errno with a message in ERR;
 * when the kernel refused a program, *VERIFIER_LOG gets its log (heap string, caller
 * frees), else stays NULL. */
int attach_load_spec(struct attach_set *set, const struct job_attach *attach, int n,
		     const struct attach_opts *opts, char **verifier_log, struct err *err);
/* attach_load_spec() of a JSON attach array, decoded first (jobspec_decode_attach: a
 * bad entry is refused with its path, -EINVAL). */
int attach_load(struct attach_set *set, const json_t *attach, const struct attach_opts *opts,
		char **verifier_log, struct err *err);
/* Attach every loaded program. On failure detaches what it attached and returns -errno
 * with ERR set. */
int attach_links(struct attach_set *set, struct err *err);
/* Close every link and remove every clsact filter, then the clsact qdiscs the set
 * created when nothing else is on them (the programs stay loaded). Safe to call twice. */
void attach_detach(struct attach_set *set);

/* Before a job on PORTS: remove what an agent killed before its detach left there, the
 * cls_bpf filters at ATTACH_TC_PRIO with either handle on each port's clsact ingress and
 * egress, and the qdisc when such a filter says that agent created it
 * (ATTACH_TC_HANDLE_OWNER) and no filter is left on it. Each removal is logged as a
 * warning. One agent per port is assumed: another agent's live filters would go too.
 * Returns the number of filters removed, or -errno with ERR set. */
int attach_tc_cleanup(const struct attach_port *ports, int n_ports, struct err *err);

/* Number of attach entries, and entry I (NULL when out of range); borrowed, valid until
 * attach_destroy(). */
int attach_count(const struct attach_set *set);
const struct attach_prog *attach_get(const struct attach_set *set, int i);

/* The counters of the variant (all entries), borrowed until attach_destroy(). */
int attach_counter_count(const struct attach_set *set);
const struct attach_counter *attach_counter_get(const struct attach_set *set, int i);
/* Counter I summed over all possible CPUs into *SUM. Returns 0 or -errno. */
int attach_counter_read(struct attach_set *set, int i, uint64_t *sum);

#endif

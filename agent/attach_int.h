/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* attach_int.h - what the parts of the attach module share (not for other modules).
 *
 * attach.c holds the set's life and the load (object bytes, instances, verifier log);
 * attach_maps.c fills an entry's map slots and keeps its counters; attach_link.c makes
 * and removes the links and tc filters (and clsact qdiscs). Functions that can fail
 * return 0 or -errno with ERR filled (base/err.h); what an entry asks and the object or
 * host cannot give is input (err_at).
 */
#ifndef BPFLAB_AGENT_ATTACH_INT_H
#define BPFLAB_AGENT_ATTACH_INT_H

#include <bpf/libbpf.h>
#include <stddef.h>
#include <stdint.h>

#include "attach.h"
#include "plan/jobspec.h"

/* Debian 12's uapi headers predate tcx (Linux 6.6); the values are fixed ABI. */
#define ATTACH_BPF_TCX_INGRESS 46
#define ATTACH_BPF_TCX_EGRESS 47

#define ATTACH_LOG_SIZE (1u << 20)
/* a program's log at BPF_LOG_STATS: a few summary lines */
#define ATTACH_STATS_LOG_SIZE (64u << 10)

struct attach_inst {
	char *name;			/* object name as the job writes it */
	int instance;			/* 0 for the first, 1 for a program's second use ... */
	struct bpf_object *obj;
	char *log_buf;			/* verifier log (ATTACH_LOG_SIZE) */
};

struct attach_bytes {
	char *name;
	void *data;
	size_t len;
};

struct attach_set {
	struct attach_prog *progs;
	int *prog_inst;			/* instance index of each prog */
	const struct job_attach *entries; /* each prog's attach entry, during attach_load */
	int n;
	struct attach_counter *counters;
	int n_counters;
	int n_cpus;			/* possible CPUs, for per-CPU values */
	uint64_t *percpu;		/* n_cpus values, scratch for attach_counter_read */
	struct attach_inst *insts;
	int n_insts;
	struct attach_bytes *bytes;	/* object bytes, kept while objects live */
	int n_bytes;
};

/* attach_maps.c, called by the load once prog I's object is loaded, before any link:
 * fill the map slots of its attach entry (docs/plans.md, "maps") / record its counters */
int attach_fill_maps(struct attach_set *set, int i, const struct attach_opts *o,
		     struct err *err);
int attach_add_counters(struct attach_set *set, int i, struct err *err);

#endif

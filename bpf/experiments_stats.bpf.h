/* SPDX-License-Identifier: GPL-2.0 */
/* experiments_stats.bpf.h - the counters of the experiment programs, BPF side: the
 * per-CPU array `stats` of N u64 that the agent reads and sums over CPUs (keys from
 * experiments_shared.h, named in the plans' `counters:` entries), and count(KEY), which
 * adds one to this CPU's slot. Include after <bpf/bpf_helpers.h>; one
 * EXPERIMENT_STATS(N) per program file, at file scope.
 */
#ifndef BPFLAB_EXPERIMENTS_STATS_BPF_H
#define BPFLAB_EXPERIMENTS_STATS_BPF_H

#include "experiments_shared.h"

#define EXPERIMENT_STATS(n_keys)					\
	struct {							\
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);		\
		__uint(max_entries, n_keys);				\
		__type(key, __u32);					\
		__type(value, __u64);					\
	} stats SEC(".maps");						\
									\
	static __always_inline void count(__u32 key)			\
	{								\
		__u64 *c = bpf_map_lookup_elem(&stats, &key);		\
									\
		if (c)							\
			(*c)++;						\
	}

#endif

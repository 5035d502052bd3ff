/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* cpustat.h - per-CPU time from /proc/stat, for the cpu.softirq and cpu.busy metrics.
 *
 * cpustat_read() parses the "cpuN user nice system idle iowait irq softirq steal ..." lines
 * (clock ticks since boot); two readings give, per CPU, the share of the elapsed ticks
 * spent in softirq and the share not idle (idle and iowait count as idle). The path is a
 * parameter so that tests can feed a fixed file. /proc/stat is the same in every network
 * namespace. Used by the job runner's thread; no global state.
 */
#ifndef BPFLAB_AGENT_CPUSTAT_H
#define BPFLAB_AGENT_CPUSTAT_H

#include <stdint.h>

struct cpustat_cpu {
	int cpu;			/* N of "cpuN" */
	uint64_t total, idle, softirq;	/* ticks; idle includes iowait */
};

struct cpustat {
	struct cpustat_cpu *cpus;	/* in file order (owned) */
	int n;
};

/* Read PATH (NULL: /proc/stat) into OUT, replacing what it held. Returns 0 or -errno
 * (-EINVAL for a file without cpuN lines). */
int cpustat_read(const char *path, struct cpustat *out);
void cpustat_release(struct cpustat *s);

/* The shares 0..1 of CPU index I between readings A and B (same CPUs): busy (not idle)
 * and softirq. Returns 0, or -EINVAL when the CPU differs or no tick elapsed. */
int cpustat_share(const struct cpustat *a, const struct cpustat *b, int i, double *busy,
		  double *softirq);

#endif

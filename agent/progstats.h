/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* progstats.h - BPF program cost through the kernel's bpf_stats.
 *
 * While at least one BPF_ENABLE_STATS(BPF_STATS_RUN_TIME) file descriptor is open the
 * kernel counts, for every program, how often it ran (run_cnt) and for how long
 * (run_time_ns). Counting costs a few tens of ns per run, so the job runner holds the fd
 * only for its cost window and closes it before anything else is measured.
 */
#ifndef BPFLAB_AGENT_PROGSTATS_H
#define BPFLAB_AGENT_PROGSTATS_H

#include <stdint.h>

struct progstats {
	uint64_t run_cnt;
	uint64_t run_time_ns;
};

/* Turn run-time statistics on. Returns the fd that keeps them on, or -errno. */
int progstats_enable(void);
/* Close the fd from progstats_enable() (statistics stop once every holder closed its
 * fd) and set *FD to -1; a negative *FD is left alone. */
void progstats_disable(int *fd);
/* Read PROG_FD's counters (cumulative since load) into OUT. Returns 0 or -errno. */
int progstats_read(int prog_fd, struct progstats *out);

#endif

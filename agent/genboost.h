/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* genboost.h - the weight of a process whose paced generator runs (xdpgen.c, udpgen.c).
 *
 * With autogroup scheduling (kernel.sched_autogroup_enabled, the default) the CPU is
 * shared between sessions first, and a thread's own nice only counts within its
 * session: on a 2-CPU host where other sessions kept both CPUs busy (load 11-15) a
 * paced thread woke up milliseconds late and fell 40-60 % short of 10000-100000
 * frames/s whatever its own nice or slice, 2-14 % at autogroup nice -10 and 0.5-9 % at
 * -19 (bench/README.md, "pacing"). While a paced generator runs, the process's autogroup
 * is set to nice GENBOOST_NICE (/proc/self/autogroup), and back to what it was when the
 * last one stops. A paced thread sleeps most of the time, so the weight buys prompt
 * wake-ups rather than more CPU; at a rate it cannot reach it runs flat out, and then
 * takes most of its CPU from the other sessions for the trial's time. Needs CAP_SYS_NICE to lower the nice;
 * without it (or without autogroup) nothing changes and the pacing is as before.
 * Process-wide, counted: each genboost_get() is undone by one genboost_put().
 */
#ifndef BPFLAB_AGENT_GENBOOST_H
#define BPFLAB_AGENT_GENBOOST_H

#include <stdbool.h>

#define GENBOOST_NICE (-19)

/* One more paced generator runs: the first sets the autogroup's nice. Returns whether
 * the autogroup now has GENBOOST_NICE (false: not permitted, or no autogroup). */
bool genboost_get(void);
/* One fewer: the last puts the autogroup's nice back. */
void genboost_put(void);
/* Whether a paced generator started since the last call (a job's start clears it), and
 * the autogroup's nice it ran at (the last one started) into *NICE, INT_MIN without an
 * autogroup: 1, or 0 when none started. For each result's env (job.c). */
int genboost_seen(int *nice);

#endif

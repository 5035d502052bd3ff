/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* genboost.h - the scheduling of a paced generator's sending thread (gen.c, for xdpgen.c
 * and udpgen.c).
 *
 * A paced thread owes its frames on deadlines 100 us apart and may carry at most its
 * burst cap (250 us of frames) when it wakes late (gen.h); a wake-up later than that is
 * shortfall. In the fair class a woken thread waits for the running one's slice (one
 * or more ms on a busy 2-CPU host, whatever its nice or its autogroup's nice): measured
 * at load 3.7, xdp-live paced at 100 K fell 9 % short, and the ndr-cpumap search ended
 * generator-bound at 80 K (bench/README.md, "pacing"). So a paced thread runs in the
 * real-time class, SCHED_FIFO at GENBOOST_RT_PRIO: it sleeps to its deadline and on
 * waking takes its CPU from any fair-class task at once.
 *
 * A thread that cannot keep its rate runs flat out and would keep its CPU from the
 * fair class (the kernel's RT throttling leaves it 5 %): one that has run
 * GENBOOST_FLAT_NS of its own time behind its deadlines (gen.c; hold-ups, when
 * something else had its CPU, not counted) goes back to SCHED_OTHER for the rest of its
 * run (its trial is generator-bound anyway, by its shortfall). Needs CAP_SYS_NICE
 * (root, or the agent's unit grants it); without it the thread stays in the fair
 * class and the result's env says so. An unpaced generator never changes class.
 */
#ifndef BPFLAB_AGENT_GENBOOST_H
#define BPFLAB_AGENT_GENBOOST_H

#include <stdbool.h>
#include <stdint.h>

#define GENBOOST_RT_PRIO 1
#define GENBOOST_FLAT_NS 50000000LL	/* 50 ms of its own behind: flat out */

/* The calling thread into SCHED_FIFO at GENBOOST_RT_PRIO: true, or false (not
 * permitted: it stays as it was). Noted for genboost_seen(). */
bool genboost_thread(void);
/* The calling thread back to SCHED_OTHER (a boosted thread found flat out). */
void genboost_thread_off(void);
/* Whether a paced generator thread started since the last call (a job's start clears
 * it): 1, or 0 when none did; the class the last one ran in into *FIFO (true:
 * SCHED_FIFO) and whether one went back for running flat out into *DEMOTED. For each
 * result's env (job.c). */
int genboost_seen(bool *fifo, bool *demoted);

#endif

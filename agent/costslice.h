/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* costslice.h - a program's interrupt-free cost per run under QEMU icount.
 *
 * In a guest under -icount shift=0 one guest nanosecond is one guest instruction, so the
 * run_time_ns that bpf_stats adds up for a program is an instruction count, the same for
 * every run of the same path. Except: an interrupt taken inside a run (a timer tick, a
 * virtio-net packet of the agent's own connection, the hrtimer that wakes the job
 * thread) adds its handler's instructions to that run, and where those land is not
 * deterministic. Over a whole window that showed as a 0.07-0.14 % spread between
 * repetitions of the same kernel.
 *
 * So under icount the cost window reads bpf_stats every COSTSLICE_NS of guest time and
 * keeps, per program, the lowest per-run average over its slices: a slice in which no
 * interrupt hit a run gives exactly the instruction count per run, and one that an
 * interrupt hit can only give more. With slices of 1 ms (about 2,000 runs of a small XDP
 * program) against a 4 ms timer tick, most slices are clean. The lowest average is kept
 * per second and for the whole window. (On wall time the mean over the window stays the
 * figure: there the spread between runs is real cost, not an artefact.)
 */
#ifndef BPFLAB_AGENT_COSTSLICE_H
#define BPFLAB_AGENT_COSTSLICE_H

#include <stdint.h>

#include "progstats.h"

/* Slice length in CLOCK_MONOTONIC nanoseconds (guest instructions under icount). */
#define COSTSLICE_NS 1000000LL

struct costslice {
	int n;				/* programs */
	struct progstats *last;		/* counters at the last slice boundary, per program */
	double *second_min;		/* lowest per-run average this second, or NAN */
	double *window_min;		/* lowest over the whole window, or NAN */
	uint64_t slices;		/* slices seen */
	uint64_t *used;			/* slices with at least one run, per program */
};

/* Start tracking N programs whose counters are now FIRST (N entries). Returns 0 or
 * -ENOMEM. */
int costslice_init(struct costslice *s, int n, const struct progstats *first);
void costslice_release(struct costslice *s);
/* A slice ended with counters NOW (N entries): fold each program's per-run average over
 * the slice into the minima (a slice without runs of a program leaves it alone). */
void costslice_add(struct costslice *s, const struct progstats *now);
/* Program I's lowest per-run average this second (NAN: no runs) and forget it for the
 * next second. */
double costslice_take_second(struct costslice *s, int i);
/* Program I's lowest per-run average over the whole window (NAN: no runs). */
double costslice_window(const struct costslice *s, int i);

#endif

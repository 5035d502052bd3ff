/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* disturb.h - what else used the CPUs during a window (docs/agent.md, "Disturbance").
 *
 * A window's figures are only the program's when nothing else took the CPUs its work ran
 * on. disturb_read() takes a snapshot of, per CPU: the busy ticks of /proc/stat (all but
 * idle and iowait; softirq also on its own), the interrupts of /proc/interrupts, the
 * NET_RX softirqs of /proc/softirqs, the ticks of its ksoftirqd/N thread, and the user +
 * system ticks of this process's own threads (/proc/self/task/N/stat), each put on the
 * CPU the thread last ran on. Two snapshots give, per CPU, the time **others** took:
 *
 *     others = Δbusy - Δown - Δksoftirqd          (tick accounting, clamped at 0)
 *     others = Δbusy - Δown - Δsoftirq            (CONFIG_IRQ_TIME_ACCOUNTING)
 *
 * i.e. every other process (the other agents of a lab in a box, a build, a busy loop),
 * kernel threads (kworkers), interrupts and steal. The receive path being measured runs
 * in softirq (a veth peer's NAPI runs on the sending CPU), inline after the generator's
 * syscall or in ksoftirqd: with tick accounting (Debian's kernels) a tick that lands in
 * softirq is charged to the softirq column *and* to the task it interrupted, so the
 * agent's own threads already hold their inline softirq and ksoftirqd's ticks are the
 * rest; with IRQ time accounting a task's time holds no softirq, and the softirq column
 * is the receive path. Steal is in busy, so a hypervisor that takes the CPU counts as
 * others.
 * Per-process time alone (utime + stime of every other pid) would miss the short-lived
 * processes of a build that start and end inside a window; per-CPU time does not.
 *
 * The NET_RX deltas tell which CPU served the receive softirq (disturb_rx_cpu). /proc
 * is the same in every network namespace, so "others" includes the other agents on the
 * machine. The root directory is a parameter so that tests can feed canned files
 * (tests/unit/test_agent_verdict.c). Used by the job runner's thread; no global state.
 */
#ifndef BPFLAB_AGENT_DISTURB_H
#define BPFLAB_AGENT_DISTURB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct disturb_cpu {
	int cpu;			/* N of "cpuN" */
	uint64_t total;			/* all ticks of /proc/stat */
	uint64_t busy;			/* total - idle - iowait */
	uint64_t softirq;
	uint64_t ksoftirqd;		/* utime + stime of its ksoftirqd/N thread */
	uint64_t steal;
	uint64_t irqs;			/* sum of the CPU's /proc/interrupts column */
	uint64_t net_rx;		/* NET_RX softirqs served */
};

struct disturb_thread {
	int tid;
	int cpu;			/* the CPU it last ran on */
	uint64_t ticks;			/* utime + stime */
};

struct disturb_snap {
	struct disturb_cpu *cpus;	/* in /proc/stat order (owned) */
	int n;
	struct disturb_thread *own;	/* this process's threads (owned) */
	int n_own;
};

/* The figures of one window over the CPUs it was measured on. */
struct disturb_window {
	double others;			/* share of those CPUs' ticks others took, 0..1; -1:
					 * unknown (no tick elapsed) */
	double steal;			/* share of them stolen by the hypervisor */
	double irq_ps;			/* interrupts per second on them */
	int rx_cpu;			/* the CPU that served most NET_RX softirqs; -1: none */
	double rx_share;		/* its share of all NET_RX softirqs of the window */
	char text[512];			/* "cpu0 others 31% (steal 0%), 1210 irq/s; ..." */
};

/* Read the snapshot under PROC (NULL: "/proc"; PROC/stat, PROC/interrupts,
 * PROC/softirqs, PROC/self/task/N/stat) into OUT, replacing what it held. A missing
 * interrupts or softirqs file leaves those counts 0. Returns 0 or -errno (-EINVAL: a
 * stat file without cpuN lines). */
int disturb_read(const char *proc, struct disturb_snap *out);
void disturb_release(struct disturb_snap *s);

/* Whether the kernel configuration text CONFIG (NULL: unknown, as tick accounting)
 * accounts IRQ time apart from tasks (CONFIG_IRQ_TIME_ACCOUNTING=y), which decides how
 * others' time is worked out (above). */
bool disturb_irq_time(const char *config);

/* Others' time on CPUS[0..N_CPUS-1] (N_CPUS 0: every CPU) between snapshots A and B,
 * DT_S seconds apart, into OUT; IRQ_TIME as disturb_irq_time(). Returns 0, or -EINVAL
 * when the snapshots have no CPU in common. */
int disturb_measure(const struct disturb_snap *a, const struct disturb_snap *b,
		    const int *cpus, int n_cpus, double dt_s, bool irq_time,
		    struct disturb_window *out);

/* Per-CPU others share of CPU index I (in B's order) between A and B, or -1. */
double disturb_cpu_others(const struct disturb_snap *a, const struct disturb_snap *b, int i,
			  bool irq_time);

/* The CPUs that served at least SHARE of the NET_RX softirqs between A and B into OUT
 * (at most MAX); returns how many. */
int disturb_rx_cpus(const struct disturb_snap *a, const struct disturb_snap *b,
		    double share, int *out, int max);

#endif

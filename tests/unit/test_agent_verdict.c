// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_agent_verdict.c - verdicts on fixed per-second series, the /proc/stat shares
 * behind cpu.busy and cpu.softirq, and the disturbance accounting (others' time on the
 * measured CPUs, interrupts, the NET_RX CPU) on canned /proc files. No privileges needed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpustat.h"
#include "disturb.h"
#include "verdict.h"
#include "helpers.h"

static void expect(const struct verdict_input *in, const char *names, const char *detail_of,
		   const char *detail)
{
	json_t *v = NULL, *d = NULL;
	char *text;

	assert_int_equal(verdict_compute(in, &v, &d), 0);
	text = json_dumps(v, JSON_COMPACT);
	assert_string_equal(text, names);
	free(text);
	if (detail_of)
		assert_string_equal(json_string_value(json_object_get(d, detail_of)), detail);
	assert_int_equal(json_array_size(v), json_object_size(d));
	json_decref(v);
	json_decref(d);
}

static void test_verdict_series(void **state)
{
	const double steady[] = { 7.00e6, 7.02e6, 6.98e6, 7.01e6, 6.99e6 };
	const double noisy[] = { 7.0e6, 8.0e6, 6.0e6, 7.5e6, 6.5e6 };
	struct verdict_input in = {
		.rx_role = "b", .rx_pps = steady, .n_rx = 5, .rx_frames = 35e6,
		.gen_frames = 100e6, .all_rx_frames = 35e6, .rx_cpu_busy = 0.45, .rx_cpus = "cpu1",
	};
	json_t *debug;

	(void)state;
	/* coefficient of variation: sample standard deviation over the mean */
	assert_true(fabs(verdict_cv(noisy, 5) - 0.112942) < 1e-5);
	assert_true(verdict_cv(steady, 1) < 0);
	expect(&in, "[]", NULL, NULL);

	in.rx_pps = noisy;
	expect(&in, "[\"unstable\"]", "unstable", "port.rx_pps of 'b' varied 11.3% (bound 5%)");

	/* the path kept up: 99.5% of what the generator sent arrived, and the receiving CPU
	 * had idle time */
	in.rx_pps = steady;
	in.rx_frames = 99.5e6;
	expect(&in, "[\"generator-bound\"]", "generator-bound",
	       "port 'b' received 99.5% of the 100000000 frames the generator sent (bound 99%) and the receiving CPUs (cpu1) were at most 45% busy (bound 90%): the rate is the generator's");
	in.rx_frames = 98.9e6;
	expect(&in, "[]", NULL, NULL);
	/* everything arrived, but the receiving CPU was saturated (a veth: the receiver
	 * runs on the generator's CPU, which is always busy): the rate is the path's */
	in.rx_frames = 100e6;
	in.rx_cpu_busy = 0.90;
	expect(&in, "[]", NULL, NULL);
	in.rx_cpu_busy = 0.899;
	expect(&in, "[\"generator-bound\"]", NULL, NULL);
	in.rx_cpu_busy = -1;		/* no /proc/stat: cannot tell */
	expect(&in, "[]", NULL, NULL);
	in.rx_cpu_busy = 0.45;
	in.gen_frames = -1;		/* no generator: never generator-bound */
	in.rx_frames = 1e9;
	expect(&in, "[]", NULL, NULL);
	/* a search that ended generator-bound says so with its reason (job_search.c) */
	in.search_bound = "search: why";
	expect(&in, "[\"generator-bound\"]", "generator-bound", "search: why");
	in.search_bound = NULL;

	/* errors above 0.1% of the frames received */
	in.all_rx_frames = 1e6;
	in.error_frames = 1000;
	expect(&in, "[]", NULL, NULL);
	in.error_frames = 1001;
	in.error_what = "drops";
	expect(&in, "[\"errors\"]", "errors", "1001 frames lost to errors (drops)");

	debug = json_pack("[s, s]", "LOCKDEP", "KASAN");
	in.debug_options = debug;
	in.rx_pps = noisy;
	expect(&in, "[\"debug-kernel\",\"unstable\",\"errors\"]", "debug-kernel",
	       "kernel built with CONFIG_LOCKDEP, CONFIG_KASAN");
	json_decref(debug);
}

/* With traffic.rate: generator-bound when the offered rate is more than 1% from the
 * target, whatever the receiving side did; within it, never (the path keeping up with
 * a rate below its capacity is the point of a rate). */
static void test_verdict_rate(void **state)
{
	const double steady[] = { 1.0e5, 1.0e5, 1.0e5 };
	struct verdict_input in = {
		.rx_role = "b", .rx_pps = steady, .n_rx = 3, .rx_frames = 3e5, .gen_frames = 3e5,
		.all_rx_frames = 3e5, .rx_cpu_busy = 0.05, .rx_cpus = "cpu1",
		.target_pps = 100000, .offered_pps = 100999,
	};

	(void)state;
	expect(&in, "[]", NULL, NULL);			/* 0.999 % over */
	in.offered_pps = 99000;				/* 1 % under: at the bound */
	expect(&in, "[]", NULL, NULL);
	in.offered_pps = 101001;
	expect(&in, "[\"generator-bound\"]", "generator-bound",
	       "the generator offered 101001 frames/s of the 100000 asked for (traffic.rate): +1.0% (bound 1%)");
	in.offered_pps = 98999;
	expect(&in, "[\"generator-bound\"]", "generator-bound",
	       "the generator offered 98999 frames/s of the 100000 asked for (traffic.rate): -1.0% (bound 1%)");
	in.target_pps = 100e6;				/* an impossible rate */
	in.offered_pps = 3.2e6;
	expect(&in, "[\"generator-bound\"]", "generator-bound",
	       "the generator offered 3200000 frames/s of the 100000000 asked for (traffic.rate): -96.8% (bound 1%)");
	in.offered_pps = -1;				/* no rate window: no verdict */
	expect(&in, "[]", NULL, NULL);
	in.target_pps = 0;				/* no rate: the old rule */
	expect(&in, "[\"generator-bound\"]", "generator-bound",
	       "port 'b' received 100.0% of the 300000 frames the generator sent (bound 99%) and the receiving CPUs (cpu1) were at most 5% busy (bound 90%): the rate is the generator's");
}

/* A rate missed because the paced generator was held from its CPU (gen.h, hold-ups):
 * disturbed (measured again) when what it could not send while held makes up the
 * difference, generator-bound with the hold-ups' share named when not; with others over
 * their bound too, one "disturbed" saying both. */
static void test_verdict_rate_held(void **state)
{
	const double steady[] = { 95e3, 95e3, 95e3 };
	struct verdict_input in = {
		.rx_role = "b", .rx_pps = steady, .n_rx = 3, .rx_frames = 2.86e5,
		.gen_frames = 2.86e5, .all_rx_frames = 2.86e5, .rx_cpu_busy = 0.05,
		.rx_cpus = "cpu1", .target_pps = 100000, .offered_pps = 95394,
		.held_pps = 4500, .held_n = 7, .held_ms = 139.5, .others = { -1, -1 }, .rx_cpu = -1,
	};

	(void)state;
	expect(&in, "[\"disturbed\"]", "disturbed",
	       "the generator's thread was held from its CPU 7 times (139.5 ms) and did not send 4500 frames/s of the 100000 asked for (traffic.rate)");
	in.held_pps = 2000;				/* the rest is the generator's */
	expect(&in, "[\"generator-bound\"]", "generator-bound",
	       "the generator offered 95394 frames/s of the 100000 asked for (traffic.rate): -4.6% (bound 1%); 2000 frames/s of it in 7 hold-ups");
	in.held_pps = 4500;
	in.held_n = 0;					/* no hold-up: its frames are none */
	expect(&in, "[\"generator-bound\"]", NULL, NULL);
	in.held_n = 7;
	in.offered_pps = 99500;				/* within the bound: nothing */
	expect(&in, "[]", NULL, NULL);
	in.offered_pps = 95394;
	in.others[0] = 0.40;
	in.others_what[0] = "cpu0 others 40% (steal 38%), 90 irq/s";
	expect(&in, "[\"disturbed\"]", "disturbed",
	       "others took 40% of the measured CPUs in the rate window (bound 35%): cpu0 others 40% (steal 38%), 90 irq/s; the generator's thread was held from its CPU 7 times (139.5 ms) and did not send 4500 frames/s of the 100000 asked for (traffic.rate)");
}

/* Which CPUs count as the receiving side. */
static void test_verdict_rx_cpus(void **state)
{
	const int cpu[] = { 0, 1, 2, 3 };
	const double busy[] = { 1.0, 0.30, 0.95, 0.10 };
	const int gen0[] = { 0 }, gen_all[] = { 0, 1, 2, 3 };
	struct verdict_cpus in = { .cpu = cpu, .busy = busy, .n = 4 };
	char names[64];

	(void)state;
	/* not pinned: any CPU may have received */
	assert_true(verdict_rx_busy(&in, names, sizeof(names)) == 1.0);
	assert_string_equal(names, "cpu0,cpu1,cpu2,cpu3");
	/* a veth: the receiver runs on the generator's CPU */
	in.gen_cpus = gen0;
	in.n_gen = 1;
	in.rx_on_gen_cpu = 1;
	assert_true(verdict_rx_busy(&in, names, sizeof(names)) == 1.0);
	assert_string_equal(names, "cpu0");
	/* elsewhere: every CPU but the generator's */
	in.rx_on_gen_cpu = 0;
	assert_true(verdict_rx_busy(&in, names, sizeof(names)) == 0.95);
	assert_string_equal(names, "cpu1,cpu2,cpu3");
	/* the generator on every CPU: all of them */
	in.gen_cpus = gen_all;
	in.n_gen = 4;
	assert_true(verdict_rx_busy(&in, names, sizeof(names)) == 1.0);
	assert_string_equal(names, "cpu0,cpu1,cpu2,cpu3");
	/* no CPU readings */
	in.n = 0;
	assert_true(verdict_rx_busy(&in, names, sizeof(names)) < 0);
	assert_string_equal(names, "");
}

static void test_verdict_cpustat(void **state)
{
	char path[] = "/tmp/bpflab-cpustat-XXXXXX";
	struct cpustat a = { 0 }, b = { 0 };
	double busy, softirq;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	/* user nice system idle iowait irq softirq steal */
	file_put(path, "cpu  10 0 10 100 0 0 10 0 0 0\n"
		       "cpu0 5 0 5 50 0 0 5 0 0 0\n"
		       "cpu1 5 0 5 50 0 0 5 0 0 0\n"
		       "intr 1 2 3\n");
	assert_int_equal(cpustat_read(path, &a), 0);
	assert_int_equal(a.n, 2);
	file_put(path, "cpu  10 0 10 100 0 0 10 0 0 0\n"
		       "cpu0 5 0 5 50 0 0 105 0 0 0\n"		/* 100 ticks, all softirq */
		       "cpu1 25 0 5 110 20 0 5 0 0 0\n");	/* 100 ticks, 80 idle */
	assert_int_equal(cpustat_read(path, &b), 0);
	assert_int_equal(cpustat_share(&a, &b, 0, &busy, &softirq), 0);
	assert_true(fabs(busy - 1.0) < 1e-9 && fabs(softirq - 1.0) < 1e-9);
	assert_int_equal(cpustat_share(&a, &b, 1, &busy, &softirq), 0);
	assert_true(fabs(busy - 0.2) < 1e-9 && fabs(softirq) < 1e-9);
	assert_int_equal(cpustat_share(&a, &a, 1, &busy, &softirq), -EINVAL);	/* no time */
	file_put(path, "intr 1\n");
	assert_int_equal(cpustat_read(path, &b), -EINVAL);
	assert_int_equal(b.n, 2);		/* kept on failure */
	cpustat_release(&a);
	cpustat_release(&b);
	unlink(path);
	/* the real file */
	assert_int_equal(cpustat_read(NULL, &a), 0);
	assert_true(a.n >= 1);
	cpustat_release(&a);
}

/* A /proc/PID/task/TID/stat line: utime UT, stime ST, last CPU CPU (field 39). */
static void thread_put(const char *dir, int tid, const char *comm, int ut, int st, int cpu)
{
	char path[512], line[512];
	int o, f;

	snprintf(path, sizeof(path), "%s/self/task/%d", dir, tid);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/self/task/%d/stat", dir, tid);
	o = snprintf(line, sizeof(line), "%d (%s) S", tid, comm);
	for (f = 4; f <= 44; f++)
		o += snprintf(line + o, sizeof(line) - o, " %d",
			      f == 14 ? ut : f == 15 ? st : f == 39 ? cpu : 0);
	snprintf(line + o, sizeof(line) - o, "\n");
	file_put(path, line);
}

/* A ksoftirqd/CPU kernel thread at PROC/PID/stat with TICKS of system time. */
static void ksoftirqd_put(const char *dir, int pid, int cpu, int ticks)
{
	char name[32], path[512];

	snprintf(path, sizeof(path), "%s/%d", dir, pid);
	mkdir(path, 0700);
	snprintf(name, sizeof(name), "ksoftirqd/%d", cpu);
	/* thread_put writes DIR/self/task/PID: write there, then move it */
	thread_put(dir, pid, name, 0, ticks, cpu);
	{
		char from[512], to[512];

		snprintf(from, sizeof(from), "%s/self/task/%d/stat", dir, pid);
		snprintf(to, sizeof(to), "%s/%d/stat", dir, pid);
		assert_int_equal(rename(from, to), 0);
		snprintf(from, sizeof(from), "%s/self/task/%d", dir, pid);
		rmdir(from);
	}
}

static void proc_put(const char *dir, const char *stat, const char *interrupts,
		     const char *softirqs)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/stat", dir);
	file_put(path, stat);
	snprintf(path, sizeof(path), "%s/interrupts", dir);
	file_put(path, interrupts);
	snprintf(path, sizeof(path), "%s/softirqs", dir);
	file_put(path, softirqs);
}

/* Others' time = busy (not idle, iowait or softirq) minus this process's threads, each
 * thread's delta on the CPU it last ran on; worked out by hand below. */
static void test_verdict_disturb(void **state)
{
	char dir[] = "/tmp/bpflab-disturb-XXXXXX", path[600];
	struct disturb_snap a = { 0 }, b = { 0 };
	struct disturb_window w;
	int cpus[] = { 0 }, rx[4];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/self", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/self/task", dir);
	mkdir(path, 0700);
	/* user nice system idle iowait irq softirq steal */
	proc_put(dir, "cpu  200 0 200 2000 0 20 100 0\n"
		      "cpu0 100 0 100 1000 0 10 50 0 0 0\n"
		      "cpu1 100 0 100 1000 0 10 50 0 0 0\n",
		 "           CPU0       CPU1       \n"
		 "  0:        100          5   IO-APIC   2-edge      timer\n"
		 "LOC:       1000       2000   Local timer interrupts\n"
		 "ERR:          7\n",
		 "                    CPU0       CPU1       \n"
		 "          HI:          0          0\n"
		 "      NET_RX:         10       1000\n");
	thread_put(dir, 100, "bpflab-agent", 500, 100, 0);
	thread_put(dir, 101, "a (b) c", 20, 20, 0);
	ksoftirqd_put(dir, 11, 0, 100);
	ksoftirqd_put(dir, 12, 1, 7);
	assert_int_equal(disturb_read(dir, &a), 0);
	assert_int_equal(a.cpus[0].ksoftirqd, 100);
	assert_int_equal(a.n, 2);
	assert_int_equal(a.n_own, 2);
	assert_int_equal(a.cpus[0].irqs, 1100);		/* ERR: is not per CPU */
	assert_int_equal(a.cpus[1].net_rx, 1000);

	/* cpu0: 200 ticks, busy 80 + 50 + 10 irq + 40 softirq + 10 steal = 190 (idle 10);
	 * own: thread 100 +91, new thread 102 5 = 96. IRQ time accounting: softirq 40 is
	 * the receive path -> others 54 = 27%; tick accounting: own holds its inline
	 * softirq, ksoftirqd/0 +30 -> others 64 = 32%.
	 * cpu1: 200 ticks, busy 20; own: thread 101 moved there, +10 -> others 10 = 5% */
	proc_put(dir, "cpu0 180 0 150 1010 0 20 90 10 0 0\n"
		      "cpu1 110 0 110 1180 0 10 50 0 0 0\n",
		 "           CPU0       CPU1       \n"
		 "  0:        150          5   IO-APIC   2-edge      timer\n"
		 "LOC:       1250       2100   Local timer interrupts\n"
		 "ERR:          9\n",
		 "                    CPU0       CPU1       \n"
		 "          HI:          0          0\n"
		 "      NET_RX:       2010       1100\n");
	thread_put(dir, 100, "bpflab-agent", 561, 130, 0);
	thread_put(dir, 101, "a (b) c", 25, 25, 1);
	thread_put(dir, 102, "xdpgen", 3, 2, 0);
	ksoftirqd_put(dir, 11, 0, 130);
	assert_int_equal(disturb_read(dir, &b), 0);
	assert_int_equal(b.n_own, 3);
	assert_float_equal(disturb_cpu_others(&a, &b, 0, true), 0.27, 1e-12);
	assert_float_equal(disturb_cpu_others(&a, &b, 1, true), 0.05, 1e-12);
	assert_float_equal(disturb_cpu_others(&a, &b, 0, false), 0.32, 1e-12);
	assert_float_equal(disturb_cpu_others(&a, &b, 1, false), 0.05, 1e-12);
	assert_true(disturb_irq_time("CONFIG_X=y\nCONFIG_IRQ_TIME_ACCOUNTING=y\n"));
	assert_false(disturb_irq_time("# CONFIG_IRQ_TIME_ACCOUNTING is not set\n"));
	assert_false(disturb_irq_time(NULL));

	assert_int_equal(disturb_measure(&a, &b, cpus, 1, 2.0, true, &w), 0);
	assert_float_equal(w.others, 0.27, 1e-12);
	assert_float_equal(w.steal, 0.05, 1e-12);
	assert_float_equal(w.irq_ps, 150, 1e-12);	/* (50 + 250) / 2 s */
	assert_int_equal(w.rx_cpu, 0);
	assert_float_equal(w.rx_share, 2000.0 / 2100, 1e-12);
	assert_string_equal(w.text, "cpu0 others 27% (steal 5%), 150 irq/s");
	/* every CPU: (54 + 10) / 400 */
	assert_int_equal(disturb_measure(&a, &b, NULL, 0, 2.0, true, &w), 0);
	assert_float_equal(w.others, 0.16, 1e-12);
	assert_int_equal(disturb_rx_cpus(&a, &b, 0.25, rx, 4), 1);
	assert_int_equal(rx[0], 0);
	assert_int_equal(disturb_rx_cpus(&a, &b, 0.01, rx, 4), 2);
	/* a CPU not in the first snapshot */
	cpus[0] = 7;
	assert_int_equal(disturb_measure(&a, &b, cpus, 1, 2.0, true, &w), -EINVAL);
	assert_true(w.others < 0);
	disturb_release(&a);
	disturb_release(&b);
	disturb_release(&b);		/* safe twice */

	/* no cpuN lines */
	proc_put(dir, "intr 1\n", "", "");
	assert_int_equal(disturb_read(dir, &a), -EINVAL);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
	/* the real /proc */
	assert_int_equal(disturb_read(NULL, &a), 0);
	assert_true(a.n >= 1 && a.n_own >= 1);
	disturb_release(&a);
}

static void test_verdict_disturbed(void **state)
{
	struct verdict_input in = {
		.rx_role = "b", .rx_cpu = 0,
		.others = { 0.35, 0.55 },
		.others_what = { "cpu0 others 35% (steal 0%), 120 irq/s",
				 "cpu0 others 55% (steal 1%), 130 irq/s" },
	};

	(void)state;
	expect(&in, "[\"disturbed\"]", "disturbed",
	       "others took 55% of the measured CPUs in the cost window (bound 35%): "
	       "cpu0 others 55% (steal 1%), 130 irq/s; receive softirq on cpu0");
	in.others[1] = 0.35;		/* the bound itself is not above it */
	expect(&in, "[]", NULL, NULL);
	in.others[0] = 0.36;
	in.others[1] = -1;		/* unknown */
	in.rx_cpu = -1;
	expect(&in, "[\"disturbed\"]", "disturbed",
	       "others took 36% of the measured CPUs in the rate window (bound 35%): "
	       "cpu0 others 35% (steal 0%), 120 irq/s");
	in.others[0] = -1;
	in.outliers = "port.rx_pps of 'b' second 3 below fence 6.2e+06";
	expect(&in, "[\"outlier-seconds\"]", "outlier-seconds",
	       "port.rx_pps of 'b' second 3 below fence 6.2e+06");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdict_series),
		cmocka_unit_test(test_verdict_rate),
		cmocka_unit_test(test_verdict_rate_held),
		cmocka_unit_test(test_verdict_rx_cpus),
		cmocka_unit_test(test_verdict_cpustat),
		cmocka_unit_test(test_verdict_disturb),
		cmocka_unit_test(test_verdict_disturbed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_agent_verdict.c - verdicts on fixed per-second series, and the /proc/stat shares
 * behind cpu.busy and cpu.softirq on fixed files. No privileges needed.
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
#include <unistd.h>

#include "cpustat.h"
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdict_series),
		cmocka_unit_test(test_verdict_rx_cpus),
		cmocka_unit_test(test_verdict_cpustat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

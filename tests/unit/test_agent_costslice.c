// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_agent_costslice.c - agent/costslice.c: the interrupt-free cost per run under
 * icount is the lowest per-slice average; slices an interrupt hit only raise their
 * average, slices without runs are ignored, seconds are forgotten once taken and the
 * whole window keeps its minimum. Pure logic over counter readings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>

#include "costslice.h"

/* Advance program 0 by RUNS runs of COST instructions each plus EXTRA instructions (an
 * interrupt's handler inside one run), then end a slice. */
static void slice(struct costslice *s, struct progstats *p, uint64_t runs, uint64_t cost,
		  uint64_t extra)
{
	p[0].run_cnt += runs;
	p[0].run_time_ns += runs * cost + extra;
	p[1].run_cnt += 1000;			/* program 1: always 40 per run */
	p[1].run_time_ns += 1000 * 40;
	costslice_add(s, p);
}

static void test_costslice_lowest_clean_slice(void **state)
{
	struct progstats p[2] = { { 123, 7000 }, { 5, 500 } };
	struct costslice s;

	(void)state;
	assert_int_equal(costslice_init(&s, 2, p), 0);
	/* second 0: a tick in the first slice, a packet in the third, one clean slice */
	slice(&s, p, 2000, 58, 3100);
	slice(&s, p, 1990, 58, 0);
	slice(&s, p, 2010, 58, 870);
	assert_true(costslice_take_second(&s, 0) == 58.0);
	assert_true(costslice_take_second(&s, 1) == 40.0);
	/* taken: the next second starts empty */
	assert_true(isnan(costslice_take_second(&s, 0)));
	/* second 1: every slice hit, and one slice without runs of program 0 */
	slice(&s, p, 2000, 58, 2000);
	slice(&s, p, 0, 58, 0);
	assert_true(costslice_take_second(&s, 0) == 59.0);
	/* the window keeps the clean slice of second 0 */
	assert_true(costslice_window(&s, 0) == 58.0);
	assert_true(costslice_window(&s, 1) == 40.0);
	assert_int_equal(s.slices, 5);
	assert_int_equal(s.used[0], 4);
	assert_int_equal(s.used[1], 5);
	costslice_release(&s);
}

static void test_costslice_no_runs(void **state)
{
	struct progstats p[1] = { { 0, 0 } };
	struct costslice s;

	(void)state;
	assert_int_equal(costslice_init(&s, 1, p), 0);
	costslice_add(&s, p);
	assert_true(isnan(costslice_take_second(&s, 0)));
	assert_true(isnan(costslice_window(&s, 0)));
	/* counters that went backwards (cannot happen within a job) are not a cost */
	p[0].run_cnt = 10;
	p[0].run_time_ns = 1000;
	costslice_add(&s, p);
	p[0].run_cnt = 5;
	p[0].run_time_ns = 100;
	costslice_add(&s, p);
	assert_true(costslice_window(&s, 0) == 100.0);
	costslice_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_costslice_lowest_clean_slice),
		cmocka_unit_test(test_costslice_no_runs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_agent_genboost.c - agent/genboost.c and its use by the pacing (gen.c), on real
 * threads of this process: a paced thread runs in SCHED_FIFO, genboost_seen() tells
 * once that one ran and in which class; a paced thread that never has to sleep (a rate
 * it cannot reach) goes back to SCHED_OTHER after GENBOOST_FLAT_NS, and an unpaced one
 * never changes class. Needs CAP_SYS_NICE (root); skipped without it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdint.h>

#include "base/util.h"
#include "gen.h"
#include "genboost.h"

/* Whether this process may use SCHED_FIFO at all (CAP_SYS_NICE or an RT limit). */
static bool fifo_permitted(void)
{
	struct sched_param sp = { .sched_priority = GENBOOST_RT_PRIO };
	pthread_t self = pthread_self();
	int policy;
	struct sched_param old;

	pthread_getschedparam(self, &policy, &old);
	if (pthread_setschedparam(self, SCHED_FIFO, &sp))
		return false;
	pthread_setschedparam(self, policy, &old);
	return true;
}

struct paced_run {
	uint64_t rate;		/* asked */
	int64_t run_ns;		/* how long to call gen_pace_next() */
	int policy_start;	/* the thread's class after gen_pace_init() */
	int policy_end;		/* and after the run */
	bool rt_end;		/* the pace's own record of it */
};

static void *paced_thread(void *arg)
{
	struct paced_run *r = arg;
	struct sched_param sp;
	struct gen_pace p;
	int64_t end;

	gen_pace_init(&p, r->rate, 1, 0, 0, 4096);
	pthread_getschedparam(pthread_self(), &r->policy_start, &sp);
	end = util_mono_ns() + r->run_ns;
	while (util_mono_ns() < end) {
		/* "send" the frames as a call would: 100 ns each, on the CPU */
		int64_t busy = util_mono_ns() + 100 * (int64_t)gen_pace_next(&p, 4096);

		while (util_mono_ns() < busy)
			;
	}
	pthread_getschedparam(pthread_self(), &r->policy_end, &sp);
	r->rt_end = p.rt;
	return NULL;
}

static void run_paced(struct paced_run *r)
{
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, paced_thread, r), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
}

/* 10,000 frames/s for 20 ms: it sleeps between wake-ups, so it stays in SCHED_FIFO */
static void test_paced_thread_fifo(void **state)
{
	struct paced_run r = { .rate = 10000, .run_ns = 20000000 };
	bool fifo, demoted;

	(void)state;
	if (!fifo_permitted())
		skip();
	genboost_seen(&fifo, &demoted);
	run_paced(&r);
	assert_int_equal(r.policy_start, SCHED_FIFO);
	assert_int_equal(r.policy_end, SCHED_FIFO);
	assert_true(r.rt_end);
	assert_int_equal(genboost_seen(&fifo, &demoted), 1);
	assert_true(fifo);
	assert_false(demoted);
	assert_int_equal(genboost_seen(&fifo, &demoted), 0);	/* once */
}

/* 1e12 frames/s: the bucket always holds frames, the thread never sleeps; after
 * GENBOOST_FLAT_NS it is back in SCHED_OTHER and the env says so */
static void test_flat_out_goes_back(void **state)
{
	struct paced_run r = { .rate = 1000000000000ULL, .run_ns = 2 * GENBOOST_FLAT_NS };
	bool fifo, demoted;

	(void)state;
	if (!fifo_permitted())
		skip();
	genboost_seen(&fifo, &demoted);
	run_paced(&r);
	assert_int_equal(r.policy_start, SCHED_FIFO);
	assert_int_equal(r.policy_end, SCHED_OTHER);
	assert_false(r.rt_end);
	assert_int_equal(genboost_seen(&fifo, &demoted), 1);
	assert_true(fifo);
	assert_true(demoted);
}

/* unpaced (rate 0): the class is left alone and nothing is seen */
static void test_unpaced_unchanged(void **state)
{
	struct paced_run r = { .rate = 0, .run_ns = 1000000 };
	bool fifo, demoted;

	(void)state;
	genboost_seen(&fifo, &demoted);
	run_paced(&r);
	assert_int_equal(r.policy_start, SCHED_OTHER);
	assert_int_equal(r.policy_end, SCHED_OTHER);
	assert_int_equal(genboost_seen(&fifo, &demoted), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paced_thread_fifo),
		cmocka_unit_test(test_flat_out_goes_back),
		cmocka_unit_test(test_unpaced_unchanged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

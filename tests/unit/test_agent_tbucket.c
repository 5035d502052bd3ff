/* test_agent_tbucket.c - the token bucket (agent/tbucket.h) on a clock driven by hand:
 * every figure below is worked out from rate x elapsed time, capped at the burst. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>

#include "tbucket.h"

#define MS 1000000ULL
#define S 1000000000ULL

/* 1000 tokens/s, burst 100, started empty at 0 */
static void test_tbucket_tokens(void **state)
{
	struct tbucket tb;

	(void)state;
	tbucket_init(&tb, 1000, 100, 0);
	assert_int_equal(tbucket_tokens(&tb, 0), 0);		/* starts empty */
	assert_int_equal(tbucket_tokens(&tb, 10 * MS), 10);	/* 10 ms x 1000/s */
	assert_int_equal(tbucket_take(&tb, 10 * MS, 5, 100), 10);
	assert_int_equal(tbucket_take(&tb, 10 * MS, 1, 100), 0);	/* nothing left */
	assert_int_equal(tbucket_wait_ns(&tb, 10 * MS, 5), 5 * MS);	/* 5 tokens: 5 ms */
	/* 2.5 ms later: 2.5 tokens, 2 whole; fewer than MIN 3: nothing taken */
	assert_int_equal(tbucket_take(&tb, 12500000, 3, 100), 0);
	assert_int_equal(tbucket_take(&tb, 12500000, 1, 1), 1);	/* MAX 1; 1.5 left */
	assert_int_equal(tbucket_wait_ns(&tb, 12500000, 2), 500000);	/* 0.5 token */
	assert_int_equal(tbucket_tokens(&tb, 13 * MS), 2);
}

/* a long pause fills the bucket to the burst only; the clock going back adds nothing */
static void test_tbucket_burst(void **state)
{
	struct tbucket tb;

	(void)state;
	tbucket_init(&tb, 1000, 100, 0);
	assert_int_equal(tbucket_tokens(&tb, 10 * S), 100);
	assert_int_equal(tbucket_take(&tb, 10 * S, 1, 40), 40);
	assert_int_equal(tbucket_tokens(&tb, 5 * S), 60);		/* back in time */
	assert_int_equal(tbucket_tokens(&tb, 10 * S + 20 * MS), 80);	/* from 10 s on */
	/* more than the burst is waited for as the burst: 100 tokens from 80, 20 ms */
	assert_int_equal(tbucket_wait_ns(&tb, 10 * S + 20 * MS, 500), 20 * MS);
	assert_int_equal(tbucket_wait_ns(&tb, 10 * S + 20 * MS, 80), 0);
}

/* the rate a sender gets: one take per ms for a second at 100000/s is 100000 frames,
 * whatever the batches' sizes */
static void test_tbucket_rate(void **state)
{
	struct tbucket tb;
	uint64_t t, sent = 0;

	(void)state;
	tbucket_init(&tb, 100000, 5000, 0);
	for (t = 1 * MS; t <= S; t += MS)
		sent += tbucket_take(&tb, t, 64, 5000);	/* 100 a ms, MIN 64 */
	assert_int_equal(sent, 100000);
	/* a sender held up for 300 ms gets the burst (5000), not the 30000 it missed */
	assert_int_equal(tbucket_take(&tb, S + 300 * MS, 1, UINT64_MAX), 5000);
	/* the limits: 1e9/s, burst 1e6; half a ms from empty is 500000 tokens */
	tbucket_init(&tb, 1000000000, 1000000, 7);
	assert_int_equal(tbucket_tokens(&tb, 7 + MS / 2), 500000);
	assert_int_equal(tbucket_tokens(&tb, 7 + 3600 * S), 1000000);
	/* out of range rates and bursts are clamped to 1..1e9 */
	tbucket_init(&tb, 0, 0, 0);
	assert_int_equal(tbucket_tokens(&tb, 10 * S), 1);
	assert_int_equal(tbucket_wait_ns(&tb, 10 * S, 2), 0);	/* beyond the burst: 1 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tbucket_tokens),
		cmocka_unit_test(test_tbucket_burst),
		cmocka_unit_test(test_tbucket_rate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

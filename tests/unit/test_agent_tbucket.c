// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_agent_tbucket.c - the token bucket (agent/tbucket.h) on a clock driven by hand:
 * every figure below is worked out from rate x elapsed time, capped at the burst; and a
 * paced thread's record of its batches (agent/gen.h, struct gen_paced). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>

#include "gen.h"
#include "tbucket.h"

#define MS 1000000ULL
#define S 1000000000ULL
#define MIN(a, b) ((a) < (b) ? (a) : (b))

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

/* A paced thread's first gen_pace_next: its record starts at the bucket's start, and the
 * batch it takes is every whole token owed until the take (1e6/s: 1 per us, below the
 * burst of 200000, which a thread held up 200 ms gets), whenever that was. */
static void test_gen_pace_take(void **state)
{
	struct gen_pace p;
	uint64_t n = 0;

	(void)state;
	gen_pace_init(&p, 1000000, 1, 0, 64);
	assert_true(p.on);
	assert_int_equal(p.min, 1000);			/* 1 ms of frames */
	assert_int_equal(p.take_ns, p.start_ns);
	while (!n)
		n = gen_pace_next(&p, UINT64_MAX);
	assert_true(p.take_ns > p.start_ns);
	assert_int_equal(n, MIN((uint64_t)(p.take_ns - p.start_ns) / 1000, 200000));
	assert_true(n >= 1000);
}

/* An xdp-live thread at 100000/s whose every call waits 10 ms before its frames go out
 * and 10 ms after (the kernel's RCU waits): calls at 1, 21, 41 ... 241 ms, each taking
 * what the bucket filled since the last (100 frames at 1 ms, then 2000), frames out at
 * 11, 31 ... 251 ms. A 250 ms trial: its frames' count from the first out (100 at 11 ms)
 * to the end (22100: call 13's are out at 251 ms) is 22000 in 239 ms, 92050 frames/s,
 * 7.9 % short; the record of the finished calls (12, the last taken at 221 ms and back at
 * 241) is 22100 frames owed in 221 ms: 100000. Held up 300 ms after that, the thread takes
 * the burst (200 ms, 20000 frames), not the 30000 owed: 42100 in 521 ms, 80806 (short). */
static void test_gen_paced_bursts(void **state)
{
	struct gen_pace p = { .on = true, .min = 100, .start_ns = 0 };
	struct gen_paced d = { 0 };
	uint64_t sent = 0, first = 0, n;
	int64_t s, t_first = 0;

	(void)state;
	tbucket_init(&p.tb, 100000, 20000, 0);
	assert_true(gen_paced_rate(&d, 1, 0) < 0);		/* no record yet */
	for (s = 1 * MS; s + 20 * MS <= 250 * MS; s += 20 * MS) {
		n = tbucket_take(&p.tb, (uint64_t)s, p.min, UINT64_MAX);
		p.take_ns = s;
		sent += n;
		if (!first) {
			first = sent;
			t_first = s + 10 * MS;
		}
		gen_paced_add(&d, &p, n);
	}
	assert_int_equal(s, 241 * MS);			/* call 13: out at 251 ms */
	assert_int_equal(first, 100);
	assert_int_equal(sent, 22100);
	assert_int_equal(d.frames, 22100);
	assert_int_equal(d.owed_ns, 221 * MS);
	assert_float_equal((double)(sent - first) / ((250 * MS - t_first) / 1e9), 92050.2,
			   0.1);
	assert_float_equal(gen_paced_rate(&d, 1, 0), 100000, 1e-6);
	/* a record spanning less than the trial asks: none */
	assert_true(gen_paced_rate(&d, 1, 222 * MS) < 0);
	n = tbucket_take(&p.tb, 521 * MS, p.min, UINT64_MAX);
	p.take_ns = 521 * MS;
	gen_paced_add(&d, &p, n);
	assert_int_equal(n, 20000);
	assert_float_equal(gen_paced_rate(&d, 1, 0), 80806.14, 0.01);
}

/* Two threads' records add up (50000 + 40000 frames/s); one without a record: none. */
static void test_gen_paced_threads(void **state)
{
	struct gen_paced d[2] = {
		{ .frames = 5000, .start_ns = 7 * MS, .owed_ns = 107 * MS },
		{ .frames = 6000, .start_ns = 8 * MS, .owed_ns = 158 * MS },
	};

	(void)state;
	assert_float_equal(gen_paced_rate(d, 2, 100 * MS), 90000, 1e-6);
	d[1].owed_ns = 0;
	assert_true(gen_paced_rate(d, 2, 0) < 0);
	assert_true(gen_paced_rate(d, 0, 0) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tbucket_tokens),
		cmocka_unit_test(test_tbucket_burst),
		cmocka_unit_test(test_tbucket_rate),
		cmocka_unit_test(test_gen_pace_take),
		cmocka_unit_test(test_gen_paced_bursts),
		cmocka_unit_test(test_gen_paced_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

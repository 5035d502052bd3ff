// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* test_agent_tbucket.c - the token bucket (agent/tbucket.h) on a clock driven by hand:
 * every figure below is worked out from rate x elapsed time, capped at the burst; and a
 * paced thread's record of its batches (agent/gen.h, struct gen_paced). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
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

/* The interval and the cap (gen.h, struct gen_pace), on a clock driven by hand: at
 * 100000/s a wake-up owes 10 frames (100 us) and the cap is 25 (250 us); a deadline is
 * where the bucket holds 10, absolute: a wake-up 100 us late takes the 20 owed at once
 * (carried, no shortfall) and the next deadline is 100 us after the last one, not after
 * the late wake-up; one 400 us late takes the cap, 25, and the 14 above the full bucket
 * (25 and a frame) are its shortfall. Taken at every deadline for 1 s: exactly the rate. */
static void test_gen_pace_deadline(void **state)
{
	struct gen_pace p;
	int64_t t;
	uint64_t sent = 0;

	(void)state;
	gen_pace_init_at(&p, 100000, 1, 0, 0, 4096, 0);
	assert_true(p.on);
	assert_true(p.auto_burst);
	assert_int_equal(p.per, 10);
	assert_int_equal(p.burst, 25);
	assert_int_equal(gen_pace_deadline(&p, 0), 100000);
	assert_int_equal(gen_pace_take(&p, 50000, UINT64_MAX), 5);	/* early: what is there */
	assert_int_equal(gen_pace_deadline(&p, 50000), 150000);
	assert_int_equal(gen_pace_take(&p, 150000, UINT64_MAX), 10);
	assert_int_equal(gen_pace_deadline(&p, 150000), 250000);
	assert_int_equal(gen_pace_take(&p, 350000, UINT64_MAX), 20);	/* 100 us late */
	assert_int_equal(gen_pace_shortfall(&p), 0);
	assert_int_equal(gen_pace_deadline(&p, 350000), 450000);
	assert_int_equal(gen_pace_take(&p, 750000, UINT64_MAX), 25);	/* 400 us late */
	assert_int_equal(gen_pace_shortfall(&p), 14);
	assert_int_equal(p.max_taken, 25);
	assert_int_equal(p.take_ns, 750000);
	assert_int_equal(gen_pace_take(&p, 750000, 1), 1);		/* the frame more */
	/* a second at every deadline: the rate to the frame, bursts of 10 */
	gen_pace_init_at(&p, 100000, 1, 0, 0, 4096, 0);
	for (t = gen_pace_deadline(&p, 0); t <= (int64_t)S; t = gen_pace_deadline(&p, t))
		sent += gen_pace_take(&p, t, UINT64_MAX);
	assert_int_equal(sent, 100000);
	assert_int_equal(p.max_taken, 10);
	assert_int_equal(gen_pace_shortfall(&p), 0);
}

/* Hold-ups (gen.h, GEN_PACE_HELD_NS), on a clock driven by hand at 100000/s (cap 25,
 * the bucket 26): two takes 100 us apart set a frame's cost (10 us: 100 us for 10); a
 * take 2 ms later, not asked to sleep, is a hold-up (2 ms, over 250 us and 4 x 10 frames'
 * cost; the 200 frames owed less the 26 the bucket holds spilled over it, its shortfall
 * all held); a 3 ms gap of which the thread asked to sleep 2.95 ms is not (its spill is
 * shortfall, not held); 0.9 ms gaps without a sleep are the thread's own time (busy),
 * and asking to sleep clears that. At 14 Mpps into a slow path, calls of the 3500-frame
 * cap taking 3.5 ms each are the thread's own (no hold-up, all shortfall), a 20 ms gap
 * is one. A 0.5 ms gap after calls of 10 frames is one (over the cap's 250 us: 24 of the
 * 50 owed spilled); with traffic.burst 1000 (10 ms at 100000/s) a 2 ms gap is not (it
 * spills nothing). */
/* P paced at 100000/s with BURST (0: auto), two takes of 10 frames 100 us apart: a
 * frame's cost is 10 us. */
static void pace_two_takes(struct gen_pace *p, uint64_t burst)
{
	gen_pace_init_at(p, 100000, 1, 0, burst, 4096, 0);
	assert_int_equal(gen_pace_take(p, 100000, UINT64_MAX), 10);
	assert_int_equal(gen_pace_take(p, 200000, UINT64_MAX), 10);
}

static void test_gen_pace_held(void **state)
{
	struct gen_pace_stats st;
	struct gen_pace p;
	int64_t t;

	(void)state;
	pace_two_takes(&p, 0);
	assert_int_equal(p.frame_ns, 10000);
	assert_int_equal(p.held_n, 0);
	assert_int_equal(p.busy_ns, 200000);
	assert_int_equal(gen_pace_take(&p, 2200000, UINT64_MAX), 25);
	assert_int_equal(p.held_n, 1);
	assert_int_equal(p.held_ns, 2000000);
	assert_int_equal(gen_pace_shortfall(&p), 174);
	assert_int_equal(p.held, 174);
	assert_int_equal(p.busy_ns, 200000);		/* a hold-up is not its own time */
	gen_pace_slept(&p, 2950000);
	assert_int_equal(p.busy_ns, 0);
	assert_int_equal(gen_pace_take(&p, 5200000, UINT64_MAX), 25);
	assert_int_equal(p.held_n, 1);
	assert_int_equal(gen_pace_shortfall(&p), 174 + 275);
	assert_int_equal(p.held, 174);
	assert_int_equal(p.busy_ns, 50000);
	assert_int_equal(gen_pace_take(&p, 6100000, UINT64_MAX), 25);
	assert_int_equal(gen_pace_take(&p, 7000000, UINT64_MAX), 25);
	assert_int_equal(p.held_n, 1);
	assert_int_equal(p.busy_ns, 50000 + 2 * 900000);
	gen_pace_stats_of(&p, &st);
	assert_int_equal(st.held, 174);
	assert_int_equal(st.held_n, 1);
	assert_int_equal(st.held_ns, 2000000);
	assert_int_equal(st.shortfall, gen_pace_shortfall(&p));
	/* flat out with calls of ms: its own, then one hold-up */
	gen_pace_init_at(&p, 14000000, 1, 0, 0, 4096, 0);
	assert_int_equal(p.burst, 3500);
	for (t = 3500000; t <= 35000000; t += 3500000)
		assert_int_equal(gen_pace_take(&p, t, UINT64_MAX), 3500);
	assert_int_equal(p.held_n, 0);
	assert_true(gen_pace_shortfall(&p) > 0);
	assert_int_equal(gen_pace_take(&p, t + 16500000, UINT64_MAX), 3500);
	assert_int_equal(p.held_n, 1);
	assert_int_equal(p.held_ns, 20000000);
	/* between the cap and 1 ms */
	pace_two_takes(&p, 0);
	assert_int_equal(p.held_min_ns, 250000);
	assert_int_equal(gen_pace_take(&p, 700000, UINT64_MAX), 25);
	assert_int_equal(p.held_n, 1);
	assert_int_equal(p.held_ns, 500000);
	assert_int_equal(p.held, 24);
	assert_int_equal(gen_pace_shortfall(&p), 24);
	/* a burst of 10 ms */
	pace_two_takes(&p, 1000);
	assert_int_equal(p.held_min_ns, 10000000);
	assert_int_equal(gen_pace_take(&p, 2200000, UINT64_MAX), 200);
	assert_int_equal(p.held_n, 0);
	assert_int_equal(gen_pace_shortfall(&p), 0);
}

/* Interval and cap by rate and asked burst: 1 where it can (1000/s: a frame a wake-up,
 * cap 1), 30 and 75 at 300000/s, an asked burst both caps and bounds a wake-up, what one
 * call can send bounds both; off: MAX at once. The real clock: a take after the deadline
 * (at least the PER frames, at most the burst). */
static void test_gen_pace_sizes(void **state)
{
	struct gen_pace_stats st[2], sum;
	struct gen_pace p;
	uint64_t n = 0;

	(void)state;
	gen_pace_init_at(&p, 1000, 1, 0, 0, 4096, 0);
	assert_int_equal(p.per, 1);
	assert_int_equal(p.burst, 1);
	assert_int_equal(gen_pace_deadline(&p, 0), MS);
	gen_pace_init_at(&p, 300000, 1, 0, 0, 4096, 0);
	assert_int_equal(p.per, 30);
	assert_int_equal(p.burst, 75);
	gen_pace_init_at(&p, 600000, 2, 1, 0, 4096, 0);		/* a thread's share */
	assert_int_equal(p.rate, 300000);
	assert_int_equal(p.burst, 75);
	gen_pace_init_at(&p, 1000000, 1, 0, 16, 4096, 0);
	assert_false(p.auto_burst);
	assert_int_equal(p.per, 16);
	assert_int_equal(p.burst, 16);
	gen_pace_init_at(&p, 10000000, 1, 0, 0, 64, 0);
	assert_int_equal(p.per, 64);
	assert_int_equal(p.burst, 64);
	gen_pace_init_at(&p, 1000, 1, 0, 100, 64, 0);
	assert_int_equal(p.burst, 64);
	gen_pace_init(&p, 0, 1, 0, 16, 4096);
	assert_false(p.on);
	assert_int_equal(gen_pace_next(&p, 99), 99);
	assert_int_equal(gen_pace_shortfall(&p), 0);
	gen_pace_init(&p, 1000000, 1, 0, 16, 4096);
	while (!n)
		n = gen_pace_next(&p, UINT64_MAX);
	assert_true(p.take_ns >= p.start_ns + 16000);
	assert_in_range(n, 16, 16);
	gen_pace_stats_of(&p, &st[0]);
	assert_int_equal(st[0].burst, 16);
	assert_false(st[0].auto_burst);
	st[1] = (struct gen_pace_stats){ .burst = 7, .shortfall = 5, .auto_burst = true };
	st[0].shortfall = 2;
	assert_int_equal(gen_pace_stats_sum(st, 2, &sum), 0);
	assert_int_equal(sum.burst, 16);
	assert_int_equal(sum.shortfall, 7);
	assert_true(sum.auto_burst);
	assert_int_equal(gen_pace_stats_sum(st, 0, &sum), -ENOENT);
}

/* Bounded bursts: a bucket of 16 at 100000/s held up 10 ms gives 16 frames, and the
 * 984 it owed beyond them spill (the shortfall); a smaller burst spills what is above
 * it; taken every 100 us (10 frames) nothing spills. */
static void test_tbucket_spill(void **state)
{
	struct tbucket tb;
	uint64_t t, sent = 0;

	(void)state;
	tbucket_init(&tb, 100000, 16, 0);
	assert_int_equal(tbucket_take(&tb, 10 * MS, 1, UINT64_MAX), 16);
	assert_int_equal(tb.spilled, 1000 - 16);
	tbucket_init(&tb, 100000, 16, 0);
	for (t = 100000; t <= S; t += 100000)
		sent += tbucket_take(&tb, t, 1, UINT64_MAX);
	assert_int_equal(sent, 100000);
	assert_int_equal(tb.spilled, 0);
	assert_int_equal(tbucket_tokens(&tb, S + 150000), 15);	/* 15 of 16 */
	tbucket_set_burst(&tb, 4);
	assert_int_equal(tbucket_tokens(&tb, S + 150000), 4);
	assert_int_equal(tb.spilled, 11);
	/* a pause of 1e9 s at 1e9/s: 1e18 tokens, spilled without overflow */
	tbucket_init(&tb, TBUCKET_MAX, 1, 0);
	assert_int_equal(tbucket_tokens(&tb, 1000000000ULL * S), 1);
	assert_int_equal(tb.spilled, 1000000000ULL * 1000000000ULL - 1);
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
	struct gen_pace p = { .on = true, .start_ns = 0 };
	const uint64_t min = 100;
	struct gen_paced d = { 0 };
	uint64_t sent = 0, first = 0, n;
	int64_t s, t_first = 0;

	(void)state;
	tbucket_init(&p.tb, 100000, 20000, 0);
	assert_true(gen_paced_rate(&d, 1, 0) < 0);		/* no record yet */
	for (s = 1 * MS; s + 20 * MS <= 250 * MS; s += 20 * MS) {
		n = tbucket_take(&p.tb, (uint64_t)s, min, UINT64_MAX);
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
	n = tbucket_take(&p.tb, 521 * MS, min, UINT64_MAX);
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
		cmocka_unit_test(test_gen_pace_deadline),
		cmocka_unit_test(test_gen_pace_held),
		cmocka_unit_test(test_tbucket_spill),
		cmocka_unit_test(test_gen_pace_sizes),
		cmocka_unit_test(test_gen_paced_bursts),
		cmocka_unit_test(test_gen_paced_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

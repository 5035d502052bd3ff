// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* tbucket.c - see tbucket.h. */
#include "tbucket.h"

#define NS 1000000000ULL

static uint64_t clamp(uint64_t v)
{
	return v < 1 ? 1 : v > TBUCKET_MAX ? TBUCKET_MAX : v;
}

void tbucket_init(struct tbucket *tb, uint64_t rate, uint64_t burst, uint64_t now_ns)
{
	tb->rate = clamp(rate);
	tb->cap = clamp(burst) * NS;
	tb->level = 0;
	tb->last_ns = now_ns;
	tb->spilled = 0;
	tb->spill_frac = 0;
}

/* Count AMOUNT token-nanoseconds as spilled. */
static void spill(struct tbucket *tb, unsigned __int128 amount)
{
	amount += tb->spill_frac;
	tb->spilled += (uint64_t)(amount / NS);
	tb->spill_frac = (uint64_t)(amount % NS);
}

void tbucket_set_burst(struct tbucket *tb, uint64_t burst)
{
	tb->cap = clamp(burst) * NS;
	if (tb->level > tb->cap) {
		spill(tb, tb->level - tb->cap);
		tb->level = tb->cap;
	}
}

/* Add what flowed in since the last refill, what the full bucket cannot hold spilled
 * (in 128 bits: dt x rate reaches 1e27 after a pause of 1e9 s at 1e9/s). */
static void refill(struct tbucket *tb, uint64_t now_ns)
{
	unsigned __int128 in;
	uint64_t room;

	if (now_ns <= tb->last_ns)
		return;
	in = (unsigned __int128)(now_ns - tb->last_ns) * tb->rate;
	tb->last_ns = now_ns;
	room = tb->cap - tb->level;
	if (in > room) {
		spill(tb, in - room);
		tb->level = tb->cap;
	} else {
		tb->level += (uint64_t)in;
	}
}

uint64_t tbucket_tokens(struct tbucket *tb, uint64_t now_ns)
{
	refill(tb, now_ns);
	return tb->level / NS;
}

uint64_t tbucket_take(struct tbucket *tb, uint64_t now_ns, uint64_t min, uint64_t max)
{
	uint64_t n = tbucket_tokens(tb, now_ns);

	if (n < (min ? min : 1))
		return 0;
	if (n > max)
		n = max;
	tb->level -= n * NS;
	return n;
}

uint64_t tbucket_wait_ns(struct tbucket *tb, uint64_t now_ns, uint64_t n)
{
	uint64_t need = n > TBUCKET_MAX ? tb->cap : n * NS;

	refill(tb, now_ns);
	if (need > tb->cap)
		need = tb->cap;
	if (tb->level >= need)
		return 0;
	return (need - tb->level + tb->rate - 1) / tb->rate;
}

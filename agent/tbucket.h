/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* tbucket.h - a token bucket on a caller's clock: how a rate-controlled generator
 * (xdpgen.c, udpgen.c) paces its batches (traffic.rate, docs/plans.md).
 *
 * Tokens (frames) flow in at RATE per second up to BURST; a sender takes a batch when at
 * least MIN are there (all there are, up to MAX) and else sleeps tbucket_wait_ns(). The
 * bucket starts empty, so the first second sends RATE frames, not RATE + BURST; a long
 * pause refills it to BURST only, so a sender that was held up does not catch up with a
 * storm: what flows in while it is full is counted as spilled (a paced sender's
 * shortfall). tbucket_set_burst() changes BURST on the way. The clock is an argument (ns, monotonic): tests drive it by hand. Integer
 * arithmetic in token-nanoseconds (tokens x 1e9), exact for RATE and BURST up to 1e9.
 * One bucket per thread; no locking.
 */
#ifndef BPFLAB_AGENT_TBUCKET_H
#define BPFLAB_AGENT_TBUCKET_H

#include <stdint.h>

#define TBUCKET_MAX 1000000000ULL	/* RATE and BURST limit */

struct tbucket {
	uint64_t rate;		/* tokens per second, 1..TBUCKET_MAX */
	uint64_t cap;		/* BURST x 1e9 */
	uint64_t level;		/* tokens x 1e9, 0..cap */
	uint64_t last_ns;	/* the clock at the last refill */
	uint64_t spilled;	/* whole tokens that flowed into the full bucket (lost) */
	uint64_t spill_frac;	/* and the part of one, tokens x 1e9 */
};

/* An empty bucket filling at RATE tokens/s up to BURST tokens (both clamped to
 * 1..TBUCKET_MAX), its clock at NOW_NS. */
void tbucket_init(struct tbucket *tb, uint64_t rate, uint64_t burst, uint64_t now_ns);
/* Make the bucket hold BURST tokens at most (clamped to 1..TBUCKET_MAX); tokens above
 * a smaller BURST are spilled. */
void tbucket_set_burst(struct tbucket *tb, uint64_t burst);
/* Whole tokens in the bucket at NOW_NS (a clock going backwards counts as no time). */
uint64_t tbucket_tokens(struct tbucket *tb, uint64_t now_ns);
/* Take all whole tokens there are at NOW_NS, at most MAX, when there are at least MIN
 * (>= 1); returns how many were taken, 0 when fewer than MIN were there. */
uint64_t tbucket_take(struct tbucket *tb, uint64_t now_ns, uint64_t min, uint64_t max);
/* Nanoseconds from NOW_NS until N tokens are there (0: they are now; N above BURST is
 * waited for as BURST). */
uint64_t tbucket_wait_ns(struct tbucket *tb, uint64_t now_ns, uint64_t n);

#endif

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* latency_shared.h - what the latency stamp's writer (bpf/xdp_gen.bpf.c), its reader
 * (bpf/latency_rx.bpf.c) and user space (lib/analysis/latency.c, agent/job_latency.c)
 * share: the payload each stamped frame carries, the log-linear histogram's bucket math
 * and the per-stream sequence tracking. The functions are pure and used as they are on
 * both sides (BPF: under the stream's spin lock), so the unit tests hold the BPF side
 * too (tests/unit/test_latency.c).
 *
 * Payload (right after the UDP header, host byte order: one host writes and reads it):
 * magic (16 bits), stream (16 bits: the sending CPU), seq (32 bits: that CPU's frame
 * number since the generator was made), ts_ns (64 bits: bpf_ktime_get_ns() when the
 * frame was handed to XDP_TX).
 *
 * Histogram: values below LAT_SUB ns have a bucket each; above, each power of two
 * [2^e, 2^(e+1)) is cut into LAT_SUB equal buckets (at most 1/LAT_SUB = 6.25 % wide,
 * relative to the lower bound); values of 2^(LAT_TOP_EXP+1) ns (about 18 minutes) and
 * more share the last bucket.
 */
#ifndef BPFLAB_LATENCY_SHARED_H
#define BPFLAB_LATENCY_SHARED_H

#include <linux/types.h>

#define LAT_MAGIC 0xb1abu
#define LAT_PAYLOAD_LEN 16
#define LAT_MAX_STREAMS 256		/* streams (sending CPUs) tracked; more: foreign */
#define LAT_SUB_BITS 4
#define LAT_SUB (1u << LAT_SUB_BITS)
#define LAT_TOP_EXP 39
#define LAT_BUCKETS ((LAT_TOP_EXP - LAT_SUB_BITS + 2) * LAT_SUB)	/* 592 */
#define LAT_WINDOW 64			/* seqs behind the newest told apart (dup/reorder) */

struct lat_payload {
	__u16 magic;
	__u16 stream;
	__u32 seq;
	__u64 ts_ns;
} __attribute__((packed));

/* Per CPU of the receiver: frames with a valid stamp (and their latency), and the rest. */
struct lat_stats {
	__u64 frames;
	__u64 foreign;			/* no stamp, a bad one, or one from the future */
	__u64 sum_ns;
	__u64 min_ns;			/* valid when frames > 0 */
	__u64 max_ns;
	__u64 last_ns;			/* the last stamped frame's arrival */
	__u64 run;			/* stamped frames in the current burst */
	__u64 burst_max;		/* the largest burst (bpf/gap_shared.h) */
};

/* One stream's sequence state: NEXT is one past the highest seq seen; bit i of WINDOW
 * says whether seq NEXT-1-i was seen. */
struct lat_seq {
	__u64 next;
	__u64 window;
	__u64 received;			/* frames of the stream, duplicates included */
	__u64 reordered;		/* arrived after a higher seq (and not seen before) */
	__u64 duplicated;		/* seen before (within LAT_WINDOW of the newest) */
};

enum lat_seq_kind { LAT_SEQ_NEXT, LAT_SEQ_GAP, LAT_SEQ_LATE, LAT_SEQ_DUP };

/* The index of the highest set bit of V (V > 0). */
static __always_inline int lat_msb64(__u64 v)
{
	int r = 0;

	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8) { v >>= 8; r += 8; }
	if (v >> 4) { v >>= 4; r += 4; }
	if (v >> 2) { v >>= 2; r += 2; }
	if (v >> 1) r += 1;
	return r;
}

/* The bucket of latency NS, 0 .. LAT_BUCKETS-1. */
static __always_inline __u32 lat_bucket(__u64 ns)
{
	int e;

	if (ns < LAT_SUB)
		return (__u32)ns;
	e = lat_msb64(ns);
	if (e > LAT_TOP_EXP)
		return LAT_BUCKETS - 1;
	return (__u32)((e - LAT_SUB_BITS + 1) * LAT_SUB + ((ns >> (e - LAT_SUB_BITS)) & (LAT_SUB - 1)));
}

/* The lowest value of bucket B, and its width (the highest value is low + width - 1). */
static __always_inline __u64 lat_bucket_low(__u32 b)
{
	__u32 g = b >> LAT_SUB_BITS;

	if (!g)
		return b;
	return (__u64)(LAT_SUB + (b & (LAT_SUB - 1))) << (g - 1);
}

static __always_inline __u64 lat_bucket_width(__u32 b)
{
	__u32 g = b >> LAT_SUB_BITS;

	return g ? 1ull << (g - 1) : 1;
}

/* Account SEQ to stream S: in order (NEXT), after a gap (GAP: frames between are missing
 * so far), late (LATE: a missing frame arrived, counted reordered) or seen before (DUP).
 * A frame more than LAT_WINDOW behind the newest counts as late: too old to tell. */
static __always_inline enum lat_seq_kind lat_seq_update(struct lat_seq *s, __u32 seq)
{
	__u64 d, shift;

	s->received++;
	if (seq >= s->next) {
		shift = seq - s->next + 1;
		s->window = shift >= LAT_WINDOW ? 0 : s->window << shift;
		s->window |= 1;
		s->next = (__u64)seq + 1;
		return shift == 1 ? LAT_SEQ_NEXT : LAT_SEQ_GAP;
	}
	d = s->next - 1 - seq;
	if (d < LAT_WINDOW) {
		if ((s->window >> d) & 1) {
			s->duplicated++;
			return LAT_SEQ_DUP;
		}
		s->window |= 1ull << d;
	}
	s->reordered++;
	return LAT_SEQ_LATE;
}

#endif

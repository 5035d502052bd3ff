/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* gap_shared.h - the spacing of arriving frames, as bpf/gap_rx.bpf.c (bench/pacing.c)
 * and bpf/latency_rx.bpf.c (agent/job_latency.c) record it: a log-linear histogram of
 * inter-arrival gaps and the largest burst (frames that arrived less than half a target
 * gap after the one before). */
#ifndef BPFLAB_GAP_SHARED_H
#define BPFLAB_GAP_SHARED_H

#define GAP_BUCKETS 256	/* 4 per power of two of nanoseconds */

struct gap_stats {
	__u64 frames;
	__u64 first_ns, last_ns;	/* bpf_ktime_get_ns() of the first and last frame */
	__u64 run;			/* frames in the current burst */
	__u64 burst_max;		/* the largest burst */
};

/* The bucket of a gap of NS nanoseconds: 4 x log2(NS) plus the next two bits (0..255),
 * so each bucket spans at most a quarter of its lower edge. */
static inline unsigned int gap_bucket(__u64 ns)
{
	__u64 v = ns;
	unsigned int p = 0;

	if (ns < 4)
		return (unsigned int)ns;
	if (v >> 32) { p += 32; v >>= 32; }
	if (v >> 16) { p += 16; v >>= 16; }
	if (v >> 8) { p += 8; v >>= 8; }
	if (v >> 4) { p += 4; v >>= 4; }
	if (v >> 2) { p += 2; v >>= 2; }
	if (v >> 1) { p += 1; }
	return 4 * p + (unsigned int)((ns >> (p - 2)) & 3);
}

/* The lower edge of bucket B, ns (the inverse of gap_bucket). */
static inline __u64 gap_bucket_ns(unsigned int b)
{
	if (b < 4)
		return b;
	return (__u64)(4 + (b & 3)) << (b / 4 - 2);
}

#ifndef __bpf__
/* The percentile Q (0..1) of the gaps counted in HIST (GAP_BUCKETS counts), ns: the lower
 * edge of the bucket it falls in; 0 without gaps. */
static inline double gap_percentile(const __u64 *hist, double q)
{
	__u64 total = 0, seen = 0;
	unsigned int b;

	for (b = 0; b < GAP_BUCKETS; b++)
		total += hist[b];
	for (b = 0; b < GAP_BUCKETS && total; b++) {
		seen += hist[b];
		if ((double)seen >= q * (double)total)
			return (double)gap_bucket_ns(b);
	}
	return 0;
}
#endif

#endif

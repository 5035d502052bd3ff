/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* latency.h - one-way latency figures from the receiving program's log-linear histogram
 * (bpf/latency_shared.h has the bucket math): percentiles, the subject a latency sample
 * carries, and a histogram as JSON. Pure functions; used by the agent (agent/
 * job_latency.c) and the latency table (lib/report/report_latency.c).
 */
#ifndef BPFLAB_ANALYSIS_LATENCY_H
#define BPFLAB_ANALYSIS_LATENCY_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* The percentiles of a window's histogram (ns): each the highest value of the bucket
 * that holds the ceil(q * count)-th smallest latency, kept within [min, max] (which the
 * program measures exactly), so that min <= p50 <= p90 <= p99 <= p999 <= max. */
struct latency_summary {
	uint64_t count;
	uint64_t min, p50, p90, p99, p999, max;
};

/* Quantile Q (0 < Q <= 1) of HIST (N buckets, COUNT values in all), clamped to
 * [MIN, MAX]; 0 when COUNT is 0. */
uint64_t latency_quantile(const uint64_t *hist, size_t n, uint64_t count, double q,
			  uint64_t min, uint64_t max);

/* The summary of HIST (N buckets) with the exact MIN and MAX into OUT (all 0 without
 * values). */
void latency_summarize(const uint64_t *hist, size_t n, uint64_t min, uint64_t max,
		       struct latency_summary *out);

/* The subject of a latency sample: "PORT@10%" for a share of the PDR, "PORT@50000" for
 * frames/s, into OUT (LEN bytes). */
const char *latency_subject(const char *port, double share, int64_t pps, char *out,
			    size_t len);

/* HIST's non-empty buckets as [[low_ns, high_ns, count], ...] (a new reference), or
 * NULL (ENOMEM). */
json_t *latency_hist_json(const uint64_t *hist, size_t n);

#endif

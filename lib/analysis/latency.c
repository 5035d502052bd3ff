// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* latency.c - see latency.h. */
#include "analysis/latency.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "latency_shared.h"

uint64_t latency_quantile(const uint64_t *hist, size_t n, uint64_t count, double q,
			  uint64_t min, uint64_t max)
{
	uint64_t rank, seen = 0, v = max;
	size_t b;

	if (!count)
		return 0;
	rank = (uint64_t)ceil(q * (double)count);
	if (rank < 1)
		rank = 1;
	for (b = 0; b < n; b++) {
		seen += hist[b];
		if (seen >= rank) {
			v = lat_bucket_low((uint32_t)b) + lat_bucket_width((uint32_t)b) - 1;
			break;
		}
	}
	return v < min ? min : v > max ? max : v;
}

void latency_summarize(const uint64_t *hist, size_t n, uint64_t min, uint64_t max,
		       struct latency_summary *out)
{
	uint64_t count = 0;
	size_t b;

	for (b = 0; b < n; b++)
		count += hist[b];
	*out = (struct latency_summary){ .count = count };
	if (!count)
		return;
	out->min = min;
	out->max = max;
	out->p50 = latency_quantile(hist, n, count, 0.5, min, max);
	out->p90 = latency_quantile(hist, n, count, 0.9, min, max);
	out->p99 = latency_quantile(hist, n, count, 0.99, min, max);
	out->p999 = latency_quantile(hist, n, count, 0.999, min, max);
}

const char *latency_subject(const char *port, double share, int64_t pps, char *out,
			    size_t len)
{
	if (share > 0)
		snprintf(out, len, "%s@%g%%", port, share * 100);
	else
		snprintf(out, len, "%s@%lld", port, (long long)pps);
	return out;
}

json_t *latency_hist_json(const uint64_t *hist, size_t n)
{
	json_t *arr = json_array(), *row;
	size_t b;

	for (b = 0; arr && b < n; b++) {
		uint64_t lo = lat_bucket_low((uint32_t)b);

		if (!hist[b])
			continue;
		row = json_pack("[III]", (json_int_t)lo,
				(json_int_t)(lo + lat_bucket_width((uint32_t)b) - 1),
				(json_int_t)hist[b]);
		if (!row || json_array_append_new(arr, row)) {
			json_decref(arr);
			arr = NULL;
		}
	}
	if (!arr)
		errno = ENOMEM;
	return arr;
}

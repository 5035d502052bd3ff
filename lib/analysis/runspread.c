// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* runspread.c - see runspread.h. Sets pool their raw estimates (which may be negative:
 * within-run noise larger than the spread of the means) weighted by k - 1; only the
 * pooled value is clamped at 0. */
#include "analysis/runspread.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

/* A set's raw relative estimate (may be negative) into *RAW; false when the set cannot
 * give one (no runs, means around 0 but not all 0). */
static bool set_raw(const struct runspread_run *r, size_t k, double *raw)
{
	double m = 0, ss = 0, within = 0;
	size_t i;

	if (k < 1)
		return false;
	for (i = 0; i < k; i++)
		m += r[i].mean;
	m /= (double)k;
	if (!isfinite(m))
		return false;
	if (m == 0) {
		/* every run 0 (a port that receives nothing): no spread at all */
		for (i = 0; i < k; i++)
			if (r[i].mean != 0)
				return false;
		*raw = 0;
		return true;
	}
	if (k < 2) {
		*raw = 0;
		return true;
	}
	for (i = 0; i < k; i++) {
		double d = r[i].mean / m - 1;

		ss += d * d;
		/* a run of one value has no variance of its own: it adds none (the
		 * estimate is then on the high side) */
		if (r[i].n >= 2 && isfinite(r[i].var))
			within += r[i].var / (double)r[i].n / (m * m);
	}
	*raw = ss / (double)(k - 1) - within / (double)k;
	return true;
}

void runspread_add_set(struct runspread *acc, const struct runspread_run *r, size_t k)
{
	double raw, sum;

	if (!set_raw(r, k, &raw))
		return;
	sum = acc->raw * acc->df + raw * (double)(k - 1);
	acc->df += (double)(k - 1);
	acc->runs += k;
	acc->raw = acc->df > 0 ? sum / acc->df : 0;
	acc->rel_var = acc->raw > 0 ? acc->raw : 0;
	acc->known = acc->runs >= RUNSPREAD_MIN_RUNS && acc->df >= 1;
}

int runspread_parse_pct(const char *text, double *assumed)
{
	char *end;
	double pct = strtod(text, &end);

	if (*end || end == text || !(pct >= 0 && pct < 1000))
		return -EINVAL;
	*assumed = pct == 0 ? -1 : pct / 100;
	return 0;
}

// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* costslice.c - see costslice.h. */
#include "costslice.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int costslice_init(struct costslice *s, int n, const struct progstats *first)
{
	int i;

	memset(s, 0, sizeof(*s));
	s->n = n;
	s->last = calloc(n ? n : 1, sizeof(*s->last));
	s->second_min = calloc(n ? n : 1, sizeof(*s->second_min));
	s->window_min = calloc(n ? n : 1, sizeof(*s->window_min));
	s->used = calloc(n ? n : 1, sizeof(*s->used));
	if (!s->last || !s->second_min || !s->window_min || !s->used) {
		costslice_release(s);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		s->last[i] = first[i];
		s->second_min[i] = NAN;
		s->window_min[i] = NAN;
	}
	return 0;
}

void costslice_release(struct costslice *s)
{
	free(s->last);
	free(s->second_min);
	free(s->window_min);
	free(s->used);
	memset(s, 0, sizeof(*s));
}

/* fmin() that treats NAN as "none yet" */
static double lowest(double have, double v)
{
	return isnan(have) || v < have ? v : have;
}

void costslice_add(struct costslice *s, const struct progstats *now)
{
	int i;

	s->slices++;
	for (i = 0; i < s->n; i++) {
		uint64_t runs = now[i].run_cnt - s->last[i].run_cnt;
		uint64_t ns = now[i].run_time_ns - s->last[i].run_time_ns;

		/* counters only grow; a program reloaded under the same fd cannot happen
		 * within a job, but a decrease must not turn into a huge unsigned delta */
		if (runs && now[i].run_cnt > s->last[i].run_cnt &&
		    now[i].run_time_ns >= s->last[i].run_time_ns) {
			double per_run = (double)ns / (double)runs;

			s->second_min[i] = lowest(s->second_min[i], per_run);
			s->window_min[i] = lowest(s->window_min[i], per_run);
			s->used[i]++;
		}
		s->last[i] = now[i];
	}
}

double costslice_take_second(struct costslice *s, int i)
{
	double v = s->second_min[i];

	s->second_min[i] = NAN;
	return v;
}

double costslice_window(const struct costslice *s, int i)
{
	return s->window_min[i];
}

// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* gen.c - what the generators share (gen.h): the common start of their _new(), and the
 * pacing of a rate-controlled sending thread. */
#include "gen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base/util.h"

#define GEN_PACE_MAX_SLEEP_NS 10000000ULL	/* 10 ms: how late a stop may be seen */

void *gen_alloc(size_t size, int threads, int flows, bool bad, const char *usage,
		struct err *err)
{
	void *gen;

	if (bad || threads < 1 || threads > GEN_MAX_THREADS || flows < 1 ||
	    flows > GEN_MAX_FLOWS) {
		err_at(err, NULL, 0, 0, "%s", usage);
		errno = EINVAL;
		return NULL;
	}
	gen = calloc(1, size);
	if (!gen) {
		err_set(err, "out of memory");
		errno = ENOMEM;
	}
	return gen;
}

uint64_t gen_thread_rate(uint64_t rate, int threads, int idx)
{
	if (threads < 1)
		return rate;
	return rate / (uint64_t)threads + ((uint64_t)idx < rate % (uint64_t)threads);
}

void gen_pace_init(struct gen_pace *p, uint64_t rate, int threads, int idx, uint64_t min_batch)
{
	uint64_t r = gen_thread_rate(rate, threads, idx), burst;

	p->on = rate > 0;
	if (!p->on)
		return;
	if (r < 1)
		r = 1;
	burst = r / 5 > 1 ? r / 5 : 1;	/* 200 ms: a call held up longer loses frames */
	p->min = r / 1000 > min_batch ? r / 1000 : min_batch;
	if (p->min < 1)
		p->min = 1;
	if (p->min > burst)
		burst = p->min;
	p->start_ns = util_mono_ns();
	p->take_ns = p->start_ns;
	tbucket_init(&p->tb, r, burst, (uint64_t)p->start_ns);
}

uint64_t gen_pace_next(struct gen_pace *p, uint64_t max)
{
	uint64_t now, n, wait;
	struct timespec ts;

	if (!p->on)
		return max;
	now = (uint64_t)util_mono_ns();
	n = tbucket_take(&p->tb, now, p->min < max ? p->min : max, max);
	if (n) {
		p->take_ns = (int64_t)now;
		return n;
	}
	wait = tbucket_wait_ns(&p->tb, now, p->min < max ? p->min : max);
	if (wait > GEN_PACE_MAX_SLEEP_NS)
		wait = GEN_PACE_MAX_SLEEP_NS;
	ts.tv_sec = (time_t)(wait / 1000000000ULL);
	ts.tv_nsec = (long)(wait % 1000000000ULL);
	nanosleep(&ts, NULL);	/* a signal (xdpgen's stop) cuts it short */
	return 0;
}

void gen_paced_add(struct gen_paced *d, const struct gen_pace *p, uint64_t n)
{
	if (!d->owed_ns)
		*d = (struct gen_paced){ .start_ns = p->start_ns };
	d->frames += n;
	d->owed_ns = p->take_ns;
}

double gen_paced_rate(const struct gen_paced *d, int n, int64_t min_span_ns)
{
	double rate = 0;
	int i;

	for (i = 0; i < n; i++) {
		if (!d[i].owed_ns || d[i].owed_ns <= d[i].start_ns ||
		    d[i].owed_ns - d[i].start_ns < min_span_ns)
			return -1;
		rate += (double)d[i].frames / ((double)(d[i].owed_ns - d[i].start_ns) / 1e9);
	}
	return n > 0 ? rate : -1;
}

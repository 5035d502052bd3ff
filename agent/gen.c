// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* gen.c - what the generators share (gen.h): the common start of their _new(), and the
 * pacing of a rate-controlled sending thread. */
#include "gen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "base/util.h"

#define GEN_PACE_MAX_SLEEP_NS 10000000ULL	/* 10 ms: how late a stop may be seen */
/* auto: a burst of at most 200 us of frames (at least 1): a NIC's ring of 256-4096
 * descriptors holds 25-400 us at 10 Mpps; a host that needs more to hold the rate is
 * one the generator cannot pace on (its shortfall makes the trial generator-bound) */
#define GEN_PACE_AUTO_MAX_NS 200000ULL

void *gen_alloc(size_t size, int threads, int flows, bool bad, const char *usage, char *err,
		size_t err_len)
{
	void *gen;

	if (bad || threads < 1 || threads > GEN_MAX_THREADS || flows < 1 ||
	    flows > GEN_MAX_FLOWS) {
		snprintf(err, err_len, "%s", usage);
		errno = EINVAL;
		return NULL;
	}
	gen = calloc(1, size);
	if (!gen) {
		snprintf(err, err_len, "out of memory");
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

/* The bucket holds BURST (clamped to 1..max) and a frame more: what is owed above one
 * burst spills, a fraction of a frame carried over a take does not. */
static void set_burst(struct gen_pace *p, uint64_t b)
{
	b = b < 1 ? 1 : b > p->max_burst ? p->max_burst : b;
	if (b == p->burst)
		return;
	p->burst = b;
	tbucket_set_burst(&p->tb, b + 1);
}

/* A running mean (1/8 of each new sample, the first taken whole) of SAMPLE into *MEAN,
 * a sample above 4x the mean counted as 4x (one preemption of 10 ms would otherwise make
 * every later burst large). */
static void mean_add(int64_t *mean, int64_t sample)
{
	if (sample < 0)
		sample = 0;
	if (!*mean) {
		*mean = sample ? sample : 1;
		return;
	}
	if (sample > 4 * *mean)
		sample = 4 * *mean;
	*mean += (sample - *mean) / 8;
	if (*mean < 1)
		*mean = 1;
}

/* A running 95th percentile of the samples in *HI: up by 19 steps for a sample above it,
 * down by one for one below (it settles where 1 in 20 is above), a step 1/128 of it
 * (at least 100 ns). Lateness and calls have long tails on a busy host: a burst that
 * covered their maximum would be a storm, one that covers their mean loses frames at
 * every other wake-up. */
static void high_add(int64_t *hi, int64_t sample)
{
	int64_t step = *hi / 128 > 100 ? *hi / 128 : 100;

	*hi += sample > *hi ? 19 * step : -step;
	if (*hi < 0)
		*hi = 0;
}

/* auto: the burst that covers twice what a call and a wake-up at the 95th percentile
 * of their times leave to send at the thread's rate, 1..max and at most
 * GEN_PACE_AUTO_MAX_NS of frames (the bucket's frame more, set_burst, carries the rest) */
static void auto_burst(struct gen_pace *p)
{
	uint64_t b = (uint64_t)((2.0 * (double)(p->call_hi + p->late_hi) * (double)p->rate +
				 1e9 - 1) / 1e9);
	uint64_t most = p->rate * GEN_PACE_AUTO_MAX_NS / 1000000000ULL;

	if (b > most)
		b = most;

	set_burst(p, b);
}

void gen_pace_init(struct gen_pace *p, uint64_t rate, int threads, int idx, uint64_t burst,
		   uint64_t max_burst)
{
	uint64_t r = gen_thread_rate(rate, threads, idx);

	memset(p, 0, sizeof(*p));
	p->on = rate > 0;
	if (!p->on)
		return;
	/* sleeps end within 1 us of their time, not the default 50 us (per thread) */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	p->rate = r < 1 ? 1 : r;
	p->max_burst = max_burst < 1 ? 1 : max_burst;
	p->auto_burst = !burst;
	p->start_ns = util_mono_ns();
	p->take_ns = p->start_ns;
	tbucket_init(&p->tb, p->rate, 1, (uint64_t)p->start_ns);
	set_burst(p, burst ? burst : 1);
}

uint64_t gen_pace_next(struct gen_pace *p, uint64_t max)
{
	uint64_t now, n, wait;
	struct timespec ts;
	int64_t woke;

	if (!p->on)
		return max;
	now = (uint64_t)util_mono_ns();
	if (p->auto_burst && p->taken) {	/* the call since the last take */
		high_add(&p->call_hi, (int64_t)now - p->take_ns);
		auto_burst(p);
	}
	p->taken = false;
	n = tbucket_take(&p->tb, now, 1, p->burst < max ? p->burst : max);
	if (n) {
		p->take_ns = (int64_t)now;
		p->taken = true;
		if (n > p->max_taken)
			p->max_taken = n;
		return n;
	}
	/* wake up when the next frame is due, less the usual lateness */
	wait = tbucket_wait_ns(&p->tb, now, 1);
	if (wait > (uint64_t)p->late_ns + 1000)
		wait -= (uint64_t)p->late_ns;
	if (wait > GEN_PACE_MAX_SLEEP_NS)
		wait = GEN_PACE_MAX_SLEEP_NS;
	ts.tv_sec = (time_t)(wait / 1000000000ULL);
	ts.tv_nsec = (long)(wait % 1000000000ULL);
	/* a signal (xdpgen's stop) cuts it short: no lateness then */
	if (!nanosleep(&ts, NULL)) {
		woke = util_mono_ns();
		mean_add(&p->late_ns, woke - (int64_t)(now + wait));
		high_add(&p->late_hi, woke - (int64_t)(now + wait));
		if (p->auto_burst)
			auto_burst(p);
	}
	return 0;
}

uint64_t gen_pace_shortfall(const struct gen_pace *p)
{
	return p->on ? p->tb.spilled : 0;
}

void gen_pace_stats_of(const struct gen_pace *p, struct gen_pace_stats *s)
{
	*s = (struct gen_pace_stats){
		.burst = p->on ? p->max_taken : 0, .shortfall = gen_pace_shortfall(p),
		.auto_burst = p->auto_burst,
	};
}

int gen_pace_stats_sum(const struct gen_pace_stats *in, int n, struct gen_pace_stats *out)
{
	int i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++) {
		if (in[i].burst > out->burst)
			out->burst = in[i].burst;
		out->shortfall += in[i].shortfall;
		out->auto_burst |= in[i].auto_burst;
	}
	return out->burst ? 0 : -ENOENT;
}

int gen_pace_stats_locked(pthread_mutex_t *lock, const struct gen_pace_stats *in, int n,
			  struct gen_pace_stats *out)
{
	int err;

	pthread_mutex_lock(lock);
	err = gen_pace_stats_sum(in, n, out);
	pthread_mutex_unlock(lock);
	return err;
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

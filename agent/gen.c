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
#include "genboost.h"

#define GEN_PACE_MAX_SLEEP_NS 10000000LL	/* 10 ms: how late a stop may be seen */

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

/* A running mean (1/8 of each new sample, the first taken whole) of SAMPLE into *MEAN,
 * a sample above 4x the mean counted as 4x (one preemption of 10 ms would otherwise make
 * every later spin long). */
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

/* The frames of NS nanoseconds at RATE frames/s, rounded up. */
static uint64_t frames_in(uint64_t rate, int64_t ns)
{
	return (uint64_t)(((unsigned __int128)rate * (uint64_t)ns + 999999999ULL) /
			  1000000000ULL);
}

void gen_pace_init_at(struct gen_pace *p, uint64_t rate, int threads, int idx,
		      uint64_t burst, uint64_t max_burst, int64_t now_ns)
{
	uint64_t r = gen_thread_rate(rate, threads, idx), most = max_burst < 1 ? 1 : max_burst;

	memset(p, 0, sizeof(*p));
	p->on = rate > 0;
	if (!p->on)
		return;
	p->rate = r < 1 ? 1 : r;
	p->auto_burst = !burst;
	p->per = frames_in(p->rate, GEN_PACE_INTERVAL_NS);
	if (p->per > most)
		p->per = most;
	p->burst = burst ? burst : frames_in(p->rate, GEN_PACE_AUTO_CAP_NS);
	if (p->burst < p->per && !burst)
		p->burst = p->per;
	if (p->burst > most)
		p->burst = most;
	if (p->per > p->burst)
		p->per = p->burst;
	p->held_min_ns = (int64_t)((unsigned __int128)p->burst * 1000000000ULL / p->rate);
	if (p->held_min_ns < GEN_PACE_HELD_NS)
		p->held_min_ns = GEN_PACE_HELD_NS;
	p->start_ns = now_ns;
	p->take_ns = now_ns;
	p->mark_ns = now_ns;
	tbucket_init(&p->tb, p->rate, p->burst + 1, (uint64_t)now_ns);
}

void gen_pace_init(struct gen_pace *p, uint64_t rate, int threads, int idx, uint64_t burst,
		   uint64_t max_burst)
{
	/* sleeps end within 1 us of their time, not the default 50 us (per thread) */
	if (rate)
		prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	gen_pace_init_at(p, rate, threads, idx, burst, max_burst, util_mono_ns());
	p->rt = rate && genboost_thread();
}

void gen_pace_slept(struct gen_pace *p, int64_t ns)
{
	p->slept_ns += ns;
	p->busy_ns = 0;
}

/* The gap from the last take to NOW_NS: a hold-up, with what spilled over it, or the
 * thread's own time (and its frames' mean cost); a thread in the real-time class that
 * ran GENBOOST_FLAT_NS of its own behind its deadlines back to the fair class
 * (genboost.h). */
static void pace_account(struct gen_pace *p, int64_t now_ns)
{
	int64_t own = now_ns - p->mark_ns - p->slept_ns;

	if (own > p->held_min_ns && p->frame_ns &&
	    own > GEN_PACE_HELD_FACTOR * (int64_t)p->last_n * p->frame_ns) {
		p->held_n++;
		p->held_ns += own;
		p->held += p->tb.spilled - p->mark_spilled;
	} else if (own > 0) {
		p->busy_ns += own;
		if (p->last_n)
			mean_add(&p->frame_ns, own / (int64_t)p->last_n);
	}
	p->mark_ns = now_ns;
	p->mark_spilled = p->tb.spilled;
	p->slept_ns = 0;
	if (p->rt && p->busy_ns > GENBOOST_FLAT_NS) {
		genboost_thread_off();
		p->rt = false;
	}
}

int64_t gen_pace_deadline(struct gen_pace *p, int64_t now_ns)
{
	return now_ns + (int64_t)tbucket_wait_ns(&p->tb, (uint64_t)now_ns, p->per);
}

uint64_t gen_pace_take(struct gen_pace *p, int64_t now_ns, uint64_t max)
{
	uint64_t n = tbucket_take(&p->tb, (uint64_t)now_ns, 1, p->burst < max ? p->burst : max);

	pace_account(p, now_ns);
	p->last_n = n;
	if (n) {
		p->take_ns = now_ns;
		if (n > p->max_taken)
			p->max_taken = n;
	}
	return n;
}

/* Sleep until AT_NS (monotonic, absolute): 0, or -1 when a signal cut it short. */
static int sleep_until(int64_t at_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(at_ns / 1000000000LL),
			       .tv_nsec = (long)(at_ns % 1000000000LL) };

	return clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ? -1 : 0;
}

uint64_t gen_pace_next(struct gen_pace *p, uint64_t max)
{
	int64_t now, due, wake, margin;

	if (!p->on)
		return max;
	now = util_mono_ns();
	due = gen_pace_deadline(p, now);
	if (due > now) {
		p->busy_ns = 0;		/* ahead of its deadline: keeping its rate */
		/* sleep to the usual lateness before the deadline, spin the rest */
		margin = p->late_ns < GEN_PACE_INTERVAL_NS / 4 ? p->late_ns :
			 GEN_PACE_INTERVAL_NS / 4;
		wake = due - margin;
		if (wake - now > GEN_PACE_MAX_SLEEP_NS) {
			gen_pace_slept(p, GEN_PACE_MAX_SLEEP_NS);
			sleep_until(now + GEN_PACE_MAX_SLEEP_NS);
			return 0;
		}
		if (wake > now) {
			gen_pace_slept(p, wake - now);
			/* a signal (xdpgen's stop) cuts it short: no lateness then */
			if (sleep_until(wake))
				return 0;
			now = util_mono_ns();
			mean_add(&p->late_ns, now - wake);
		}
		while (now < due)
			now = util_mono_ns();
	}
	return gen_pace_take(p, now, max);
}

uint64_t gen_pace_shortfall(const struct gen_pace *p)
{
	return p->on ? p->tb.spilled : 0;
}

void gen_pace_stats_of(const struct gen_pace *p, struct gen_pace_stats *s)
{
	*s = (struct gen_pace_stats){
		.burst = p->on ? p->max_taken : 0, .shortfall = gen_pace_shortfall(p),
		.auto_burst = p->auto_burst, .held = p->held, .held_n = p->held_n,
		.held_ns = p->held_ns,
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
		out->held += in[i].held;
		out->held_n += in[i].held_n;
		out->held_ns += in[i].held_ns;
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

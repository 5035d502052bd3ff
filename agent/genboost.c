// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* genboost.c - see genboost.h. */
#include "genboost.h"

#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "base/log.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool seen;		/* a paced thread started since the last genboost_seen() */
static bool seen_fifo;		/* the last one ran in SCHED_FIFO */
static bool seen_demoted;	/* one went back to SCHED_OTHER, flat out */

bool genboost_thread(void)
{
	struct sched_param sp = { .sched_priority = GENBOOST_RT_PRIO };
	int e = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);

	if (e)
		pr_debug("genboost: cannot run the paced thread in SCHED_FIFO %d: %s",
			 GENBOOST_RT_PRIO, strerror(e));
	pthread_mutex_lock(&lock);
	seen = true;
	seen_fifo = !e;
	pthread_mutex_unlock(&lock);
	return !e;
}

void genboost_thread_off(void)
{
	struct sched_param sp = { .sched_priority = 0 };

	pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
	pthread_mutex_lock(&lock);
	seen_demoted = true;
	pthread_mutex_unlock(&lock);
}

int genboost_seen(bool *fifo, bool *demoted)
{
	int r;

	pthread_mutex_lock(&lock);
	r = seen;
	*fifo = seen_fifo;
	*demoted = seen_demoted;
	seen = false;
	seen_demoted = false;
	pthread_mutex_unlock(&lock);
	return r;
}

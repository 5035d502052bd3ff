// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* genboost.c - see genboost.h. */
#include "genboost.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>

#include "base/log.h"

#define AUTOGROUP "/proc/self/autogroup"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int users;		/* genboost_get()s not yet put */
static bool boosted;		/* the autogroup is at GENBOOST_NICE by us */
static int saved_nice;		/* what it was before */
static bool seen;		/* a get since the last genboost_seen() */
static int seen_nice;		/* the nice it ran at, INT_MIN: no autogroup */

/* The autogroup's nice into *NICE ("/autogroup-N nice V"): 0, or -1 without one. */
static int read_nice(int *nice)
{
	FILE *f = fopen(AUTOGROUP, "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%*s nice %d", nice) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

/* Set the autogroup's nice to V: 0, or -1 (errno set; EPERM without CAP_SYS_NICE). */
static int write_nice(int v)
{
	FILE *f = fopen(AUTOGROUP, "w");
	int bad;

	if (!f)
		return -1;
	bad = fprintf(f, "%d\n", v) < 0;
	bad |= fclose(f) != 0;
	return bad ? -1 : 0;
}

bool genboost_get(void)
{
	bool on;

	pthread_mutex_lock(&lock);
	if (!users++ && !read_nice(&saved_nice) && saved_nice > GENBOOST_NICE) {
		boosted = !write_nice(GENBOOST_NICE);
		if (!boosted)
			pr_debug("genboost: cannot set %s to nice %d: %m (paced at nice %d)",
				 AUTOGROUP, GENBOOST_NICE, saved_nice);
	}
	on = boosted;
	seen = true;
	if (read_nice(&seen_nice))
		seen_nice = INT_MIN;
	pthread_mutex_unlock(&lock);
	return on;
}

int genboost_seen(int *nice)
{
	int r;

	pthread_mutex_lock(&lock);
	r = seen;
	*nice = seen_nice;
	seen = false;
	pthread_mutex_unlock(&lock);
	return r;
}

void genboost_put(void)
{
	pthread_mutex_lock(&lock);
	if (users > 0 && !--users && boosted) {
		if (write_nice(saved_nice))
			pr_warn("genboost: cannot set %s back to nice %d: %m", AUTOGROUP,
				saved_nice);
		boosted = false;
	}
	pthread_mutex_unlock(&lock);
}

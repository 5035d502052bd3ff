// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* repeat.c - see repeat.h. The repetition controller's decision for one variant. */
#include "analysis/repeat.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/stats.h"

static const char *const excluded_verdicts[] = { "disturbed", "warmup", NULL };

bool repeat_verdict_excluded(const char *name)
{
	int i;

	for (i = 0; name && excluded_verdicts[i]; i++)
		if (!strcmp(name, excluded_verdicts[i]))
			return true;
	return false;
}

int repeat_policy_from_spec(const json_t *spec, int fixed, struct repeat_policy *p)
{
	const json_t *r = json_object_get(spec, "repeat");

	memset(p, 0, sizeof(*p));
	if (!r) {
		p->min = fixed > 0 ? fixed : 1;
		p->max = 2 * p->min;
		return 0;
	}
	if (!json_is_object(r) || !json_is_integer(json_object_get(r, "min")) ||
	    !json_is_integer(json_object_get(r, "max")) ||
	    !json_is_number(json_object_get(r, "until")))
		return -EINVAL;
	p->min = (int)json_integer_value(json_object_get(r, "min"));
	p->max = (int)json_integer_value(json_object_get(r, "max"));
	p->until = json_number_value(json_object_get(r, "until"));
	p->on = json_object_get(r, "on");
	if (p->min < 1 || p->max < p->min || !(p->until > 0 && p->until < 1) ||
	    (p->on && !json_is_array(p->on)))
		return -EINVAL;
	return 0;
}

bool repeat_policy_on(const struct repeat_policy *p, const char *metric)
{
	size_t i;
	json_t *m;

	json_array_foreach(p->on, i, m)
		if (json_is_string(m) && !strcmp(json_string_value(m), metric))
			return true;
	return false;
}

const char *repeat_action_name(enum repeat_action a)
{
	switch (a) {
	case REPEAT_SETTLED: return "settled";
	case REPEAT_NOT_SETTLED: return "not settled";
	case REPEAT_STOP_FAILED: return "failed";
	case REPEAT_MORE: return "more";
	}
	return "?";
}

/* The widest relative CI half-width over the series of P->on into D (NAN, no metric
 * when none has one: all constant at zero, or fewer than 2 values). */
static void widest(const struct repeat_policy *p, const struct repeat_series *s, size_t n,
		   struct repeat_decision *d)
{
	size_t i;

	for (i = 0; i < n; i++) {
		double hw;

		if (!repeat_policy_on(p, s[i].metric))
			continue;
		hw = stats_mean_ci_rel_halfwidth(s[i].v, s[i].n, REPEAT_ALPHA);
		if (isnan(hw))
			continue;
		if (isnan(d->halfwidth) || hw > d->halfwidth) {
			d->halfwidth = hw;
			d->metric = s[i].metric;
			d->subject = s[i].subject;
		}
	}
}

/* "prog.ns_per_run of 'xdp_drop'" for the widest series of D, into BUF. */
static const char *series_name(const struct repeat_decision *d, char *buf, size_t len)
{
	if (d->subject && d->subject[0])
		snprintf(buf, len, "%s of '%s'", d->metric, d->subject);
	else
		snprintf(buf, len, "%s", d->metric);
	return buf;
}

void repeat_decide(const struct repeat_policy *p, const struct repeat_state *st,
		   const struct repeat_series *s, size_t n, struct repeat_decision *d)
{
	int uncounted = st->total - st->counted - st->failed;
	char what[160];

	memset(d, 0, sizeof(*d));
	d->halfwidth = NAN;
	if (st->failed) {
		d->action = REPEAT_STOP_FAILED;
		return;
	}
	if (p->until > 0)
		widest(p, s, n, d);
	if (st->counted < p->min) {
		if (st->total >= p->max) {
			d->action = REPEAT_NOT_SETTLED;
			snprintf(d->why, sizeof(d->why),
				 "%d of %d repetitions did not count (disturbed) and max %d is reached",
				 uncounted, st->total, p->max);
			return;
		}
		d->action = REPEAT_MORE;
		snprintf(d->why, sizeof(d->why),
			 "%d of %d repetitions did not count (disturbed): %d counted, min %d",
			 uncounted, st->total, st->counted, p->min);
		return;
	}
	if (p->until <= 0) {
		d->action = REPEAT_SETTLED;
		return;
	}
	if (st->counted < 2) {
		/* one value has no interval: settled only if it has to be (min 1, max 1) */
		d->action = st->total >= p->max ? REPEAT_NOT_SETTLED : REPEAT_MORE;
		snprintf(d->why, sizeof(d->why), "one value has no confidence interval");
		return;
	}
	if (isnan(d->halfwidth) || d->halfwidth <= p->until) {
		d->action = REPEAT_SETTLED;
		return;
	}
	if (st->total >= p->max) {
		d->action = REPEAT_NOT_SETTLED;
		snprintf(d->why, sizeof(d->why),
			 "%s: 95 %% CI +-%.2f %% after %d repetitions, not within %.2f %%",
			 series_name(d, what, sizeof(what)), 100 * d->halfwidth, st->total,
			 100 * p->until);
		return;
	}
	d->action = REPEAT_MORE;
	snprintf(d->why, sizeof(d->why), "%s: 95 %% CI +-%.2f %% > %.2f %% after %d repetitions",
		 series_name(d, what, sizeof(what)), 100 * d->halfwidth, 100 * p->until,
		 st->counted);
}

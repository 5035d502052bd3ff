// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* bisect_judge.c - see bisect.h. What `bpflab bisect run` decides for one kernel against
 * a stored baseline: its mark, its outcome and exit status for `git bisect run`, how many
 * more values to ask for, what the comparison could resolve, and whether a sample is one
 * variant and one subject. Pure, no I/O; the session engine is lib/analysis/bisect.c.
 */
#include "analysis/bisect.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

enum bisect_mark bisect_judge(const double *baseline, size_t n_base, const double *current,
			      size_t n_cur, enum stats_kind kind, double min_effect,
			      enum compare_direction dir, struct compare_result *cmp)
{
	COMPARE_OPTS(o, .min_effect = min_effect, .direction = dir);
	struct compare_result r;

	if (!n_base || !n_cur ||
	    compare_samples(baseline, n_base, current, n_cur, kind, &o, &r))
		return BISECT_SKIP;
	if (cmp)
		*cmp = r;
	if (r.verdict == COMPARE_SAME)
		return BISECT_GOOD;
	if (r.verdict == COMPARE_DIFFERENT && r.change == COMPARE_CHANGE_WORSE)
		return BISECT_BAD;
	if (r.verdict == COMPARE_DIFFERENT && r.change == COMPARE_CHANGE_BETTER)
		return BISECT_GOOD;
	return BISECT_SKIP;
}

int bisect_run_exit(enum bisect_outcome o)
{
	switch (o) {
	case BISECT_OUT_GOOD: return 0;
	case BISECT_OUT_BAD: return 1;
	case BISECT_OUT_UNKNOWN:
	case BISECT_OUT_UNTESTABLE: return BISECT_EXIT_SKIP;
	case BISECT_OUT_USAGE: return BISECT_EXIT_USAGE;
	case BISECT_OUT_FAILED: break;
	}
	return BISECT_EXIT_FAILED;
}

const char *bisect_outcome_name(enum bisect_outcome o)
{
	static const char *const names[] = {
		[BISECT_OUT_GOOD] = "good", [BISECT_OUT_BAD] = "bad",
		[BISECT_OUT_UNKNOWN] = "cannot tell", [BISECT_OUT_UNTESTABLE] = "cannot test",
		[BISECT_OUT_USAGE] = "usage", [BISECT_OUT_FAILED] = "failed",
	};

	return (unsigned int)o < sizeof(names) / sizeof(names[0]) ? names[o] : "failed";
}

unsigned int bisect_run_more(const struct compare_result *r, size_t n_have,
			     unsigned int max_reps)
{
	unsigned int more;

	if (r->verdict != COMPARE_UNKNOWN || n_have >= max_reps)
		return 0;
	more = r->more_reps < 3 ? 3 : r->more_reps;
	return more > max_reps - n_have ? (unsigned int)(max_reps - n_have) : more;
}

void bisect_resolution_of(const struct compare_result *r, double alpha,
			  struct bisect_resolution *out)
{
	double var;

	*out = (struct bisect_resolution){ .n_a = r->n_a, .n_b = r->n_b, .cv = NAN,
					   .mde = NAN };
	if (r->n_a < 2 || r->n_b < 2 || !isfinite(r->mean_a) || r->mean_a == 0)
		return;
	var = ((r->n_a - 1) * r->stddev_a * r->stddev_a +
	       (r->n_b - 1) * r->stddev_b * r->stddev_b) / (double)(r->n_a + r->n_b - 2);
	out->cv = sqrt(var) / fabs(r->mean_a);
	out->mde = stats_min_detectable_effect(r->n_a, r->n_b, out->cv,
					       alpha > 0 ? alpha : 0.05, 0.8);
}

const char *bisect_resolution_text(const struct bisect_resolution *res, char *out,
				   size_t len)
{
	if (!res->n_a || isnan(res->mde))
		snprintf(out, len, "%s", "");
	else
		snprintf(out, len, "with %zu + %zu values at %.2g %% CV the smallest change this "
			 "can see is about %.2g %%", res->n_a, res->n_b, 100 * res->cv,
			 100 * res->mde);
	return out;
}

/* The distinct names of the N at NAMES (NULLs not counted) as "'a', 'b'" into LIST;
 * returns their count. */
static size_t distinct(const char *const *names, size_t n, char *list, size_t len)
{
	size_t i, j, count = 0, used = 0;

	*list = '\0';
	for (i = 0; i < n; i++) {
		if (!names[i])
			continue;
		for (j = 0; j < i && (!names[j] || strcmp(names[j], names[i])); j++)
			;
		if (j < i)
			continue;
		count++;
		if (used < len)
			used += snprintf(list + used, len - used, "%s'%s'", count > 1 ? ", " : "",
					 names[i]);
	}
	return count;
}

int bisect_sample_check(const char *const *variants, const char *const *subjects,
			size_t n, struct err *err)
{
	const char *const *names[2] = { variants, subjects };
	static const char *const what[2] = { "variant", "subject" };
	char list[256];
	size_t count;
	int i;

	for (i = 0; i < 2; i++) {
		if (!names[i])
			continue;
		count = distinct(names[i], n, list, sizeof(list));
		if (count > 1) {
			return err_at(err, NULL, 0, 0, "values of %zu %ss (%s): choose one with "
				      "--%s", count, what[i], list, what[i]);
		}
	}
	return 0;
}

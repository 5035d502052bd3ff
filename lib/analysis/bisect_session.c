// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* bisect_session.c - a stored bisect session and its engine (bisect_session.h): replay
 * of the steps, and the annotations of `bisect status -j` and `bisect log -j`.
 */
#include "analysis/bisect_session.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "analysis/stats.h"
#include "base/jget.h"

int bisect_session_kernel(const json_t *kernels, const char *name)
{
	const json_t *v;
	size_t i;

	json_array_foreach(kernels, i, v)
		if (json_string_value(v) && !strcmp(json_string_value(v), name))
			return (int)i;
	return -1;
}

struct bisect *bisect_session_replay(const json_t *ses)
{
	const json_t *kernels = json_object_get(ses, "kernels"), *opts = json_object_get(ses, "opts");
	const char *names[1024];
	struct bisect *b;
	json_t *s, *v;
	size_t i, k, n = json_array_size(kernels);
	BISECT_OPTS(o, .kind = (enum stats_kind)json_integer_value(json_object_get(opts, "kind")),
		    .reps = (unsigned int)json_integer_value(json_object_get(opts, "reps")),
		    .max_reps = (unsigned int)json_integer_value(json_object_get(opts, "max_reps")),
		    .min_effect = json_number_value(json_object_get(opts, "min_effect")));

	if (n > 1024) {
		errno = EINVAL;
		return NULL;
	}
	for (i = 0; i < n; i++)
		names[i] = json_string_value(json_array_get(kernels, i));
	b = bisect_new(names, (int)n, bisect_session_kernel(kernels, jget_str(ses, "good", "")),
		       bisect_session_kernel(kernels, jget_str(ses, "bad", "")), &o);
	if (!b)
		return NULL;
	json_array_foreach(json_object_get(ses, "steps"), i, s) {
		json_t *vals = json_object_get(s, "values");
		double d[1024];
		size_t m = 0;

		json_array_foreach(vals, k, v)
			if (m < 1024)
				d[m++] = json_number_value(v);
		if (bisect_record(b, bisect_session_kernel(kernels, jget_str(s, "kernel", "")), d, m)) {
			bisect_destroy(&b);
			errno = EINVAL;
			return NULL;
		}
	}
	return b;
}

void bisect_session_annotate_steps(json_t *ses, const struct bisect *b)
{
	json_t *s;
	size_t i;

	json_array_foreach(json_object_get(ses, "steps"), i, s) {
		const struct bisect_step *st = bisect_step(b, (int)i);

		if (json_is_object(s))
			json_object_set_new(s, "min_detectable_pct", st && !isnan(st->res.mde) ?
					    json_real(100 * st->res.mde) : json_null());
	}
}

int bisect_session_status(json_t *ses, const struct bisect *b)
{
	struct bisect_action a;

	bisect_next(b, &a);
	if (json_object_set_new(ses, "engine_state", json_string(bisect_state_name(a.state))) ||
	    json_object_set_new(ses, "next", a.kernel >= 0 ?
				json_string(bisect_kernel(b, a.kernel)) : json_null()) ||
	    json_object_set_new(ses, "measured", json_integer(bisect_n_measured(b))))
		return -ENOMEM;
	bisect_session_annotate_steps(ses, b);
	return 0;
}

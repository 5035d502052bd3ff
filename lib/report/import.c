// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* import.c - see import.h. bpftool snapshots and CSV into store_import objects.
 * Called by cli/result_analysis.c (`bpflab result import`).
 */
#include "report/import.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

static json_t *find_prog(const json_t *progs, json_int_t id)
{
	json_t *p;
	size_t i;

	json_array_foreach(progs, i, p)
		if (json_is_integer(json_object_get(p, "id")) &&
		    json_integer_value(json_object_get(p, "id")) == id)
			return p;
	return NULL;
}

/* Whether SNAP (an array) is a snapshot this file can use: no program id twice and no
 * negative counter (the kernel's are unsigned; bpftool prints them as they are). Returns
 * 0 or -EINVAL with ERR naming WHICH ("before"/"after") of SOURCE. */
static int check_snapshot(const json_t *snap, const char *which, const char *source,
			  struct err *err)
{
	static const char *const counters[] = { "run_cnt", "run_time_ns" };
	json_t *p, *q;
	size_t i, k;

	json_array_foreach(snap, i, p) {
		json_int_t id = json_integer_value(json_object_get(p, "id"));

		for (k = 0; k < 2; k++)
			if (json_integer_value(json_object_get(p, counters[k])) < 0)
				return err_ret(err, -EINVAL, "%s: %s snapshot: "
						   "program id %lld has a negative %s", source,
						   which, (long long)id, counters[k]);
		if (!json_is_integer(json_object_get(p, "id")))
			continue;
		json_array_foreach(snap, k, q) {
			if (k >= i)
				break;
			if (json_is_integer(json_object_get(q, "id")) &&
			    json_integer_value(json_object_get(q, "id")) == id)
				return err_ret(err, -EINVAL, "%s: %s snapshot: "
						   "program id %lld appears twice", source, which,
						   (long long)id);
		}
	}
	return 0;
}

json_t *import_bpftool(const json_t *before, const json_t *after, const char *plan,
		       const char *variant, const char *source, struct err *err)
{
	json_t *samples = json_array(), *out = NULL, *p, *q;
	size_t i;
	int e = 0;

	if (!json_is_array(before) || !json_is_array(after)) {
		e = err_ret(err, -EINVAL, "%s: expected the JSON array of "
			   "'bpftool -j prog show'", source);
		goto out;
	}
	e = check_snapshot(before, "before", source, err);
	if (!e)
		e = check_snapshot(after, "after", source, err);
	if (e)
		goto out;
	json_array_foreach(after, i, p) {
		json_int_t id = json_integer_value(json_object_get(p, "id"));
		json_int_t cnt = json_integer_value(json_object_get(p, "run_cnt"));
		json_int_t ns = json_integer_value(json_object_get(p, "run_time_ns"));
		const char *name = json_string_value(json_object_get(p, "name"));
		json_int_t cnt0 = 0, ns0 = 0;

		if (!json_is_integer(json_object_get(p, "id")))
			continue;	/* not a program of a snapshot */
		q = find_prog(before, id);
		if (q) {
			const char *n0 = json_string_value(json_object_get(q, "name"));

			if (strcmp(name ? name : "", n0 ? n0 : ""))
				continue;	/* the id was reused by another program */
			cnt0 = json_integer_value(json_object_get(q, "run_cnt"));
			ns0 = json_integer_value(json_object_get(q, "run_time_ns"));
		}
		if (!name || !*name || cnt <= cnt0)
			continue;
		if (ns < ns0) {
			e = err_ret(err, -EINVAL, "%s: program id %lld '%s': run_cnt "
					"grew but run_time_ns went down", source, (long long)id,
					name);
			goto out;
		}
		if (json_array_append_new(samples, json_pack("{s:s, s:s, s:f, s:s, s:s}",
				"metric", "prog.ns_per_run", "subject", name,
				"value", (double)(ns - ns0) / (double)(cnt - cnt0),
				"unit", "ns", "window", "cost"))) {
			e = err_ret(err, -ENOMEM, "out of memory");
			goto out;
		}
	}
	if (!json_array_size(samples)) {
		e = err_ret(err, -EINVAL, "%s: no program ran between the two snapshots "
			   "(is kernel.bpf_stats_enabled on?)", source);
		goto out;
	}
	out = json_pack("{s:s, s:s, s:[{s:s, s:i, s:O}]}", "plan", plan, "source", source,
			"jobs", "variant", variant, "rep", 1, "samples", samples);
	if (!out)
		e = err_ret(err, -ENOMEM, "out of memory");
out:
	json_decref(samples);
	if (e)
		errno = -e;
	return out;
}

/* Trim spaces around S in place. */
static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

json_t *import_csv(const char *text, size_t len, const char *plan, const char *metric,
		   const char *unit, const char *source, struct err *err)
{
	json_t *jobs = json_array(), *sets = json_object(), *reps = json_object(), *out = NULL;
	json_t *seen = json_object(), *job;
	char *copy = NULL, *line, *next, *f[5], *end;
	int lineno = 0, e = 0, nf;
	size_t n_values = 0;

	/* the whole text first: a NUL byte would end the lines early, silently */
	e = util_text_check(text, len, source, err);
	if (e)
		goto out;
	copy = len ? strndup(text, len) : strdup("");

	if (!metric)
		metric = "prog.ns_per_run";
	if (!unit)
		unit = !strcmp(metric, "prog.ns_per_run") ? "ns" : "";
	if (!copy || !jobs || !sets || !reps || !seen) {
		e = err_ret(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (line = copy; line && *line; line = next) {
		char *key, *p;
		double v;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		line = trim(line);
		if (!*line || *line == '#')
			continue;
		for (nf = 0, p = line; nf < 5 && p; nf++) {
			f[nf] = p;
			p = strchr(p, ',');
			if (p)
				*p++ = '\0';
			f[nf] = trim(f[nf]);
		}
		if (nf != 4) {
			e = err_ret(err, -EINVAL, "%s:%d: expected 4 fields "
				   "variant,prog,set,value, got %d", source, lineno, nf);
			goto out;
		}
		if (lineno == 1 && !strcmp(f[0], "variant"))
			continue;
		v = strtod(f[3], &end);
		if (!*f[0] || !*f[3] || *end || !isfinite(v)) {
			e = err_ret(err, -EINVAL, "%s:%d: '%s' is not a number", source,
				   lineno, f[3]);
			goto out;
		}
		if (v < 0) {	/* times and counts, never below 0 */
			e = err_ret(err, -EINVAL, "%s:%d: value '%s' is negative",
					source, lineno, f[3]);
			goto out;
		}
		/* one value per program and set: a second would be lost or refused later */
		if (asprintf(&key, "%s\n%s\n%s", f[0], f[2], f[1]) < 0) {
			e = err_ret(err, -ENOMEM, "out of memory");
			goto out;
		}
		if (json_object_get(seen, key)) {
			e = err_ret(err, -EINVAL, "%s:%d: program '%s' of variant '%s' "
					"has a value in set '%s' already (line %lld)", source,
					lineno, f[1], f[0], f[2],
					(long long)json_integer_value(json_object_get(seen, key)));
			free(key);
			goto out;
		}
		if (json_object_set_new(seen, key, json_integer(lineno))) {
			free(key);
			e = err_ret(err, -ENOMEM, "out of memory");
			goto out;
		}
		free(key);
		/* a field holds no newline: "VARIANT\nSET" names one set */
		if (asprintf(&key, "%s\n%s", f[0], f[2]) < 0) {
			e = err_ret(err, -ENOMEM, "out of memory");
			goto out;
		}
		job = json_object_get(sets, key);
		if (!job) {
			/* the variant's sets so far (a counting walk over the jobs was
			 * quadratic: 100000 sets took minutes) */
			json_int_t rep = json_integer_value(json_object_get(reps, f[0])) + 1;
			bool ok;

			job = json_pack("{s:s, s:I, s:[]}", "variant", f[0], "rep", rep, "samples");
			ok = job && !json_object_set(sets, key, job) &&
			     !json_object_set_new(reps, f[0], json_integer(rep));
			if (!ok)
				json_decref(job);
			if (!ok || json_array_append_new(jobs, job)) {
				free(key);
				e = err_ret(err, -ENOMEM, "out of memory");
				goto out;
			}
		}
		free(key);
		if (json_array_append_new(json_object_get(job, "samples"),
					  json_pack("{s:s, s:s, s:f, s:s}", "metric", metric,
						    "subject", f[1], "value", v, "unit", unit))) {
			e = err_ret(err, -ENOMEM, "out of memory");
			goto out;
		}
		n_values++;
	}
	if (!n_values) {
		e = err_ret(err, -EINVAL, "%s: no values", source);
		goto out;
	}
	out = json_pack("{s:s, s:s, s:O}", "plan", plan, "source", source, "jobs", jobs);
	if (!out)
		e = err_ret(err, -ENOMEM, "out of memory");
out:
	free(copy);
	json_decref(jobs);
	json_decref(sets);
	json_decref(reps);
	json_decref(seen);
	if (e)
		errno = -e;
	return out;
}

/* import.c - see import.h. bpftool snapshots and CSV into store_import objects.
 * Called by cli/result_analysis.c (`bpflab result import`).
 */
#include "import.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static json_t *find_prog(const json_t *progs, json_int_t id)
{
	json_t *p;
	size_t i;

	json_array_foreach(progs, i, p)
		if (json_integer_value(json_object_get(p, "id")) == id)
			return p;
	return NULL;
}

json_t *import_bpftool(const json_t *before, const json_t *after, const char *plan,
		       const char *variant, const char *source, char *err, size_t err_len)
{
	json_t *samples = json_array(), *out = NULL, *p, *q;
	size_t i;
	int e = 0;

	if (!json_is_array(before) || !json_is_array(after)) {
		e = util_seterr(err, err_len, -EINVAL, "%s: expected the JSON array of "
			   "'bpftool -j prog show'", source);
		goto out;
	}
	json_array_foreach(after, i, p) {
		json_int_t id = json_integer_value(json_object_get(p, "id"));
		json_int_t cnt = json_integer_value(json_object_get(p, "run_cnt"));
		json_int_t ns = json_integer_value(json_object_get(p, "run_time_ns"));
		const char *name = json_string_value(json_object_get(p, "name"));
		json_int_t cnt0 = 0, ns0 = 0;

		q = find_prog(before, id);
		if (q) {
			const char *n0 = json_string_value(json_object_get(q, "name"));

			if (name && n0 && strcmp(name, n0))
				continue;	/* the id was reused by another program */
			cnt0 = json_integer_value(json_object_get(q, "run_cnt"));
			ns0 = json_integer_value(json_object_get(q, "run_time_ns"));
		}
		if (!name || cnt <= cnt0)
			continue;
		if (json_array_append_new(samples, json_pack("{s:s, s:s, s:f, s:s, s:s}",
				"metric", "prog.ns_per_run", "subject", name,
				"value", (double)(ns - ns0) / (double)(cnt - cnt0),
				"unit", "ns", "window", "cost"))) {
			e = util_seterr(err, err_len, -ENOMEM, "out of memory");
			goto out;
		}
	}
	if (!json_array_size(samples)) {
		e = util_seterr(err, err_len, -EINVAL, "%s: no program ran between the two snapshots "
			   "(is kernel.bpf_stats_enabled on?)", source);
		goto out;
	}
	out = json_pack("{s:s, s:s, s:[{s:s, s:i, s:O}]}", "plan", plan, "source", source,
			"jobs", "variant", variant, "rep", 1, "samples", samples);
	if (!out)
		e = util_seterr(err, err_len, -ENOMEM, "out of memory");
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

json_t *import_csv(const char *text, const char *plan, const char *metric, const char *unit,
		   const char *source, char *err, size_t err_len)
{
	json_t *jobs = json_array(), *sets = json_object(), *out = NULL, *job;
	char *copy = strdup(text ? text : ""), *line, *next, *f[5], *end;
	int lineno = 0, e = 0, nf;
	size_t n_values = 0;

	if (!metric)
		metric = "prog.ns_per_run";
	if (!unit)
		unit = !strcmp(metric, "prog.ns_per_run") ? "ns" : "";
	if (!copy || !jobs || !sets) {
		e = util_seterr(err, err_len, -ENOMEM, "out of memory");
		goto out;
	}
	for (line = copy; line && *line; line = next) {
		char key[512], *p;
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
			e = util_seterr(err, err_len, -EINVAL, "%s:%d: expected 4 fields "
				   "variant,prog,set,value, got %d", source, lineno, nf);
			goto out;
		}
		if (lineno == 1 && !strcmp(f[0], "variant"))
			continue;
		v = strtod(f[3], &end);
		if (!*f[0] || !*f[3] || *end || !isfinite(v)) {
			e = util_seterr(err, err_len, -EINVAL, "%s:%d: '%s' is not a number", source,
				   lineno, f[3]);
			goto out;
		}
		snprintf(key, sizeof(key), "%s\n%s", f[0], f[2]);
		job = json_object_get(sets, key);
		if (!job) {
			json_int_t rep = 1;
			json_t *j;
			size_t i;

			json_array_foreach(jobs, i, j)
				rep += !strcmp(json_string_value(json_object_get(j, "variant")), f[0]);
			job = json_pack("{s:s, s:I, s:[]}", "variant", f[0], "rep", rep, "samples");
			if (!job || json_object_set(sets, key, job) || json_array_append_new(jobs, job)) {
				e = util_seterr(err, err_len, -ENOMEM, "out of memory");
				goto out;
			}
		}
		if (json_array_append_new(json_object_get(job, "samples"),
					  json_pack("{s:s, s:s, s:f, s:s}", "metric", metric,
						    "subject", f[1], "value", v, "unit", unit))) {
			e = util_seterr(err, err_len, -ENOMEM, "out of memory");
			goto out;
		}
		n_values++;
	}
	if (!n_values) {
		e = util_seterr(err, err_len, -EINVAL, "%s: no values", source);
		goto out;
	}
	out = json_pack("{s:s, s:s, s:O}", "plan", plan, "source", source, "jobs", jobs);
	if (!out)
		e = util_seterr(err, err_len, -ENOMEM, "out of memory");
out:
	free(copy);
	json_decref(jobs);
	json_decref(sets);
	if (e)
		errno = -e;
	return out;
}

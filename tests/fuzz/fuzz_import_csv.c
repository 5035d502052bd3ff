// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* fuzz_import_csv.c - libFuzzer target for `bpflab result import FILE.csv`
 * (import_csv() in lib/report/import.c).
 *
 * The input is the CSV text (as util_read_file() hands it over: NUL-terminated). Checked
 * beyond "no crash":
 *  - an accepted file gives what store_import() needs: a non-empty "jobs" array, every
 *    job a non-empty variant, a rep >= 1 and samples with metric, finite value, unit;
 *  - every value line becomes exactly one sample and every distinct (variant, set) one
 *    job (counted here independently: lines that are not blank, not '#' comments, not
 *    the header);
 *  - the reps of one variant are 1, 2, ... in order;
 *  - what store_import() would refuse is refused here, with the line: no program twice
 *    in one job (set), no negative value;
 *  - round trip: writing the jobs back as CSV (variant,prog,rep,%.17g) and importing that
 *    gives the same object;
 *  - a refusal says why and names the file.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Field I of LINE (LEN bytes), trimmed as the parser trims, into OUT (malloc'ed). */
static char *field(const char *line, size_t len, int i)
{
	const char *p = line, *end = line + len, *c;

	while (i-- > 0) {
		c = memchr(p, ',', (size_t)(end - p));
		p = c ? c + 1 : end;
	}
	c = memchr(p, ',', (size_t)(end - p));
	if (c)
		end = c;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	return strndup(p, (size_t)(end - p));
}

/* The value lines of TEXT, counted the way the format says (import.h), and the number of
 * distinct (variant, set) pairs among them (each is one job). */
static void count_values(const char *text, size_t *values, size_t *sets)
{
	const char *line = text;
	char **keys = NULL;
	size_t n = 0, n_keys = 0, i;
	int lineno = 0;

	while (*line) {
		const char *end = strchr(line, '\n');
		size_t len, lead;
		char *v, *s, *key;

		if (!end)
			end = line + strlen(line);
		len = (size_t)(end - line);
		lineno++;
		lead = strspn(line, " \t");
		v = field(line, len, 0);
		if (!v)
			abort();
		if (strspn(line, " \t\r") < len && line[lead] != '#' &&
		    !(lineno == 1 && !strcmp(v, "variant"))) {
			n++;
			s = field(line, len, 2);
			if (!s || asprintf(&key, "%s,%s", v, s) < 0)
				abort();
			free(s);
			for (i = 0; i < n_keys && strcmp(keys[i], key); i++)
				;
			if (i == n_keys) {
				keys = realloc(keys, (n_keys + 1) * sizeof(*keys));
				if (!keys)
					abort();
				keys[n_keys++] = key;
			} else {
				free(key);
			}
		}
		free(v);
		line = *end ? end + 1 : end;
	}
	for (i = 0; i < n_keys; i++)
		free(keys[i]);
	free(keys);
	*values = n;
	*sets = n_keys;
}

/* The import IMP written back as CSV. */
static char *to_csv(const json_t *imp)
{
	const json_t *job, *smp;
	size_t i, k, len = 0;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		abort();
	fputs("variant,prog,set,value\n", f);
	json_array_foreach(json_object_get(imp, "jobs"), i, job)
		json_array_foreach(json_object_get(job, "samples"), k, smp)
			fprintf(f, "%s,%s,%lld,%.17g\n",
				json_string_value(json_object_get(job, "variant")),
				json_string_value(json_object_get(smp, "subject")),
				(long long)json_integer_value(json_object_get(job, "rep")),
				json_real_value(json_object_get(smp, "value")));
	if (fclose(f))
		abort();
	return buf;
}

static void check(const json_t *imp, size_t expect, size_t expect_jobs)
{
	const json_t *jobs = json_object_get(imp, "jobs"), *job, *smp, *other;
	size_t i, j, k, n = 0;

	if (!json_is_array(jobs) || json_array_size(jobs) != expect_jobs)
		abort();
	json_array_foreach(jobs, i, job) {
		const char *v = json_string_value(json_object_get(job, "variant"));
		json_int_t rep = json_integer_value(json_object_get(job, "rep")), before = 0;

		if (!v || !*v || rep < 1 || !json_array_size(json_object_get(job, "samples")))
			abort();
		for (k = 0; k < i; k++) {
			other = json_array_get(jobs, k);
			before += !strcmp(v, json_string_value(json_object_get(other, "variant")));
		}
		if (rep != before + 1)
			abort();
		json_array_foreach(json_object_get(job, "samples"), k, smp) {
			const char *m = json_string_value(json_object_get(smp, "metric"));

			if (!m || !*m || !json_is_real(json_object_get(smp, "value")) ||
			    !isfinite(json_real_value(json_object_get(smp, "value"))) ||
			    !json_is_string(json_object_get(smp, "subject")) ||
			    !json_is_string(json_object_get(smp, "unit")))
				abort();
			if (json_real_value(json_object_get(smp, "value")) < 0)
				abort();
			json_array_foreach(json_object_get(job, "samples"), j, other)
				if (j < k && !strcmp(json_string_value(json_object_get(other, "subject")),
						     json_string_value(json_object_get(smp, "subject"))))
					abort();
			n++;
		}
	}
	if (n != expect)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct err err;
	char *text = malloc(size + 1), *csv;
	json_t *imp, *again;
	size_t values, sets;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	imp = import_csv(text, size, "fuzz", NULL, NULL, "fuzz.csv", &err);
	if (!imp) {
		if (strncmp(err.msg, "fuzz.csv", 8))
			abort();
		goto out;
	}
	count_values(text, &values, &sets);
	check(imp, values, sets);
	csv = to_csv(imp);
	again = import_csv(csv, strlen(csv), "fuzz", NULL, NULL, "fuzz.csv", &err);
	if (!again || !json_equal(again, imp))
		abort();
	json_decref(again);
	free(csv);
	json_decref(imp);
out:
	free(text);
	return 0;
}

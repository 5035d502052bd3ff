// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* fuzz_import_bpftool.c - libFuzzer target for `bpflab result import --before A.json
 * --after B.json` (import_bpftool() in lib/report/import.c).
 *
 * The input is two `bpftool -j prog show` snapshots, the one before and the one after,
 * separated by a line "--8<--"; each is parsed as the CLI does (json_load_file with
 * JSON_DECODE_ANY, so any JSON value). Checked beyond "no crash" (and UBSan: the counter
 * arithmetic):
 *  - an accepted pair gives one job of the variant with samples that store_import()
 *    takes: metric prog.ns_per_run, a non-empty subject, a finite value >= 0 (a cost
 *    per run), unit ns, window cost;
 *  - every sample's subject is the name of a program of the after snapshot;
 *  - the same snapshot twice is always refused: nothing ran in between;
 *  - a refusal says why and names the source.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/import.h"

#define SEP "--8<--\n"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool in_after(const json_t *after, const char *name)
{
	const json_t *p;
	size_t i;

	json_array_foreach(after, i, p)
		if (!strcmp(json_string_value(json_object_get(p, "name")) ?: "", name))
			return true;
	return false;
}

static void check(const json_t *imp, const json_t *after)
{
	const json_t *jobs = json_object_get(imp, "jobs"), *job = json_array_get(jobs, 0), *s;
	size_t i;

	if (json_array_size(jobs) != 1 ||
	    strcmp(json_string_value(json_object_get(job, "variant")) ?: "", "v") ||
	    json_integer_value(json_object_get(job, "rep")) != 1 ||
	    !json_array_size(json_object_get(job, "samples")))
		abort();
	json_array_foreach(json_object_get(job, "samples"), i, s) {
		const char *subject = json_string_value(json_object_get(s, "subject"));
		double v = json_real_value(json_object_get(s, "value"));

		if (strcmp(json_string_value(json_object_get(s, "metric")) ?: "",
			   "prog.ns_per_run") ||
		    strcmp(json_string_value(json_object_get(s, "unit")) ?: "", "ns") ||
		    strcmp(json_string_value(json_object_get(s, "window")) ?: "", "cost") ||
		    !subject || !*subject || !in_after(after, subject) ||
		    !json_is_real(json_object_get(s, "value")) || !isfinite(v) || v < 0)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sep = memmem(data, size, SEP, strlen(SEP));
	json_t *before, *after = NULL, *imp;
	struct err err;
	size_t n;

	if (!sep)
		return 0;
	n = (size_t)(sep - data);
	before = json_loadb((const char *)data, n, JSON_DECODE_ANY, NULL);
	if (before)
		after = json_loadb((const char *)sep + strlen(SEP), size - n - strlen(SEP),
				   JSON_DECODE_ANY, NULL);
	if (!after)
		goto out;
	imp = import_bpftool(before, after, "fuzz", "v", "b.json..a.json", &err);
	if (imp) {
		check(imp, after);
		json_decref(imp);
	} else if (strncmp(err.msg, "b.json..a.json", 14)) {
		abort();
	}
	imp = import_bpftool(after, after, "fuzz", "v", "a.json..a.json", &err);
	if (imp || strncmp(err.msg, "a.json..a.json", 14))
		abort();
out:
	json_decref(before);
	json_decref(after);
	return 0;
}

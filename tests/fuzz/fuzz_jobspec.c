// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* fuzz_jobspec.c - libFuzzer target for the job spec decoder and encoder (lib/plan/jobspec.c).
 *
 * The input is a JSON text (a spec object). A spec that decodes must encode, its
 * encoding must decode again, and encoding that gives the same bytes (encode -> decode
 * -> encode is byte-identical); a refusal must say where ("spec..."). The attach array
 * alone goes through jobspec_decode_attach() too. Any crash, leak or sanitizer report is
 * a bug. Seeds: tests/fuzz/corpus/jobspec/ (specs of the plans in plans/, and some that
 * are refused). Run by `make fuzz`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan/jobspec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *encoded(const struct job_spec *spec)
{
	json_t *j = jobspec_encode(spec);
	char *text;

	if (!j)
		abort();
	text = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	if (!text)
		abort();
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct job_spec spec, again;
	struct job_attach *attach;
	json_t *json, *back;
	json_error_t jerr;
	struct err why;
	char *one, *two;
	int n;

	json = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &jerr);
	if (!json)
		return 0;
	if (!jobspec_decode_attach(json_object_get(json, "attach"), &attach, &n, &why))
		jobspec_attach_free(attach, n);
	else if (strncmp(why.msg, "spec.attach", 11))
		abort();
	if (jobspec_decode(json, "spec", &spec, &why)) {
		if (strncmp(why.msg, "spec", 4))
			abort();
		json_decref(json);
		return 0;
	}
	one = encoded(&spec);
	back = json_loads(one, 0, &jerr);
	if (!back || jobspec_decode(back, "spec", &again, &why))
		abort();
	two = encoded(&again);
	if (strcmp(one, two))
		abort();
	jobspec_release(&again);
	jobspec_release(&spec);
	jobspec_release(&spec);		/* safe twice */
	json_decref(back);
	json_decref(json);
	free(one);
	free(two);
	return 0;
}

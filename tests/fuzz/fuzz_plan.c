// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* fuzz_plan.c - libFuzzer target for the plan parser (lib/plan/ files).
 *
 * The input is a plan text. A first line "#s KEY=VALUE" (a YAML comment, so the plan
 * text is unchanged) is also given as a -s override. A plan that parses is expanded when
 * its expansion is small (big ones are valid but slow, and the unit tests cover the
 * limit), its specs are serialised, and everything is freed: ASan's leak check runs at
 * exit of each input.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static long long expansion_size(const struct plan *p)
{
	long long n = (long long)p->repeat * p->n_variants;
	int i;

	for (i = 0; i < p->n_axes && n <= PLAN_MAX_JOBS; i++)
		n *= p->matrix[i].n_values;
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct plan_override ov = { 0 };
	struct plan_job *jobs = NULL;
	struct err err;
	struct plan *p;
	int n_ov = 0, n = 0, i;

	if (size > 3 && !memcmp(data, "#s ", 3)) {
		const uint8_t *nl = memchr(data, '\n', size);
		size_t len = nl ? (size_t)(nl - data) - 3 : size - 3;
		char *arg = malloc(len + 1);

		if (!arg)
			return 0;
		memcpy(arg, data + 3, len);
		arg[len] = '\0';
		if (strlen(arg) == len && !plan_override_parse(arg, &ov, &err))
			n_ov = 1;
		free(arg);
	}
	p = plan_parse("fuzz.yaml", (const char *)data, size, &ov, n_ov, &err);
	if (!p) {
		/* The message is always terminated and names the file. */
		if (strncmp(err.msg, "fuzz.yaml", 9) != 0)
			abort();
		goto out;
	}
	if (expansion_size(p) <= 2000 && !plan_expand(p, &jobs, &n, &err)) {
		for (i = 0; i < n; i++) {
			char *text = json_dumps(jobs[i].spec, JSON_COMPACT);

			if (!text)
				abort();
			free(text);
		}
		plan_jobs_free(jobs, n);
	}
	for (i = 0; i < p->n_variants; i++)
		(void)jobspec_hook_name(p->variants[i].attach[0].hook);
	plan_destroy(&p);
out:
	plan_override_release(&ov);
	return 0;
}

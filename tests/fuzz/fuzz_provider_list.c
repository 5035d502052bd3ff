// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* fuzz_provider_list.c - libFuzzer target for what a kernel provider prints for `list`
 * (provider_list_parse() in agent/provider.c over kernel_list_scan() of lib/base/kernel_list.c,
 * docs/agent.md "Kernel provider").
 *
 * The input is the command's stdout. Checked beyond "no crash":
 *  - an accepted list holds at most PROVIDER_MAX_KERNELS strings, each one that
 *    provider_release_ok() takes, no two the same, each the first word of an input line,
 *    in the order of the lines;
 *  - round trip: the list printed one a line parses to the same list;
 *  - a refusal names the command; an output with a NUL byte is refused whole.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "provider.h"

#define CMD "/fuzz/provider"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether WORD is the first word of a line of TEXT at or after *FROM; moves *FROM past it. */
static bool first_word_after(const char *text, size_t len, const char *word, size_t *from)
{
	size_t wl = strlen(word);

	while (*from < len) {
		const char *line = text + *from, *nl = memchr(line, '\n', len - *from);
		size_t ll = nl ? (size_t)(nl - line) : len - *from;
		size_t lead = 0;

		while (lead < ll && (line[lead] == ' ' || line[lead] == '\t'))
			lead++;
		*from += ll + 1;
		if (ll - lead >= wl && !memcmp(line + lead, word, wl) &&
		    (ll - lead == wl || strchr(" \t\r", line[lead + wl])))
			return true;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	json_t *kernels = json_array(), *again = json_array(), *k, *k2;
	char *again_text = NULL;
	struct err why;
	size_t i, j, from = 0, again_len = 0;
	FILE *f;

	if (!kernels || !again)
		abort();
	if (provider_list_parse(CMD, text, size, kernels, &why)) {
		if (!strstr(why.msg, "'" CMD "'"))
			abort();
		/* a NUL byte refuses the whole output: nothing was taken */
		if (memchr(text, '\0', size) && json_array_size(kernels))
			abort();
		goto out;
	}
	if (json_array_size(kernels) > PROVIDER_MAX_KERNELS || memchr(text, '\0', size))
		abort();
	f = open_memstream(&again_text, &again_len);
	if (!f)
		abort();
	json_array_foreach(kernels, i, k) {
		const char *r = json_string_value(k);

		if (!provider_release_ok(r) || !first_word_after(text, size, r, &from))
			abort();
		json_array_foreach(kernels, j, k2)
			if (j < i && !strcmp(r, json_string_value(k2)))
				abort();
		fprintf(f, "%s\n", r);
	}
	if (fclose(f))
		abort();
	if (provider_list_parse(CMD, again_text, again_len, again, &why) ||
	    !json_equal(again, kernels))
		abort();
out:
	free(again_text);
	json_decref(again);
	json_decref(kernels);
	return 0;
}

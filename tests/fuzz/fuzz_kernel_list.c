// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* fuzz_kernel_list.c - libFuzzer target for `bpflab bisect start --kernels FILE`
 * (kernel_list_parse() in lib/base/kernel_list.c, over the kernel_list_scan() that
 * agent/provider.c shares, docs/bisect.md).
 *
 * The input is the file. Checked beyond "no crash":
 *  - an accepted list holds at most KERNEL_LIST_MAX names, each 1..KERNEL_LIST_NAME_MAX
 *    printable ASCII bytes without '#', no two the same, each the first word of an input
 *    line, in the order of the lines;
 *  - round trip: the list printed one a line (with a comment) parses to the same list;
 *  - a refusal is "fuzz.txt:LINE: message".
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/kernel_list.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether WORD is the first word of a line of TEXT at or after *FROM; moves *FROM past it. */
static bool first_word_after(const char *text, size_t len, const char *word, size_t *from)
{
	size_t wl = strlen(word);

	while (*from < len) {
		const char *line = text + *from, *nl = memchr(line, '\n', len - *from);
		size_t ll = nl ? (size_t)(nl - line) : len - *from, lead = 0;

		while (lead < ll && (line[lead] == ' ' || line[lead] == '\t'))
			lead++;
		*from += ll + 1;
		if (ll - lead >= wl && !memcmp(line + lead, word, wl) &&
		    (ll - lead == wl || strchr(" \t\r#", line[lead + wl])))
			return true;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	json_t *kernels, *again, *k, *k2;
	struct err err = { 0 };
	char *out = NULL;
	size_t i, j, from = 0, out_len = 0;
	FILE *f;

	kernels = kernel_list_parse(text, size, "fuzz.txt", &err);
	if (!kernels) {
		if (strncmp(err.msg, "fuzz.txt:", 9) && strcmp(err.msg, "out of memory"))
			abort();
		return 0;
	}
	if (json_array_size(kernels) > KERNEL_LIST_MAX)
		abort();
	f = open_memstream(&out, &out_len);
	if (!f)
		abort();
	fputs("# oldest first\n", f);
	json_array_foreach(kernels, i, k) {
		const char *r = json_string_value(k);
		size_t n = json_string_length(k), c;

		if (!n || n > KERNEL_LIST_NAME_MAX || strlen(r) != n)
			abort();
		for (c = 0; c < n; c++)
			if (r[c] < 0x21 || r[c] > 0x7e || r[c] == '#')
				abort();
		if (!first_word_after(text, size, r, &from))
			abort();
		json_array_foreach(kernels, j, k2)
			if (j < i && !strcmp(r, json_string_value(k2)))
				abort();
		fprintf(f, "%s  # %zu\n", r, i);
	}
	if (fclose(f))
		abort();
	again = kernel_list_parse(out, out_len, "again.txt", &err);
	if (!again || !json_equal(again, kernels))
		abort();
	json_decref(again);
	free(out);
	json_decref(kernels);
	return 0;
}

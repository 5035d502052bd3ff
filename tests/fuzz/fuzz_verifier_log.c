// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* fuzz_verifier_log.c - libFuzzer target for the verifier log parser (agent/verifier_log.c):
 * the kernel writes the log, and its wording changes between releases.
 *
 * The input is one log, not NUL-terminated (the parser must stay within LEN). Checked
 * beyond "no crash": a parse that succeeds has its processed line; the tail is
 * NUL-terminated within its buffer, holds no control character and is what
 * verifier_log_tail() returned in length; a summary line built from the parsed figures
 * parses back to them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verifier_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *log = malloc(size ? size : 1);	/* exact size: ASan sees overreads */
	struct verifier_log_stats s, t;
	char tail[64], line[256];
	size_t n, i;
	int e;

	if (!log)
		return 0;
	memcpy(log, data, size);
	e = verifier_log_parse(log, size, &s);
	if ((e == 0) != s.has_processed)
		abort();
	n = verifier_log_tail(log, size, 3, tail, sizeof(tail));
	if (n >= sizeof(tail) || strlen(tail) != n)
		abort();
	for (i = 0; i < n; i++)
		if ((unsigned char)tail[i] < 0x20)
			abort();
	if (!e) {
		snprintf(line, sizeof(line), "processed %llu insns (limit %llu) "
			 "max_states_per_insn %llu total_states %llu peak_states %llu "
			 "mark_read %llu\n", (unsigned long long)s.processed_insns,
			 (unsigned long long)s.insn_limit,
			 (unsigned long long)s.max_states_per_insn,
			 (unsigned long long)s.total_states, (unsigned long long)s.peak_states,
			 (unsigned long long)s.mark_read);
		if (verifier_log_parse(line, strlen(line), &t) ||
		    t.processed_insns != s.processed_insns || t.total_states != s.total_states ||
		    t.peak_states != s.peak_states || t.insn_limit != s.insn_limit)
			abort();
	}
	free(log);
	return 0;
}

/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* verifier_log.h - the figures of a BPF verifier log (outside input: the kernel writes it,
 * its wording changes between releases).
 *
 * A program loaded with log level BPF_LOG_STATS (4) or 2 ends its log with
 *   verification time 24 usec
 *   stack depth 0
 *   processed 12 insns (limit 1000000) max_states_per_insn 0 total_states 1 peak_states 1 mark_read 0
 * (kernels 5.2+; "verification time" only with BPF_LOG_STATS). verifier_log_parse() takes
 * the last such lines of a log; verifier_log_tail() the last lines of a refused program's
 * log for an error message. Both read at most LEN bytes and stop at a NUL.
 */
#ifndef BPFLAB_AGENT_VERIFIER_LOG_H
#define BPFLAB_AGENT_VERIFIER_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* BPF_LOG_STATS of linux/bpf.h (kernels 5.2+) */
#define VERIFIER_LOG_STATS 4

struct verifier_log_stats {
	bool has_processed;		/* the "processed N insns ..." line was found */
	uint64_t processed_insns;
	uint64_t insn_limit;
	uint64_t max_states_per_insn;
	uint64_t total_states;
	uint64_t peak_states;
	uint64_t mark_read;
	bool has_time;			/* the "verification time X usec" line was found */
	uint64_t time_us;
};

/* Parse LOG (LEN bytes at most) into *OUT (zeroed first). Returns 0 when the processed
 * line was found, -ENOENT when not (OUT may still have the time). */
int verifier_log_parse(const char *log, size_t len, struct verifier_log_stats *out);

/* The last N_LINES non-empty lines of LOG (LEN bytes at most) into OUT (OUT_LEN bytes,
 * always NUL-terminated), joined by " | ", control characters as '?'. Returns the length
 * written. */
size_t verifier_log_tail(const char *log, size_t len, int n_lines, char *out, size_t out_len);

#endif

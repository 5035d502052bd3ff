/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* kernel_list.h - lists of kernel names, one a line: the file of candidate kernels of
 * `bpflab bisect start --kernels FILE` (docs/bisect.md) and what an agent's kernel
 * provider prints for `list` (agent/provider.c, docs/agent.md "Kernel provider"). One
 * scanner reads both; its options say where they differ.
 *
 * A line's first word is the name (leading blanks skipped; a space, tab or CR ends it);
 * blank lines are skipped, and so is the rest of a line after its first word.
 *
 * The --kernels file (kernel_list_parse): one kernel release or commit id a line, oldest
 * first; everything from a '#' on is a comment. A name is 1..KERNEL_LIST_NAME_MAX bytes
 * of printable ASCII (what `uname -r` and git print), listed once; at most
 * KERNEL_LIST_MAX names (what a bisect session holds).
 *
 * Pure, thread-safe.
 */
#ifndef BPFLAB_KERNEL_LIST_H
#define BPFLAB_KERNEL_LIST_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

#define KERNEL_LIST_MAX 1024
#define KERNEL_LIST_NAME_MAX 200
#define KERNEL_LIST_MAX_BYTES (1u << 20)	/* of a file */

/* How kernel_list_scan reads a list. */
struct kernel_list_opts {
	const char *what;	/* messages start "WHAT:LINE: ", or "WHAT: " */
	bool line_numbers;	/* name the line in messages */
	bool comments;		/* '#' starts a comment; else it is part of a word */
	bool drop_repeats;	/* a name listed again is dropped; else refused */
	/* whether the N bytes at S are a name (never a NUL among them); NULL:
	 * 1..KERNEL_LIST_NAME_MAX bytes of printable ASCII */
	bool (*name_ok)(const char *s, size_t n);
	const char *name_is;	/* what a name is, for the message of one that is not */
	size_t max_names;	/* in the array, with those there before */
	int too_many;		/* the -errno of one name more */
};

/* Append the names in the LEN bytes of TEXT (any bytes; no NUL needed at TEXT[LEN]),
 * read as OPTS says, to the array NAMES in line order; names already in NAMES count as
 * listed. Returns 0, or -errno with ERR ("WHAT:LINE: message", input): -EINVAL for a name that
 * is not one, a repeated name (unless dropped) or a NUL byte, OPTS->too_many for more
 * than OPTS->max_names names, -ENOMEM. The names of the lines before the one refused
 * stay appended. */
int kernel_list_scan(const char *text, size_t len, const struct kernel_list_opts *opts,
		     json_t *names, struct err *err);

/* The names in the LEN bytes of TEXT read from FILE (for messages): a new array of
 * strings in file order, or NULL with errno and ERR ("FILE:LINE: message"; EINVAL for a
 * bad or repeated name, a NUL byte, too many names; ENOMEM). An empty list is not an
 * error here (the caller needs two kernels and says so). */
json_t *kernel_list_parse(const char *text, size_t len, const char *file, struct err *err);

#endif

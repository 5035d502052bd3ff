/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* names.h - which of a table's names a typed word means: an exact name, else the one
 * name it is a prefix of (`bpflab res s 3`), never the first of several by table order
 * (iproute2's habit, which made adding a command a way to break scripts); and, for a
 * word that names nothing, the names it is a slip of ("did you mean").
 *
 * Used by cli/ for objects and commands; pure functions, no state.
 */
#ifndef BPFLAB_NAMES_H
#define BPFLAB_NAMES_H

#include <stddef.h>

#define NAMES_NONE (-1)		/* no name starts with the word */
#define NAMES_AMBIGUOUS (-2)	/* several do */

/* The index in NAMES (N of them) of the name WORD means: the one equal to it, else the
 * only one it is a prefix of; NAMES_NONE or NAMES_AMBIGUOUS. An empty word means none. */
int names_match(const char *const *names, size_t n, const char *word);

/* Into BUF (LEN bytes): the names WORD is a prefix of, "'run', 'result'" in table order
 * (ambiguous), or, when none, the names within a slip of it (Damerau-Levenshtein
 * distance 1, 2 for words of five letters or more) as "'show'". Returns how many names
 * were written (0: BUF is ""). */
size_t names_candidates(const char *const *names, size_t n, const char *word, char *buf,
			size_t len);

#endif

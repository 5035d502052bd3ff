// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* names.c - see names.h: prefix matching and "did you mean" over a table of names. */
#include "base/names.h"

#include <stdio.h>
#include <string.h>

int names_match(const char *const *names, size_t n, const char *word)
{
	size_t i, wl = strlen(word);
	int found = NAMES_NONE;

	if (!wl)
		return NAMES_NONE;
	for (i = 0; i < n; i++)
		if (!strcmp(names[i], word))
			return (int)i;
	for (i = 0; i < n; i++) {
		if (strncmp(names[i], word, wl))
			continue;
		if (found != NAMES_NONE)
			return NAMES_AMBIGUOUS;
		found = (int)i;
	}
	return found;
}

/* Optimal string alignment distance of A and B (edits, adjacent swaps), capped: words
 * longer than 31 bytes count as far. */
static int distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	int d[32][32], c, v;

	if (la > 31 || lb > 31)
		return 99;
	for (i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (i = 1; i <= la; i++)
		for (j = 1; j <= lb; j++) {
			c = a[i - 1] != b[j - 1];
			v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + c < v)
				v = d[i - 1][j - 1] + c;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

size_t names_candidates(const char *const *names, size_t n, const char *word, char *buf,
			size_t len)
{
	size_t i, wl = strlen(word), used = 0, count = 0;
	int pass, max = wl >= 5 ? 2 : 1;

	if (len)
		buf[0] = '\0';
	/* pass 0: names the word starts; pass 1 (when none): names it is a slip of */
	for (pass = 0; pass < 2 && !count; pass++)
		for (i = 0; i < n; i++) {
			int w;

			if (pass == 0 ? !wl || strncmp(names[i], word, wl)
				      : distance(names[i], word) > max)
				continue;
			w = snprintf(buf + used, len > used ? len - used : 0, "%s'%s'",
				     count ? ", " : "", names[i]);
			if (w < 0 || used + (size_t)w >= len) {
				if (len > used)
					buf[used] = '\0';
				break;
			}
			used += (size_t)w;
			count++;
		}
	return count;
}

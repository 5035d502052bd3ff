// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* vercmp.c - see vercmp.h. No state; any thread. */
#include <stdlib.h>

#include "base/vercmp.h"

/* The number at *P (0 when none), *P moved past it, its suffix and one '.'. */
static unsigned long long component(const char **p)
{
	unsigned long long v = 0;
	const char *s = *p;

	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (unsigned long long)(*s - '0');
		if (v > 1000000000ULL)
			v = 1000000000ULL;	/* saturate: no version has such a part */
		s++;
	}
	while (*s && *s != '.')
		s++;
	if (*s == '.')
		s++;
	*p = s;
	return v;
}

int vercmp(const char *a, const char *b)
{
	while (*a || *b) {
		unsigned long long x = component(&a), y = component(&b);

		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

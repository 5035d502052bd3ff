// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* paths.c - the directories a bpflab binary ships with, found from its own location
 * (paths.h). No state; safe from any thread.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/paths.h"
#include "base/util.h"

/* Relative to the directory above the executable's: the build tree's place first, then
 * the installed one (the Makefile's install target writes there). */
static const char *const places[][2] = {
	[PATHS_BPF] = { "bpf", "lib/bpflab/bpf" },
	[PATHS_PLANS] = { "../plans", "share/bpflab/plans" },
};

char *paths_find_from(const char *exe, enum paths_kind kind)
{
	char dir[PATH_MAX], try[PATH_MAX + 64];
	struct stat st;
	char *slash, *real;
	size_t i;

	if (!exe || (size_t)kind >= ARRAY_SIZE(places) || strlen(exe) >= sizeof(dir)) {
		errno = EINVAL;
		return NULL;
	}
	strcpy(dir, exe);
	slash = strrchr(dir, '/');
	if (!slash) {
		errno = EINVAL;
		return NULL;
	}
	*slash = '\0';
	for (i = 0; i < 2; i++) {
		snprintf(try, sizeof(try), "%s/../%s", dir, places[kind][i]);
		if (stat(try, &st) || !S_ISDIR(st.st_mode))
			continue;
		real = realpath(try, NULL);
		if (real)
			return real;
	}
	errno = ENOENT;
	return NULL;
}

char *paths_find(enum paths_kind kind)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	return paths_find_from(exe, kind);
}
